/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `run --dir` under a directory another user owns, who could make root delete what is
 * not the run's.  That user (nobody, here) lays out a tree of their own, waits for root's run
 * directory to appear, swaps the directory it was made in for their tree under the same names,
 * and, as soon as root starts deleting in that tree, turns a subdirectory into a symbolic link to
 * /.  Root's teardown used to walk the path again and delete, through the link, a root-owned file
 * the user named.  Now the run says the directory is not trusted, works and tears down through the
 * descriptors it opened, and removes only what it made: the victim and the user's own tree are
 * untouched.
 */
#include "config.h"
#include "helpers.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534
#define NPAD 300

static char top[64]; /* /tmp/mgbench-dirrace.XXXXXX, 0755: nobody can reach U in it */

static void make_file(const char *path)
{
	char b[PATH_MAX];

	snprintf(b, sizeof(b), "%s", path);
	for (char *s = b + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(b, 0755);
			*s = '/';
		}
	int fd = open(b, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

/*
 * The racer, as nobody.  Exit 0: it swapped its tree in and saw root delete in it, then planted
 * the link; 3: it swapped but root never deleted in its tree (within the time); other: it never
 * got to swap (a missed race: the assertion that needs it is skipped).
 */
static int racer(const char *u, const char *rel, int ready_fd)
{
	char bench[300], evil[300], name[NAME_MAX + 1] = "";
	char p[2048], s[600], sdir[1800], a[1024], b[1024];
	double t0 = t_now_s();

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
		return 10;
	snprintf(bench, sizeof(bench), "%s/bench", u);
	snprintf(evil, sizeof(evil), "%s/evil", u);
	snprintf(s, sizeof(s), "%s/PLACEHOLDER/s", evil);
	snprintf(p, sizeof(p), "%s/%.1000s", s, rel);
	make_file(p);
	snprintf(sdir, sizeof(sdir), "%.1700s", p);
	*strrchr(sdir, '/') = '\0';
	for (int i = 0; i < NPAD; i++) {
		snprintf(p, sizeof(p), "%s/pad%05d", sdir, i);
		make_file(p);
		snprintf(p, sizeof(p), "%s/pad%05d", s, i);
		make_file(p);
	}
	if (write(ready_fd, "r", 1) != 1)
		return 11;
	close(ready_fd);
	while (!name[0] && t_now_s() - t0 < 120) {
		DIR *d = opendir(bench);
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (!strncmp(e->d_name, "mgbench.", 8))
				snprintf(name, sizeof(name), "%s", e->d_name);
		if (d)
			closedir(d);
		if (!name[0])
			usleep(200);
	}
	if (!name[0])
		return 12;
	snprintf(a, sizeof(a), "%s/PLACEHOLDER", evil);
	snprintf(b, sizeof(b), "%s/%s", evil, name);
	if (rename(a, b))
		return 13;
	snprintf(s, sizeof(s), "%s/%s/s", evil, name);
	snprintf(sdir, sizeof(sdir), "%s/%.1000s", s, rel);
	*strrchr(sdir, '/') = '\0';
	int in = inotify_init1(IN_CLOEXEC);

	inotify_add_watch(in, s, IN_DELETE);
	inotify_add_watch(in, sdir, IN_DELETE);
	snprintf(p, sizeof(p), "%s/bench.orig", u);
	if (rename(bench, p) || rename(evil, bench))
		return 14;
	/* root's teardown has begun in our tree: now turn a subdirectory into a link to / */
	struct pollfd pf = { .fd = in, .events = POLLIN };
	char ev[4096];

	if (poll(&pf, 1, 300 * 1000) != 1 || read(in, ev, sizeof(ev)) <= 0)
		return 3;
	snprintf(a, sizeof(a), "%s/%s/s", bench, name);
	snprintf(b, sizeof(b), "%s/%s/s.real", bench, name);
	return rename(a, b) || symlink("/", a) ? 15 : 0;
}

int main(void)
{
	char u[128], victim_dir[128], victim[256], bench[256], out[256], p[1024];
	struct t_output o;
	int pipefd[2], status = -1;
	pid_t pid;
	char c;

	t_require(&(struct t_needs){ .root = true, .filesystems = "tmpfs" });
	{ /* the relative --dir case runs from another directory */
		char *bin = realpath(getenv("MGBENCH") ?: "./mgbench", NULL);

		if (bin)
			setenv("MGBENCH", bin, 1);
		free(bin);
	}
	snprintf(top, sizeof(top), "/tmp/mgbench-dirrace.XXXXXX");
	if (!mkdtemp(top) || chmod(top, 0755))
		t_skip("cannot make a directory under /tmp");
	snprintf(u, sizeof(u), "%s/u", top);
	snprintf(bench, sizeof(bench), "%s/bench", u);
	snprintf(victim_dir, sizeof(victim_dir), "%s/victim", top);
	snprintf(victim, sizeof(victim), "%s/keep.txt", victim_dir);
	snprintf(out, sizeof(out), "%s/r.json", top);
	mkdir(u, 0755);
	T_CHECK(chown(u, NOBODY, NOBODY) == 0, "chown %s: %s", u, strerror(errno));
	mkdir(bench, 0755); /* root's, made for the run as an admin would */
	mkdir(victim_dir, 0700);
	make_file(victim);
	chmod(victim, 0600);

	t_case("swapped tree: the racer's swap deletes nothing of root's");
	T_CHECK(pipe2(pipefd, O_CLOEXEC) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		alarm(600); /* bounded, whatever happens */
		_exit(racer(u, victim + 1, pipefd[1]));
	}
	close(pipefd[1]);
	/* the racer's tree is laid out before the run starts */
	T_CHECK(read(pipefd[0], &c, 1) == 1, "the racer prepared its tree");
	close(pipefd[0]);
	{
		const char *args[] = { "run", "write", "--dir", bench, "--rounds", "200000", "-q", "-o", out, NULL };

		t_mgbench(&o, args);
	}
	T_CHECK(o.status == 0, "the run exits 0: %d: %s", o.status, o.err);
	T_CHECK(strstr(o.err, "belongs to uid 65534") && strstr(o.err, "removes only what it made"),
		"the run says --dir is under another user's directory: %s", o.err);
	if (!t_child_exited(pid))
		kill(pid, SIGKILL); /* still waiting for a deletion in its tree that never comes */
	waitpid(pid, &status, 0);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	fprintf(stderr, "racer: exit %d (0: root deleted in the tree it swapped in; 3 or -1, killed: root never did)\n", status);
	T_CHECK(access(victim, F_OK) == 0, "the victim %s survives: %s", victim, strerror(errno));
	snprintf(p, sizeof(p), "%s/bench.orig", u);
	if (!access(p, F_OK)) {
		/* the swap happened: root must not have touched the user's tree */
		T_CHECK(status != 0, "root's teardown deleted in the tree the user swapped in");
		glob_t g = { 0 };

		snprintf(p, sizeof(p), "%s/bench/mgbench.*/s/pad*", u);
		glob(p, 0, NULL, &g);
		T_CHECK(g.gl_pathc == NPAD, "the user's tree keeps its %d files: %zu", NPAD, g.gl_pathc);
		globfree(&g);
		T_CHECK(t_count_files(p, NULL) == 0, "root's own run directory is gone: %u entries left in %s",
			t_count_files(p, NULL), p);
	} else {
		fprintf(stderr, "SKIP the racer never swapped its tree in (exit %d): the swap's assertions\n", status);
	}
	t_output_free(&o);
	t_case_end();

	t_case("an NFS backend refuses --dir under another user's directory");
	{
		const char *args[] = { "run", "write", "--dir", bench, "--backend", "nfs3", "--rounds", "100", "-q", "-o", out, NULL };

		t_mgbench(&o, args);
		T_CHECK(o.status == 1 && strstr(o.err, "resolves the path itself"), "exit %d (want 1): %s", o.status,
			o.err);
		t_output_free(&o);
	}
	t_case_end();

	t_case("a relative --dir is a full path for the NFS server");
	{
		char cwd[PATH_MAX], b[1024];
		const char *args[] = { "run", "write", "--dir", "rel", "--backend", "nfs3", "--rounds", "200", "-q", "-o",
				       out, NULL };

		snprintf(p, sizeof(p), "%s/m1", top);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/m1/rel", top);
		mkdir(p, 0755);
		T_CHECK(getcwd(cwd, sizeof(cwd)) && !chdir(dirname(strcpy(b, p))), "into %s: %s", b, strerror(errno));
#ifdef HAVE_LIBNFS
		t_mgbench(&o, args);
		T_CHECK(o.status == 0, "nfs3 on a relative --dir: exit %d: %s", o.status, o.err);
		t_output_free(&o);
#else
		fprintf(stderr, "SKIP built without libnfs: the NFS case\n");
#endif
		T_CHECK(chdir(cwd) == 0, "back to %s", cwd);
		rmdir(p);
	}
	t_case_end();

	mgb_remove_tree(top);
	return t_result();
}
