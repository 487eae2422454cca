/*
 * Integration: `write --query every` on scratch ext4, xfs, btrfs, tmpfs and ramfs made by mgbench.
 * Multigrain filesystems give a distinct ctime on every round, never backwards, never in the
 * future (and --check passes: a low distinct ratio on ramfs is a fact, not a violation);
 * ramfs (coarse stamps) gives no more than coarse ticks and floor moves allow: far fewer, unless
 * other processes' fine stamps are moving the global floor.  The host is left as it was.
 */
#include "config.h"
#include "helpers.h"

#include <math.h>
#include <string.h>

int main(void)
{
	static const char *const mg[] = { "ext4", "xfs", "btrfs", "tmpfs" };
	const char *path = t_result_path("write.json");
	const char *const args[] = { "run", "write", "--fs", "ext4,xfs,btrfs,tmpfs,ramfs", "--rounds", "3000",
				     "--query", "every", "--check", "-o", path, NULL };
	struct t_output o;
	struct t_host before;
	json_t *doc, *cell;

	t_require_root();
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
		T_CHECK(t_metric(cell, "writes_per_s") > 0, "%s ops/s", mg[i]);
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
	}
	json_decref(doc);
	t_output_free(&o);
	t_host_check_clean(&before, "after write");
	t_cleanup();
	return t_result();
}
