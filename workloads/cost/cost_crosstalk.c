/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cost --crosstalk: the other process whose fine stamps keep lifting the global floor. */
#include "config.h"
#include "cost.h"
#include "json_text.h"
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <stdatomic.h>
#include <unistd.h>

/* What the other process did, counted by it in memory shared with us. */
struct cost_stirrer_counts {
	_Atomic uint64_t rounds;        /* write+statx pairs done */
	_Atomic uint64_t ctime_changes; /* rounds whose statx saw a new ctime (fine stamps lift the floor) */
};

static bool same_ts(const struct statx_timestamp *a, const struct statx_timestamp *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The other process's loop: never returns. */
static _Noreturn void stir(int fd, int ready_fd, struct cost_stirrer_counts *n)
{
	struct statx stx;
	struct statx_timestamp last = { 0 };
	bool told = false;

	for (;;) {
		if (pwrite(fd, "x", 1, 0) != 1 || statx(fd, "", AT_EMPTY_PATH, STATX_CTIME | STATX_MTIME, &stx) < 0)
			_exit(1);
		if (!same_ts(&stx.stx_ctime, &last))
			atomic_fetch_add_explicit(&n->ctime_changes, 1, memory_order_relaxed);
		last = stx.stx_ctime;
		atomic_fetch_add_explicit(&n->rounds, 1, memory_order_relaxed);
		if (!told) {
			if (write(ready_fd, "1", 1) != 1)
				_exit(1);
			close(ready_fd);
			told = true;
		}
	}
}

/*
 * --crosstalk: another process changing and querying a file on another filesystem, as fast as it
 * can, so that its fine stamps keep lifting the global floor.  A process of its own, doing plain
 * syscalls (it stands for some other program on the machine, not for the measured load); it
 * dies with us.  It counts its rounds and the ctime changes it saw, so a phase can say whether
 * it really ran: on a busy machine it may never get a CPU.  0 once it has done its first round,
 * or -1.
 */
int cost_stirrer_start(struct cost_cell *c, struct cost_stirrer *s)
{
	char path[2100];
	int pipefd[2];
	pid_t pid, parent = getpid();
	char ok;

	memset(s, 0, sizeof(*s));
	s->pid = -1;
	snprintf(path, sizeof(path), "%s/crosstalk.dat", c->other.path);
	s->shared = mmap(NULL, sizeof(*s->shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->shared == MAP_FAILED) {
		s->shared = NULL;
		return mgb_err(c->ctx->err, "mmap: %s", strerror(errno));
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		cost_stirrer_stop(s);
		return mgb_err(c->ctx->err, "pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		mgb_proc_die_with(parent, SIGKILL);
		if (fd < 0)
			_exit(1);
		close(pipefd[0]);
		stir(fd, pipefd[1], s->shared);
	}
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		cost_stirrer_stop(s);
		return mgb_err(c->ctx->err, "fork: %s", strerror(errno));
	}
	s->pid = pid;
	if (read(pipefd[0], &ok, 1) != 1) {
		close(pipefd[0]);
		cost_stirrer_stop(s);
		return mgb_err(c->ctx->err, "the crosstalk process could not write+statx %s", path);
	}
	close(pipefd[0]);
	return 0;
}

void cost_stirrer_begin(struct cost_stirrer *s)
{
	s->rounds0 = atomic_load(&s->shared->rounds);
	s->changes0 = atomic_load(&s->shared->ctime_changes);
	s->cpu0 = clock_getcpuclockid(s->pid, &s->cpu_clock) == 0 ? mgb_clock_ns(s->cpu_clock) : -1;
}

json_t *cost_stirrer_end(const struct cost_stirrer *s, int64_t elapsed_ns)
{
	uint64_t rounds = atomic_load(&s->shared->rounds) - s->rounds0;
	uint64_t changes = atomic_load(&s->shared->ctime_changes) - s->changes0;

	/* its CPU time in the window: whether it ran beside the measured writer or took turns with it */
	json_t *cpu = s->cpu0 >= 0 ? json_integer((json_int_t)(mgb_clock_ns(s->cpu_clock) - s->cpu0)) : json_null();

	return MGB_JSON_PACK("{s:I, s:I, s:f, s:f, s:o}", "rounds", (json_int_t)rounds, "ctime_changes",
			     (json_int_t)changes, "rounds_per_s", mgb_per_s(rounds, elapsed_ns), "ctime_changes_per_s",
			     mgb_per_s(changes, elapsed_ns), "cpu_ns", cpu);
}

void cost_stirrer_stop(struct cost_stirrer *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	s->pid = -1;
	if (s->shared)
		munmap(s->shared, sizeof(*s->shared));
	s->shared = NULL;
}
