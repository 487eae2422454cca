/*
 * make bench: what io_uring costs and saves against plain syscalls, per filesystem.
 *
 * For each of ext4, xfs, btrfs and tmpfs, the variants below run as separate mgbench runs,
 * interleaved (variant 1, 2, ... then again) for REPEATS rounds so machine drift hits all alike;
 * each variant's ops/s is the median of its repeats, its ratio is against the sync variant of the
 * same group, and the punted share is the writes' (or, for stat, all requests').  Targets, where
 * buffered writes complete inline (xfs, unqueried): uring depth 1 within 10% of sync and depth 32
 * faster than sync; on query-every, --link faster than unlinked uring.  Prints the table and
 * exits 1 if a target is missed.
 */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v)
{
	double s[REPEATS];

	memcpy(s, v, sizeof(s));
	qsort(s, REPEATS, sizeof(double), cmp_double);
	return s[REPEATS / 2];
}

/* One mgbench run of v on fs; fills its ops/s and punted share for repeat r, or exits 1. */
static void run_variant(const char *bin, struct variant *v, const char *fs, int r, const char *out)
{
	const char *argv[MAX_ARGS + 12] = { "mgbench", "run", v->workload, "--fs", fs, "-q", "-o", out };
	size_t n = 8;
	json_t *doc, *cell, *bm;
	int status;
	pid_t pid;

	for (size_t i = 0; i < MAX_ARGS && v->args[i]; i++)
		argv[n++] = v->args[i];
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
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

static int check(bool ok, const char *fs, const char *what, double got)
{
	printf("  %-6s %-44s %6.3f  %s\n", fs, what, got, ok ? "ok" : "MISSED");
	return ok ? 0 : 1;
}

int main(void)
{
	const char *bin = getenv("MGBENCH") ?: "./mgbench";
	char out[4096];
	int rc = 0;

	snprintf(out, sizeof(out), "/tmp/mgbench-bench-uring-%d.json", (int)getpid());
	printf("io_uring against sync: median of %d interleaved runs per variant\n\n", REPEATS);
	printf("%-6s %-20s %-10s %10s %7s %7s\n", "fs", "workload", "via", "ops/s", "vs sync", "punted");
	for (size_t f = 0; f < sizeof(filesystems) / sizeof(filesystems[0]); f++) {
		const char *fs = filesystems[f];
		double med[NVARIANTS], base = 0;

		for (int r = 0; r < REPEATS; r++)
			for (size_t i = 0; i < NVARIANTS; i++)
				run_variant(bin, &variants[i], fs, r, out);
		for (size_t i = 0; i < NVARIANTS; i++) {
			struct variant *v = &variants[i];

			med[i] = median(v->ops);
			if (!strcmp(v->label, "sync"))
				base = med[i];
			printf("%-6s %-20s %-10s %10.0f %7.2f ", fs, v->group, v->label, med[i], med[i] / base);
			if (isnan(v->punted[0]))
				printf("%7s\n", "-");
			else
				printf("%6.1f%%\n", 100 * median(v->punted));
		}
		if (!strcmp(fs, "xfs")) {
			rc |= check(med[1] / med[0] >= 0.9, fs, "uring d1 / sync, unqueried writes (>= 0.90)", med[1] / med[0]);
			rc |= check(med[2] / med[0] > 1.0, fs, "uring d32 / sync, unqueried writes (> 1)", med[2] / med[0]);
		}
		rc |= check(med[5] / med[4] > 1.0, fs, "uring link / uring, query every (> 1)", med[5] / med[4]);
		putchar('\n');
	}
	return rc;
}
