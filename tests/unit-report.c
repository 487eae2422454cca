/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: the text table never rounds a ratio below 1 up to 1.000, and prints booleans as words. */
#include "config.h"
#include "report.h"
#include "helpers.h"
#include "result.h"

#include <string.h>

static char *table_of(json_t *doc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	mgb_report_print(out, doc);
	fclose(out);
	return text;
}

int main(void)
{
	/* 9,995 distinct of 10,000: %.3f would print 1.000 and hide 5 repeated stamps. */
	json_t *doc = json_pack("{s:s, s:[{s:s, s:s, s:s, s:s, s:{}, s:{s:{s:f}}},"
				"         {s:s, s:s, s:s, s:s, s:{}, s:{s:b, s:i}}]}",
				"schema", "mgbench/1", "cells",
				"workload", "write", "fs", "ext4", "backend", "sync", "status", "ok", "params",
				"metrics", "ctime", "distinct_ratio", 0.9995,
				"workload", "revalidate", "fs", "btrfs", "backend", "sync", "status", "ok", "params",
				"metrics", "conclusive", 0, "polls", 3);
	char *text = table_of(doc);

	T_CHECK(strstr(text, "0.999") != NULL && strstr(text, "1.000") == NULL, "0.9995 truncated:\n%s", text);
	T_CHECK(strstr(text, " NO") != NULL, "an inconclusive cell says NO:\n%s", text);
	free(text);
	json_decref(doc);

	doc = json_pack("{s:s, s:[{s:s, s:s, s:s, s:s, s:{}, s:{s:{s:f}}}]}", "schema", "mgbench/1", "cells",
			"workload", "write", "fs", "ext4", "backend", "sync", "status", "ok", "params",
			"metrics", "ctime", "distinct_ratio", 1.0);
	text = table_of(doc);
	T_CHECK(strstr(text, "1.000") != NULL, "a ratio of exactly 1 prints as 1.000:\n%s", text);
	free(text);
	json_decref(doc);
	return t_result();
}
