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

	/* A clean document passes; low distinct ratios (ramfs) are facts, not violations. */
	json_array_remove(json_object_get(doc, "cells"), 1);
	out = fopen("/dev/null", "w");
	T_CHECK(mgb_check_document(doc, out) == 0, "clean document");
	fclose(out);
	json_decref(doc);
	return t_result();
}
