/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: which directories root may trust (mgb_check_trusted_dir, mgb_open_trusted_dir), and removal
 * through descriptors (mgb_remove_tree*), on real directories. */
#include "config.h"
#include "helpers.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[] = "/tmp/mgbench-unit-trust.XXXXXX";

static void mkdir_mode(const char *path, mode_t mode, uid_t owner)
{
	mkdir(path, 0700);
	chmod(path, mode);
	if (owner != (uid_t)-1 && chown(path, owner, owner) < 0)
		perror(path);
}

static void write_file(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
}

/* A tree with a link to a directory outside it, and a file in that directory: removing the tree
 * removes the link, never what it points to. */
static void remove_tree_keeps_link_targets(void)
{
	char t[600], outside[600], keep[700], p[700];

	snprintf(t, sizeof(t), "%s/tree", top);
	snprintf(outside, sizeof(outside), "%s/outside", top);
	snprintf(keep, sizeof(keep), "%s/keep", outside);
	mkdir(outside, 0755);
	write_file(keep);
	mkdir(t, 0755);
	snprintf(p, sizeof(p), "%s/sub", t);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sub/deeper", t);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sub/deeper/f", t);
	write_file(p);
	snprintf(p, sizeof(p), "%s/sub/link", t);
	T_CHECK(symlink(outside, p) == 0, "symlink: %s", strerror(errno));
	mgb_remove_tree(t);
	T_CHECK(access(t, F_OK) != 0, "the tree is gone");
	T_CHECK(access(keep, F_OK) == 0, "the link's target keeps its file");
	snprintf(p, sizeof(p), "%s/tree/", top);
	mkdir(t, 0755);
	mgb_remove_tree(p); /* a trailing slash names the same directory */
	T_CHECK(access(t, F_OK) != 0, "\"tree/\" is removed too");
}

/* The removal of a directory by descriptor spares a name that holds another directory now. */
static void rmdir_if_same_spares_a_swap(void)
{
	char a[600], b[600];
	struct stat st;
	int dirfd = open(top, O_RDONLY | O_DIRECTORY);

	snprintf(a, sizeof(a), "%s/swap-a", top);
	snprintf(b, sizeof(b), "%s/swap-b", top);
	mkdir(a, 0755);
	stat(a, &st);
	rename(a, b);
	mkdir(a, 0755);
	T_CHECK(mgb_rmdir_if_same(dirfd, "swap-a", &st) < 0 && access(a, F_OK) == 0, "the new swap-a is spared");
	T_CHECK(mgb_rmdir_if_same(dirfd, "swap-b", &st) == 0 && access(b, F_OK) != 0, "the one described goes");
	rmdir(a);
	close(dirfd);
}

/* Opening on the way down: missing directories made, a link or another user's directory refused. */
static void open_trusted_dir(void)
{
	char err[MGB_ERR_LEN], p[600], l[600];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s/made/a/b", top);
	fd = mgb_open_trusted_dir(p, true, false, err);
	T_CHECK(fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode), "made and opened: %s", fd < 0 ? err : "");
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/made/none/b", top);
	fd = mgb_open_trusted_dir(p, false, false, err);
	T_CHECK(fd < 0 && strstr(err, "No such file"), "without create, a missing one: %s", err);
	snprintf(l, sizeof(l), "%s/made/a/link", top);
	snprintf(p, sizeof(p), "%s/made/a/b", top);
	symlink(p, l);
	snprintf(p, sizeof(p), "%s/made/a/link/c", top);
	fd = mgb_open_trusted_dir(p, true, false, err);
	/* the part that exists is resolved once: the link leads to b, and c is made in b */
	T_CHECK(fd >= 0, "a link in the part that exists is resolved once: %s", fd < 0 ? err : "");
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/world/x", top);
	fd = mgb_open_trusted_dir(p, true, false, err);
	T_CHECK(fd < 0 && strstr(err, "writable by every user"), "nothing is made in a world-writable one: %s", err);
	T_CHECK(access(p, F_OK) != 0, "and x was not made");
	if (geteuid() == 0) {
		snprintf(p, sizeof(p), "%s/nobody/y/z", top);
		fd = mgb_open_trusted_dir(p, true, false, err);
		T_CHECK(fd < 0 && strstr(err, "uid 65534"), "nor in another user's: %s", err);
		snprintf(p, sizeof(p), "%s/nobody/y", top);
		T_CHECK(access(p, F_OK) != 0, "and y was not made");
	}
}

int main(void)
{
	char err[MGB_ERR_LEN], p[512];

	if (!mkdtemp(top))
		return perror("mkdtemp"), 1;
	chmod(top, 0755);
	snprintf(p, sizeof(p), "%s/ok", top);
	T_RUN(mkdir_mode(p, 0755, (uid_t)-1));
	T_CHECK(mgb_check_trusted_dir(p, false, err) == 0, "a 0755 directory of ours under /tmp: %s", err);

	snprintf(p, sizeof(p), "%s/world", top);
	T_RUN(mkdir_mode(p, 0777, (uid_t)-1));
	T_CHECK(mgb_check_trusted_dir(p, false, err) < 0 && strstr(err, "writable by every user"),
		"a world-writable directory is refused: %s", err);

	snprintf(p, sizeof(p), "%s/sticky", top);
	T_RUN(mkdir_mode(p, 01777, (uid_t)-1));
	T_CHECK(mgb_check_trusted_dir(p, false, err) < 0, "a sticky one is refused when sticky_ok is false");
	T_CHECK(mgb_check_trusted_dir(p, true, err) == 0, "and taken when it is: %s", err);
	snprintf(p, sizeof(p), "%s/sticky/below", top);
	T_RUN(mkdir_mode(p, 0755, (uid_t)-1));
	T_CHECK(mgb_check_trusted_dir(p, false, err) == 0, "a sticky parent is fine: %s", err);

	snprintf(p, sizeof(p), "%s/group", top);
	T_RUN(mkdir_mode(p, 0775, (uid_t)-1));
	snprintf(p, sizeof(p), "%s/group/below", top);
	T_RUN(mkdir_mode(p, 0755, (uid_t)-1));
	T_CHECK(mgb_check_trusted_dir(p, false, err) < 0 && strstr(err, "its parent") && strstr(err, "group"),
		"a group-writable parent is refused: %s", err);

	if (geteuid() == 0) {
		snprintf(p, sizeof(p), "%s/nobody", top);
		T_RUN(mkdir_mode(p, 0755, 65534));
		T_CHECK(mgb_check_trusted_dir(p, false, err) < 0 && strstr(err, "uid 65534"),
			"a directory of another user is refused: %s", err);
		snprintf(p, sizeof(p), "%s/nobody/below", top);
		T_RUN(mkdir_mode(p, 0755, (uid_t)-1));
		T_CHECK(mgb_check_trusted_dir(p, false, err) < 0, "so is one below it");
	}
	snprintf(p, sizeof(p), "%s/missing", top);
	T_CHECK(mgb_check_trusted_dir(p, false, err) < 0 && strstr(err, "No such file"), "a missing one: %s", err);

	T_RUN(remove_tree_keeps_link_targets());
	T_RUN(rmdir_if_same_spares_a_swap());
	T_RUN(open_trusted_dir());

	snprintf(p, sizeof(p), "rm -rf '%s'", top);
	if (system(p) != 0)
		fprintf(stderr, "could not remove %s\n", top);
	return t_result();
}
