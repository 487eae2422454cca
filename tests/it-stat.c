/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `stat` query throughput on tmpfs and ext4, with the flag-arming mask and the
 * size-only control, each with a writer: only queries that ask for times see the ctime move.
 */
#include "config.h"
#include "helpers.h"

#include <math.h>
#include <string.h>

static void run_mask(const char *mask)
{
	const char *path = t_result_path(mask);
	const char *const args[] = { "run", "stat", "--fs", "tmpfs,ext4", "--threads", "2", "--writer", "--mask", mask,
				     "--rounds", "20000", "-o", path, NULL };
	struct t_output o;
	json_t *doc;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "stat --mask %s: exit %d: %s", mask, o.status, o.err);
	doc = t_load(path);
	for (int i = 0; doc && i < 2; i++) {
		const char *fs = i ? "ext4" : "tmpfs";
		json_t *cell = t_cell(doc, "stat", fs);

		T_CHECK(cell != NULL, "%s cell", fs);
		if (!cell)
			continue;
		T_CHECK(t_metric(cell, "queries") == 40000, "%s %s: 2 threads x 20000 queries, got %g", fs, mask,
			t_metric(cell, "queries"));
		T_CHECK(t_metric(cell, "queries_per_s") > 0, "%s queries/s", fs);
		/* the writer runs while the queries do: on a busy machine they may all be done before
		 * it has had a CPU */
		if (t_metric(cell, "writer_writes") == 0)
			T_NOT_JUDGED("%s %s: the writer had no CPU in the queries' %g ms: whether it wrote, and whether "
				     "the queries saw its changes", fs, mask, t_metric(cell, "elapsed_ns") / 1e6);
		else
			T_CHECK(t_metric(cell, "writer_writes") > 0, "%s writer wrote", fs);
		if (!strcmp(mask, "times")) {
			if (t_metric(cell, "writer_writes") > 0)
				T_CHECK(t_metric(cell, "ctime_changes_seen") > 0, "%s: queries see the writer's %g changes",
					fs, t_metric(cell, "writer_writes"));
			/* The kernel's view: every times query took the multigrain getattr path. */
			T_CHECK(t_metric(cell, "mg_queries") >= 40000, "%s: %g of 40000 queries took the multigrain path",
				fs, t_metric(cell, "mg_queries"));
		} else {
			T_CHECK(isnan(t_metric(cell, "ctime_changes_seen")), "%s: a size-only query sees no ctime", fs);
			/* The control: not one query armed the flag, so the writer got coarse stamps only. */
			T_CHECK(t_metric(cell, "mg_queries") == 0, "%s: size-only queries armed the flag %g times",
				fs, t_metric(cell, "mg_queries"));
			t_check_coarse_bound(doc, cell, "stat --mask size", t_metric(cell, "ctime_changes_traced"),
					     t_metric(cell, "writer_writes"));
		}
	}
	json_decref(doc);
	t_output_free(&o);
}

int main(void)
{
	struct t_host before;

	t_require_root();
	t_host_snapshot(&before);
	T_RUN(run_mask("times"));
	T_RUN(run_mask("size"));
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after stat");
	t_cleanup();
	return t_result();
}
