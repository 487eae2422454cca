/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: SIGINT in the middle of a run.  mgbench stops, writes a valid partial document
 * marked interrupted, exits 130, and leaves no mount, loop device or temp directory behind.
 * Then SIGKILL, which no handler sees: the private namespace, autoclear loop devices and the
 * unnamed result file must still leave nothing behind but the empty scratch directory, which
 * the next run removes.
 */
#include "config.h"
#include "helpers.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t start_run(const char *path)
{
	const char *args[] = { "run", "write", "--fs", "xfs,ext4", "--rounds", "1000000000", "-o", path, "-q", NULL };
	pid_t pid = t_mgbench_start(args, NULL, NULL);

	T_CHECK(t_wait_workload(pid, "write"), "the run reached the workload");
	usleep(200 * 1000);
	return pid;
}

static void sigkill_leaves_nothing(void)
{
	const char *path = t_result_path("killed.json");
	char dir[512];
	struct t_host before;
	bool empty;
	int status;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	t_host_snapshot(&before);
	pid = start_run(path);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	T_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "killed");
	T_CHECK(access(path, F_OK) != 0, "no result file after SIGKILL");
	T_CHECK(t_count_files(dir, "interrupted.json") == 0, "no temp file beside it: %u",
		t_count_files(dir, "interrupted.json"));
	{
		const char *args[] = { "run", "write", "--fs", "tmpfs", "--rounds", "10", "-q", "-o",
				       t_result_path("after.json"), NULL };
		unsigned scratch = t_scratch_dirs(&empty);
		struct t_output o;

		T_CHECK(scratch <= 1 && empty, "SIGKILL left %u scratch directories%s", scratch,
			empty ? "" : ", not all empty");
		T_CHECK(t_count_files(getenv("TMPDIR"), NULL) == scratch, "nothing else in TMPDIR: %u",
			t_count_files(getenv("TMPDIR"), NULL));
		t_mgbench(&o, args); /* which removes it */
		T_CHECK(o.status == 0, "the next run: exit %d: %s", o.status, o.err);
		t_output_free(&o);
	}
	t_host_check_clean(&before, "after SIGKILL and the next run");
}

int main(void)
{
	const char *path = t_result_path("interrupted.json");
	struct t_host before;
	json_t *doc;
	size_t i;
	json_t *cell;
	int status;
	pid_t pid;

	t_require_root();
	t_host_snapshot(&before);
	pid = start_run(path);
	kill(pid, SIGINT);
	waitpid(pid, &status, 0);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 130, "exit status %d (want 130)",
		WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));

	doc = t_load(path);
	T_CHECK(doc != NULL, "partial result is valid JSON");
	if (doc) {
		T_CHECK(json_is_true(json_object_get(doc, "interrupted")), "marked interrupted");
		T_CHECK(json_array_size(json_object_get(doc, "cells")) == 1, "only the cell that ran: %zu",
			json_array_size(json_object_get(doc, "cells")));
		json_array_foreach(json_object_get(doc, "cells"), i, cell) {
			T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "interrupted"), "cell status");
			T_CHECK(t_metric(cell, "writes") > 0 && t_metric(cell, "writes") < 1e9, "partial writes %g",
				t_metric(cell, "writes"));
		}
	}
	json_decref(doc);
	t_host_check_clean(&before, "after SIGINT");
	sigkill_leaves_nothing();
	t_cleanup();
	return t_result();
}
