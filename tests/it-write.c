/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `write --query every` on scratch ext4, xfs, btrfs, tmpfs and ramfs made by mgbench.
 * Multigrain filesystems give a distinct ctime on every round, never backwards, never in the
 * future (and --check passes: a low distinct ratio on ramfs is a fact, not a violation);
 * ramfs (coarse stamps) gives no more than coarse ticks and floor moves allow: far fewer, unless
 * other processes' fine stamps are moving the global floor.  With --query 2 the tracepoint counts
 * the changes: every write after a query changes ctime, the one after it normally does not, so
 * the count lies between the queries (less the first write's, which the baseline query armed
 * and which is left out) and queries + elapsed ticks + floor moves + 1.  On ramfs the count comes
 * from the other path's tracepoint (inode_set_ctime_to_ts): an exact count, once per tick, so the
 * queries every other write see each change and the count is their distinct ctimes, give or take
 * a floor move.  The host is left as it was.
 */
#include "config.h"
#include "helpers.h"
#include "result.h"

#include <math.h>
#include <string.h>

static json_t *mg_counter(json_t *cell, const char *name)
{
	return json_object_get(json_object_get(json_object_get(cell, "counters"), "multigrain"), name);
}

/*
 * ramfs's changes take the non-multigrain path, which ctime_ns_xchg never sees: counted by
 * inode_set_ctime_to_ts, exactly.  Each is a ctime the next query shows (a write every few
 * microseconds, a change at most once per tick), so the count is at least the distinct ctimes
 * the queries saw and at most that plus an allowance for a floor move between two queries.
 */
static void ramfs_changes(json_t *cell, double tick_ns)
{
	json_t *n = json_object_get(json_object_get(cell, "metrics"), "ctime_changes");
	double changes = t_metric(cell, "ctime_changes"), distinct = t_metric(cell, "ctime.distinct");

	T_CHECK(json_is_integer(n), "ramfs --query 2: ctime_changes is an exact count, not unknown");
	T_CHECK(t_metric(cell, "ctime_changes_excluded") == 0, "ramfs: its queries arm nothing, no change left out");
	/* Writes spanning a whole tick cross a tick boundary: a change. */
	if (t_metric(cell, "elapsed_ns") >= tick_ns)
		T_CHECK(changes > 0, "ramfs: %g changes over %g ticks", changes, t_metric(cell, "elapsed_ns") / tick_ns);
	else
		fprintf(stderr, "ramfs --query 2 ran under a tick: a count of 0 is possible, not judged\n");
	T_CHECK(changes >= distinct && changes <= distinct + 2, "ramfs: %g changes counted, %g distinct ctimes seen",
		changes, distinct);
	fprintf(stderr, "--query 2 on ramfs: %g changes, %g distinct ctimes seen, %g ticks\n", changes, distinct,
		t_metric(cell, "elapsed_ns") / tick_ns);
}

/* --query 2: the tracepoint's count of ctime changes against what the queries imply. */
static void query_two(void)
{
	static const char *const mg[] = { "ext4", "xfs", "btrfs", "tmpfs" };
	const char *path = t_result_path("write-q2.json");
	const char *const args[] = { "run", "write", "--fs", T_FS_ALL, "--rounds", "3000",
				     "--query", "2", "-o", path, NULL };
	struct t_output o;
	json_t *doc, *cell;
	double tick_ns;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "--query 2: exit %d: %s", o.status, o.err);
	doc = t_load(path);
	T_CHECK(doc != NULL, "--query 2: document written");
	tick_ns = doc ? (double)json_integer_value(json_object_get(
				json_object_get(json_object_get(doc, "kernel"), "clocks"), "coarse_tick_ns"))
		      : 0;
	for (size_t i = 0; doc && i < 4; i++) {
		double queries, changes, ticks, floor_moves;

		cell = t_cell(doc, "write", mg[i]);
		T_CHECK(cell != NULL, "--query 2: %s cell present", mg[i]);
		if (!cell)
			continue;
		queries = t_metric(cell, "queries");
		changes = t_metric(cell, "ctime_changes");
		ticks = ceil(t_metric(cell, "elapsed_ns") / tick_ns);
		floor_moves = json_is_integer(mg_counter(cell, "floor_swaps"))
				      ? (double)json_integer_value(mg_counter(cell, "floor_swaps")) : NAN;
		T_CHECK(queries == 1500, "%s: queries %g", mg[i], queries);
		T_CHECK(!strcmp(json_string_value(json_object_get(json_object_get(cell, "metrics"), "ctime_changes_source")),
				"tracepoint"), "%s: counted by the tracepoint", mg[i]);
		T_CHECK(t_metric(cell, "ctime_changes_excluded") == 1, "%s: the baseline-armed change is left out", mg[i]);
		T_CHECK(changes >= queries - 1, "%s: %g changes, fewer than the %g queries armed", mg[i], changes, queries);
		/* Each query arms at most one fine stamp of ours, and each moves the floor: the floor
		 * moves beyond that are other processes'. */
		if (!isnan(floor_moves))
			floor_moves = floor_moves > queries ? floor_moves - queries : 0;
		if (!isnan(floor_moves))
			T_CHECK(changes <= queries + ticks + floor_moves + 1,
				"%s: %g changes, more than %g queries + %g ticks + %g others' floor moves + 1", mg[i],
				changes, queries, ticks, floor_moves);
		fprintf(stderr, "--query 2 on %s: %g changes, %g queries, %g ticks, %g others' floor moves\n", mg[i], changes,
			queries, ticks, floor_moves);
	}
	cell = doc ? t_cell(doc, "write", "ramfs") : NULL;
	T_CHECK(cell != NULL, "--query 2: ramfs cell present");
	if (cell)
		ramfs_changes(cell, tick_ns);
	json_decref(doc);
	t_output_free(&o);
}

/* The document records the kernel's config, and its HZ is the tick the probe measured (a
 * kernel without a readable config says so instead). */
static void kernel_config(json_t *doc)
{
	json_t *cfg = mgb_json_path(doc, "kernel.config");
	const char *hz = json_string_value(mgb_json_path(doc, "kernel.config.options.CONFIG_HZ"));
	double tick = json_number_value(mgb_json_path(doc, "kernel.clocks.coarse_tick_ns"));

	T_CHECK(json_is_object(cfg), "kernel.config is there");
	if (json_is_null(json_object_get(cfg, "file"))) {
		T_CHECK(json_is_string(json_object_get(cfg, "reason")), "no config: a reason");
		printf("# no kernel config readable here: HZ not judged\n");
		return;
	}
	T_CHECK(hz && atoi(hz) > 0, "CONFIG_HZ recorded from %s", json_string_value(json_object_get(cfg, "file")));
	if (hz && atoi(hz) > 0)
		T_CHECK(fabs(tick - 1e9 / atoi(hz)) < 0.1 * 1e9 / atoi(hz),
			"the tick %.0f ns is CONFIG_HZ=%s's", tick, hz);
	/* the coarse clock moves by whole ticks: more than one when the prober lost its CPU */
	double seen = json_number_value(mgb_json_path(doc, "kernel.clocks.coarse_step_seen_ns"));
	double ticks = tick > 0 ? seen / tick : 0;

	if (seen == 0)
		T_NOT_JUDGED("the clock probe saw no step of the coarse clock in its 200 ms: the load took its CPU");
	else
		T_CHECK(ticks >= 0.9 && fabs(ticks - round(ticks)) < 0.1,
			"the smallest coarse step seen, %.0f ns, is whole ticks of %.0f ns", seen, tick);
}

int main(void)
{
	static const char *const mg[] = { "ext4", "xfs", "btrfs", "tmpfs" };
	const char *path = t_result_path("write.json");
	const char *const args[] = { "run", "write", "--fs", T_FS_ALL, "--rounds", "3000",
				     "--query", "every", "--check", "-o", path, NULL };
	struct t_output o;
	struct t_host before;
	json_t *doc, *cell;

	t_require(&(struct t_needs){ .root = true, .filesystems = T_FS_ALL });
	t_host_snapshot(&before);
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "exit %d: %s", o.status, o.err);
	T_CHECK(strstr(o.out, "distinct") && strstr(o.out, "ramfs"), "table printed:\n%s", o.out);
	for (const char *line = o.out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
		T_CHECK(strcspn(line, "\n") <= 72, "table line over 72 columns: %.*s", (int)strcspn(line, "\n"), line);
	doc = t_load(path);
	T_CHECK(doc != NULL, "result document written");
	if (!doc)
		return t_result();
	T_CHECK(json_is_false(json_object_get(doc, "interrupted")), "not interrupted");
	T_RUN(kernel_config(doc));
	for (size_t i = 0; i < 4; i++) {
		cell = t_cell(doc, "write", mg[i]);
		T_CHECK(cell != NULL, "%s cell present", mg[i]);
		if (!cell)
			continue;
		T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "ok"), "%s ok", mg[i]);
		T_CHECK(!strcmp(json_string_value(json_object_get(json_object_get(cell, "target"), "fstype")), mg[i]),
			"%s really mounted as %s", mg[i], mg[i]);
		T_CHECK(t_metric(cell, "ctime.rounds") == 3000, "%s rounds %g", mg[i], t_metric(cell, "ctime.rounds"));
		T_CHECK(t_metric(cell, "ctime.distinct_ratio") == 1.0, "%s distinct ratio %g", mg[i],
			t_metric(cell, "ctime.distinct_ratio"));
		T_CHECK(t_metric(cell, "ctime.backwards") == 0, "%s backwards %g", mg[i], t_metric(cell, "ctime.backwards"));
		T_CHECK(t_metric(cell, "ctime.future") == 0, "%s future %g", mg[i], t_metric(cell, "ctime.future"));
		T_CHECK(t_metric(cell, "mtime.backwards") == 0, "%s mtime backwards", mg[i]);
		T_CHECK(t_metric(cell, "writes_per_s") > 0, "%s writes/s", mg[i]);
		T_CHECK(json_is_true(json_object_get(json_object_get(cell, "multigrain"), "in_effect")),
			"%s: the cell records multigrain in effect", mg[i]);
		/* Every write gave a new ctime. */
		T_CHECK(t_metric(cell, "ctime_changes") >= 3000, "%s traced changes %g", mg[i],
			t_metric(cell, "ctime_changes"));
	}
	cell = t_cell(doc, "write", "ramfs");
	T_CHECK(cell != NULL, "ramfs cell present");
	if (cell) {
		double ratio = t_metric(cell, "ctime.distinct_ratio");
		double floor_moves = t_check_coarse_bound(doc, cell, "write on ramfs", t_metric(cell, "ctime.distinct"),
							  3000);

		/* 3000 rounds take a few ms: on a quiet machine a coarse clock gives a handful of values. */
		if (floor_moves < 300)
			T_CHECK(ratio < 0.2, "ramfs distinct ratio %g should be far below 1", ratio);
		T_CHECK(t_metric(cell, "ctime.backwards") == 0, "ramfs backwards");
		T_CHECK(json_is_false(json_object_get(json_object_get(cell, "multigrain"), "in_effect")),
			"ramfs: the cell records multigrain not in effect");
	}
	T_CHECK(strstr(o.out, "multigrain: yes on ext4 xfs btrfs tmpfs; no on ramfs") != NULL,
		"the table says where multigrain was in effect:\n%s", o.out);
	json_decref(doc);
	t_output_free(&o);
	query_two();
	t_host_check_clean(&before, "after write");
	t_cleanup();
	return t_result();
}
