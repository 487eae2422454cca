/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `statx06` on scratch ext4, xfs, btrfs and tmpfs made by mgbench, and ramfs as the
 * coarse control, with LTP's sleep wait (the default) and with --wait spin at --ticks 0.
 * No stamp is ever below the coarse clock read before the change or above the fine clock read
 * after it (--check agrees).  The groups separate the designs by mechanism: on a mainline
 * multigrain kernel the current groups (change, stat, measured change in one tick) take a fine
 * stamp in (nearly) every round, the armed groups (flag set, ctime from an earlier tick) take
 * none of their own, and the tracepoint's per-group counts never exceed the system-wide fine
 * stamp counter; ramfs takes none at all.  ramfs reports no btime: null, not zero.  Bad options
 * are usage errors naming the option.  The host is left as it was.
 */
#include "config.h"
#include "helpers.h"

#include <math.h>
#include <string.h>

static const char *const groups[] = {
	"create.unqueried", "write.unqueried", "write.armed", "write.current",
	"chmod.unqueried", "chmod.armed", "chmod.current",
};

static double group_metric(json_t *cell, const char *group, const char *key)
{
	char path[96];

	snprintf(path, sizeof(path), "%s.%s", group, key);
	return t_metric(cell, path);
}

/* The fine stamps the tracepoint counted in a group; every one is also a global fine stamp. */
static void check_fine_counts(json_t *cell, const char *fs, const char *group, double rounds)
{
	double fine = group_metric(cell, group, "fine_stamps"), global = group_metric(cell, group, "fine_stamps_global");

	T_CHECK(fine >= 0 && fine <= rounds, "%s %s: fine_stamps %g of %g rounds", fs, group, fine, rounds);
	if (!isnan(global))
		T_CHECK(fine <= global, "%s %s: %g fine stamps counted on the inode, %g on the whole machine", fs,
			group, fine, global);
}

static void run_statx06(const char *wait, const char *ticks, const char *rounds)
{
	static const char *const mg[] = { "ext4", "xfs", "btrfs", "tmpfs" };
	char name[64];
	const char *path;
	const char *const args[] = { "run", "statx06", "--fs", T_FS_ALL, "--wait", wait,
				     "--ticks", ticks, "--rounds", rounds, "--check", "-o", NULL, NULL };
	const char *argv[sizeof(args) / sizeof(args[0])];
	double n = atof(rounds);
	struct t_output o;
	json_t *doc, *cell;

	snprintf(name, sizeof(name), "statx06-%s-%s.json", wait, ticks);
	path = t_result_path(name);
	memcpy(argv, args, sizeof(args));
	argv[sizeof(args) / sizeof(args[0]) - 2] = path;
	t_mgbench(&o, argv);
	T_CHECK(o.status == 0, "--wait %s --ticks %s --check: exit %d: %s", wait, ticks, o.status, o.err);
	T_CHECK(strstr(o.out, "<before") && strstr(o.out, "C fine"), "table shows below_before and fine stamps:\n%s",
		o.out);
	for (const char *line = o.out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
		T_CHECK(strcspn(line, "\n") <= 72, "table line over 72 columns: %.*s", (int)strcspn(line, "\n"), line);
	fprintf(stderr, "statx06 --wait %s --ticks %s:\n%s", wait, ticks, o.out);
	doc = t_load(path);
	T_CHECK(doc != NULL, "--ticks %s: result document written", ticks);
	for (size_t i = 0; doc && i < 4; i++) {
		double sum = 0;

		cell = t_cell(doc, "statx06", mg[i]);
		T_CHECK(cell != NULL, "%s cell present", mg[i]);
		if (!cell)
			continue;
		T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "ok"), "%s ok", mg[i]);
		T_CHECK(!strcmp(json_string_value(json_object_get(json_object_get(cell, "params"), "wait")), wait),
			"%s: wait recorded as %s", mg[i], wait);
		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
			T_CHECK(group_metric(cell, groups[g], "rounds") == n, "%s %s: rounds %g", mg[i],
				groups[g], group_metric(cell, groups[g], "rounds"));
			T_CHECK(group_metric(cell, groups[g], "above_after_fine") == 0,
				"%s %s --ticks %s: %g stamps above the fine clock", mg[i], groups[g], ticks,
				group_metric(cell, groups[g], "above_after_fine"));
			T_CHECK(group_metric(cell, groups[g], "below_before") == 0, "%s %s --ticks %s: below before",
				mg[i], groups[g], ticks);
			sum += group_metric(cell, groups[g], "rounds");
			if (strcmp(groups[g], "create.unqueried"))
				check_fine_counts(cell, mg[i], groups[g], n);
		}
		T_CHECK(t_metric(cell, "all.rounds") == sum, "%s: all.rounds %g, groups %g", mg[i],
			t_metric(cell, "all.rounds"), sum);
		T_CHECK(json_is_null(json_object_get(json_object_get(json_object_get(cell, "metrics"), "create"), "unqueried")) ||
			isnan(group_metric(cell, "create.unqueried", "fine_stamps")),
			"%s: a new file's stamps are not counted as fine (null)", mg[i]);
		/* Mainline's rule, seen through the tracepoint: a ctime from this tick needs a fine
		 * stamp; one from an earlier tick does not (only other processes' floor lifts count).
		 * The rounds that met the rule's condition are counted (in_tick): a tick boundary
		 * between the query and the change, or a preempted round, leaves the change coarse. */
		{
			double in_tick = t_metric(cell, "all.current.in_tick");

			T_CHECK(t_metric(cell, "all.armed.in_tick") == 0,
				"%s: an armed round found its ctime in the current tick (%g)", mg[i],
				t_metric(cell, "all.armed.in_tick"));
			if (in_tick >= 0.5 * 2 * n)
				T_CHECK(t_metric(cell, "all.current.fine_stamps") >= 0.95 * in_tick,
					"%s: current groups took %g fine stamps in %g rounds that needed one", mg[i],
					t_metric(cell, "all.current.fine_stamps"), in_tick);
			else
				T_NOT_JUDGED("%s: current groups: only %g of %g rounds in one tick", mg[i],
					in_tick, 2 * n);
		}
		/* Only on a quiet machine: others' fine stamps lift the floor, and a lifted coarse
		 * stamp looks fine from outside (the global counter then runs far ahead). */
		if (group_metric(cell, "write.armed", "fine_stamps_global") + group_metric(cell, "chmod.armed",
											    "fine_stamps_global") <= 0.5 * 2 * n)
			T_CHECK(t_metric(cell, "all.armed.fine_stamps") <= 0.5 * 2 * n,
				"%s: armed groups took %g fine stamps in %g rounds (the 2023 rule?)", mg[i],
				t_metric(cell, "all.armed.fine_stamps"), 2 * n);
		else
			T_NOT_JUDGED("%s: armed groups: %g fine stamps on the machine meanwhile", mg[i],
				group_metric(cell, "write.armed", "fine_stamps_global") +
					group_metric(cell, "chmod.armed", "fine_stamps_global"));
		/* With no wait the fine stamp is later than the coarse clock for the rest of the tick. */
		if (!strcmp(ticks, "0"))
			T_CHECK(group_metric(cell, "write.current", "above_after") > 0,
				"%s: current writes with no wait should lie above the coarse clock", mg[i]);
	}
	cell = doc ? t_cell(doc, "statx06", "ramfs") : NULL;
	T_CHECK(cell != NULL, "ramfs cell present");
	if (cell) {
		json_t *create = json_object_get(json_object_get(cell, "metrics"), "create");

		T_CHECK(json_is_null(json_object_get(create, "unqueried")), "ramfs: no btime, so create is null");
		T_CHECK(json_is_false(json_object_get(json_object_get(cell, "metrics"), "btime_reported")),
			"ramfs: btime_reported false");
		T_CHECK(t_metric(cell, "all.above_after_fine_sum") == 0, "ramfs above_after_fine");
		/* Not multigrain: the kernel never takes its fine-stamp path for ramfs. */
		T_CHECK(t_metric(cell, "all.current.fine_stamps") == 0 && t_metric(cell, "all.armed.fine_stamps") == 0,
			"ramfs: fine stamps %g current, %g armed", t_metric(cell, "all.current.fine_stamps"),
			t_metric(cell, "all.armed.fine_stamps"));
	}
	json_decref(doc);
	t_output_free(&o);
}

static void bad_option(const char *name, const char *value)
{
	const char *const args[] = { "run", "statx06", name, value, "--fs", "tmpfs", NULL };
	struct t_output o;

	t_mgbench(&o, args);
	T_CHECK(o.status == 2, "%s %s: exit %d, want 2", name, value, o.status);
	T_CHECK(strstr(o.err, name) != NULL, "%s %s: message does not name the option: %s", name, value, o.err);
	t_output_free(&o);
}

int main(void)
{
	struct t_host before;

	t_require(&(struct t_needs){ .root = true, .filesystems = T_FS_ALL, .slow = true });
	t_host_snapshot(&before);
	T_RUN(run_statx06("spin", "0", "100"));
	T_RUN(run_statx06("sleep", "1", "25"));
	T_RUN(bad_option("--ticks", "3"));
	T_RUN(bad_option("--ticks", "one"));
	T_RUN(bad_option("--change", "rename"));
	T_RUN(bad_option("--prequery", "maybe"));
	T_RUN(bad_option("--wait", "nap"));
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after statx06");
	t_cleanup();
	return t_result();
}
