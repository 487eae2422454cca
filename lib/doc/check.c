/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "doc.h"
#include "check.h"

#include <stdbool.h>
#include <string.h>

/* Metrics that must be zero on a kernel that keeps its timestamp promises: any count above zero
 * is a kernel bug, never noise, so --check fails on it. */
static const char *const invariant_keys[] = {
	"backwards",         /* a stamp earlier than the previous one of the same inode */
	"future",            /* a stamp later than CLOCK_REALTIME read after the query */
	"above_after_fine",  /* statx06: a stamp later than the fine clock read after the change */
	"below_before",      /* statx06: a stamp earlier than the coarse clock read before it (LTP's failure) */
	"inversions",        /* ordering: a later change stamped earlier */
	NULL,
};

/* Booleans that must be true for the cell's numbers to mean anything. */
static const char *const must_be_true_keys[] = {
	"conclusive",        /* revalidate: enough fresh polls to judge */
	NULL,
};

static bool in_list(const char *const *list, const char *key)
{
	for (const char *const *k = list; *k; k++)
		if (!strcmp(*k, key))
			return true;
	return false;
}

static bool is_invariant(const char *key)
{
	return in_list(invariant_keys, key);
}

static unsigned walk(json_t *obj, char *path, size_t len, json_t *cell, FILE *out)
{
	const char *key;
	json_t *v;
	unsigned bad = 0;

	json_object_foreach(obj, key, v) {
		size_t n = strlen(path);

		snprintf(path + n, len - n, "%s%s", n ? "." : "", key);
		if (json_is_object(v)) {
			bad += walk(v, path, len, cell, out);
		} else if (in_list(must_be_true_keys, key) && json_is_false(v)) {
			fprintf(out, "mgbench: check failed: %s on %s via %s: %s = false\n",
				json_string_value(json_object_get(cell, "workload")),
				json_string_value(json_object_get(cell, "fs")),
				mgb_cell_backend(cell), path);
			bad++;
		} else if (is_invariant(key) && json_is_integer(v) && json_integer_value(v) > 0) {
			fprintf(out, "mgbench: check failed: %s on %s via %s: %s = %lld\n",
				json_string_value(json_object_get(cell, "workload")),
				json_string_value(json_object_get(cell, "fs")),
				mgb_cell_backend(cell), path,
				(long long)json_integer_value(v));
			bad++;
		}
		path[n] = '\0';
	}
	return bad;
}

unsigned mgb_check_document(json_t *doc, FILE *out)
{
	size_t i;
	json_t *cell;
	unsigned bad = 0;

	json_array_foreach(json_object_get(doc, "cells"), i, cell) {
		char path[256] = "";
		json_t *metrics = json_object_get(cell, "metrics");

		if (json_is_object(metrics))
			bad += walk(metrics, path, sizeof(path), cell, out);
	}
	return bad;
}
