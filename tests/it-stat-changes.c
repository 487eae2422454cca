/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `stat --threads 4 --writer` counts each ctime change once, however many query
 * threads see it.  On ext4 every change the queries saw was a ctime swap in the kernel, so
 * ctime_changes_seen is at most the cell's ctime_swaps (counters over the measured window; the
 * counters are global, so other activity can only raise them) and at most the writer's writes.
 * Counted per thread, as before, four threads would report up to four times the swaps.  On ramfs
 * (coarse stamps) the count stays within the coarse bound, and the kernel's count of its changes
 * (inode_set_ctime_to_ts, the non-multigrain path) is exact: at least what the queries saw.
 */
#include "config.h"
#include "helpers.h"

#include <math.h>
#include <string.h>

int main(void)
{
	const char *path = t_result_path("stat-changes.json");
	const char *const args[] = { "run", "stat", "--fs", "ext4,ramfs", "--threads", "4", "--writer",
				     "--rounds", "50000", "-o", path, NULL };
	struct t_output o;
	struct t_host before;
	json_t *doc, *cell;

	t_require_root();
	t_host_snapshot(&before);
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "exit %d: %s", o.status, o.err);
	fprintf(stderr, "%s", o.out);
	doc = t_load(path);
	cell = doc ? t_cell(doc, "stat", "ext4") : NULL;
	T_CHECK(cell != NULL, "ext4 cell");
	if (cell) {
		double seen = t_metric(cell, "ctime_changes_seen"), writes = t_metric(cell, "writer_writes");
		json_t *swaps = json_object_get(json_object_get(json_object_get(cell, "counters"), "multigrain"),
						"ctime_swaps");

		T_CHECK(seen > 0, "ext4: the queries saw the writer's changes (%g)", seen);
		T_CHECK(seen <= writes, "ext4: %g changes seen, more than the %g writes", seen, writes);
		if (json_is_integer(swaps))
			T_CHECK(seen <= (double)json_integer_value(swaps), "ext4: %g changes seen, %lld ctime swaps",
				seen, (long long)json_integer_value(swaps));
	}
	cell = doc ? t_cell(doc, "stat", "ramfs") : NULL;
	T_CHECK(cell != NULL, "ramfs cell");
	if (cell) {
		double seen = t_metric(cell, "ctime_changes_seen"), traced = t_metric(cell, "ctime_changes_traced");

		t_check_coarse_bound(doc, cell, "stat on ramfs", seen, t_metric(cell, "writer_writes"));
		T_CHECK(json_is_integer(json_object_get(json_object_get(cell, "metrics"), "ctime_changes_traced")),
			"ramfs: ctime_changes_traced is an exact count, not unknown");
		T_CHECK(traced >= seen, "ramfs: %g changes traced, %g seen by the queries", traced, seen);
		fprintf(stderr, "stat on ramfs: %g changes traced, %g seen\n", traced, seen);
	}
	json_decref(doc);
	t_output_free(&o);
	t_host_check_clean(&before, "after stat");
	t_cleanup();
	return t_result();
}
