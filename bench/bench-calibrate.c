/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * make bench: is compare's false-verdict rate at most alpha, and does it see known differences?
 * The run (a document) is the unit: RUNS documents per case, made back to back at the default
 * rounds and --repeat 5, and same-kernel comparisons of SIDE runs against SIDE runs, as a user
 * would give them (mgbench compare A1 .. A5 -- B1 .. B5):
 *   in turn       runs i..i+4 against i+5..i+9 (A's runs, then B's: load drifts between)
 *   interleaved   runs i, i+2, .. against i+1, i+3, .. (A and B alternated)
 * per metric the share of comparisons with a verdict (better, worse, changed), on a multigrain
 * filesystem (tmpfs), on ramfs, and for stat.  Power: tmpfs against ramfs, stat --writer
 * against without, disjoint groups of SIDE runs.
 */
#include "config.h"
#include "bench.h"

#include <jansson.h>
#include <unistd.h>

#define RUNS 40    /* 31 comparisons per case and order: a run takes about a second */
#define SIDE 5     /* runs a side: mgbench-compare(1) recommends 5 or more */
#define REPEAT "5" /* mgbench-compare(1): --repeat 5 */
#define ALPHA 0.05

static char dir[] = "/tmp/mgbench-bench-calibrate.XXXXXX";
static const char *bin;

static int mgbench(char *const args[], const char *out)
{
	return bench_mgbench(bin, (const char *const *)args, out, NULL);
}

static int make_doc(const char *workload, const char *fs, const char *extra, int i, char *path, size_t len)
{
	char *args[16] = { (char *)bin, "run", (char *)workload, "--fs", (char *)fs, "--repeat", REPEAT, "-q", "-o", path };
	int n = 10;

	snprintf(path, len, "%s/%s-%s%s-%d.json", dir, workload, fs, extra ? "-w" : "", i);
	if (extra)
		args[n++] = (char *)extra;
	args[n] = NULL;
	return mgbench(args, NULL);
}

/* Compare SIDE runs a[] with SIDE runs b[]; per metric header, count comparisons and verdicts. */
static int judge_groups(char *const *a, char *const *b, json_t *tally)
{
	char out[600];
	char *args[8 + 2 * SIDE + 1] = { (char *)bin, "compare", "--format", "json" };
	int n = 4;
	json_t *cmp, *c, *m;
	size_t i, j;

	for (int k = 0; k < SIDE; k++)
		args[n++] = a[k];
	args[n++] = "--";
	for (int k = 0; k < SIDE; k++)
		args[n++] = b[k];
	args[n] = NULL;
	snprintf(out, sizeof(out), "%s/cmp.json", dir);
	if (mgbench(args, out) != 0 || !(cmp = json_load_file(out, 0, NULL)))
		return -1;
	json_array_foreach(json_object_get(cmp, "cells"), i, c)
		json_array_foreach(json_object_get(c, "metrics"), j, m) {
			const char *h = json_string_value(json_object_get(m, "header"));
			const char *v = json_string_value(json_object_get(json_array_get(json_object_get(m, "against_base"), 1), "verdict")) ?: "";
			json_t *t = json_object_get(tally, h);

			if (!t)
				json_object_set_new(tally, h, t = json_pack("{s:i, s:i, s:i}", "pairs", 0, "verdicts", 0, "small", 0));
			json_object_set_new(t, "pairs", json_integer(json_integer_value(json_object_get(t, "pairs")) + 1));
			if (!strcmp(v, "better") || !strcmp(v, "worse") || !strcmp(v, "changed"))
				json_object_set_new(t, "verdicts", json_integer(json_integer_value(json_object_get(t, "verdicts")) + 1));
			if (!strcmp(v, "n too small") || !strcmp(v, "not comparable") || !strcmp(v, "missing") ||
			    !strcmp(v, "no verdict"))
				json_object_set_new(t, "small", json_integer(json_integer_value(json_object_get(t, "small")) + 1));
		}
	json_decref(cmp);
	return 0;
}

static int print_tally(const char *fs, const char *what, json_t *tally, bool false_rate)
{
	const char *h;
	json_t *t;
	int missed = 0;

	json_object_foreach(tally, h, t) {
		double pairs = (double)json_integer_value(json_object_get(t, "pairs"));
		double rate = json_integer_value(json_object_get(t, "verdicts")) / pairs;
		char label[80];

		snprintf(label, sizeof(label), "%s %s (%g, %lld unjudged)", what, h, pairs,
			 json_integer_value(json_object_get(t, "small")));
		/* the false-verdict rate is the target; power is reported, not enforced */
		if (false_rate)
			missed += bench_check(rate <= ALPHA, fs, label, rate);
		else
			printf("  %-6s %-52s %6.3f  power\n", fs, label, rate);
	}
	return missed;
}

/* A/A: SIDE runs against SIDE others of the same case, in turn or interleaved. */
static int same_kernel_order(const char *fs, const char *name, char docs[][600], bool interleaved)
{
	json_t *tally = json_object();
	int missed;

	for (int i = 0; i + 2 * SIDE <= RUNS; i++) {
		char *a[SIDE], *b[SIDE];

		for (int k = 0; k < SIDE; k++) {
			a[k] = docs[interleaved ? i + 2 * k : i + k];
			b[k] = docs[interleaved ? i + 2 * k + 1 : i + SIDE + k];
		}
		if (judge_groups(a, b, tally) < 0)
			return -1;
	}
	char what[80];

	snprintf(what, sizeof(what), "%s %s:", name, interleaved ? "interleaved" : "in turn");
	missed = print_tally(fs, what, tally, true);
	json_decref(tally);
	return missed;
}

static int same_kernel(const char *workload, const char *fs, const char *extra, char docs[][600])
{
	int a, b;

	for (int i = 0; i < RUNS; i++)
		if (make_doc(workload, fs, extra, i, docs[i], 600) != 0)
			return -1;
	char name[60];

	snprintf(name, sizeof(name), "%s%s", workload, extra ? " -w" : "");
	if ((a = same_kernel_order(fs, name, docs, false)) < 0 || (b = same_kernel_order(fs, name, docs, true)) < 0)
		return -1;
	return a + b;
}

/* --writer is a parameter, so its cells match no cell without it: give b a's parameters. */
static int same_params(char a[][600], char b[][600])
{
	for (int i = 0; i < RUNS; i++) {
		json_t *da = json_load_file(a[i], 0, NULL), *db = json_load_file(b[i], 0, NULL), *params, *cell;
		size_t j;
		int rc;

		if (!da || !db)
			return -1;
		params = json_object_get(json_array_get(json_object_get(da, "cells"), 0), "params");
		json_array_foreach(json_object_get(db, "cells"), j, cell)
			json_object_set(cell, "params", params);
		rc = json_dump_file(db, b[i], 0);
		json_decref(da);
		json_decref(db);
		if (rc)
			return -1;
	}
	return 0;
}

/* Known differences: disjoint groups of SIDE runs of a against SIDE runs of b. */
static int power(const char *fs, const char *what, char a[][600], char b[][600])
{
	json_t *tally = json_object();

	for (int i = 0; i + SIDE <= RUNS; i += SIDE) {
		char *ga[SIDE], *gb[SIDE];

		for (int k = 0; k < SIDE; k++) {
			ga[k] = a[i + k];
			gb[k] = b[i + k];
		}
		if (judge_groups(ga, gb, tally) < 0)
			return -1;
	}
	print_tally(fs, what, tally, false);
	json_decref(tally);
	return 0;
}

int main(void)
{
	static char tmpfs[RUNS][600], ramfs[RUNS][600], stat0[RUNS][600], stat1[RUNS][600];
	int missed = 0, m;
	char cmd[700];

	bin = getenv("MGBENCH") ?: "./mgbench";
	if (geteuid() != 0) {
		printf("bench-calibrate: needs root (mgbench run mounts scratch filesystems): skipped\n");
		return 0;
	}
	if (!mkdtemp(dir))
		return 1;
	printf("calibration: write and stat, default rounds, --repeat %s, %d runs each,\n"
	       "%d runs a side, alpha %.2g\n", REPEAT, RUNS, SIDE, ALPHA);
	if ((m = same_kernel("write", "tmpfs", NULL, tmpfs)) < 0 || (missed += m, m = same_kernel("write", "ramfs", NULL, ramfs)) < 0)
		goto fail;
	missed += m;
	printf("stat, then stat --writer:\n");
	if ((m = same_kernel("stat", "tmpfs", NULL, stat0)) < 0 || (missed += m, m = same_kernel("stat", "tmpfs", "--writer", stat1)) < 0)
		goto fail;
	missed += m;
	printf("power: known differences, %d comparisons each\n", RUNS / SIDE);
	if (power("tmpfs", "tmpfs->ramfs:", tmpfs, ramfs) < 0 || same_params(stat0, stat1) < 0 ||
	    power("tmpfs", "stat->stat --writer:", stat0, stat1) < 0)
		goto fail;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return bench_exit(missed);
fail:
	fprintf(stderr, "bench-calibrate: a run or a compare failed (documents in %s)\n", dir);
	return 1;
}
