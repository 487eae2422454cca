/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `ordering` on scratch ext4, xfs, btrfs and tmpfs made by mgbench, in every
 * variant (same fs, f2 on a second filesystem, two threads on two CPUs): f1, written last, is
 * never older than f2, and --check agrees.  crossfs needs a session, so a --dir run is refused
 * with a clear error; bad options are usage errors naming the option.  Beyond the arithmetic
 * (ties and inversions within the rounds), the sequence must really have run on multigrain
 * inodes: the cell's counters, over the measured window only (crossfs's second filesystem is
 * made outside it), show at least two ctime updates per round, which ramfs does not give.
 * The host is left clean.
 */
#include "config.h"
#include "helpers.h"
#include "probe.h"

#include <math.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS "2000"

/*
 * The multigrain ctime updates other processes made over an interval as long as the cell's:
 * the counters are global, so on a busy machine (a kernel build beside us) they move without
 * us.  Read in a mount namespace of the test's own, where debugfs is mounted; NAN if unreadable.
 */
static double background_updates(double elapsed_ns)
{
	struct mgb_mg_counters a, b;
	struct timespec d = { (time_t)(elapsed_ns / 1e9), (long)fmod(elapsed_ns, 1e9) };

	mgb_mg_counters_read(&a);
	nanosleep(&d, NULL);
	mgb_mg_counters_read(&b);
	return a.valid && b.valid ? (double)(b.ctime_updates - a.ctime_updates) : NAN;
}

static void run_variant(const char *variant, const char *fs_list, const char *second_fs)
{
	static const char *const fs[] = { "ext4", "xfs", "btrfs", "tmpfs" };
	char path[512];
	const char *const args[] = { "run", "ordering", "--variant", variant, "--second-fs", second_fs,
				     "--fs", fs_list, "--rounds", ROUNDS, "--check", "-o", path, NULL };
	struct t_output o;
	json_t *doc;
	unsigned cells = 0;

	snprintf(path, sizeof(path), "%s", t_result_path(variant));
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "--variant %s: exit %d: %s", variant, o.status, o.err);
	for (const char *line = o.out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
		T_CHECK(strcspn(line, "\n") <= 72, "table line over 72 columns: %.*s", (int)strcspn(line, "\n"), line);
	doc = t_load(path);
	for (size_t i = 0; doc && i < 4; i++) {
		json_t *cell = t_cell(doc, "ordering", fs[i]);
		double rounds, ties;

		if (!strstr(fs_list, fs[i]))
			continue;
		cells++;
		T_CHECK(cell != NULL, "%s %s cell present", variant, fs[i]);
		if (!cell)
			continue;
		T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "ok"), "%s %s ok", variant, fs[i]);
		rounds = t_metric(cell, "rounds");
		ties = t_metric(cell, "ties");
		T_CHECK(rounds == atof(ROUNDS), "%s %s: rounds %g", variant, fs[i], rounds);
		T_CHECK(t_metric(cell, "inversions") == 0, "%s %s: %g inversions, worst %g ns", variant, fs[i],
			t_metric(cell, "inversions"), t_metric(cell, "max_inversion_ns"));
		T_CHECK(ties >= 0 && ties <= rounds, "%s %s: ties %g", variant, fs[i], ties);
		T_CHECK(fabs(t_metric(cell, "tie_ratio") - ties / rounds) < 1e-9, "%s %s: tie_ratio", variant, fs[i]);
		T_CHECK(t_metric(cell, "rounds_per_s") > 0, "%s %s: rounds/s", variant, fs[i]);
		T_CHECK(ties + t_metric(cell, "inversions") <= rounds, "%s %s: ties and inversions within rounds",
			variant, fs[i]);
		{
			json_t *counters = json_object_get(cell, "counters");
			json_t *updates = json_object_get(json_object_get(counters, "multigrain"), "ctime_updates");

			T_CHECK(!strcmp(json_string_value(json_object_get(counters, "window")) ?: "", "measured"),
				"%s %s: counters cover the measured window", variant, fs[i]);
			/* f1's first write and f2's write each follow a stat of their file, so each
			 * goes through the multigrain ctime update (f1's second write usually finds
			 * the time unchanged and updates nothing). */
			if (json_is_integer(updates))
				T_CHECK((double)json_integer_value(updates) >= 2 * rounds,
					"%s %s: %lld ctime updates for %g rounds: did the sequence run?", variant, fs[i],
					(long long)json_integer_value(updates), rounds);
		}
		if (!strcmp(variant, "crossfs")) {
			const char *got = json_string_value(json_object_get(json_object_get(cell, "metrics"), "second_fs"));

			T_CHECK(got && !strcmp(got, second_fs), "%s: f2 really on %s, got %s", fs[i], second_fs,
				got ? got : "nothing");
		}
		if (!strcmp(variant, "threads") && sysconf(_SC_NPROCESSORS_ONLN) >= 2)
			T_CHECK(json_is_true(json_object_get(json_object_get(cell, "metrics"), "pinned")),
				"%s: threads pinned to two CPUs", fs[i]);
	}
	T_CHECK(cells > 0, "%s: cells checked", variant);
	/* ramfs, the coarse control: no multigrain updates, so the same bound would fail there. */
	if (doc && strstr(fs_list, "ramfs")) {
		json_t *cell = t_cell(doc, "ordering", "ramfs");
		json_t *updates = json_object_get(json_object_get(json_object_get(cell, "counters"), "multigrain"),
						  "ctime_updates");

		T_CHECK(cell && t_metric(cell, "inversions") == 0, "ramfs: no inversions");
		double rounds = t_metric(cell, "rounds"), noise = background_updates(t_metric(cell, "elapsed_ns"));

		/* the control says something only when others' updates cannot reach the bound alone */
		if (json_is_integer(updates) && !(noise < rounds / 2))
			T_NOT_JUDGED("ramfs, the control: %g multigrain updates by other processes in an interval "
				     "as long as the cell's (%lld in the cell)", noise,
				(long long)json_integer_value(updates));
		else if (json_is_integer(updates))
			T_CHECK((double)json_integer_value(updates) < 2 * rounds,
				"ramfs: %lld multigrain updates for %g rounds (%g by others in as long)",
				(long long)json_integer_value(updates), rounds, noise);
	}
	json_decref(doc);
	t_output_free(&o);
}

static void one_cpu(void *arg)
{
	cpu_set_t set;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* --variant threads on one CPU: the cell warns that its two threads only take turns; on two or
 * more it does not, and the default variant never does. */
static void two_cpu_warning(void)
{
	const char *path = t_result_path("one-cpu.json");
	const char *const threads[] = { "run", "ordering", "--variant", "threads", "--fs", "tmpfs", "--rounds", "200",
					"-o", path, NULL };
	const char *const same[] = { "run", "ordering", "--fs", "tmpfs", "--rounds", "200", "-o", path, NULL };
	cpu_set_t set;
	struct t_output o;
	json_t *doc;

	t_mgbench_with(&o, threads, one_cpu, NULL);
	T_CHECK(o.status == 0, "threads on one CPU: exit %d: %s", o.status, o.err);
	T_CHECK(strstr(o.out, "warning: ordering with these options runs two threads"),
		"threads on one CPU: the table warns: %s", o.out);
	doc = t_load(path);
	T_CHECK(json_array_size(json_object_get(json_array_get(json_object_get(doc, "cells"), 0), "warnings")) == 1,
		"threads on one CPU: the cell records the warning");
	json_decref(doc);
	t_output_free(&o);
	t_mgbench_with(&o, same, one_cpu, NULL);
	T_CHECK(o.status == 0 && !strstr(o.out, "warning:"), "same on one CPU: no warning: %s", o.out);
	t_output_free(&o);
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) >= 2) {
		t_mgbench(&o, threads);
		T_CHECK(o.status == 0 && !strstr(o.out, "warning:"), "threads on %d CPUs: no warning: %s",
			CPU_COUNT(&set), o.out);
		t_output_free(&o);
	} else {
		fprintf(stderr, "one CPU only: the no-warning case on two CPUs is not judged\n");
	}
}

static void expect_failure(const char *const args[], int status, const char *names)
{
	struct t_output o;

	t_mgbench(&o, args);
	T_CHECK(o.status == status, "%s %s: exit %d, want %d", args[2], args[3], o.status, status);
	T_CHECK(strstr(o.err, names) != NULL, "%s %s: message does not name '%s': %s", args[2], args[3], names,
		o.err);
	t_output_free(&o);
}

int main(void)
{
	struct t_host before;
	char dir[512], out[512];

	t_require(&(struct t_needs){ .root = true, .filesystems = T_FS_ALL, .slow = true });
	/* debugfs for background_updates(), in a namespace of our own (runs inherit a copy) */
	if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
		mount("none", "/sys/kernel/debug", "debugfs", 0, NULL);
	t_host_snapshot(&before);
	T_RUN(run_variant("same", T_FS_ALL, "tmpfs"));
	T_RUN(run_variant("crossfs", T_FS_MULTIGRAIN, "tmpfs"));
	run_variant("crossfs", "tmpfs", "xfs"); /* and the other way round: f2 on a loop fs */
	T_RUN(run_variant("threads", T_FS_MULTIGRAIN, "tmpfs"));
	T_RUN(two_cpu_warning());

	snprintf(out, sizeof(out), "%s", t_result_path("dir.json"));
	snprintf(dir, sizeof(dir), "%s", getenv("TMPDIR"));
	{
		const char *const args[] = { "run", "ordering", "--variant", "crossfs", "--dir", dir, "-o", out, NULL };

		T_RUN(expect_failure(args, 1, "--variant crossfs"));
	}
	{
		const char *const args[] = { "run", "ordering", "--variant", "sideways", "--fs", "tmpfs", NULL };

		T_RUN(expect_failure(args, 2, "--variant"));
	}
	{
		const char *const args[] = { "run", "ordering", "--second-fs", "zfs", "--fs", "tmpfs", NULL };

		T_RUN(expect_failure(args, 2, "--second-fs"));
	}
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after ordering");
	t_cleanup();
	return t_result();
}
