/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: --check finds every invariant metric above zero, anywhere in a cell, and names the cell. */
#include "config.h"
#include "check.h"
#include "helpers.h"

#include <string.h>

int main(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	json_t *doc = json_pack(
		"{s:s, s:[{s:s, s:s, s:s, s:{s:{s:i, s:i, s:i}}},"
		"         {s:s, s:s, s:s, s:{s:{s:{s:i}}, s:i}},"
		"         {s:s, s:s, s:s, s:n}]}",
		"schema", "mgbench/1", "cells",
		"workload", "write", "fs", "ext4", "backend", "sync",
		"metrics", "ctime", "backwards", 0, "future", 0, "distinct", 5,
		"workload", "statx06", "fs", "xfs", "backend", "sync",
		"metrics", "write", "prequery", "above_after_fine", 2, "inversions", 1,
		"workload", "write", "fs", "btrfs", "backend", "sync", "metrics");

	out = open_memstream(&text, &len);
	T_CHECK(mgb_check_document(doc, out) == 2, "two violations in the second cell");
	fclose(out);
	T_CHECK(strstr(text, "statx06 on xfs via sync: write.prequery.above_after_fine = 2") != NULL,
		"names the cell and the path: %s", text);
	T_CHECK(strstr(text, "inversions = 1") != NULL, "top-level invariant found: %s", text);
	T_CHECK(strstr(text, "ext4") == NULL, "a clean cell is not named: %s", text);
	free(text);

	/* statx06: one stamp below before is one violation, though all.* sums it too; a revalidate
	 * cell with too few fresh polls fails too (conclusive false), one with enough does not. */
	{
		json_t *d2 = json_pack("{s:s, s:[{s:s, s:s, s:s, s:{s:{s:{s:i, s:i}}, s:{s:i, s:i, s:i}}},"
				       "         {s:s, s:s, s:s, s:{s:b, s:i}},"
				       "         {s:s, s:s, s:s, s:{s:b, s:i}}]}",
				       "schema", "mgbench/1", "cells",
				       "workload", "statx06", "fs", "ext4", "backend", "sync",
				       "metrics", "write", "armed", "below_before", 1, "above_after_fine", 0,
				       "all", "rounds", 300, "below_before_sum", 1, "above_after_fine_sum", 0,
				       "workload", "revalidate", "fs", "btrfs", "backend", "sync",
				       "metrics", "conclusive", 0, "misses_granularity", 0,
				       "workload", "revalidate", "fs", "xfs", "backend", "sync",
				       "metrics", "conclusive", 1, "misses_granularity", 0);

		text = NULL;
		out = open_memstream(&text, &len);
		T_CHECK(mgb_check_document(d2, out) == 2, "one below_before and one inconclusive cell");
		fclose(out);
		T_CHECK(strstr(text, "write.armed.below_before = 1") != NULL, "below_before judged: %s", text);
		T_CHECK(strstr(text, "revalidate on btrfs via sync: conclusive = false") != NULL,
			"inconclusive judged: %s", text);
		T_CHECK(strstr(text, "xfs") == NULL, "a conclusive cell is not named: %s", text);
		free(text);
		json_decref(d2);
	}

	/* A clean document passes; low distinct ratios (ramfs) are facts, not violations. */
	json_array_remove(json_object_get(doc, "cells"), 1);
	out = fopen("/dev/null", "w");
	T_CHECK(mgb_check_document(doc, out) == 0, "clean document");
	fclose(out);
	json_decref(doc);
	return t_result();
}
