/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * make bench: what io_uring costs and saves against plain syscalls, per filesystem, beside what
 * fio itself gets from the same engines.
 *
 * For each of ext4, xfs, btrfs and tmpfs, the variants below run as separate mgbench runs and
 * the fio peers (bench/uring-peer.fio: psync, io_uring at depth 1 and 32, the same buffered 4 KiB
 * overwrites at offset 0, on a scratch filesystem of the same type) as fio runs, all interleaved
 * (variant 1, 2, ... then again) for REPEATS rounds so machine drift hits all alike; each one's
 * ops/s is the median of its repeats, its ratio is against the sync (psync) run of its group, and
 * the punted share is the writes' (or, for stat, all requests').  How much io_uring gains or loses
 * is the kernel's business; the harness's is not to lose more than the best peer does, so the
 * targets are peer-relative: mgbench's uring/sync ratio at least 0.90 of fio's io_uring/psync
 * ratio, at depth 1 and 32; on query-every, --link faster than unlinked uring (no peer stats).
 * Prints the table and MISSED lines (see bench.h for the exit status).
 */
#include "config.h"
#include "bench.h"
#include "stats.h"
#include "fio.h"
#include "target.h"
#include "util.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPEATS 3
#define MAX_ARGS 16

struct variant {
	const char *group; /* variants of one group share a sync baseline (the first) */
	const char *label;
	const char *workload;
	const char *metric;
	const char *args[MAX_ARGS];
	double ops[REPEATS], punted[REPEATS];
};

#define VARIANT(g, l, w, m, ...) { .group = g, .label = l, .workload = w, .metric = m, .args = { __VA_ARGS__ } }
static struct variant variants[] = {
	VARIANT("write --query none", "sync", "write", "writes_per_s", "--query", "none", "--rounds", "100000"),
	VARIANT("write --query none", "uring d1", "write", "writes_per_s", "--query", "none", "--rounds", "100000",
		"--backend", "uring"),
	VARIANT("write --query none", "uring d32", "write", "writes_per_s", "--query", "none", "--rounds", "100000",
		"--backend", "uring", "--depth", "32"),
	VARIANT("write --query every", "sync", "write", "writes_per_s", "--rounds", "30000"),
	VARIANT("write --query every", "uring", "write", "writes_per_s", "--rounds", "30000", "--backend", "uring"),
	VARIANT("write --query every", "uring link", "write", "writes_per_s", "--rounds", "30000", "--backend", "uring",
		"--link"),
	VARIANT("stat", "sync", "stat", "queries_per_s", "--rounds", "100000"),
	VARIANT("stat", "uring d32", "stat", "queries_per_s", "--rounds", "100000", "--backend", "uring", "--depth",
		"32"),
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

static const char *const filesystems[] = { "ext4", "xfs", "btrfs", "tmpfs" };

#define PEER_WRITES 100000 /* as many as the unqueried mgbench variants do */
struct peer {
	const char *label, *engine, *depth;
	double ops[REPEATS];
};
static struct peer peers[] = {
	{ .label = "fio psync", .engine = "psync", .depth = "1" },
	{ .label = "fio uring d1", .engine = "io_uring", .depth = "1" },
	{ .label = "fio uring d32", .engine = "io_uring", .depth = "32" },
};
#define NPEERS (sizeof(peers) / sizeof(peers[0]))

/* The repeats' median, v left in its order. */
static double median(const double *v)
{
	double s[REPEATS];

	memcpy(s, v, sizeof(s));
	return mgb_median(s, REPEATS);
}

/* One mgbench run of v on fs; fills its ops/s and punted share for repeat r, or exits 1. */
static void run_variant(const char *bin, struct variant *v, const char *fs, int r, const char *out)
{
	const char *argv[MAX_ARGS + 12] = { "mgbench", "run", v->workload, "--fs", fs, "-q", "-o", out };
	size_t n = 8;
	json_t *doc, *cell, *bm;
	int status;

	for (size_t i = 0; i < MAX_ARGS && v->args[i]; i++)
		argv[n++] = v->args[i];
	argv[n] = NULL;
	status = bench_mgbench(bin, argv, "-", NULL);
	if (status != 0) {
		fprintf(stderr, "bench-uring: %s %s on %s failed (status %d)\n", v->group, v->label, fs, status);
		exit(1);
	}
	doc = json_load_file(out, 0, NULL);
	cell = json_array_get(json_object_get(doc, "cells"), 0);
	bm = json_object_get(cell, "backend_metrics");
	v->ops[r] = json_number_value(json_object_get(json_object_get(cell, "metrics"), v->metric));
	if (json_object_get(bm, "writes_punted_ratio") && json_integer_value(json_object_get(bm, "writes")))
		v->punted[r] = json_number_value(json_object_get(bm, "writes_punted_ratio"));
	else if (json_is_number(json_object_get(bm, "punted_ratio")))
		v->punted[r] = json_number_value(json_object_get(bm, "punted_ratio"));
	else
		v->punted[r] = NAN;
	json_decref(doc);
	unlink(out);
}

/* One fio run of peer p in dir (a scratch filesystem of the cell's type); exits 1 if it fails. */
static void run_peer(const char *job, struct peer *p, const char *dir, const char *fs, int r)
{
	char file[4200], iosz[64], engine[64], depth[32], err[MGB_ERR_LEN];
	const char *env[] = { file, engine, depth, iosz, NULL };
	struct mgb_fio_result res;

	snprintf(file, sizeof(file), "MGB_FILE=%s/peer.dat", dir);
	snprintf(engine, sizeof(engine), "MGB_ENGINE=%s", p->engine);
	snprintf(depth, sizeof(depth), "MGB_DEPTH=%s", p->depth);
	snprintf(iosz, sizeof(iosz), "MGB_IO_SIZE=%llu", (unsigned long long)PEER_WRITES * 4096);
	if (mgb_fio_run(FIO_PATH, job, env, dir, &res, err) < 0) {
		fprintf(stderr, "bench-uring: %s on %s failed: %s\n", p->label, fs, err);
		exit(1);
	}
	p->ops[r] = res.write_iops;
	mgb_fio_result_free(&res);
}

static void print_row(const char *fs, const char *group, const char *label, double ops, double base,
		      const double *punted)
{
	printf("%-6s %-20s %-13s %10.0f %7.2f ", fs, group, label, ops, ops / base);
	if (!punted || isnan(punted[0]))
		printf("%7s\n", "-");
	else
		printf("%6.1f%%\n", 100 * median(punted));
}

/* mgbench's uring/sync ratio against fio's io_uring/psync ratio at the same depth. */
static int check_peer(const char *fs, const char *what, double mgb_ratio, double fio_ratio)
{
	printf("  %-6s %-52s %6.3f  (mgbench %.2f, fio %.2f)\n", fs, what, mgb_ratio / fio_ratio, mgb_ratio,
	       fio_ratio);
	return bench_check(mgb_ratio >= 0.9 * fio_ratio, fs, "  target: >= 0.90 of fio's", mgb_ratio / fio_ratio);
}

int main(void)
{
	const char *bin = getenv("MGBENCH") ?: "./mgbench";
	const char *job = getenv("BENCH_FIO_PEER") ?: "bench/uring-peer.fio";
	bool have_fio = FIO_PATH[0] && access(job, R_OK) == 0;
	struct mgb_session s;
	char out[4096], err[MGB_ERR_LEN];
	int missed = 0;

	if (mgb_session_begin(&s, true, err) < 0) {
		fprintf(stderr, "bench-uring: %s\n", err);
		return 77;
	}
	snprintf(out, sizeof(out), "%s/bench-uring.json", s.tmpdir);
	if (!have_fio)
		printf("no fio (or no %s): no peer runs, peer-relative targets not judged\n", job);
	printf("io_uring against sync: median of %d interleaved runs per variant, fio on the same kind of "
	       "filesystem beside it\n\n", REPEATS);
	printf("%-6s %-20s %-13s %10s %7s %7s\n", "fs", "workload", "via", "ops/s", "vs sync", "punted");
	for (size_t f = 0; f < sizeof(filesystems) / sizeof(filesystems[0]); f++) {
		const char *fs = filesystems[f];
		double med[NVARIANTS], peer[NPEERS], base = 0;
		struct mgb_target t;

		if (have_fio && mgb_target_scratch(&s, mgb_fs_type_find(fs), &t, err) < 0) {
			fprintf(stderr, "bench-uring: %s\n", err);
			mgb_session_end(&s);
			return 1;
		}
		for (int r = 0; r < REPEATS; r++) {
			for (size_t i = 0; i < NVARIANTS; i++)
				run_variant(bin, &variants[i], fs, r, out);
			for (size_t i = 0; have_fio && i < NPEERS; i++)
				run_peer(job, &peers[i], t.path, fs, r);
		}
		if (have_fio)
			mgb_target_down(&t);
		for (size_t i = 0; i < NVARIANTS; i++) {
			struct variant *v = &variants[i];

			med[i] = median(v->ops);
			if (!strcmp(v->label, "sync"))
				base = med[i];
			print_row(fs, v->group, v->label, med[i], base, v->punted);
			if (i == 2) /* after the unqueried writes: the peers of that group */
				for (size_t k = 0; have_fio && k < NPEERS; k++) {
					peer[k] = median(peers[k].ops);
					print_row(fs, v->group, peers[k].label, peer[k], peer[0] ? peer[0] : 1, NULL);
				}
		}
		if (have_fio) {
			/* not a target: fio's own per-write cost (3-6x mgbench's here) pulls its ratios to 1 */
			printf("  %-6s %-52s %6.2f\n", fs, "uring d1 ops/s / fio io_uring d1 ops/s (reported)",
			       med[1] / peer[1]);
			printf("  %-6s %-52s %6.2f\n", fs, "uring d32 ops/s / fio io_uring d32 ops/s (reported)",
			       med[2] / peer[2]);
			missed += check_peer(fs, "uring d1 / sync, unqueried writes, against fio's", med[1] / med[0],
					     peer[1] / peer[0]);
			missed += check_peer(fs, "uring d32 / sync, unqueried writes, against fio's", med[2] / med[0],
					     peer[2] / peer[0]);
		}
		missed += bench_check(med[5] / med[4] > 1.0, fs, "uring link / uring, query every (> 1)", med[5] / med[4]);
		putchar('\n');
	}
	mgb_session_end(&s);
	return bench_exit(missed);
}
