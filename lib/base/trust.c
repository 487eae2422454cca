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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One directory: owned by root or the caller, and not writable by others unless sticky (and
 * sticky_ok), as /tmp is: there others can add names but not replace or remove ours. */
static int check_one(const char *dir, const char *what, bool sticky_ok, char *err)
{
	struct stat st;
	uid_t me = geteuid();

	if (lstat(dir, &st) < 0)
		return mgb_err(err, "%s %.200s: %s", what, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return mgb_err(err, "%s %.200s is not a directory", what, dir);
	if (st.st_uid != 0 && st.st_uid != me)
		return mgb_err(err, "%s %.200s belongs to uid %u: refusing a directory another user controls",
			       what, dir, (unsigned)st.st_uid);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(sticky_ok && (st.st_mode & S_ISVTX)))
		return mgb_err(err, "%s %.200s is writable by %s: refusing it (chmod go-w, or choose another)",
			       what, dir, st.st_mode & S_IWOTH ? "every user" : "its group");
	return 0;
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
