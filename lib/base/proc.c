/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "proc.h"
#include "stop.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void mgb_proc_die_with(pid_t parent, int sig)
{
	prctl(PR_SET_PDEATHSIG, sig);
	if (getppid() != parent)
		_exit(127);
}

/* In the child: a copy of fd above the standard numbers, so that moving one stream never
 * overwrites another's source. */
static int lifted(int fd)
{
	return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

static int stream_fd(enum mgb_proc_io io, int given, int pipe_end, int null)
{
	switch (io) {
	case MGB_PROC_PIPE:
		return lifted(pipe_end);
	case MGB_PROC_FD:
		return lifted(given);
	case MGB_PROC_NULL:
		return lifted(null);
	default:
		return -1;
	}
}

static void redirect(int fd, int target)
{
	if (fd >= 0)
		dup2(fd, target);
}

static _Noreturn void child(const struct mgb_proc_spec *s, pid_t parent, int in_end, int out_end)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int in = stream_fd(s->in, s->in_fd, in_end, null), out = stream_fd(s->out, s->out_fd, out_end, null);
	int err = s->err == MGB_PROC_WITH_OUT ? out : stream_fd(s->err, s->err_fd, -1, null);

	if (s->death_signal) {
		setpgid(0, 0);
		mgb_proc_die_with(parent, s->death_signal);
	}
	redirect(in, STDIN_FILENO);
	redirect(out, STDOUT_FILENO);
	redirect(err, STDERR_FILENO);
	for (size_t i = 0; s->env && s->env[i]; i++)
		putenv((char *)s->env[i]);
	if (s->cwd && chdir(s->cwd))
		_exit(126);
	if (s->setup)
		s->setup(s->setup_arg);
	if (s->path_search)
		execvp(s->argv[0], (char *const *)s->argv);
	else
		execv(s->argv[0], (char *const *)s->argv);
	_exit(127);
}

int mgb_proc_start(const struct mgb_proc_spec *s, struct mgb_proc *p, char *err)
{
	int inp[2] = { -1, -1 }, outp[2] = { -1, -1 };
	pid_t parent = getpid();

	p->pid = -1;
	p->in = p->out = -1;
	if ((s->in == MGB_PROC_PIPE && pipe2(inp, O_CLOEXEC)) || (s->out == MGB_PROC_PIPE && pipe2(outp, O_CLOEXEC))) {
		mgb_err(err, "pipe: %s", strerror(errno));
		goto fail;
	}
	p->pid = fork();
	if (p->pid < 0) {
		mgb_err(err, "fork: %s", strerror(errno));
		goto fail;
	}
	if (p->pid == 0)
		child(s, parent, inp[0], outp[1]);
	if (s->death_signal)
		setpgid(p->pid, p->pid); /* as the child does: kill(-pid) reaches it from the start */
	if (inp[0] >= 0)
		close(inp[0]);
	if (outp[1] >= 0)
		close(outp[1]);
	p->in = inp[1];
	p->out = outp[0];
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (inp[i] >= 0)
			close(inp[i]);
		if (outp[i] >= 0)
			close(outp[i]);
	}
	p->pid = -1;
	return -1;
}

int mgb_proc_wait(pid_t pid, int *status, char *err)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return mgb_err(err, "waitpid: %s", strerror(errno));
	return 0;
}

int mgb_proc_wait_until(pid_t pid, int *status, int64_t deadline_ns)
{
	for (;;) {
		struct timespec pause = { 0, 5000000 };
		pid_t w = waitpid(pid, status, WNOHANG);

		if (w == pid)
			return 1;
		if (w < 0 && errno != EINTR)
			return -1;
		if (mgb_clock_ns(CLOCK_MONOTONIC) >= deadline_ns)
			return 0;
		nanosleep(&pause, NULL);
	}
}

static void signal_child(pid_t pid, int sig, bool group)
{
	if (group)
		kill(-pid, sig);
	kill(pid, sig);
}

void mgb_proc_stop(pid_t pid, int *status, int64_t grace_ns, bool group)
{
	int ignored;

	if (pid <= 0)
		return;
	if (!status)
		status = &ignored;
	if (grace_ns > 0) {
		signal_child(pid, SIGTERM, group);
		signal_child(pid, SIGCONT, group);
		int r = mgb_proc_wait_until(pid, status, mgb_clock_ns(CLOCK_MONOTONIC) + grace_ns);

		if (r != 0) {
			if (group)
				kill(-pid, SIGKILL);
			return;
		}
	}
	signal_child(pid, SIGKILL, group);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
}

int mgb_proc_result(const char *program, int status, char *err)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return mgb_err(err, "cannot run %s", program);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int mgb_run_program(const char *const argv[], char *err)
{
	struct mgb_proc_spec spec = { .argv = argv, .path_search = true };
	struct mgb_proc p;
	int status;

	if (mgb_proc_start(&spec, &p, err) < 0 || mgb_proc_wait(p.pid, &status, err) < 0)
		return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return mgb_err(err, "%s: not found (run ./bootstrap to install it)", argv[0]);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return mgb_err(err, "%s failed (status %d)", argv[0], status);
	return 0;
}

int mgb_capture(const char *const argv[], const char *cwd, char **out, char *err)
{
	/* a helper: a killed mgbench leaves no apt or xz behind */
	struct mgb_proc_spec spec = { .argv = argv, .path_search = true, .cwd = cwd, .out = MGB_PROC_PIPE,
				      .err = MGB_PROC_WITH_OUT, .death_signal = SIGKILL };
	struct mgb_proc child;
	int rfd, status;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool stopped = false;

	if (out)
		*out = NULL;
	if (mgb_proc_start(&spec, &child, err) < 0)
		return -1;
	rfd = child.out;
	for (;;) {
		ssize_t n;

		if (mgb_stop_requested()) {
			/* the helper's whole group at once: apt's downloads, xz in a pipeline */
			mgb_proc_stop(child.pid, &status, 0, true);
			stopped = true;
			break;
		}
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap ? cap * 2 : 8192);

			if (!nb)
				break;
			buf = nb;
			cap = cap ? cap * 2 : 8192;
		}
		n = read(rfd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(rfd);
	if (buf)
		buf[len] = '\0';
	if ((!stopped && mgb_proc_wait(child.pid, &status, err) < 0) || mgb_stop_requested()) {
		if (mgb_stop_requested())
			mgb_err(err, "interrupted (signal %d) while %s ran", (int)mgb_stop_signal, argv[0]);
		free(buf);
		return -1;
	}
	if (out)
		*out = buf;
	else
		free(buf);
	return mgb_proc_result(argv[0], status, err);
}
