/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether a directory can be trusted by root: nobody but root (or the caller) can change what is in
 * it, or in any directory above it.  mgbench runs as root and writes outputs, builds kernels and
 * boots what it finds in a cache; a directory another user can write lets that user plant a symlink
 * or a file where root will write or read next.
 */
#include "config.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What check_one asks, of a directory already open. */
static int check_stat(const struct stat *st, const char *dir, const char *what, bool sticky_ok, char *err)
{
	uid_t me = geteuid();

	if (!S_ISDIR(st->st_mode))
		return mgb_err(err, "%s %.200s is not a directory", what, dir);
	if (st->st_uid != 0 && st->st_uid != me)
		return mgb_err(err, "%s %.200s belongs to uid %u, another user",
			       what, dir, (unsigned)st->st_uid);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(sticky_ok && (st->st_mode & S_ISVTX)))
		return mgb_err(err, "%s %.200s is writable by %s (chmod go-w, or choose another)",
			       what, dir, st->st_mode & S_IWOTH ? "every user" : "its group");
	return 0;
}

/* One directory: owned by root or the caller, and not writable by others unless sticky (and
 * sticky_ok), as /tmp is: there others can add names but not replace or remove ours. */
static int check_one(const char *dir, const char *what, bool sticky_ok, char *err)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return mgb_err(err, "%s %.200s: %s", what, dir, strerror(errno));
	return check_stat(&st, dir, what, sticky_ok, err);
}

int mgb_check_trusted_dir(const char *path, bool sticky_ok, char *err)
{
	char *real = realpath(path, NULL);
	char *slash;
	int rc;

	if (!real)
		return mgb_err(err, "%.200s: %s", path, strerror(errno));
	rc = check_one(real, "directory", sticky_ok, err);
	/* Every directory above it: a sticky one (/tmp) cannot have our entry renamed away. */
	while (!rc && (slash = strrchr(real, '/'))) {
		slash[slash == real] = '\0';
		rc = check_one(real, "its parent", true, err);
		if (slash == real)
			break;
	}
	free(real);
	return rc;
}

/* The longest prefix of path that exists, by its real path, with the missing rest appended. */
static char *resolve_existing(const char *path, char *err)
{
	char *copy = strdup(path), *real = NULL, *rest = NULL, *out = NULL;
	size_t len;

	if (!copy) {
		mgb_err(err, "out of memory");
		return NULL;
	}
	len = strlen(copy);
	for (;;) {
		if ((real = realpath(len ? copy : ".", NULL)))
			break;
		if (errno != ENOENT) {
			mgb_err(err, "%.200s: %s", copy, strerror(errno));
			goto out;
		}
		char *slash = strrchr(copy, '/');

		if (!slash) /* a relative name: the rest hangs off the working directory */
			copy[0] = '\0';
		else
			*slash = '\0';
		len = strlen(copy);
		if (slash == copy) /* "/x": the root exists */
			break;
	}
	if (!real && !(real = strdup("/"))) {
		mgb_err(err, "out of memory");
		goto out;
	}
	rest = strdup(path + len);
	if (!rest || asprintf(&out, "%s/%s", strcmp(real, "/") ? real : "", rest + strspn(rest, "/")) < 0) {
		mgb_err(err, "out of memory");
		out = NULL;
	}
out:
	free(copy);
	free(real);
	free(rest);
	return out;
}

int mgb_open_trusted_dir(const char *path, bool create, bool sticky_ok, char *err)
{
	char *full = resolve_existing(path, err), *save = NULL, *name, shown[PATH_MAX];
	int fd, next;
	struct stat st;

	if (!full)
		return -1;
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(shown, sizeof(shown), "/");
	for (name = strtok_r(full, "/", &save); fd >= 0 && name; name = strtok_r(NULL, "/", &save)) {
		bool last = !save || !*save || !save[strspn(save, "/")];

		/* each directory above is checked before we step below it: a sticky one (/tmp) is
		 * fine there, since nobody else can rename our entry in it */
		if (fstat(fd, &st) ? mgb_err(err, "%.200s: %s", shown, strerror(errno))
				   : check_stat(&st, shown, "its parent", true, err)) {
			close(fd);
			fd = -1;
			break;
		}
		snprintf(shown + strlen(shown), sizeof(shown) - strlen(shown), "%s%s", strcmp(shown, "/") ? "/" : "",
			 name);
		if (create && mkdirat(fd, name, 0755) && errno != EEXIST) {
			mgb_err(err, "cannot create %.200s: %s", shown, strerror(errno));
			close(fd);
			fd = -1;
			break;
		}
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			mgb_err(err, "%.200s: %s", shown,
				errno == ELOOP ? "a symbolic link appeared on the path" : strerror(errno));
		close(fd);
		fd = next;
		if (fd >= 0 && last && (fstat(fd, &st) || check_stat(&st, shown, "directory", sticky_ok, err))) {
			close(fd);
			fd = -1;
		}
	}
	free(full);
	return fd;
}
