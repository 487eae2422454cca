/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `mgbench info` finds multigrain on ext4, xfs, btrfs and tmpfs where the running
 * kernel has it (mainline 6.13 and later), never on ramfs, and never on an older kernel.
 */
#include "config.h"
#include "helpers.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

/* Multigrain timestamps are in mainline from 6.13. */
static bool kernel_has_multigrain(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 13);
}

int main(void)
{
	const char *const args[] = { "info", "--json", NULL };
	const char *const text_args[] = { "info", NULL };
	struct t_output o;
	struct t_host before;
	json_error_t je;
	json_t *doc, *fs;
	size_t i;
	unsigned seen = 0;

	t_require_root();
	t_host_snapshot(&before);
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "exit %d: %s", o.status, o.err);
	doc = json_loads(o.out, 0, &je);
	T_CHECK(doc != NULL, "info --json is JSON: %s", je.text);
	if (!doc) {
		t_output_free(&o);
		return t_result();
	}
	T_CHECK(json_string_value(json_object_get(json_object_get(doc, "kernel"), "release")) != NULL, "release");
	T_CHECK(json_integer_value(json_object_get(json_object_get(json_object_get(doc, "kernel"), "clocks"),
						   "coarse_tick_ns")) > 0, "coarse tick measured");
	json_array_foreach(json_object_get(doc, "filesystems"), i, fs) {
		const char *name = json_string_value(json_object_get(fs, "fs"));
		bool mg = json_is_true(json_object_get(fs, "multigrain"));
		bool expect = kernel_has_multigrain() && strcmp(name, "ramfs") != 0;

		seen++;
		T_CHECK(mg == expect, "%s: multigrain %d, expected %d (%s)", name, mg, expect,
			json_string_value(json_object_get(fs, "evidence")));
		T_CHECK(!strcmp(json_string_value(json_object_get(fs, "fstype")) ?: "", name), "%s fstype", name);
	}
	T_CHECK(seen == 5, "five filesystems probed, saw %u", seen);
	json_decref(doc);
	t_output_free(&o);

	t_mgbench(&o, text_args);
	T_CHECK(o.status == 0 && strstr(o.out, "multigrain") && strstr(o.out, "ramfs"), "text info:\n%s", o.out);
	t_output_free(&o);
	t_host_check_clean(&before, "after info");
	return t_result();
}
