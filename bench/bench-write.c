/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * make bench: is mgbench's measuring loop nearly free?
 *
 * Alternates, in one run, `mgbench run write --query every --fs tmpfs` with a bare C loop of the
 * same pwrite+statx calls on a tmpfs of its own, and prints both ops/s and their ratio (the
 * target is >= 0.95).  Then runs 10,000,000 rounds and reports mgbench's peak RSS (target
 * < 16 MiB: metrics stream, nothing grows per operation).  Misses are reported (bench.h).
 */
#include "config.h"
#include "bench.h"
#include "target.h"
#include "util.h"

#include <fcntl.h>
#include <sched.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAIRS 11
#define ROUNDS 150000
#define RSS_ROUNDS "10000000"
#define SKIP_RSS getenv("BENCH_SKIP_RSS")
#define WRITE_SIZE 4096

static double bare_loop(const char *dir, unsigned long rounds)
{
	char path[4096], buf[WRITE_SIZE];
	struct statx sx;
	int64_t t0, t1;
	int fd;

	memset(buf, 'w', sizeof(buf));
	snprintf(path, sizeof(path), "%s/bare.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	for (unsigned long i = 0; i < rounds; i++) {
		if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) ||
		    statx(fd, "", AT_EMPTY_PATH, STATX_CTIME | STATX_MTIME, &sx) < 0) {
			perror("bare loop");
			exit(1);
		}
	}
	t1 = mgb_clock_ns(CLOCK_MONOTONIC);
	close(fd);
	unlink(path);
	return rounds * 1e9 / (double)(t1 - t0);
}

/* Run mgbench as a child; returns its writes/s from the result document, and its peak RSS in KiB. */
static double mgbench_write(const char *bin, const char *rounds, const char *out, long *maxrss_kib)
{
	const char *const argv[] = { "mgbench", "run", "write", "--fs", "tmpfs", "--query", "every", "--size", "4096",
				     "--rounds", rounds, "-q", "-o", out, NULL };
	struct rusage ru = { 0 };
	int status = bench_mgbench(bin, argv, "-", &ru);
	json_t *doc;
	double ops;

	if (status != 0) {
		fprintf(stderr, "bench: mgbench run failed (status %d)\n", status);
		exit(1);
	}
	*maxrss_kib = ru.ru_maxrss;
	doc = json_load_file(out, 0, NULL);
	ops = json_number_value(json_object_get(json_object_get(json_array_get(json_object_get(doc, "cells"), 0),
								 "metrics"), "writes_per_s"));
	json_decref(doc);
	unlink(out);
	return ops;
}

static void pin_to_current_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == 0)
		printf("both loops pinned to CPU %d\n", cpu < 0 ? 0 : cpu);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	const char *bin = getenv("MGBENCH") ?: "./mgbench";
	struct mgb_session s;
	struct mgb_target t;
	char err[MGB_ERR_LEN], out[4096], rounds[32];
	double bare[PAIRS], mgb[PAIRS], ratio[PAIRS];
	long rss = 0;
	int missed = 0;

	/*
	 * Both loops on one CPU: on a shared VM the vCPUs run at different speeds from moment to
	 * moment, and a fresh child would otherwise land on whichever is idle.
	 */
	pin_to_current_cpu();
	snprintf(rounds, sizeof(rounds), "%d", ROUNDS);
	if (mgb_session_begin(&s, true, err) < 0 ||
	    mgb_target_scratch(&s, mgb_fs_type_find("tmpfs"), &t, err) < 0) {
		fprintf(stderr, "bench: %s\n", err);
		return 77;
	}
	/* in the session's scratch directory, which the child mgbench's namespace sees too */
	snprintf(out, sizeof(out), "%s/bench-write.json", s.tmpdir);
	printf("write --query every on tmpfs, %d rounds each, %d alternating pairs\n", ROUNDS, PAIRS);
	printf("%4s %14s %14s %7s\n", "pair", "bare writes/s", "mgbench wr/s", "ratio");
	for (int i = 0; i < PAIRS; i++) {
		/* alternate which goes first so drift on a shared machine hits both alike */
		if (i % 2 == 0) {
			bare[i] = bare_loop(t.path, ROUNDS);
			mgb[i] = mgbench_write(bin, rounds, out, &rss);
		} else {
			mgb[i] = mgbench_write(bin, rounds, out, &rss);
			bare[i] = bare_loop(t.path, ROUNDS);
		}
		ratio[i] = mgb[i] / bare[i];
		printf("%4d %14.0f %14.0f %7.3f\n", i + 1, bare[i], mgb[i], ratio[i]);
	}
	mgb_target_down(&t);
	/* The median of the pairs' ratios: each pair ran side by side, so the machine's drift cancels. */
	qsort(bare, PAIRS, sizeof(double), cmp_double);
	qsort(mgb, PAIRS, sizeof(double), cmp_double);
	qsort(ratio, PAIRS, sizeof(double), cmp_double);
	printf("median %9.0f %14.0f %7.3f  (pair ratios %.3f..%.3f)\n", bare[PAIRS / 2], mgb[PAIRS / 2],
	       ratio[PAIRS / 2], ratio[0], ratio[PAIRS - 1]);
	missed += bench_check(ratio[PAIRS / 2] >= 0.95, "tmpfs", "mgbench / bare loop, write --query every (>= 0.95)",
			      ratio[PAIRS / 2]);

	if (!SKIP_RSS) {
		mgbench_write(bin, RSS_ROUNDS, out, &rss);
		missed += bench_check(rss < 16 * 1024, "tmpfs", "peak RSS (MiB) for " RSS_ROUNDS " rounds (< 16)",
				      rss / 1024.0);
	}
	mgb_session_end(&s);
	return bench_exit(missed);
}
