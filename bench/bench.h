/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every make bench program shares: a target is reported, not enforced.  A missed target
 * prints MISSED and the program still exits 0, so `make bench` runs every benchmark; whoever
 * wants a gate runs `make bench BENCH_STRICT=1`.  A run that fails is an error either way.
 */
#ifndef MGB_BENCH_H
#define MGB_BENCH_H

#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Print one target's line; 1 if it was missed. */
static inline int bench_check(bool ok, const char *fs, const char *what, double got)
{
	printf("  %-6s %-52s %6.3f  %s\n", fs, what, got, ok ? "ok" : "MISSED");
	return ok ? 0 : 1;
}

/* The exit status for a run whose figures all came in: 1 only for misses under BENCH_STRICT. */
static inline int bench_exit(int missed)
{
	const char *strict = getenv("BENCH_STRICT");

	if (missed)
		printf("%d target%s missed%s\n", missed, missed == 1 ? "" : "s",
		       strict && *strict && strcmp(strict, "0") ? " (BENCH_STRICT: failing)" : "");
	return missed && strict && *strict && strcmp(strict, "0") ? 1 : 0;
}

/*
 * Run mgbench (bin) with argv, its stdout into out_path (NULL: /dev/null; "-": ours) and its
 * stderr ours; its exit code (-1 if it could not run or was killed), and its peak memory in *ru.
 */
static inline int bench_mgbench(const char *bin, const char *const argv[], const char *out_path, struct rusage *ru)
{
	int fd = out_path && strcmp(out_path, "-") ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
	const char *args[64] = { bin };
	struct mgb_proc_spec spec = { .argv = args, .out = fd >= 0 ? MGB_PROC_FD : out_path ? MGB_PROC_INHERIT : MGB_PROC_NULL,
				      .out_fd = fd, .in = MGB_PROC_INHERIT, .err = MGB_PROC_INHERIT };
	struct mgb_proc child;
	struct rusage ignored;
	char err[MGB_ERR_LEN];
	int status;

	for (size_t i = 1; argv[i] && i < 63; i++)
		args[i] = argv[i];
	if (out_path && strcmp(out_path, "-") && fd < 0)
		return -1;
	fflush(stdout); /* or the child repeats what is buffered */
	if (mgb_proc_start(&spec, &child, err) < 0) {
		fprintf(stderr, "%s\n", err);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	while (wait4(child.pid, &status, 0, ru ? ru : &ignored) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
