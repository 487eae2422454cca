/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The source of a kernel build: a user's tree (checked to be a clean kernel tree, never written
 * to) or a Debian linux-source-* package, fetched with apt-get download and unpacked once into
 * the cache.  Builds work on a private hard-link copy.
 */
#include "config.h"
#include "kbuild_internal.h"
#include "proc.h"
#include "util.h"
#include "vm.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void mgb_kb_source_free(struct mgb_kb_source *s)
{
	free(s->tree);
	free(s->label);
	free(s->package);
	free(s->pkg_version);
	free(s->version);
	free(s->id);
	memset(s, 0, sizeof(*s));
}

const char *const mgb_kb_tree_files[] = { "Makefile", "Kconfig", "arch/x86/Kconfig", "scripts/kconfig", NULL };

static bool exists(const char *dir, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return access(p, F_OK) == 0;
}

/* VERSION.PATCHLEVEL.SUBLEVEL plus EXTRAVERSION from the top Makefile (malloc'd), or NULL. */
static char *makefile_version(const char *tree)
{
	char p[PATH_MAX], line[256], extra[64] = "", *v = NULL;
	long ver = -1, patch = -1, sub = -1;
	FILE *f;

	snprintf(p, sizeof(p), "%s/Makefile", tree);
	if (!(f = fopen(p, "r")))
		return NULL;
	for (int i = 0; i < 20 && fgets(line, sizeof(line), f); i++) {
		sscanf(line, "VERSION = %ld", &ver);
		sscanf(line, "PATCHLEVEL = %ld", &patch);
		sscanf(line, "SUBLEVEL = %ld", &sub);
		sscanf(line, "EXTRAVERSION = %63s", extra);
	}
	fclose(f);
	if (ver < 0 || patch < 0)
		return NULL;
	if (asprintf(&v, "%ld.%ld.%ld%s", ver, patch, sub < 0 ? 0 : sub, extra) < 0)
		return NULL;
	return v;
}

/*
 * A tree's contents as one sha256: every file's path, executable bit and content, and every
 * symbolic link's target, in name order, .git left out.  Never its change times: the hard-link
 * copy a build makes changes every file's ctime, so a key that read them would never hit.
 * About 1.3 GB for a kernel tree: seconds, against a build's minutes.
 */
static int hash_dir(EVP_MD_CTX *ctx, const char *top, const char *rel, char *err)
{
	char dir[PATH_MAX], path[PATH_MAX], line[PATH_MAX * 2 + 100], hex[65];
	struct dirent **ents = NULL;
	int n, rc = 0;

	snprintf(dir, sizeof(dir), "%s%s%s", top, *rel ? "/" : "", rel);
	if ((n = scandir(dir, &ents, NULL, alphasort)) < 0)
		return mgb_err(err, "cannot read %.200s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char sub[PATH_MAX];
		struct stat st;

		if (rc || !strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, ".git"))
			goto next;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", name);
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", top, sub) >= sizeof(path)) {
			rc = mgb_err(err, "a path under %.200s is too long", top);
			goto next;
		}
		if (lstat(path, &st)) {
			rc = mgb_err(err, "cannot read %.200s: %s", path, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			rc = hash_dir(ctx, top, sub, err);
		} else if (S_ISREG(st.st_mode)) {
			if (!(rc = mgb_sha256_file(path, hex, err))) {
				snprintf(line, sizeof(line), "f %s %c %s\n", sub, st.st_mode & 0111 ? 'x' : '-', hex);
				EVP_DigestUpdate(ctx, line, strlen(line));
			}
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t l = readlink(path, target, sizeof(target) - 1);

			if (l < 0) {
				rc = mgb_err(err, "cannot read %.200s: %s", path, strerror(errno));
			} else {
				target[l] = '\0';
				snprintf(line, sizeof(line), "l %s %s\n", sub, target);
				EVP_DigestUpdate(ctx, line, strlen(line));
			}
		}
		/* sockets, FIFOs and devices are no part of a source tree: left out, never opened */
next:
		free(ents[i]);
	}
	free(ents);
	return rc;
}

static int tree_sha256(const char *tree, char hex[65], char *err)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	int rc;

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return mgb_err(err, "sha256 is not available");
	}
	rc = hash_dir(ctx, tree, "", err);
	if (!rc && EVP_DigestFinal_ex(ctx, md, &mdlen))
		for (unsigned i = 0; i < mdlen && i < 32; i++)
			sprintf(hex + 2 * i, "%02x", md[i]);
	hex[64] = '\0';
	EVP_MD_CTX_free(ctx);
	return rc;
}

static int from_dir(const char *dir, struct mgb_kb_source *s, char *err)
{
	struct stat st;

	if (stat(dir, &st))
		return mgb_err(err, "--source %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return mgb_err(err, "--source %s is not a directory (a kernel tree, %s)", dir,
			       mgb_debian_kernel_names(true));
	if (!(s->tree = realpath(dir, NULL)))
		return mgb_err(err, "--source %s: %s", dir, strerror(errno));
	bool tree = true;

	for (size_t i = 0; mgb_kb_tree_files[i]; i++)
		tree = tree && exists(s->tree, mgb_kb_tree_files[i]);
	if (!tree || !(s->version = makefile_version(s->tree)))
		return mgb_err(err, "--source %s is not a Linux kernel tree (no Makefile with VERSION and "
			       "PATCHLEVEL, Kconfig, arch/x86, scripts/kconfig)", dir);
	/* make O=... refuses a tree configured in place; say so before copying anything */
	if (exists(s->tree, ".config") || exists(s->tree, "include/config"))
		return mgb_err(err, "--source %s has been configured in place (it has a .config): run "
			       "`make mrproper` there or give a clean tree", dir);
	s->label = strdup(s->tree);
	char hex[65];

	if (tree_sha256(s->tree, hex, err))
		return -1;
	if (asprintf(&s->id, "tree sha256 %s", hex) < 0)
		s->id = NULL;
	return s->label && s->id ? 0 : mgb_err(err, "out of memory");
}

/*
 * apt's candidate version of pkg.  apt-cache reads every package list (half a second): the
 * answer is kept in the cache beside the change time of apt's lists directory, which moves with
 * every apt-get update, so a cached build is found without asking apt again.
 */
static char *candidate(const struct mgb_apt *apt, const char *cache, const char *pkg, char *err)
{
	char memo[PATH_MAX], stamp[64] = "", line[256];
	struct stat st;
	FILE *f;
	char *v;

	if (!stat("/var/lib/apt/lists", &st))
		snprintf(stamp, sizeof(stamp), "%lld.%09ld", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	snprintf(memo, sizeof(memo), "%s/src/%s.candidate", cache, pkg);
	if (*stamp && (f = fopen(memo, "r"))) {
		char s1[64], s2[200];

		v = NULL;
		if (fgets(line, sizeof(line), f) && sscanf(line, "%63s %199s", s1, s2) == 2 && !strcmp(s1, stamp))
			v = strdup(s2);
		fclose(f);
		if (v)
			return v;
	}
	if (!(v = mgb_apt_version(apt, pkg, err)))
		return NULL;
	snprintf(line, sizeof(line), "%s/src", cache);
	if (*stamp && !mgb_mkdirs(line, err) && (f = fopen(memo, "w"))) {
		fprintf(f, "%s %s\n", stamp, v);
		fclose(f);
	}
	return v;
}

static int from_debian(const char *which, const char *cache, bool quiet, struct mgb_kb_source *s, char *err)
{
	struct mgb_apt apt;
	const struct mgb_debian_kernel *known;
	char *root = NULL, *tmp = NULL, *debs = NULL, *deb = NULL, *out = NULL;
	int rc = -1;

	mgb_apt_system(&apt, NULL); /* candidate() below keeps its answer: no package cache */
	if (!(known = mgb_debian_kernel_find(which)) || !known->source_pkg)
		return mgb_err(err, "unknown source debian:%s (%s)", which, mgb_debian_kernel_names(true));
	if (!(s->package = strdup(known->source_pkg)) || asprintf(&s->label, "debian:%s", which) < 0)
		return mgb_err(err, "out of memory");
	if (!(s->pkg_version = candidate(&apt, cache, s->package, err)))
		return -1;
	if (asprintf(&root, "%s/src/%s_%s", cache, s->package, s->pkg_version) < 0 ||
	    asprintf(&s->tree, "%s/%s", root, s->package) < 0 || asprintf(&tmp, "%s.tmp", root) < 0 ||
	    asprintf(&debs, "%s/debs", tmp) < 0)
		goto oom;
	if (access(root, F_OK)) {
		mgb_remove_tree(tmp); /* an interrupted fetch */
		if (!(deb = mgb_apt_download(&apt, s->package, debs, quiet ? NULL : "mgbench kernel", err)))
			goto out;
		if (!quiet)
			fprintf(stderr, "mgbench kernel: unpacking %s %s\n", s->package, s->pkg_version);
		/* the .deb holds usr/src/linux-source-X.tar.xz; unpack the tarball straight from it */
		const char *argv[] = { "sh", "-c",
				       "set -e; cd \"$2\"; dpkg-deb --fsys-tarfile \"$1\" | "
				       "tar -xO \"./usr/src/$0.tar.xz\" | xz -dc | tar -x",
				       s->package, deb, tmp, NULL };
		int st = mgb_capture(argv, NULL, &out, err);

		if (st) {
			if (st > 0)
				mgb_err(err, "unpacking %s failed: %.150s", deb, out ? out : "");
			goto out;
		}
		mgb_remove_tree(debs);
		if (rename(tmp, root)) {
			mgb_err(err, "cannot rename %s: %s", tmp, strerror(errno));
			goto out;
		}
	}
	/* an entry of the trusted cache that others could write since is not built from */
	if (mgb_check_trusted_dir(root, false, err))
		goto out;
	if (!(s->version = makefile_version(s->tree))) {
		mgb_err(err, "%s: no kernel Makefile in %s", s->package, s->tree);
		goto out;
	}
	if (asprintf(&s->id, "debian %s %s", s->package, s->pkg_version) < 0)
		goto oom;
	rc = 0;
	goto out;
oom:
	mgb_err(err, "out of memory");
out:
	if (rc)
		mgb_remove_tree(tmp);
	free(root);
	free(tmp);
	free(debs);
	free(deb);
	free(out);
	return rc;
}

int mgb_kb_source_get(const char *spec, const char *cache, bool quiet, struct mgb_kb_source *s, char *err)
{
	int rc;

	memset(s, 0, sizeof(*s));
	if (!strncmp(spec, "debian:", 7))
		rc = from_debian(spec + 7, cache, quiet, s, err);
	else
		rc = from_dir(spec, s, err);
	if (rc)
		mgb_kb_source_free(s);
	return rc;
}


