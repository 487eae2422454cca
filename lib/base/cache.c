/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkdir -p, and the persistent cache's directory (kernel sources, builds, downloads), made where
 * nobody but root (or the caller) can plant anything in it. */
#include "config.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mgb_mkdirs(const char *path, char *err)
{
	char *p = strdup(path);

	if (!p)
		return mgb_err(err, "out of memory");
	for (char *s = p + 1;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST) {
			mgb_err(err, "cannot create %s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return 0;
}

/* The deepest directory of path that exists must be trusted before anything is made in it. */
static int check_ancestor(const char *path, char *err)
{
	char *p = strdup(path), *slash;
	int rc;

	if (!p)
		return mgb_err(err, "out of memory");
	while (access(p, F_OK) && (slash = strrchr(p, '/')))
		slash[slash == p] = '\0'; /* "/a" up to "/" */
	rc = mgb_check_trusted_dir(access(p, F_OK) ? "." : p, true, err); /* "a/b": the cwd */
	free(p);
	return rc;
}

char *mgb_cache_dir(char *err)
{
	const char *env = getenv("MGBENCH_CACHE");
	char *dir = NULL;

	if (env && *env)
		dir = strdup(env);
	else if (geteuid() == 0)
		dir = strdup("/var/cache/mgbench");
	else if ((env = getenv("XDG_CACHE_HOME")) && *env) {
		if (asprintf(&dir, "%s/mgbench", env) < 0)
			dir = NULL;
	} else if ((env = getenv("HOME")) && *env) {
		if (asprintf(&dir, "%s/.cache/mgbench", env) < 0)
			dir = NULL;
	} else {
		mgb_err(err, "no cache directory: set MGBENCH_CACHE");
		return NULL;
	}
	if (!dir) {
		mgb_err(err, "out of memory");
		return NULL;
	}
	/* root builds and boots what is in it: nobody else may be able to plant anything there (and
	 * nothing is created under a directory that fails that already) */
	if (check_ancestor(dir, err) || mgb_mkdirs(dir, err) || mgb_check_trusted_dir(dir, false, err)) {
		char why[MGB_ERR_LEN];

		snprintf(why, sizeof(why), "%s", err);
		mgb_err(err, "cache: %.230s", why);
		free(dir);
		return NULL;
	}
	return dir;
}
