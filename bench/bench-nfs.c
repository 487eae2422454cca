/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * make bench: what the NFS cells' rates mean.  A GETATTR round trip through libnfs to the
 * embedded nfs-ganesha on loopback against a local statx (stat, one thread), and write+GETATTR
 * rounds per second (write --query every) over nfs3 and nfs4 against sync, on ext4 and tmpfs;
 * plus the embedded server's start time.  Variants run as separate mgbench runs, interleaved for
 * REPEATS rounds so machine drift hits all alike; each figure is the median of its repeats.
 * Reported, not judged: exits 1 only if a run fails.
 */
#include "config.h"
#include "bench.h"
#include "stats.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPEATS 3

struct variant {
	const char *label, *workload, *metric, *backend, *rounds;
	double ops[REPEATS], start_ns[REPEATS];
};

static struct variant variants[] = {
	{ .label = "statx (local)", .workload = "stat", .metric = "queries_per_s", .backend = "sync", .rounds = "100000" },
	{ .label = "GETATTR v3", .workload = "stat", .metric = "queries_per_s", .backend = "nfs3", .rounds = "20000" },
	{ .label = "GETATTR v4", .workload = "stat", .metric = "queries_per_s", .backend = "nfs4", .rounds = "20000" },
	{ .label = "write+statx (local)", .workload = "write", .metric = "writes_per_s", .backend = "sync", .rounds = "50000" },
	{ .label = "write+GETATTR v3", .workload = "write", .metric = "writes_per_s", .backend = "nfs3", .rounds = "10000" },
	{ .label = "write+GETATTR v4", .workload = "write", .metric = "writes_per_s", .backend = "nfs4", .rounds = "10000" },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

static const char *const filesystems[] = { "ext4", "tmpfs" };

/* The repeats' median, v left in its order. */
static double median(const double *v)
{
	double s[REPEATS];

	memcpy(s, v, sizeof(s));
	return mgb_median(s, REPEATS);
}

static void run_variant(const char *bin, struct variant *v, const char *fs, int r, const char *out)
{
	const char *argv[] = { "mgbench", "run", v->workload, "--fs", fs, "--backend", v->backend, "--rounds",
			       v->rounds, "-q", "-o", out, NULL };
	json_t *doc, *cell;
	int status = bench_mgbench(bin, argv, "-", NULL);

	if (status != 0) {
		fprintf(stderr, "bench-nfs: %s on %s failed (status %d)\n", v->label, fs, status);
		exit(1);
	}
	doc = json_load_file(out, 0, NULL);
	cell = json_array_get(json_object_get(doc, "cells"), 0);
	v->ops[r] = json_number_value(json_object_get(json_object_get(cell, "metrics"), v->metric));
	v->start_ns[r] = json_number_value(json_object_get(json_object_get(cell, "server"), "start_ns"));
	json_decref(doc);
	unlink(out);
}

int main(void)
{
	const char *bin = getenv("MGBENCH") ?: "./mgbench";
	char dir[] = "/tmp/mgbench-bench-nfs.XXXXXX", out[64];

	/* a directory of our own: a fixed name in /tmp could be someone else's symlink */
	if (!mkdtemp(dir)) {
		perror("bench-nfs: mkdtemp");
		return 1;
	}
	snprintf(out, sizeof(out), "%s/run.json", dir);
	printf("NFS through libnfs to the embedded nfs-ganesha on 127.0.0.1,\n"
	       "against local syscalls: median of %d interleaved runs\n\n", REPEATS);
	printf("%-6s %-20s %10s %10s %8s %9s\n", "fs", "operation", "ops/s", "per op", "vs local", "server up");
	for (size_t f = 0; f < sizeof(filesystems) / sizeof(filesystems[0]); f++) {
		for (int r = 0; r < REPEATS; r++)
			for (size_t i = 0; i < NVARIANTS; i++)
				run_variant(bin, &variants[i], filesystems[f], r, out);
		for (size_t i = 0; i < NVARIANTS; i++) {
			const struct variant *v = &variants[i], *local = &variants[i < 3 ? 0 : 3];
			double ops = median(v->ops);
			char up[16] = "-";

			if (strcmp(v->backend, "sync"))
				snprintf(up, sizeof(up), "%.1fms", median(v->start_ns) / 1e6);
			printf("%-6s %-20s %10.0f %8.1fus %7.2fx %9s\n", filesystems[f], v->label, ops, 1e6 / ops,
			       median(local->ops) / ops, up);
		}
	}
	printf("\nper op: 1/ops; vs local: how many times slower than the local\n"
	       "syscall figure of the same kind on the same fs.\n");
	rmdir(dir);
	return 0;
}
