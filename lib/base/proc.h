/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Child processes: the one way mgbench starts a program, waits for it and stops it.  Every
 * program it runs (mkfs, apt, make, qemu, fio, ganesha, rpcbind, gnuplot) starts here, so the
 * rule a helper needs is written once.
 */
#ifndef MGB_PROC_H
#define MGB_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Where one of the child's standard streams goes. */
enum mgb_proc_io {
	MGB_PROC_NULL,     /* /dev/null (the default) */
	MGB_PROC_PIPE,     /* a pipe whose other end comes back in struct mgb_proc */
	MGB_PROC_FD,       /* the descriptor given beside it */
	MGB_PROC_INHERIT,  /* ours */
	MGB_PROC_WITH_OUT, /* stderr only: wherever stdout goes */
};

struct mgb_proc_spec {
	const char *const *argv;   /* argv[0]: a path, or a name found in PATH when path_search */
	bool path_search;
	const char *cwd;           /* the child's directory; a failed chdir exits 126 */
	const char *const *env;    /* NAME=VALUE strings added to the child's environment */
	enum mgb_proc_io in, out, err;
	int in_fd, out_fd, err_fd; /* for MGB_PROC_FD */
	/*
	 * Nonzero makes the child a helper that dies with this signal when mgbench dies (a SIGKILLed
	 * mgbench leaves nothing running) in a process group of its own (a terminal's ^C reaches
	 * mgbench only, which stops the helper and says so).
	 */
	int death_signal;
	/* Runs in the child after the streams are set, last before exec; it may end the child itself
	 * (exec something else, or _exit). */
	void (*setup)(void *arg);
	void *setup_arg;
};

struct mgb_proc {
	pid_t pid;
	int in;  /* the write end of the child's stdin pipe, or -1 */
	int out; /* the read end of the child's stdout pipe, or -1 */
};

/* Start the child; -1 with err if it could not be forked (a failed exec exits 127). */
int mgb_proc_start(const struct mgb_proc_spec *spec, struct mgb_proc *p, char *err);

/* In a forked child that execs nothing: die with sig when the parent dies, and die now if it
 * already has (the signal is armed only from here on). */
void mgb_proc_die_with(pid_t parent, int sig);

/* waitpid through EINTR: 0 with *status, or -1 with err. */
int mgb_proc_wait(pid_t pid, int *status, char *err);

/* Reap the child if it ends before deadline_ns (CLOCK_MONOTONIC): 1 when it did, 0 when it
 * still runs, -1 when waitpid failed (errno). */
int mgb_proc_wait_until(pid_t pid, int *status, int64_t deadline_ns);

/*
 * Stop and reap a child: SIGTERM (and SIGCONT, so a stopped child handles it), up to grace_ns
 * for it to end, then SIGKILL; grace_ns 0 kills at once.  group: the child's whole process
 * group, which is also killed once the child has ended (what make left running).
 */
void mgb_proc_stop(pid_t pid, int *status, int64_t grace_ns, bool group);

/* Run argv[0] (from PATH) with every stream on /dev/null; 0 when it exited 0, else -1 with err. */
int mgb_run_program(const char *const argv[], char *err);

/* A finished child's exit code (128 + N for signal N), or an error for one that could not run. */
int mgb_proc_result(const char *program, int status, char *err);

/* Run argv (argv[0] looked up in PATH) in cwd (NULL: ours), stdout+stderr captured into *out
 * (malloc'd, NUL-terminated; may be NULL).  Returns the exit status, or -1 with err set. */
int mgb_capture(const char *const argv[], const char *cwd, char **out, char *err);

#endif
