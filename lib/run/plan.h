/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plan of a run: workloads x targets x backends x repeats, each cell a struct mgb_cell_spec
 * for the runner.  run builds it from its command line, and so (through run's arguments) do vm
 * in the guest, kernel bisect and ab; it is tested on its own without root (tests/unit-plan).
 */
#ifndef MGB_PLAN_H
#define MGB_PLAN_H

#include "runner.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MGB_PLAN_MAX 16 /* workloads (a sweep's values count), filesystems, backends */

struct mgb_plan {
	const struct mgb_workload *workloads[MGB_PLAN_MAX];
	void *params[MGB_PLAN_MAX];      /* each workload's parameters (malloc'd; a sweep: one each) */
	unsigned nworkloads;
	const struct mgb_fs_type *fs[MGB_PLAN_MAX];
	unsigned nfs;
	const struct mgb_backend_ops *backends[MGB_PLAN_MAX];
	unsigned nbackends;
	void *backend_params[MGB_PLAN_MAX]; /* per entry of mgb_backends[]: every backend's options */
	const char *dir;                 /* --dir, or NULL for scratch filesystems */
	uint64_t rounds;                 /* 0: each workload's default */
	uint64_t repeat;
};

/* What the plan's cells need from the machine, asked before anything runs. */
struct mgb_plan_needs {
	bool nfs;            /* a backend that reaches its target over NFS */
	const char *nfs_url; /* a server someone else runs (--nfs-url): the run's one target */
	bool knfsd;          /* an NFS backend served by the kernel's nfsd (--nfs-server knfsd) */
	bool ganesha;        /* an NFS backend served by the embedded nfs-ganesha */
	bool kernel_client;  /* an NFS backend through the kernel's client (nfs3-mount, nfs4-mount) */
	bool scratch;        /* scratch filesystems (no --dir, no --nfs-url) */
};

void mgb_plan_needs(const struct mgb_plan *p, struct mgb_plan_needs *n);
/* The options given for backend ops (the entry of backend_params that is its). */
const void *mgb_plan_backend_params(const struct mgb_plan *p, const struct mgb_backend_ops *ops);
/* How many cells, and the i-th in the order they run: repeats outermost, then workloads,
 * targets and backends. */
size_t mgb_plan_count(const struct mgb_plan *p);
void mgb_plan_cell(const struct mgb_plan *p, size_t i, struct mgb_cell_spec *spec);
/*
 * Run every cell (until a stop), each appended to doc's cells; a failed cell is said on stderr.
 * 0, or 1 when a cell failed (the exit status run gives).
 */
int mgb_plan_run(const struct mgb_plan *p, struct mgb_session *s, json_t *doc, const struct mgb_clockinfo *ci,
		 struct mgb_progress *progress);
/* Free the parameters (the tables it points into are static). */
void mgb_plan_free(struct mgb_plan *p);

#endif
