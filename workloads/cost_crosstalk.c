/* cost --crosstalk: the other process whose fine stamps keep lifting the global floor. */
#include "config.h"
#include "cost.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

/*
 * --crosstalk: another process changing and querying a file on another filesystem, as fast as it
 * can, so that its fine stamps keep lifting the global floor.  A process of its own, doing plain
 * syscalls (it stands for some other program on the machine, not for the measured load); it
 * dies with us.  Returns its pid once it has done its first round, or -1.
 */
pid_t cost_stirrer_start(struct cost_cell *c)
{
	char path[2100];
	int pipefd[2];
	pid_t pid, parent = getpid();
	char ok;

	snprintf(path, sizeof(path), "%s/crosstalk.dat", c->other.path);
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return mgb_err(c->ctx->err, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		bool told = false;
		struct statx stx;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd < 0 || getppid() != parent)
			_exit(1);
		close(pipefd[0]);
		for (;;) {
			if (pwrite(fd, "x", 1, 0) != 1 ||
			    statx(fd, "", AT_EMPTY_PATH, STATX_CTIME | STATX_MTIME, &stx) < 0)
				_exit(1);
			if (!told) {
				if (write(pipefd[1], "1", 1) != 1)
					_exit(1);
				close(pipefd[1]);
				told = true;
			}
		}
	}
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		return mgb_err(c->ctx->err, "fork: %s", strerror(errno));
	}
	if (read(pipefd[0], &ok, 1) != 1) {
		close(pipefd[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return mgb_err(c->ctx->err, "the crosstalk process could not write+statx %s", path);
	}
	close(pipefd[0]);
	return pid;
}

void cost_stirrer_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}
