/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the workloads through --backend uring (real rings on ext4, xfs, btrfs, tmpfs and
 * ramfs made by mgbench).  Every invariant that holds through plain syscalls holds through
 * io_uring, with and without --link and at depth: a distinct ctime on every queried round, never
 * backwards, never in the future, no ordering inversions, no revalidate misses when sequenced;
 * ramfs stays coarse.  A sync cell and a uring cell have the same metric keys.  The punt count
 * is real: xfs completes unqueried buffered writes inline and punts nearly every write that
 * follows a query, but not the writes beside a size-only poller.  An opcode hidden from the
 * probe makes the cell unsupported, naming it, and a bad --depth is a usage error.
 */
#include "config.h"
#include "helpers.h"
#include "util.h"

#include <math.h>
#include <string.h>

static const char *const multigrain[] = { "ext4", "xfs", "btrfs", "tmpfs" };

/* Run mgbench with args (NULL-terminated, at most 24) plus -o path; the document, or NULL. */
static json_t *run(const char *label, const char *const args[], const char *path)
{
	const char *argv[32];
	struct t_output o;
	json_t *doc;
	size_t n = 0;

	while (args[n] && n < 24) {
		argv[n] = args[n];
		n++;
	}
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = path;
	argv[n] = NULL;
	t_mgbench(&o, argv);
	T_CHECK(o.status == 0, "%s: exit %d: %s", label, o.status, o.err);
	t_output_free(&o);
	doc = o.status == 0 ? t_load(path) : NULL;
	T_CHECK(o.status != 0 || doc != NULL, "%s: document written", label);
	return doc;
}

static const char *backend_name(json_t *cell)
{
	return json_string_value(json_object_get(json_object_get(cell, "backend"), "name"));
}

/* The cell ran through uring, completed, and says how many of its requests were punted. */
static bool uring_cell_ok(const char *label, json_t *cell, const char *fs)
{
	json_t *bm = json_object_get(cell, "backend_metrics");

	T_CHECK(cell != NULL, "%s: %s cell present", label, fs);
	if (!cell)
		return false;
	T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")) ?: "", "ok"), "%s on %s: status %s (%s)",
		label, fs, json_string_value(json_object_get(cell, "status")),
		json_string_value(json_object_get(cell, "error")));
	T_CHECK(backend_name(cell) && !strcmp(backend_name(cell), "uring"), "%s on %s: backend uring", label, fs);
	T_CHECK(json_integer_value(json_object_get(bm, "requests")) > 0, "%s on %s: requests counted", label, fs);
	T_CHECK(json_is_integer(json_object_get(bm, "punted")), "%s on %s: punts counted", label, fs);
	return !strcmp(json_string_value(json_object_get(cell, "status")) ?: "", "ok");
}

/* Stamps of one observer (prefix "ctime", "dir1_ctime" ...): every round distinct, none backwards
 * or in the future. */
static void stamps_fine(const char *label, json_t *cell, const char *fs, const char *prefix)
{
	char key[64];

	snprintf(key, sizeof(key), "%s.distinct_ratio", prefix);
	T_CHECK(t_metric(cell, key) == 1.0, "%s on %s: %s %g", label, fs, key, t_metric(cell, key));
	snprintf(key, sizeof(key), "%s.backwards", prefix);
	T_CHECK(t_metric(cell, key) == 0, "%s on %s: %s %g", label, fs, key, t_metric(cell, key));
	snprintf(key, sizeof(key), "%s.future", prefix);
	T_CHECK(t_metric(cell, key) == 0, "%s on %s: %s %g", label, fs, key, t_metric(cell, key));
}

/* A workload whose queried rounds must each see a new ctime on every multigrain fs. */
static void distinct_everywhere(const char *label, const char *const args[], const char *const prefixes[])
{
	json_t *doc = run(label, args, t_result_path("distinct.json"));

	for (size_t i = 0; doc && i < MGB_ARRAY_SIZE(multigrain); i++) {
		json_t *cell = t_cell(doc, args[1], multigrain[i]);

		if (uring_cell_ok(label, cell, multigrain[i]))
			for (size_t k = 0; prefixes[k]; k++)
				stamps_fine(label, cell, multigrain[i], prefixes[k]);
	}
	json_decref(doc);
}

/* write --query every with and without --link: fine everywhere multigrain, coarse on ramfs. */
static void write_every(bool link)
{
	const char *label = link ? "write --link" : "write";
	const char *const args[] = { "run", "write", "--fs", T_FS_ALL, "--backend", "uring", "--rounds", "2000",
				     link ? "--link" : NULL, NULL };
	json_t *doc = run(label, args, t_result_path("write.json")), *cell;

	for (size_t i = 0; doc && i < MGB_ARRAY_SIZE(multigrain); i++) {
		cell = t_cell(doc, "write", multigrain[i]);
		if (uring_cell_ok(label, cell, multigrain[i])) {
			stamps_fine(label, cell, multigrain[i], "ctime");
			T_CHECK(t_metric(cell, "mtime.backwards") == 0, "%s on %s: mtime backwards", label, multigrain[i]);
		}
	}
	cell = doc ? t_cell(doc, "write", "ramfs") : NULL;
	if (doc && uring_cell_ok(label, cell, "ramfs")) {
		double floor_moves = t_check_coarse_bound(doc, cell, "uring write on ramfs",
							  t_metric(cell, "ctime.distinct"), 2000);

		if (floor_moves < 200)
			T_CHECK(t_metric(cell, "ctime.distinct_ratio") < 0.2, "%s on ramfs: distinct ratio %g", label,
				t_metric(cell, "ctime.distinct_ratio"));
		T_CHECK(t_metric(cell, "ctime.backwards") == 0, "%s on ramfs: backwards", label);
	}
	if (doc && link) {
		json_t *opts = json_object_get(json_object_get(t_cell(doc, "write", "xfs"), "backend"), "options");

		T_CHECK(json_is_true(json_object_get(opts, "link")), "--link recorded as backend.options.link");
		T_CHECK(json_integer_value(json_object_get(opts, "depth")) == 1, "depth 1 recorded");
	}
	json_decref(doc);
}

/* Depth: unqueried writes and statx calls with many in flight complete every request. */
static void depth(void)
{
	const char *const w[] = { "run", "write", "--fs", "ext4,tmpfs", "--backend", "uring", "--depth", "32",
				  "--query", "none", "--rounds", "20000", NULL };
	const char *const s[] = { "run", "stat", "--fs", "xfs,tmpfs", "--backend", "uring", "--depth", "8",
				  "--rounds", "5000", NULL };
	json_t *doc = run("write --depth 32", w, t_result_path("depth-w.json"));

	for (size_t i = 0; doc && i < 2; i++) {
		json_t *cell = t_cell(doc, "write", i ? "tmpfs" : "ext4");

		if (uring_cell_ok("write --depth 32", cell, i ? "tmpfs" : "ext4")) {
			T_CHECK(json_integer_value(json_object_get(json_object_get(cell, "backend_metrics"), "writes")) >=
					20000, "write --depth 32: every write submitted");
			T_CHECK(t_metric(cell, "writes_per_s") > 0, "write --depth 32: a rate");
		}
	}
	json_decref(doc);
	doc = run("stat --depth 8", s, t_result_path("depth-s.json"));
	for (size_t i = 0; doc && i < 2; i++) {
		json_t *cell = t_cell(doc, "stat", i ? "tmpfs" : "xfs");

		if (uring_cell_ok("stat --depth 8", cell, i ? "tmpfs" : "xfs"))
			T_CHECK(t_metric(cell, "queries") == 5000, "stat --depth 8: %g queries", t_metric(cell, "queries"));
	}
	json_decref(doc);
}

/* ordering and revalidate --sequenced keep their zero counts through io_uring. */
static void zero_counts(void)
{
	const char *const o[] = { "run", "ordering", "--fs", T_FS_MULTIGRAIN, "--backend", "uring", "--rounds",
				  "2000", NULL };
	const char *const r[] = { "run", "revalidate", "--sequenced", "--fs", T_FS_MULTIGRAIN, "--backend",
				  "uring", "--rounds", "1000", NULL };
	json_t *doc = run("ordering", o, t_result_path("ordering.json"));

	for (size_t i = 0; doc && i < MGB_ARRAY_SIZE(multigrain); i++) {
		json_t *cell = t_cell(doc, "ordering", multigrain[i]);

		if (uring_cell_ok("ordering", cell, multigrain[i]))
			T_CHECK(t_metric(cell, "inversions") == 0, "ordering on %s: %g inversions", multigrain[i],
				t_metric(cell, "inversions"));
	}
	json_decref(doc);
	doc = run("revalidate --sequenced", r, t_result_path("revalidate.json"));
	for (size_t i = 0; doc && i < MGB_ARRAY_SIZE(multigrain); i++) {
		json_t *cell = t_cell(doc, "revalidate", multigrain[i]);
		double missed = t_metric(cell, "misses_granularity") + t_metric(cell, "misses_announced") +
				t_metric(cell, "misses_inflight");

		if (!uring_cell_ok("revalidate --sequenced", cell, multigrain[i]))
			continue;
		T_CHECK(missed == 0 && t_metric(cell, "versions_written") > 0,
			"revalidate --sequenced on %s: %g versions missed of %g", multigrain[i], missed,
			t_metric(cell, "versions_written"));
		/* io_uring is local: on a multigrain filesystem an announced miss is an ordering miss */
		T_CHECK(json_is_true(json_object_get(json_object_get(cell, "metrics"), "announced_implies_ordering")),
			"revalidate via uring on %s: announced_implies_ordering", multigrain[i]);
	}
	json_decref(doc);
}

/* The same cell through sync and through uring: the same metric keys (compare matches them). */
static void same_keys(void)
{
	const char *const a[] = { "run", "write", "--fs", "tmpfs", "--backend", "sync,uring", "--rounds", "500", NULL };
	json_t *doc = run("sync,uring", a, t_result_path("keys.json"));
	json_t *cells = json_object_get(doc, "cells"), *m[2] = { NULL, NULL }, *cell;
	const char *key;
	json_t *v;
	size_t i;

	json_array_foreach(cells, i, cell)
		if (backend_name(cell))
			m[!strcmp(backend_name(cell), "uring")] = json_object_get(cell, "metrics");
	T_CHECK(m[0] && m[1], "a sync and a uring cell");
	if (m[0] && m[1]) {
		T_CHECK(json_object_size(m[0]) == json_object_size(m[1]), "%zu keys through sync, %zu through uring",
			json_object_size(m[0]), json_object_size(m[1]));
		json_object_foreach(m[0], key, v)
			T_CHECK(json_object_get(m[1], key) != NULL, "metric %s missing through uring", key);
	}
	json_decref(doc);
}

static double backend_metric(json_t *doc, const char *workload, const char *key)
{
	json_t *v = json_object_get(json_object_get(t_cell(doc, workload, "xfs"), "backend_metrics"), key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * On xfs a write through io_uring is punted exactly when it has to change the stamps (the update
 * needs a transaction, which IOCB_NOWAIT refuses), so the writes punted must match the ctime
 * changes the tracepoint counted, however fast the poller ran against the writer.  Returns the
 * share of writes punted.
 */
static double punts_match_changes(json_t *doc, const char *label, const char *workload, const char *changes_key)
{
	double punted = backend_metric(doc, workload, "writes_punted");
	double changes = t_metric(t_cell(doc, workload, "xfs"), changes_key);
	double r = backend_metric(doc, workload, "writes_punted_ratio");

	fprintf(stderr, "xfs %s: %.4f of writes punted (%g), %g ctime changes\n", label, r, punted, changes);
	T_CHECK(fabs(punted - changes) <= fmax(10, 0.01 * changes), "xfs %s: %g writes punted but %g ctime changes",
		label, punted, changes);
	return r;
}

/*
 * Other processes' fine stamps move the floor, and every floor move is a ctime change (and so a
 * punt) for the next write, queried or not: "almost none punted" can only be judged when the
 * floor moved for fewer than 5 % of the writes.  Says so when it did not.
 */
static bool quiet_floor(json_t *doc, const char *workload, const char *label)
{
	json_t *cell = t_cell(doc, workload, "xfs");
	json_t *fs = json_object_get(json_object_get(json_object_get(cell, "counters"), "multigrain"), "floor_swaps");
	double writes = backend_metric(doc, workload, "writes");

	if (!json_is_integer(fs) || (double)json_integer_value(fs) < 0.05 * writes)
		return true;
	fprintf(stderr, "xfs %s: could not judge 'almost none punted': the floor moved %lld times for %g writes "
		"(other processes' fine stamps)\n", label, (long long)json_integer_value(fs), writes);
	return false;
}

/* xfs: unqueried writes complete inline; a write after a query needs a transaction and is punted. */
static void punts(void)
{
	const char *const quiet[] = { "run", "write", "--fs", "xfs", "--backend", "uring", "--query", "none",
				      "--rounds", "20000", NULL };
	const char *const every[] = { "run", "write", "--fs", "xfs", "--backend", "uring", "--rounds", "5000", NULL };
	const char *const polled[] = { "run", "stat", "--writer", "--fs", "xfs", "--backend", "uring", "--rounds",
				       "20000", NULL };
	const char *const sized[] = { "run", "stat", "--writer", "--mask", "size", "--fs", "xfs", "--backend", "uring",
				      "--rounds", "20000", NULL };
	json_t *doc;
	double r, r_ctime, r_size;

	doc = run("punts, no queries", quiet, t_result_path("punt-none.json"));
	r = punts_match_changes(doc, "write --query none", "write", "ctime_changes");
	if (quiet_floor(doc, "write", "write --query none"))
		T_CHECK(r < 0.05, "xfs write --query none: %g of writes punted, expected almost none", r);
	json_decref(doc);

	doc = run("punts, query every", every, t_result_path("punt-every.json"));
	r = punts_match_changes(doc, "write --query every", "write", "ctime_changes");
	T_CHECK(r > 0.9, "xfs write --query every: %g of writes punted, expected nearly all", r);
	json_decref(doc);

	/* Another thread's statx between writes arms the flag.  How many writes follow a query
	 * depends on how the two threads are scheduled (a slow poller leaves runs of writes with no
	 * query between), so the share is judged against the control, not by a fixed figure. */
	doc = run("punts, ctime poller", polled, t_result_path("punt-poll.json"));
	r_ctime = punts_match_changes(doc, "stat --writer", "stat", "ctime_changes_traced");
	json_decref(doc);

	/* The control: the same poller asking for the size only arms nothing. */
	doc = run("punts, size poller", sized, t_result_path("punt-size.json"));
	r_size = punts_match_changes(doc, "stat --writer --mask size", "stat", "ctime_changes_traced");
	/* Alone the ctime poller punts 5-20% of the writes; under make -j2 it got about 1% of a CPU's
	 * turns, the size poller's share stays near 0.05%, so only "clearly more" is machine-independent. */
	if (quiet_floor(doc, "stat", "stat --writer --mask size")) {
		T_CHECK(r_size < 0.05, "xfs with a size poller: %g of writes punted, expected almost none", r_size);
		T_CHECK(r_ctime > 3 * r_size && r_ctime > 0,
			"xfs: a ctime poller punts %g of the writes, a size poller %g: expected clearly more", r_ctime,
			r_size);
	}
	json_decref(doc);
}

/* Operations io_uring cannot do, and opcodes the kernel (here: the test knob) lacks. */
static void unsupported(void)
{
	const char *const chmod_args[] = { "run", "meta", "--op", "chmod", "--fs", "tmpfs", "--backend", "uring",
					   "--rounds", "100", NULL };
	const char *const hide_args[] = { "run", "write", "--fs", "tmpfs", "--backend", "uring", "--rounds", "100",
					  NULL };
	json_t *doc, *cell;

	doc = run("meta --op chmod", chmod_args, t_result_path("chmod.json"));
	cell = doc ? t_cell(doc, "meta", "tmpfs") : NULL;
	T_CHECK(cell && !strcmp(json_string_value(json_object_get(cell, "status")) ?: "", "unsupported") &&
			strstr(json_string_value(json_object_get(cell, "error")) ?: "", "fchmod"),
		"chmod through uring: unsupported, naming fchmod");
	json_decref(doc);

	setenv("MGBENCH_URING_HIDE", "STATX", 1);
	doc = run("statx hidden", hide_args, t_result_path("hidden.json"));
	unsetenv("MGBENCH_URING_HIDE");
	cell = doc ? t_cell(doc, "write", "tmpfs") : NULL;
	T_CHECK(cell && !strcmp(json_string_value(json_object_get(cell, "status")) ?: "", "unsupported") &&
			strstr(json_string_value(json_object_get(cell, "error")) ?: "", "IORING_OP_STATX"),
		"a hidden IORING_OP_STATX: unsupported, naming it (%s)",
		cell ? json_string_value(json_object_get(cell, "error")) : "no cell");
	json_decref(doc);
}

static void bad_options(void)
{
	static const char *const depths[] = { "0", "4097", "x" };
	struct t_output o;

	for (size_t i = 0; i < MGB_ARRAY_SIZE(depths); i++) {
		const char *const args[] = { "run", "write", "--fs", "tmpfs", "--backend", "uring", "--depth", depths[i],
					     NULL };

		t_mgbench(&o, args);
		T_CHECK(o.status == 2 && strstr(o.err, "--depth"), "--depth %s: exit %d, %s", depths[i], o.status, o.err);
		t_output_free(&o);
	}
	{
		const char *const args[] = { "run", "write", "--fs", "tmpfs", "--link", NULL };

		t_mgbench(&o, args);
		T_CHECK(o.status == 2 && strstr(o.err, "uring"), "--link without --backend uring: exit %d, %s", o.status,
			o.err);
		t_output_free(&o);
	}
}

int main(void)
{
	static const char *const ctime_only[] = { "ctime", NULL };
	static const char *const rename_stamps[] = { "ctime", "dir1_ctime", "dir1_mtime", NULL };
	const char *const rename_args[] = { "run", "rename", "--fs", T_FS_MULTIGRAIN, "--backend", "uring",
					    "--rounds", "1000", NULL };
	const char *const xattr_args[] = { "run", "setxattr", "--fs", T_FS_MULTIGRAIN, "--backend", "uring",
					   "--rounds", "1000", "--link", NULL };
	static const char *const ops[] = { "truncate", "link", "unlink", "fallocate" };
	static const char *const kernel_config[] = { "CONFIG_IO_URING", NULL };
	struct t_host before;

	t_require(&(struct t_needs){ .root = true, .filesystems = T_FS_ALL, .kernel_config = kernel_config, .slow = true });
	t_host_snapshot(&before);
	T_RUN(write_every(false));
	T_RUN(write_every(true));
	T_RUN(depth());
	T_RUN(distinct_everywhere("rename", rename_args, rename_stamps));
	T_RUN(distinct_everywhere("setxattr", xattr_args, ctime_only));
	for (size_t i = 0; i < MGB_ARRAY_SIZE(ops); i++) {
		const char *const args[] = { "run", "meta", "--op", ops[i], "--fs", T_FS_MULTIGRAIN, "--backend",
					     "uring", "--rounds", "1000", NULL };

		T_RUN_FOR(ops[i], distinct_everywhere(ops[i], args, ctime_only));
	}
	T_RUN(zero_counts());
	T_RUN(same_keys());
	T_RUN(punts());
	T_RUN(unsupported());
	T_RUN(bad_options());
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after the io_uring runs");
	t_cleanup();
	return t_result();
}
