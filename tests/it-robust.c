/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the reproducers of a robustness sweep, each of which once lost a run, replaced a
 * file it should not have, or recorded something false.  Each must stay fixed:
 *   -o a device node, a directory, "..", a name too long: refused before any work;
 *   TMPDIR=/./ (the root) refused, nothing made in /;
 *   a non-UTF-8 hostname and argument: recorded encoded, the document written;
 *   a write that does not fit: an error naming what was stored and the real errno;
 *   a file-size limit (SIGXFSZ): the cell's EFBIG, the document written;
 *   --dir on a mount point with a space: its real fstype;
 *   a result directory removed during the run: the document kept elsewhere, named;
 *   a plain chroot, whose / is no mount point: one line naming the fix (mount --bind DIR DIR).
 * The test mounts its small tmpfs filesystems in a private mount namespace of its own.
 */
#include "config.h"
#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static void refused_before_work(const char *dest, const char *says)
{
	const char *const args[] = { "run", "write", "--fs", "tmpfs", "--rounds", "3", "-o", dest, NULL };
	struct t_output o;

	t_mgbench(&o, args);
	T_CHECK(o.status == 1 && strstr(o.err, says) && !strstr(o.out, "writes/s"),
		"-o %.60s: exit %d, must be refused before the run saying '%s': %s", dest, o.status, says, o.err);
	t_output_free(&o);
}

static void output_destinations(const char *dir)
{
	char node[600], sub[600], longname[600];
	struct stat st;

	snprintf(node, sizeof(node), "%s/devnull", dir);
	T_CHECK(mknod(node, S_IFCHR | 0600, makedev(1, 3)) == 0, "mknod %s: %s", node, strerror(errno));
	refused_before_work(node, "not a regular file");
	T_CHECK(stat(node, &st) == 0 && S_ISCHR(st.st_mode), "the device node %s is still a device node", node);
	unlink(node);
	snprintf(sub, sizeof(sub), "%s/adir", dir);
	mkdir(sub, 0700);
	refused_before_work(sub, "not a regular file");
	rmdir(sub);
	refused_before_work("..", "not a file name");
	snprintf(longname, sizeof(longname), "%s/", dir);
	memset(longname + strlen(longname), 'n', 300);
	longname[strlen(dir) + 1 + 300] = '\0';
	refused_before_work(longname, "too long");
}

static void set_root_tmpdir(void *arg)
{
	(void)arg;
	setenv("TMPDIR", "/./", 1);
}

/* TMPDIR=/./ is the root: the run's scratch directory goes there, and nothing else is hidden */
static void tmpdir_root(void)
{
	const char *const args[] = { "run", "write", "--fs", "ext4", "--rounds", "3", "-o", t_result_path("root.json"),
				     NULL };
	struct t_output o;
	bool empty;

	t_mgbench_with(&o, args, set_root_tmpdir, NULL);
	T_CHECK(o.status == 0, "TMPDIR=/./: exit %d: %s", o.status, o.err);
	T_CHECK(access("/ext4-1.img", F_OK) < 0, "TMPDIR=/./ made an image in the host's /");
	{
		char *was = strdup(getenv("TMPDIR"));

		setenv("TMPDIR", "/", 1);
		T_CHECK(t_scratch_dirs(&empty) == 0, "TMPDIR=/./ left a scratch directory in /");
		setenv("TMPDIR", was, 1);
		free(was);
	}
	t_output_free(&o);
}

/* In the child, before the exec: a private namespace with the host's tree bound at arg/host, and
 * arg a plain directory of links (bin -> host/bin, ...) to every name in the host's /, so that
 * mgbench and its libraries resolve as before; then chroot(arg), whose / is no mount point. */
static void plain_chroot(void *arg)
{
	const char *root = arg;
	char host[700];
	struct dirent *e;
	DIR *d;

	snprintf(host, sizeof(host), "%s/host", root);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mkdir(host, 0755) < 0 || mount("/", host, NULL, MS_BIND | MS_REC, NULL) < 0 || !(d = opendir("/")))
		_exit(125);
	while ((e = readdir(d))) {
		char link[700], to[700];

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "host"))
			continue;
		snprintf(link, sizeof(link), "%s/%s", root, e->d_name);
		snprintf(to, sizeof(to), "host/%s", e->d_name);
		if (symlink(to, link) < 0)
			_exit(125);
	}
	closedir(d);
	if (chroot(root) < 0 || chdir("/") < 0)
		_exit(125);
}

/* mgbench makes its mounts private from /, which a plain chroot's / cannot be (EINVAL): the run
 * says why and what to do, on one line, and writes nothing. */
static void chroot_root_not_mounted(void)
{
	char root[600], doc[600];
	const char *const args[] = { "run", "write", "--fs", "tmpfs", "--rounds", "3", "-o", doc, NULL };
	struct t_output o;

	snprintf(root, sizeof(root), "%s", t_result_path("chroot"));
	snprintf(doc, sizeof(doc), "%s", t_result_path("chroot.json"));
	T_CHECK(mkdir(root, 0755) == 0, "mkdir %s: %s", root, strerror(errno));
	t_mgbench_with(&o, args, plain_chroot, root);
	T_CHECK(o.status == 1 && strstr(o.err, "/ is not a mount point here") && strstr(o.err, "mount --bind DIR DIR") &&
			strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
		"a plain chroot: exit %d (125: the chroot was not made), one line naming the fix: %s", o.status, o.err);
	T_CHECK(access(doc, F_OK) < 0, "a plain chroot: no document");
	t_output_free(&o);
}

static void odd_hostname(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWUTS) < 0 || sethostname("h\xffst", 4) < 0)
		_exit(126);
}

static void non_utf8_text(void)
{
	const char *path = t_result_path("utf8.json");
	const char *const args[] = { "run", "write", "--fs", "tmpfs", "--rounds", "3", "-q", "-o", path,
				     "--query", "every", NULL };
	struct t_output o;
	json_t *doc, *cmd;
	char *dump;

	t_mgbench_with(&o, args, odd_hostname, NULL);
	T_CHECK(o.status == 0, "non-UTF-8 hostname: exit %d: %s", o.status, o.err);
	doc = t_load(path);
	T_CHECK(doc && !strcmp(json_string_value(json_object_get(json_object_get(doc, "host"), "name")) ?: "",
			       "h\\xFFst"), "hostname recorded encoded");
	cmd = doc ? json_object_get(doc, "command") : NULL;
	dump = cmd ? json_dumps(cmd, JSON_COMPACT) : NULL;
	T_CHECK(dump && strstr(dump, "\"-q\""), "command recorded: %s", dump ?: "(none)");
	free(dump);
	json_decref(doc);
	t_output_free(&o);
}

/* The document's command reruns the run: a comma list is recorded whole, not cut at its first comma. */
static void command_keeps_lists(void)
{
	const char *path = t_result_path("lists.json");
	const char *const args[] = { "run", "write", "--fs", "tmpfs,ramfs", "--backend=sync", "--rounds", "3", "-q",
				     "-o", path, NULL };
	struct t_output o;
	json_t *doc, *cmd;
	size_t i, n = 0;

	while (args[n])
		n++;
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "--fs tmpfs,ramfs: exit %d: %s", o.status, o.err);
	doc = t_load(path);
	cmd = doc ? json_object_get(doc, "command") : NULL;
	T_CHECK(json_array_size(cmd) == n, "command has %zu words, not %zu", json_array_size(cmd), n);
	for (i = 0; i < n && i < json_array_size(cmd); i++)
		T_CHECK(!strcmp(json_string_value(json_array_get(cmd, i)) ?: "", args[i]),
			"command word %zu is '%s', not '%s'", i, json_string_value(json_array_get(cmd, i)) ?: "",
			args[i]);
	json_decref(doc);
	t_output_free(&o);
}

/* A run on a 1 MiB tmpfs mounted at dir (in this test's own namespace). */
static void short_write(const char *dir)
{
	const char *path = t_result_path("short.json");
	const char *const args[] = { "run", "write", "--dir", dir, "--size", "4M", "--rounds", "3", "-q", "-o", path,
				     NULL };
	struct t_output o;
	json_t *doc, *cell;
	const char *msg;

	t_mgbench(&o, args);
	T_CHECK(o.status == 1, "write --size 4M on a 1 MiB fs: exit %d", o.status);
	doc = t_load(path);
	cell = doc ? json_array_get(json_object_get(doc, "cells"), 0) : NULL;
	msg = json_string_value(json_object_get(cell, "error")) ?: "";
	T_CHECK(strstr(msg, "stored 1048576 of 4194304 bytes") && strstr(msg, "No space"),
		"the short write is an error naming what was stored and why: '%s'", msg);
	json_decref(doc);
	t_output_free(&o);
}

static void file_size_limit(void *arg)
{
	struct rlimit rl = { 1 << 20, 1 << 20 };

	(void)arg;
	setrlimit(RLIMIT_FSIZE, &rl);
}

static void sigxfsz(void)
{
	const char *path = t_result_path("fsize.json");
	const char *const args[] = { "run", "write", "--fs", "ext4", "--rounds", "3", "-q", "-o", path, NULL };
	struct t_output o;
	json_t *doc, *cell;

	t_mgbench_with(&o, args, file_size_limit, NULL);
	T_CHECK(o.status == 1, "under ulimit -f: exit %d (a signal would be %d)", o.status, 128 + SIGXFSZ);
	doc = t_load(path);
	cell = doc ? json_array_get(json_object_get(doc, "cells"), 0) : NULL;
	T_CHECK(strstr(json_string_value(json_object_get(cell, "error")) ?: "", "File too large"),
		"the cell reports EFBIG");
	json_decref(doc);
	t_output_free(&o);
}

static void dir_with_space(const char *dir)
{
	const char *path = t_result_path("space.json");
	const char *const args[] = { "run", "write", "--dir", dir, "--query", "2", "--rounds", "100", "-q", "-o", path,
				     NULL };
	struct t_output o;
	json_t *doc, *cell;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "--dir '%s': exit %d: %s", dir, o.status, o.err);
	doc = t_load(path);
	cell = doc ? json_array_get(json_object_get(doc, "cells"), 0) : NULL;
	T_CHECK(!strcmp(json_string_value(json_object_get(json_object_get(cell, "target"), "fstype")) ?: "", "tmpfs"),
		"the mount with a space in its name is found as tmpfs");
	/* The tracepoint filter needs the right device: 50 queries arm 49 or 50 changes. */
	T_CHECK(t_metric(cell, "ctime_changes") >= 45, "tracepoint on the right device: %g changes",
		t_metric(cell, "ctime_changes"));
	json_decref(doc);
	t_output_free(&o);
}

/* The names of the mgbench-scratch.* directories in $TMPDIR, each followed by '/'. */
static void scratch_names(char *buf, size_t cap)
{
	DIR *d = opendir(getenv("TMPDIR") ?: "/tmp");
	struct dirent *e;
	size_t len = 0;

	buf[0] = '\0';
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "mgbench-scratch.", 16) && len + strlen(e->d_name) + 2 < cap)
			len += (size_t)snprintf(buf + len, cap - len, "%s/", e->d_name);
	if (d)
		closedir(d);
}

/* A run has started since before was taken: a scratch directory that was not there. */
static bool new_scratch_dir(const char *before)
{
	char now[4096], *name, *save = NULL;

	scratch_names(now, sizeof(now));
	for (name = strtok_r(now, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		char key[300];

		snprintf(key, sizeof(key), "%s/", name);
		if (!strstr(before, key))
			return true;
	}
	return false;
}

static void result_dir_removed(const char *base)
{
	char dest_dir[600], dest[700], scratch_before[4096];
	/* a few seconds of work: the directory goes while it runs */
	const char *const args[] = { "run", "write", "--fs", "tmpfs", "--rounds", "3000000", "-q", "-o", dest, NULL };
	struct t_output o;
	pid_t pid;
	int status = -1;

	snprintf(dest_dir, sizeof(dest_dir), "%sgoes-away", base);
	snprintf(dest, sizeof(dest), "%s/out.json", dest_dir);
	mkdir(dest_dir, 0700);
	scratch_names(scratch_before, sizeof(scratch_before));
	pid = fork();
	if (pid == 0) {
		/* The rescue file goes to the current directory: the test's own. */
		if (chdir(base) < 0)
			_exit(2);
		t_mgbench(&o, args);
		fprintf(stderr, "%s", o.err);
		_exit(o.status == 1 && strstr(o.err, "was kept in") ? 0 : 1);
	}
	/* the directory goes while the run measures: once the run has made its scratch directory,
	 * not after a fixed sleep, which a busy machine can spend before the run has even started */
	bool ended = false;
	double t0 = t_now_s();

	while (!new_scratch_dir(scratch_before) && t_now_s() - t0 < 120 &&
	       !(ended = waitpid(pid, &status, WNOHANG) == pid))
		usleep(10000);
	if (!ended && rmdir(dest_dir) < 0 && errno == ENOTEMPTY)
		ended = true; /* the document is written: the run was done first */
	else if (!ended)
		T_CHECK(access(dest_dir, F_OK) < 0, "rmdir %s: %s", dest_dir, strerror(errno));
	waitpid(pid, &status, 0);
	if (ended) {
		T_NOT_JUDGED("the run ended (status %d) before its result directory could go while it ran", status);
		return;
	}
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"a run whose result directory went keeps its document elsewhere and says where (status %d)", status);
	T_CHECK(t_count_files(base, NULL) >= 1, "the kept document is in the current directory");
}

/* Runs in one second share the default name's time: each keeps its own document. */
static void default_names_never_replace(const char *base)
{
	char dir[600];
	const char *const args[] = { "run", "write", "--fs", "tmpfs", "--rounds", "10", "-q", NULL };
	pid_t pid;
	int status = -1;

	snprintf(dir, sizeof(dir), "%sdefault-names", base);
	mkdir(dir, 0700);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		if (chdir(dir) < 0)
			_exit(2);
		for (int i = 0; i < 3; i++) {
			struct t_output o;

			t_mgbench(&o, args);
			bad |= o.status != 0;
			t_output_free(&o);
		}
		_exit(bad);
	}
	waitpid(pid, &status, 0);
	T_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "three quick runs succeed (status %d)", status);
	T_CHECK(t_count_files(dir, NULL) == 3, "three quick runs leave three documents, not %d",
		t_count_files(dir, NULL));
}

int main(void)
{
	struct t_host before;
	char tiny[600], spaced[600], base[512];

	t_require_root();
	/* a copy: t_result_path's buffer is reused by every call */
	snprintf(base, sizeof(base), "%s", t_result_path(""));
	t_host_snapshot(&before);
	T_RUN(output_destinations(base));
	T_RUN(default_names_never_replace(base));
	T_RUN(tmpdir_root());
	T_RUN(non_utf8_text());
	T_RUN(command_keeps_lists());
	T_RUN(sigxfsz());
	T_RUN(chroot_root_not_mounted());

	/* Small filesystems of the test's own, gone with its namespace. */
	T_CHECK(unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0,
		"private namespace: %s", strerror(errno));
	snprintf(tiny, sizeof(tiny), "%stiny", base);
	snprintf(spaced, sizeof(spaced), "%swith space", base);
	mkdir(tiny, 0700);
	mkdir(spaced, 0700);
	T_CHECK(mount("t", tiny, "tmpfs", 0, "size=1m") == 0, "mount %s", tiny);
	T_CHECK(mount("t", spaced, "tmpfs", 0, NULL) == 0, "mount %s", spaced);
	T_RUN(short_write(tiny));
	T_RUN(dir_with_space(spaced));
	umount(tiny);
	umount(spaced);
	rmdir(tiny);
	rmdir(spaced);
	T_RUN(result_dir_removed(base));
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after the robustness reproducers");
	return t_result();
}
