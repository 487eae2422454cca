/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plan of a run (see plan.h). */
#include "config.h"
#include "plan.h"
#include "backend.h"
#include "stop.h"
#include "target.h"
#include "util.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const void *mgb_plan_backend_params(const struct mgb_plan *p, const struct mgb_backend_ops *ops)
{
	for (size_t b = 0; mgb_backends[b] && b < MGB_PLAN_MAX; b++)
		if (mgb_backends[b] == ops)
			return p->backend_params[b];
	return NULL;
}

void mgb_plan_needs(const struct mgb_plan *p, struct mgb_plan_needs *n)
{
	memset(n, 0, sizeof(*n));
	for (unsigned i = 0; i < p->nbackends; i++) {
		struct mgb_serve_how how = mgb_backend_serve_how(p->backends[i], mgb_plan_backend_params(p, p->backends[i]));

		if (how.reach == MGB_REACH_LOCAL)
			continue;
		n->nfs = true;
		n->nfs_url = n->nfs_url ? n->nfs_url : how.url;
		n->knfsd |= how.knfsd;
		n->ganesha |= !how.knfsd;
		n->kernel_client |= how.kernel_client;
	}
	n->scratch = !p->dir && !n->nfs_url;
}

/* Filesystems in the plan: one target for --dir or a server someone else runs. */
static unsigned target_count(const struct mgb_plan *p)
{
	struct mgb_plan_needs n;

	mgb_plan_needs(p, &n);
	return n.scratch ? p->nfs : 1;
}

size_t mgb_plan_count(const struct mgb_plan *p)
{
	return (size_t)p->repeat * p->nworkloads * target_count(p) * p->nbackends;
}

void mgb_plan_cell(const struct mgb_plan *p, size_t i, struct mgb_cell_spec *spec)
{
	unsigned nt = target_count(p);
	size_t b = i % p->nbackends, f = i / p->nbackends % nt, w = i / p->nbackends / nt % p->nworkloads;
	size_t rep = i / p->nbackends / nt / p->nworkloads;
	struct mgb_plan_needs n;
	bool scratch;

	mgb_plan_needs(p, &n);
	scratch = n.scratch;
	*spec = (struct mgb_cell_spec){
		.workload = p->workloads[w],
		.params = p->params[w],
		.fs = scratch ? p->fs[f] : NULL,
		.dir = p->dir,
		.backend = p->backends[b],
		.backend_params = mgb_plan_backend_params(p, p->backends[b]),
		.rounds = p->rounds ? p->rounds : mgb_workload_default_rounds(p->workloads[w]),
		.repeat = (unsigned)rep,
	};
}

int mgb_plan_run(const struct mgb_plan *p, struct mgb_session *s, json_t *doc, const struct mgb_clockinfo *ci,
		 struct mgb_progress *progress)
{
	json_t *cells = json_object_get(doc, "cells");
	size_t n = mgb_plan_count(p);
	int rc = 0;

	for (size_t i = 0; i < n && !mgb_stop_requested(); i++) {
		struct mgb_cell_spec spec;
		json_t *cell;

		mgb_plan_cell(p, i, &spec);
		cell = mgb_run_cell(s, &spec, ci, progress);
		if (!strcmp(json_string_value(json_object_get(cell, "status")), "error")) {
			fprintf(stderr, "mgbench run: %s on %s via %s: %s\n", spec.workload->name,
				spec.fs ? spec.fs->name : p->dir ? p->dir : "url", spec.backend->name,
				json_string_value(json_object_get(cell, "error")));
			rc = 1;
		}
		json_array_append_new(cells, cell);
	}
	return rc;
}

void mgb_plan_free(struct mgb_plan *p)
{
	for (unsigned i = 0; i < p->nworkloads; i++)
		free(p->params[i]);
	for (unsigned i = 0; i < MGB_PLAN_MAX; i++)
		free(p->backend_params[i]);
	memset(p, 0, sizeof(*p));
}
