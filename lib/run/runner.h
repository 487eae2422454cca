/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running one cell of a plan: target up, probes, workload, probes, result, target down. */
#ifndef MGB_RUNNER_H
#define MGB_RUNNER_H

#include <jansson.h>

#include "backend.h"
#include "progress.h"
#include "target.h"
#include "workload.h"

struct mgb_cell_spec {
	const struct mgb_workload *workload;
	const void *params;
	const struct mgb_fs_type *fs;  /* scratch filesystem, or NULL for dir */
	const char *dir;               /* --dir PATH when fs is NULL */
	const struct mgb_backend_ops *backend;
	const void *backend_params; /* the backend's options, or NULL for its defaults */
	uint64_t rounds;
	unsigned repeat;
};

/*
 * Run one cell and return its JSON entry.  status is "ok", "error" (with "error": message) or
 * "interrupted"; the entry is always returned so a partial document stays complete.
 */
json_t *mgb_run_cell(struct mgb_session *s, const struct mgb_cell_spec *spec, const struct mgb_clockinfo *ci,
		     struct mgb_progress *progress);

#endif
