/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: fio as the cost workload's load, on real fio runs.
 *   Every phase of every filesystem is a complete fio measurement read from fio's JSON (writes,
 *   iops, clat percentiles), the job found without MGBENCH_FIO_DIR; the fio-basic (falloc) job
 *   too.  What the cell records hangs together: on ext4 each ctime change of the file took a
 *   jbd2 handle, and the ctime poller made more ctime changes than the size poller.
 *   A job fio refuses and a missing job directory give a clear error and exit 1; SIGINT during a
 *   fio phase stops fio and leaves no fio process or mount behind.
 */
#include "config.h"
#include "helpers.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : -1;
}

#define phase(cell, kind) t_cost_phase(cell, kind, -1)

/* Every phase of the cell is a fio run of rounds writes with its numbers read. */
/* rounds > 0: phases of that many writes (--phase-ms rounds); else phases of phase_ms. */
static void complete_fio_cell(json_t *cell, const char *fs, double rounds, double phase_ms)
{
	json_t *m = json_object_get(cell, "metrics"), *ph;
	size_t i;

	T_CHECK(cell && !strcmp(json_string_value(json_object_get(cell, "status")) ?: "", "ok"), "%s: cell ok: %s", fs,
		json_string_value(json_object_get(cell, "error")) ?: "");
	T_CHECK(!strcmp(json_string_value(json_object_get(json_object_get(m, "load"), "name")) ?: "", "fio") &&
			!strncmp(json_string_value(json_object_get(json_object_get(m, "load"), "fio_version")) ?: "",
				 "fio-", 4),
		"%s: the load is fio, its version recorded", fs);
	T_CHECK(json_array_size(json_object_get(m, "phases")) == 3, "%s: three phases", fs);
	json_array_foreach(json_object_get(m, "phases"), i, ph) {
		json_t *fio = json_object_get(ph, "fio"), *clat = json_object_get(fio, "write_clat_ns");

		if (rounds > 0)
			T_CHECK(num(ph, "writes") == rounds && num(fio, "write_ios") == rounds, "%s phase %zu: %g writes",
				fs, i, num(ph, "writes"));
		else { /* fio's runtime is in whole ms, and it may run a few past the mark */
			double off_cpu = (1 - num(fio, "cpu_ratio")) * num(ph, "load_ns");

			T_CHECK(num(fio, "write_ios") == num(ph, "writes") && num(ph, "load_ns") >= phase_ms * 1e6,
				"%s phase %zu: wrote for %g ms (%g writes), asked %g", fs, i, num(ph, "load_ns") / 1e6,
				num(ph, "writes"), phase_ms);
			/* when fio sees its time is up depends on its having a CPU then: a busy machine's */
			if (num(ph, "load_ns") >= phase_ms * 1e6 + 50e6 && num(fio, "cpu_ratio") >= 0 && off_cpu >= 50e6)
				T_NOT_JUDGED("%s phase %zu: fio wrote for %g ms, asked %g, and was off the CPU for %g ms of "
					     "them (usr+sys %.0f %%): when it stops", fs, i, num(ph, "load_ns") / 1e6, phase_ms,
					     off_cpu / 1e6, 100 * num(fio, "cpu_ratio"));
			else
				T_CHECK(num(ph, "load_ns") < phase_ms * 1e6 + 50e6,
					"%s phase %zu: wrote for %g ms, asked %g (fio usr+sys %.0f %%)", fs, i,
					num(ph, "load_ns") / 1e6, phase_ms, 100 * num(fio, "cpu_ratio"));
		}
		/* the rate is the writes over the time fio wrote: its runtime */
		T_CHECK(num(ph, "load_ns") == num(fio, "runtime_ns") && num(ph, "load_ns") > 0 &&
				fabs(num(ph, "writes_per_s") - num(ph, "writes") / num(ph, "load_ns") * 1e9) <
					1e-6 * num(ph, "writes_per_s"),
			"%s phase %zu: %g writes/s = %g writes over fio's %g ms", fs, i, num(ph, "writes_per_s"),
			num(ph, "writes"), num(ph, "load_ns") / 1e6);
		T_CHECK(num(clat, "p50") > 0 && num(clat, "p99") >= num(clat, "p50") && num(clat, "mean") > 0,
			"%s phase %zu: clat p50 %g p99 %g ns", fs, i, num(clat, "p50"), num(clat, "p99"));
		T_CHECK(num(ph, "window_ns") >= num(ph, "load_ns"), "%s phase %zu: fio ran inside the window", fs, i);
		T_CHECK(num(json_object_get(ph, "write_clat_ns"), "p99") == num(clat, "p99"),
			"%s phase %zu: the phase's write_clat_ns is fio's", fs, i);
	}
	T_CHECK(t_metric(cell, "ctime_size_ratio") > 0 && t_metric(cell, "ctime_none_ratio") > 0, "%s: ratios", fs);
}

static void setenv_child(void *dir)
{
	setenv("MGBENCH_FIO_DIR", dir, 1);
}

/* fio's JSON runs that mgbench started with mark (this test's TMPDIR) on their command line. */
static bool our_fio(const struct t_proc *p, const void *mark)
{
	return strstr(p->cmdline, "--output-format=json") && strstr(p->cmdline, mark);
}

static unsigned fio_processes(const char *mark)
{
	return t_find_procs(our_fio, mark, 0, NULL);
}

static void interrupt_stops_fio(void)
{
	const char *path = t_result_path("fio-int.json");
	const char *tmp = getenv("TMPDIR") ?: "/tmp";
	struct t_host before;
	int status;
	pid_t pid;

	t_host_snapshot(&before);
	{
		const char *args[] = { "run", "cost", "--load", "fio", "--fs", "ext4", "--rounds", "100000000", "--poll",
				       "ctime", "-q", "-o", path, NULL };

		pid = t_mgbench_start(args, NULL, NULL);
	}
	/* fio starts after mkfs and the mount, whose length depends on the machine's load */
	for (double t0 = t_now_s(); !fio_processes(tmp) && !t_child_exited(pid) && t_now_s() - t0 < 300;)
		usleep(20 * 1000);
	T_CHECK(fio_processes(tmp) > 0, "fio started");
	usleep(300 * 1000);
	kill(pid, SIGINT);
	waitpid(pid, &status, 0);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 130, "SIGINT during fio: exit %d",
		WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
	T_CHECK(fio_processes(tmp) == 0, "no fio left after SIGINT");
	t_host_check_clean(&before, "after SIGINT during fio");
}

/* --dir with a ':' (fio's filename= separator, escaped by mgbench) or a newline (refused). */
static void hostile_dirs(void)
{
	static const char *const names[] = { "co:lon", "new\nline" };
	char path[600], dir[600];

	for (size_t i = 0; i < 2; i++) {
		const char *const args[] = { "run", "cost", "--load", "fio", "--dir", dir, "--cycles", "1", "--rounds", "200",
					     "-q", "-o", path, NULL };
		struct t_output o;
		json_t *doc, *cell;

		/* t_result_path's buffer is reused: copy each name */
		snprintf(path, sizeof(path), "%s", t_result_path("fio-dir.json"));
		snprintf(dir, sizeof(dir), "%s", t_result_path(names[i]));
		mkdir(dir, 0755);
		t_mgbench(&o, args);
		doc = t_load(path);
		cell = doc ? json_array_get(json_object_get(doc, "cells"), 0) : NULL;
		if (i == 0)
			T_CHECK(o.status == 0 && cell && !strcmp(json_string_value(json_object_get(cell, "status")) ?: "", "ok"),
				"--dir with a colon: exit %d: %s", o.status, o.err);
		else
			T_CHECK(o.status == 1 && strstr(o.err, "control characters"),
				"--dir with a newline: refused clearly: exit %d: %s", o.status, o.err);
		T_CHECK(t_count_files(dir, NULL) == 0, "--dir %s: nothing left in it", names[i]);
		json_decref(doc);
		t_output_free(&o);
		rmdir(dir);
	}
}

int main(void)
{
	char path[600], basic[600], bad[600];
	const char *const fs4[] = { "ext4", "xfs", "btrfs", "tmpfs" };
	const char *const args[] = { "run", "cost", "--load", "fio", "--fs", T_FS_MULTIGRAIN, "--poll-rate", "20000",
				     "--cycles", "1", "--rounds", "50000", "--phase-ms", "rounds", "-q", "-o", path, NULL };
	const char *const basic_args[] = { "run", "cost", "--load", "fio", "--mode", "fio-basic", "--fs", "xfs,ext4",
					   "--poll-rate", "20000", "--cycles", "1", "--rounds", "50000", "--phase-ms", "700",
					   "-q", "-o", basic, NULL };
	const char *const bad_args[] = { "run", "cost", "--load", "fio", "--fs", "tmpfs", "--cycles", "1", "-q", "-o",
					 bad, NULL };
	char baddir[600], emptydir[600], job[700];
	struct t_host before;
	struct t_output o;
	json_t *doc, *cell;
	FILE *f;

	t_require(&(struct t_needs){ .root = true, .filesystems = T_FS_MULTIGRAIN, .slow = true });
	snprintf(path, sizeof(path), "%s", t_result_path("fio.json"));
	snprintf(basic, sizeof(basic), "%s", t_result_path("fio-basic.json"));
	snprintf(bad, sizeof(bad), "%s", t_result_path("bad.json"));
	if (!*FIO_PATH) {
		fprintf(stderr, "fio was not found at configure time\n");
		return 77;
	}
	unsetenv("MGBENCH_FIO_DIR");
	t_host_snapshot(&before);
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "cost --load fio: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	for (size_t i = 0; i < 4; i++)
		T_RUN_FOR(fs4[i], complete_fio_cell(doc ? t_cell(doc, "cost", fs4[i]) : NULL, fs4[i], 50000, 0));
	cell = doc ? t_cell(doc, "cost", "ext4") : NULL;
	{
		json_t *c = phase(cell, "ctime"), *s = phase(cell, "size");
		double cch = num(json_object_get(c, "inode"), "ctime_changes");
		double cq = num(json_object_get(c, "inode"), "queried_changes");
		double sq = num(json_object_get(s, "inode"), "queried_changes");

		/* Other processes' fine stamps lift the floor and change an unqueried file's ctime too:
		 * the writes that followed a query are what the ctime poller adds. */
		T_CHECK(cq > sq, "ext4: more query-following writes with the ctime poller (%g) than the size poller (%g)",
			cq, sq);
		T_CHECK(sq <= num(json_object_get(s, "inode"), "ctime_queries"),
			"ext4: size poller: each query-following write follows one of fio's own queries (%g, %g)", sq,
			num(json_object_get(s, "inode"), "ctime_queries"));
		T_CHECK(num(json_object_get(c, "counters"), "jbd2_handles") >= cch,
			"ext4: every ctime change took a jbd2 handle (%g handles, %g changes)",
			num(json_object_get(c, "counters"), "jbd2_handles"), cch);
	}
	json_decref(doc);

	t_mgbench(&o, basic_args);
	T_CHECK(o.status == 0, "cost --mode fio-basic: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(basic);
	T_RUN(complete_fio_cell(doc ? t_cell(doc, "cost", "xfs") : NULL, "xfs fio-basic", 0, 700));
	T_RUN(complete_fio_cell(doc ? t_cell(doc, "cost", "ext4") : NULL, "ext4 fio-basic", 0, 700));
	cell = doc ? t_cell(doc, "cost", "xfs") : NULL;
	T_CHECK(strstr(json_string_value(json_object_get(json_object_get(json_object_get(cell, "metrics"), "load"), "job")) ?: "",
		       "fio-basic.fio") != NULL,
		"xfs: the fio-basic job file recorded");
	T_CHECK(num(json_object_get(phase(cell, "ctime"), "inode"), "queried_changes") >
			num(json_object_get(phase(cell, "size"), "inode"), "queried_changes"),
		"xfs fio-basic: more fallocates follow a query with a ctime poller than with a size poller");
	json_decref(doc);

	/* A job fio refuses: fio's own complaint, exit 1 */
	/* beside the results: mgbench mounts its own tmpfs over $TMPDIR */
	snprintf(baddir, sizeof(baddir), "%s", t_result_path("badjobs"));
	mkdir(baddir, 0755);
	snprintf(job, sizeof(job), "%s/overwrite.fio", baddir);
	f = fopen(job, "w");
	T_CHECK(f != NULL, "write %s", job);
	if (f) {
		fputs("[cost]\nioengine=nosuchengine\nfilename=${MGB_FILE}\nsize=${MGB_FILE_SIZE}\nrw=write\n", f);
		fclose(f);
	}
	t_mgbench_with(&o, bad_args, setenv_child, baddir);
	T_CHECK(o.status == 1 && strstr(o.err, "fio") && strstr(o.err, "nosuchengine"),
		"a job fio refuses: exit %d, says: %s", o.status, o.err);
	t_output_free(&o);
	unlink(job);
	rmdir(baddir);
	/* No job file where MGBENCH_FIO_DIR says */
	snprintf(emptydir, sizeof(emptydir), "%s", t_result_path("nojobs"));
	mkdir(emptydir, 0755);
	t_mgbench_with(&o, bad_args, setenv_child, emptydir);
	T_CHECK(o.status == 1 && strstr(o.err, "overwrite.fio") && strstr(o.err, "MGBENCH_FIO_DIR"),
		"no job file: exit %d, says: %s", o.status, o.err);
	t_output_free(&o);
	rmdir(emptydir);
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after the fio runs");

	T_RUN(interrupt_stops_fio());
	T_RUN(hostile_dirs());
	return t_result();
}
