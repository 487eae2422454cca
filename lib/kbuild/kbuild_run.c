/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running the kernel's make (and the tree copy's cp) with its output in a log: quiet, or on a
 * terminal one progress line with the elapsed time and the target make is on ("CC fs/inode.o").
 * The child has its own process group and dies with mgbench; SIGINT/SIGTERM to mgbench stop the
 * whole group at once.
 */
#include "config.h"
#include "kbuild_internal.h"
#include "proc.h"
#include "stop.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The last complete kbuild progress line in buf ("  CC      fs/inode.o") as "CC fs/inode.o". */
static void last_target(const char *buf, size_t len, char *target, size_t tlen)
{
	const char *end = buf + len, *l = buf;

	while (l < end) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		char what[24], obj[160];

		if (!nl)
			break;
		if (nl - l < 200) {
			char line[200];

			memcpy(line, l, (size_t)(nl - l));
			line[nl - l] = '\0';
			if (line[0] == ' ' && line[1] == ' ' && sscanf(line, " %23s %159s", what, obj) == 2)
				snprintf(target, tlen, "%.8s %.*s", what, (int)(tlen > 10 ? tlen - 10 : 0), obj);
		}
		l = nl + 1;
	}
}

/* In the child: its own process group (a terminal's ^C reaches mgbench only, which then stops
 * the whole group), and a parent-death signal so that a SIGKILLed mgbench leaves no make or cp
 * behind (make passes SIGTERM on to the compilers it runs).  An outer make's jobserver and
 * overrides (make check runs us), and settings that would change what the kernel's make builds,
 * stay out. */
static void make_child_setup(void *arg)
{
	static const char *const drop[] = { "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS",
					    "CROSS_COMPILE", "LLVM", "KBUILD_OUTPUT", "KCONFIG_CONFIG", "KCFLAGS",
					    "KCPPFLAGS", "CC", "LD" };

	(void)arg;
	for (size_t i = 0; i < MGB_ARRAY_SIZE(drop); i++)
		unsetenv(drop[i]);
}

int mgb_kb_run_logged(const char *const argv[], const char *cwd, const char *const *env, int logfd,
		      enum mgb_kb_progress progress, const char *label, char *err)
{
	struct mgb_proc_spec spec = { .argv = argv, .path_search = true, .cwd = cwd, .env = env, .out = MGB_PROC_PIPE,
				      .err = MGB_PROC_WITH_OUT, .death_signal = SIGTERM, .setup = make_child_setup };
	struct mgb_proc child;
	int rfd, status;
	int64_t start = mgb_clock_ns(CLOCK_MONOTONIC), last = 0;
	char buf[8192], target[64] = "";
	bool shown = false;

	if (mgb_proc_start(&spec, &child, err) < 0)
		return -1;
	rfd = child.out;
	for (;;) {
		struct pollfd pfd = { .fd = rfd, .events = POLLIN };
		ssize_t n;

		/* poll with a timeout: a signal between the check and a blocking read is not lost */
		if (mgb_stop_requested())
			break;
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		n = read(rfd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (write(logfd, buf, (size_t)n) != n) {
			/* a full disk shows up in the build's own failure */
		}
		if (progress == MGB_KB_PROGRESS_NONE)
			continue;
		last_target(buf, (size_t)n, target, sizeof(target));
		int64_t now = mgb_clock_ns(CLOCK_MONOTONIC);
		long s = (long)((now - start) / MGB_NSEC_PER_SEC);

		if (progress == MGB_KB_PROGRESS_TTY && now - last > 250000000) {
			fprintf(stderr, "\r\033[K%s %ld:%02ld %.50s", label, s / 60, s % 60, target);
			last = now;
			shown = true;
		} else if (progress == MGB_KB_PROGRESS_LINES && now - last >= 30 * MGB_NSEC_PER_SEC) {
			if (last)
				fprintf(stderr, "%s %ld:%02ld %.50s\n", label, s / 60, s % 60, target);
			last = now;
		}
	}
	close(rfd);
	if (shown)
		fprintf(stderr, "\r\033[K");
	if (mgb_stop_requested()) {
		/* up to 5 s for make to clean up, then the whole group */
		mgb_proc_stop(child.pid, &status, 5 * MGB_NSEC_PER_SEC, true);
		return mgb_err(err, "interrupted by signal %d: %s stopped", (int)mgb_stop_signal, argv[0]);
	}
	if (mgb_proc_wait(child.pid, &status, err) < 0)
		return -1;
	return mgb_proc_result(argv[0], status, err);
}
