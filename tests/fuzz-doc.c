/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the document reader (`make fuzz`): whatever bytes a user hands compare,
 * report or plot must give a document or one error line, never a crash.  Inputs worth keeping
 * go to tests/fuzz-corpus/, which unit-doc reads back in every `make check`.
 */
#include "config.h"
#include "doc.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[MGB_ERR_LEN];
	json_t *doc = mgb_doc_parse("fuzz", (const char *)data, size, err);
	size_t i;
	json_t *cell;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		char *key = mgb_cell_key(cell, i % 2);

		free(key);
		(void)mgb_cell_backend(cell);
	}
	json_decref(doc);
	return 0;
}
