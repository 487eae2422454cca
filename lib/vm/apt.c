/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The download cache and apt-get download.  Packages are fetched with the system's apt (its
 * configured suites) or, for a suite the system does not carry (sid), with a private
 * configuration in the cache: its own sources, lists and archives, the system's mirror URI and
 * keyring, so the system's apt state never changes.
 */
#include "config.h"
#include "vm.h"
#include "util.h"
#include "proc.h"
#include "stop.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* The last "E:" line of apt's output (or its last line), for a one-line error. */
static const char *apt_error(char *out)
{
	char *best = NULL, *save = NULL;

	if (!out)
		return "no output";
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (!best || !strncmp(l, "E: ", 3) || strncmp(best, "E: ", 3))
			best = l;
	return best ? best : "no output";
}

/*
 * apt's package cache in a file of ours.  A system configured without one (Docker's Debian images
 * set Dir::Cache::pkgcache "") makes every apt-cache call parse every package list again, 1.5 s
 * here, three calls a guest boot.  apt checks the file against the lists and dpkg's status on each
 * call and replaces it by rename, so runs side by side may share it.  Without the directory, apt
 * keeps the cache in memory as before.
 */
static int add_pkgcache(struct mgb_apt *a, int n, const char *dir)
{
	char *pkg, *src;

	if (n + 2 >= MGB_APT_OPTS || mgb_mkdirs(dir, NULL) ||
	    asprintf(&pkg, "Dir::Cache::pkgcache=%s/pkgcache.bin", dir) < 0)
		return n;
	if (asprintf(&src, "Dir::Cache::srcpkgcache=%s/srcpkgcache.bin", dir) < 0) {
		free(pkg);
		return n;
	}
	a->opts[n] = pkg;
	a->opts[n + 1] = src;
	return n + 2;
}

void mgb_apt_system(struct mgb_apt *a, const char *cache)
{
	char *dir;

	memset(a, 0, sizeof(*a));
	if (cache && asprintf(&dir, "%s/apt/system", cache) >= 0) {
		add_pkgcache(a, 0, dir);
		free(dir);
	}
}

void mgb_apt_free(struct mgb_apt *a)
{
	free(a->dir);
	for (int i = 0; a->opts[i]; i++)
		free(a->opts[i]);
	memset(a, 0, sizeof(*a));
}

char *mgb_apt_mirror(char *err)
{
	/* deb822 "URIs:" lines in sources.list.d, then one-line "deb URI suite" entries. */
	static const char *const files[] = { "/etc/apt/sources.list.d/debian.sources",
					      "/etc/apt/sources.list" };
	char line[1024];

	for (size_t i = 0; i < MGB_ARRAY_SIZE(files); i++) {
		FILE *f = fopen(files[i], "r");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			char uri[1024];

			if ((sscanf(line, " URIs: %1023s", uri) == 1 ||
			     sscanf(line, " deb %1023s", uri) == 1) &&
			    strstr(uri, "debian") && !strstr(uri, "security")) {
				fclose(f);
				return strdup(uri);
			}
		}
		fclose(f);
	}
	mgb_err(err, "no Debian mirror configured in /etc/apt");
	return NULL;
}

/* The lists were updated less than a day ago.  An update that brings nothing new leaves the
 * Packages files' mtimes alone, so the stamp we touch after each update is what says it. */
#define UPDATE_STAMP "mgbench-updated"

static bool recent(int dirfd, const char *name)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, 0) && time(NULL) - st.st_mtime < 24 * 3600 && time(NULL) >= st.st_mtime;
}

/* The stamp, or (lists from before the stamp) a Packages file, is less than a day old. */
static bool lists_fresh(const char *lists)
{
	DIR *d = opendir(lists);
	struct dirent *e;
	bool fresh;

	if (!d)
		return false;
	fresh = recent(dirfd(d), UPDATE_STAMP);
	while (!fresh && (e = readdir(d)))
		fresh = strstr(e->d_name, "_Packages") && recent(dirfd(d), e->d_name);
	closedir(d);
	return fresh;
}

static void touch_stamp(const char *lists)
{
	char *stamp;
	int fd;

	if (asprintf(&stamp, "%s/" UPDATE_STAMP, lists) < 0)
		return;
	fd = open(stamp, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		futimens(fd, NULL);
		close(fd);
	}
	free(stamp);
}

/* Concurrent runs take turns on the private lists (apt's own lock makes the second one fail):
 * an exclusive flock on DIR/lock, held until the returned fd is closed. */
static int lock_lists(const char *dir, char *err)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s/lock", dir) < 0)
		return mgb_err(err, "out of memory");
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		mgb_err(err, "cannot open %s: %s", path, strerror(errno));
	free(path);
	while (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR || mgb_stop_requested()) {
			mgb_err(err, "waiting for the apt lock in %s: %s", dir,
				errno == EINTR ? "interrupted" : strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* apt-get update into the private lists, unless another run did it while we waited. */
static int update_lists(const struct mgb_apt *a, const char *lists, const char *suite, const char *who, char *err)
{
	/* apt-get -q, "-o" and each setting, update, NULL */
	const char *argv[2 + 2 * MGB_APT_OPTS + 2] = { "apt-get", "-q" };
	char *out = NULL;
	int k = 2, st, lock = lock_lists(a->dir, err);

	if (lock < 0)
		return -1;
	if (lists_fresh(lists)) {
		close(lock);
		return 0;
	}
	for (int i = 0; a->opts[i]; i++) {
		argv[k++] = "-o";
		argv[k++] = a->opts[i];
	}
	argv[k++] = "update";
	argv[k] = NULL;
	if (who)
		fprintf(stderr, "%s: apt-get update for %s (private lists in %s)\n", who, suite, a->dir);
	st = mgb_capture(argv, NULL, &out, err);
	if (st > 0)
		mgb_err(err, "apt-get update for %s failed: %s", suite, apt_error(out));
	else if (st == 0)
		touch_stamp(lists);
	free(out);
	close(lock);
	return st ? -1 : 0;
}

int mgb_apt_private(struct mgb_apt *a, const char *cache, const char *suite, const char *who, char *err)
{
	char *mirror = NULL, *path = NULL;
	FILE *f;
	int n = 0, rc = -1;

	memset(a, 0, sizeof(*a));
	if (asprintf(&a->dir, "%s/apt/%s", cache, suite) < 0) {
		a->dir = NULL;
		return mgb_err(err, "out of memory");
	}
	if (!(mirror = mgb_apt_mirror(err)))
		goto out;
	if (asprintf(&path, "%s/lists/partial", a->dir) < 0 || mgb_mkdirs(path, err))
		goto out;
	free(path);
	if (asprintf(&path, "%s/cache/archives/partial", a->dir) < 0 || mgb_mkdirs(path, err))
		goto out;
	free(path);
	if (asprintf(&path, "%s/sources.list.d", a->dir) < 0 || mgb_mkdirs(path, err))
		goto out;
	free(path);
	if (asprintf(&path, "%s/sources.list.d/%s.sources", a->dir, suite) < 0)
		goto oom;
	if (!(f = fopen(path, "w"))) {
		mgb_err(err, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	fprintf(f, "Types: deb\nURIs: %s\nSuites: %s\nComponents: main\n"
		   "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n", mirror, suite);
	if (fclose(f)) {
		mgb_err(err, "cannot write %s", path);
		goto out;
	}
	if (asprintf(&a->opts[n++], "Dir::Etc::SourceList=/dev/null") < 0 ||
	    asprintf(&a->opts[n++], "Dir::Etc::SourceParts=%s/sources.list.d", a->dir) < 0 ||
	    asprintf(&a->opts[n++], "Dir::State::Lists=%s/lists", a->dir) < 0 ||
	    asprintf(&a->opts[n++], "Dir::Cache=%s/cache", a->dir) < 0 ||
	    asprintf(&a->opts[n++], "Dir::State::status=/dev/null") < 0)
		goto oom;
	free(path);
	if (asprintf(&path, "%s/cache", a->dir) < 0)
		goto oom;
	n = add_pkgcache(a, n, path);
	free(path);
	if (asprintf(&path, "%s/lists", a->dir) < 0)
		goto oom;
	if (!lists_fresh(path) && update_lists(a, path, suite, who, err))
		goto out;
	rc = 0;
	goto out;
oom:
	mgb_err(err, "out of memory");
out:
	free(mirror);
	free(path);
	if (rc)
		mgb_apt_free(a);
	return rc;
}

/* Run apt-get/apt-cache with a's settings and args; output in *out. */
static int apt_run(const struct mgb_apt *a, const char *tool, const char *const *args,
		   const char *cwd, char **out, char *err)
{
	/* tool -q, "-o" and each setting, then args (a few words), NULL */
	const char *argv[2 + 2 * MGB_APT_OPTS + 16] = { tool, "-q" };
	int k = 2;

	for (int i = 0; a->opts[i]; i++) {
		argv[k++] = "-o";
		argv[k++] = a->opts[i];
	}
	for (int i = 0; args[i] && k < (int)MGB_ARRAY_SIZE(argv) - 1; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	return mgb_capture(argv, cwd, out, err);
}

char *mgb_apt_version(const struct mgb_apt *a, const char *pkg, char *err)
{
	const char *args[] = { "policy", pkg, NULL };
	char *out = NULL, *v = NULL, *c;
	int st = apt_run(a, "apt-cache", args, NULL, &out, err);

	if (st < 0)
		return NULL;
	if (st == 0 && out && (c = strstr(out, "Candidate: "))) {
		c += strlen("Candidate: ");
		c[strcspn(c, "\n")] = '\0';
		if (strcmp(c, "(none)"))
			v = strdup(c);
	}
	if (!v)
		mgb_err(err, "apt knows no package %s", pkg);
	free(out);
	return v;
}

void mgb_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

char **mgb_apt_depends(const struct mgb_apt *a, const char *pkg, char *err)
{
	const char *args[] = { "depends", pkg, NULL };
	char *out = NULL, *save = NULL;
	char **v = calloc(64, sizeof(*v));
	int n = 0, st, alt = 0;

	if (!v) {
		mgb_err(err, "out of memory");
		return NULL;
	}
	st = apt_run(a, "apt-cache", args, NULL, &out, err);
	if (st) {
		if (st > 0)
			mgb_err(err, "apt-cache depends %s failed: %s", pkg, apt_error(out));
		free(out);
		free(v);
		return NULL;
	}
	/* "  Depends: name" lines; "  |Depends: a" opens an alternative whose first name we take. */
	for (char *l = strtok_r(out, "\n", &save); l && n < 63; l = strtok_r(NULL, "\n", &save)) {
		char name[256];
		bool bar = strstr(l, "|Depends: ") != NULL;

		if (sscanf(l, " |Depends: %255s", name) != 1 && sscanf(l, " Depends: %255s", name) != 1)
			continue;
		if (!alt && name[0] != '<')
			v[n++] = strdup(name);
		alt = bar;
	}
	free(out);
	return v;
}

char *mgb_apt_download(const struct mgb_apt *a, const char *pkg, const char *dir, const char *who, char *err)
{
	const char *args[] = { "download", pkg, NULL };
	char *out = NULL, *deb = NULL;
	size_t plen = strlen(pkg);
	DIR *d;
	struct dirent *e;
	int st;

	if (mgb_mkdirs(dir, err))
		return NULL;
	if (who)
		fprintf(stderr, "%s: downloading %s\n", who, pkg);
	st = apt_run(a, "apt-get", args, dir, &out, err);
	if (st) {
		if (st > 0)
			mgb_err(err, "apt-get download %s failed: %s", pkg, apt_error(out));
		free(out);
		return NULL;
	}
	free(out);
	if (!(d = opendir(dir))) {
		mgb_err(err, "cannot read %s: %s", dir, strerror(errno));
		return NULL;
	}
	while (!deb && (e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (!strncmp(e->d_name, pkg, plen) && e->d_name[plen] == '_' && l > 4 &&
		    !strcmp(e->d_name + l - 4, ".deb") && asprintf(&deb, "%s/%s", dir, e->d_name) < 0)
			deb = NULL;
	}
	closedir(d);
	if (!deb)
		mgb_err(err, "apt-get download %s left no .deb in %s", pkg, dir);
	return deb;
}
