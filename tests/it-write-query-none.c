/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `write --query none` on ext4.  Nobody looks, so stamps stay coarse: the kernel's
 * count of ctime changes for the inode (timestamp:ctime_ns_xchg) is far below the number of
 * writes.  Not exactly one per tick: the floor is global, and fine stamps taken elsewhere on the
 * machine lift coarse ones, so the bound counts the floor moves too (t_check_coarse_bound).
 */
#include "config.h"
#include "helpers.h"

#include <math.h>
#include <string.h>

int main(void)
{
	const char *path = t_result_path("none.json");
	const char *const args[] = { "run", "write", "--fs", "ext4", "--rounds", "20000", "--query", "none",
				     "-o", path, NULL };
	struct t_output o;
	struct t_host before;
	json_t *doc, *cell;
	double writes, changes, ticks;

	t_require_root();
	t_host_snapshot(&before);
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "exit %d: %s", o.status, o.err);
	doc = t_load(path);
	cell = doc ? t_cell(doc, "write", "ext4") : NULL;
	T_CHECK(cell != NULL, "ext4 cell");
	if (cell) {
		writes = t_metric(cell, "writes");
		changes = t_metric(cell, "ctime_changes");
		ticks = t_metric(cell, "elapsed_ns") /
			json_integer_value(json_object_get(json_object_get(json_object_get(doc, "kernel"), "clocks"),
							   "coarse_tick_ns"));
		T_CHECK(writes == 20000, "writes %g", writes);
		T_CHECK(t_metric(cell, "queries") == 0, "no queries");
		T_CHECK(!isnan(changes) && changes >= 0, "changes counted by the tracepoint: %g", changes);
		/* The first write's change was armed by the baseline query, not by the load. */
		T_CHECK(t_metric(cell, "ctime_changes_excluded") == 1, "baseline-armed change left out");
		/* unqueried stamps are coarse: at most one per tick or floor move, far below the writes
		 * unless others' fine stamps keep moving the floor */
		if (t_check_coarse_bound(doc, cell, "write --query none on ext4", changes, writes) < writes / 20)
			T_CHECK(changes < writes / 10, "changes %g should be far below writes %g", changes, writes);
		fprintf(stderr, "ext4 --query none: %g writes, %g ctime changes over %.1f ticks\n", writes, changes, ticks);
	}
	json_decref(doc);
	t_output_free(&o);
	t_host_check_clean(&before, "after write --query none");
	t_cleanup();
	return t_result();
}
