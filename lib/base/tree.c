/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Removing a tree and opening a directory to write in, through directory file descriptors only.
 *
 * mgbench runs as root.  A path resolved again later (nftw, then unlink by the full path) can be
 * turned by whoever owns a directory on it: rename the tree away, put another in its place, make a
 * subdirectory a symbolic link, and root deletes what they name.  Here every step is openat or
 * unlinkat relative to a directory already open, nothing follows a symbolic link, and a tree is
 * never left for another filesystem.
 */
#include "config.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Deeper than any tree mgbench makes (a kernel's is about 12); each level holds one descriptor. */
#define MAX_DEPTH 64

static int remove_at(int dirfd, const char *name, dev_t dev, int depth);

/* Everything inside the open directory fd, on device dev; the directory itself stays. */
static int remove_contents(int fd, dev_t dev, int depth)
{
	int dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 0), rc = 0;
	DIR *d = dupfd < 0 ? NULL : fdopendir(dupfd);
	struct dirent *e;

	if (!d) {
		if (dupfd >= 0)
			close(dupfd);
		return -1;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (remove_at(fd, e->d_name, dev, depth + 1))
			rc = -1;
	}
	closedir(d);
	return rc;
}

/* name in dirfd: a file is unlinked; a directory on dev is emptied through its own descriptor,
 * then removed, only if the name still holds the directory that was emptied. */
static int remove_at(int dirfd, const char *name, dev_t dev, int depth)
{
	struct stat st, opened;
	int fd, rc;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) && errno != ENOENT ? -1 : 0;
	if (st.st_dev != dev || depth > MAX_DEPTH)
		return -1; /* a mount point, or deeper than mgbench makes: left alone */
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &opened) || opened.st_dev != st.st_dev || opened.st_ino != st.st_ino) {
		close(fd); /* swapped between the look and the open */
		return -1;
	}
	rc = remove_contents(fd, dev, depth);
	close(fd);
	if (rc)
		return -1;
	return mgb_rmdir_if_same(dirfd, name, &opened);
}

int mgb_rmdir_if_same(int dirfd, const char *name, const struct stat *want)
{
	struct stat now;

	/* If the name was swapped for another directory since, that one is left: rmdir removes only
	 * an empty directory, so a swap in the last instant costs nothing but an empty directory. */
	if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) || now.st_dev != want->st_dev ||
	    now.st_ino != want->st_ino)
		return -1;
	return unlinkat(dirfd, name, AT_REMOVEDIR) ? -1 : 0;
}

int mgb_remove_contents(int dirfd)
{
	struct stat st;

	if (fstat(dirfd, &st) || !S_ISDIR(st.st_mode))
		return -1;
	return remove_contents(dirfd, st.st_dev, 0);
}

int mgb_remove_tree_at(int dirfd, const char *name)
{
	struct stat st;

	/* The tree's own filesystem, as nftw's FTW_MOUNT: it may be a mount point itself. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -1;
	return remove_at(dirfd, name, st.st_dev, 0);
}

void mgb_remove_tree(const char *path)
{
	char *copy = strdup(path), *slash, *base;
	int dirfd;

	if (!copy)
		return;
	while ((slash = strrchr(copy, '/')) && slash != copy && !slash[1])
		*slash = '\0'; /* "dir/" */
	slash = strrchr(copy, '/');
	base = slash ? slash + 1 : copy;
	if (!slash)
		dirfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else if (slash == copy)
		dirfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else {
		*slash = '\0';
		dirfd = open(copy, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	/* The parent is resolved once, here; everything below it through descriptors. */
	if (dirfd >= 0 && *base && strcmp(base, ".") && strcmp(base, ".."))
		mgb_remove_tree_at(dirfd, base);
	if (dirfd >= 0)
		close(dirfd);
	free(copy);
}

int mgb_mkdir_random_at(int dirfd, const char *prefix, char *name, size_t len)
{
	for (unsigned tries = 0; tries < 100; tries++) {
		uint32_t r = 0;

		/* getrandom only fails without entropy early in boot: the clock still varies */
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r ^= (uint32_t)mgb_clock_ns(CLOCK_MONOTONIC) * 2654435761u + tries;
		if ((size_t)snprintf(name, len, "%s%08x", prefix, r) >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (!mkdirat(dirfd, name, 0700))
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1; /* errno is EEXIST: no free name */
}
