/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The work tree builds share, kept from one build to the next, and the copies of files and trees
 * kbuild makes.  A series' prefixes differ in a few patches: undoing and applying those and running make again compiles the files they touch
 * and links, instead of copying the source and compiling everything through ccache (minutes
 * even when every object is a hit).  What the tree holds is recorded in state.json once a build
 * succeeded; the record goes before the tree is changed, so a tree a build left half-made is
 * never trusted, only copied afresh.  A --source directory whose contents changed since (a git
 * checkout between two commits, an edit) is brought up to date file by file: the kept copy is
 * a hard-link farm, so a file the source replaced has another inode, and one edited in place is
 * already seen.
 */
#include "config.h"
#include "kbuild_internal.h"
#include "proc.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

static void paths(const char *work, char *state, char *src, char *obj, size_t len)
{
	snprintf(state, len, "%s/state.json", work);
	snprintf(src, len, "%s/src", work);
	snprintf(obj, len, "%s/obj", work);
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !lstat(p, &st) && S_ISDIR(st.st_mode);
}

/* Undo the recorded patches after the first `keep` (last first): false if one does not undo
 * exactly, and the tree must then be copied afresh. */
static bool undo_to(const char *src, json_t *recorded, size_t keep, unsigned fuzz, FILE *log)
{
	for (size_t k = json_array_size(recorded); k-- > keep;) {
		json_t *r = json_array_get(recorded, k);
		const char *path = json_string_value(json_object_get(r, "path")),
			   *name = json_string_value(json_object_get(r, "name"));
		char e[MGB_ERR_LEN] = "", hex[65];

		/* undone with the very patch that was applied: the file at path may have changed */
		if (!path || !name || mgb_sha256_file(path, hex, e) ||
		    strcmp(hex, json_string_value(json_object_get(r, "sha256")) ?: "") ||
		    mgb_kb_patch_revert(src, path, name, json_object_get(r, "before"), fuzz, log, e)) {
			if (log)
				fprintf(log, "== the work tree is copied afresh: %s\n", *e ? e : "a patch is gone");
			return false;
		}
	}
	return true;
}

/* Whether two regular files hold the same bytes. */
static bool same_bytes(int a, int b, off_t size)
{
	char x[65536], y[65536];

	for (off_t done = 0; done < size;) {
		ssize_t n = read(a, x, sizeof(x)), m;

		if (n <= 0)
			return false;
		for (ssize_t got = 0; got < n; got += m)
			if ((m = read(b, y + got, (size_t)(n - got))) <= 0)
				return false;
		if (memcmp(x, y, (size_t)n))
			return false;
		done += n;
	}
	return true;
}

/* name in to (an open directory) becomes a copy of from's file: new inode, new mtime, so make
 * rebuilds what depends on it whatever time the source gave its file. */
static int copy_in(int from, const char *name, int to, mode_t mode, off_t size, char *err)
{
	char tmp[NAME_MAX + 16];
	int out;

	snprintf(tmp, sizeof(tmp), ".%.200s.mgbsync", name);
	unlinkat(to, tmp, 0);
	if ((out = openat(to, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0777)) < 0)
		return mgb_err(err, "cannot create %s: %s", tmp, strerror(errno));
	for (off_t done = 0; done < size;) {
		ssize_t n = sendfile(out, from, NULL, (size_t)(size - done));

		if (n <= 0) {
			close(out);
			unlinkat(to, tmp, 0);
			return mgb_err(err, "cannot copy %s: %s", name, n ? strerror(errno) : "short file");
		}
		done += n;
	}
	if (fchmod(out, mode & 0777) || close(out) || renameat(to, tmp, to, name)) {
		unlinkat(to, tmp, 0);
		return mgb_err(err, "cannot write %s: %s", name, strerror(errno));
	}
	return 0;
}

static int remove_at(int dir, const char *name, const char *path)
{
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dir, name, 0);
	mgb_remove_tree(path);
	return 0;
}

/* Make the directory dst (the kept copy) hold what src (the source) holds, rel its path below
 * both; *changed counts the files copied or removed.  .git is left out at the top, as the copy
 * and the key leave it out. */
static int sync_dir(const char *src, const char *dst, bool top, size_t *changed, char *err)
{
	struct dirent **ents = NULL;
	int n = scandir(src, &ents, NULL, alphasort), sd = -1, dd = -1, rc = 0;
	DIR *d;
	struct dirent *e;

	if (n < 0)
		return mgb_err(err, "cannot read %s: %s", src, strerror(errno));
	if ((sd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (dd = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		rc = mgb_err(err, "cannot open %s: %s", sd < 0 ? src : dst, strerror(errno));
		goto out;
	}
	for (int i = 0; i < n && !rc; i++) {
		const char *name = ents[i]->d_name;
		char sp[PATH_MAX], dp[PATH_MAX];
		struct stat s, t;
		bool have;

		if (!strcmp(name, ".") || !strcmp(name, "..") || (top && !strcmp(name, ".git")))
			continue;
		snprintf(sp, sizeof(sp), "%s/%s", src, name);
		snprintf(dp, sizeof(dp), "%s/%s", dst, name);
		if (fstatat(sd, name, &s, AT_SYMLINK_NOFOLLOW))
			continue; /* gone meanwhile */
		have = !fstatat(dd, name, &t, AT_SYMLINK_NOFOLLOW);
		if (S_ISDIR(s.st_mode)) {
			if (have && !S_ISDIR(t.st_mode) && !remove_at(dd, name, dp))
				have = false, (*changed)++;
			if (!have && mkdirat(dd, name, 0755) && errno != EEXIST)
				rc = mgb_err(err, "cannot create %s: %s", dp, strerror(errno));
			else
				rc = sync_dir(sp, dp, false, changed, err);
		} else if (S_ISREG(s.st_mode)) {
			if (have && S_ISREG(t.st_mode) && t.st_ino == s.st_ino && t.st_dev == s.st_dev)
				continue; /* the same file: hard-linked, edits included */
			int f = openat(sd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), g = -1;

			if (f < 0) {
				rc = mgb_err(err, "cannot read %s: %s", sp, strerror(errno));
				continue;
			}
			if (have && S_ISREG(t.st_mode) && t.st_size == s.st_size &&
			    (t.st_mode & 0111) == (s.st_mode & 0111) &&
			    (g = openat(dd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0 && same_bytes(f, g, s.st_size)) {
				close(f);
				close(g);
				continue; /* a copy with the same bytes: what make compiled */
			}
			if (g >= 0)
				close(g);
			if (lseek(f, 0, SEEK_SET) < 0 || (have && !S_ISREG(t.st_mode) && remove_at(dd, name, dp)))
				rc = mgb_err(err, "cannot replace %s: %s", dp, strerror(errno));
			else
				rc = copy_in(f, name, dd, s.st_mode, s.st_size, err);
			close(f);
			(*changed)++;
		} else if (S_ISLNK(s.st_mode)) {
			char a[PATH_MAX], b[PATH_MAX];
			ssize_t la = readlinkat(sd, name, a, sizeof(a) - 1), lb = -1;

			if (la < 0)
				continue;
			a[la] = '\0';
			if (have && S_ISLNK(t.st_mode) && (lb = readlinkat(dd, name, b, sizeof(b) - 1)) >= 0 &&
			    (b[lb] = '\0', !strcmp(a, b)))
				continue;
			if (have)
				remove_at(dd, name, dp);
			if (symlinkat(a, dd, name))
				rc = mgb_err(err, "cannot create %s: %s", dp, strerror(errno));
			(*changed)++;
		}
	}
	/* what the source no longer has */
	if (!rc && (d = fdopendir(dup(dd)))) {
		while ((e = readdir(d))) {
			struct stat s;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
			    !fstatat(sd, e->d_name, &s, AT_SYMLINK_NOFOLLOW) || (top && !strcmp(e->d_name, ".git")))
				continue;
			char dp[PATH_MAX];

			snprintf(dp, sizeof(dp), "%s/%s", dst, e->d_name);
			remove_at(dd, e->d_name, dp);
			(*changed)++;
		}
		closedir(d);
	}
out:
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	if (sd >= 0)
		close(sd);
	if (dd >= 0)
		close(dd);
	return rc;
}

int mgb_kb_tree_prepare(const char *work, const char *base, const char *tree, const char *source_id,
			struct mgb_kb_patch *p, size_t n, unsigned fuzz, int logfd, FILE *log, size_t *applied, bool *kept,
			char *err)
{
	char state[PATH_MAX], src[PATH_MAX], obj[PATH_MAX];
	json_t *rec;
	size_t keep = 0, changed = 0;
	bool reuse, same_source;

	*applied = 0;
	*kept = false;
	paths(work, state, src, obj, sizeof(state));
	rec = json_load_file(state, 0, NULL);
	unlink(state); /* from here on the tree is being changed */
	reuse = rec && !strcmp(json_string_value(json_object_get(rec, "base")) ?: "", base) && is_dir(src) &&
		is_dir(obj);
	same_source = rec && !strcmp(json_string_value(json_object_get(rec, "source_id")) ?: "", source_id);
	if (reuse) {
		json_t *recorded = json_object_get(rec, "patches");

		/* the longest common prefix: the same contents, wherever the patch file is now (a
		 * series copied elsewhere with one patch changed); none when the source changed: its
		 * files are synced with every patch undone */
		while (same_source && keep < n && keep < json_array_size(recorded)) {
			json_t *r = json_array_get(recorded, keep);

			if (strcmp(json_string_value(json_object_get(r, "sha256")) ?: "", p[keep].sha256))
				break;
			keep++;
		}
		reuse = undo_to(src, recorded, keep, fuzz, log);
		if (reuse && !same_source && sync_dir(tree, src, true, &changed, err)) {
			if (log)
				fprintf(log, "== the work tree is copied afresh: %s\n", err);
			*err = '\0';
			reuse = false;
		}
		for (size_t i = 0; reuse && i < keep; i++) {
			json_t *r = json_array_get(recorded, i);

			p[i].moved = json_incref(json_object_get(r, "moved"));
			p[i].before = json_incref(json_object_get(r, "before"));
		}
	}
	json_decref(rec);
	if (log) {
		fprintf(log, "== work tree: %s, %zu of %zu patches kept, %zu files of a changed source synced\n",
			reuse ? "kept" : "copied afresh", reuse ? keep : 0, n, changed);
		fflush(log);
	}
	if (reuse) {
		*applied = keep;
		*kept = true;
		return 0;
	}
	mgb_remove_tree(obj);
	if (mgb_kb_copy_tree(tree, src, logfd, err) || mgb_mkdirs(obj, err))
		return -1;
	return 0;
}

/* The applied patches' texts, kept in work/patches/SHA256 to undo them with: the user's files
 * may be gone or changed by the next build (a series in a temporary directory).  Copies no
 * longer applied go. */
static int keep_patch_texts(const char *work, const struct mgb_kb_patch *p, size_t n, char *err)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%s/patches", work);
	if (mgb_mkdirs(dir, err))
		return -1;
	for (size_t i = 0; i < n; i++) {
		char to[PATH_MAX + 80], hex[65];

		snprintf(to, sizeof(to), "%s/%s", dir, p[i].sha256);
		if (mgb_sha256_file(to, hex, (char[MGB_ERR_LEN]){ 0 }) || strcmp(hex, p[i].sha256))
			if (mgb_kb_copy_file(p[i].path, to, err))
				return -1;
	}
	if ((d = opendir(dir))) {
		while ((e = readdir(d))) {
			bool used = false;

			for (size_t i = 0; i < n && !used; i++)
				used = !strcmp(e->d_name, p[i].sha256);
			if (!used && e->d_name[0] != '.')
				unlinkat(dirfd(d), e->d_name, 0);
		}
		closedir(d);
	}
	return 0;
}

int mgb_kb_tree_save(const char *work, const char *base, const char *source_id, const struct mgb_kb_patch *p,
		     size_t n, char *err)
{
	char state[PATH_MAX], tmp[PATH_MAX + 8], src[PATH_MAX], obj[PATH_MAX], copy[PATH_MAX + 80];
	json_t *list = json_array(), *rec;

	paths(work, state, src, obj, sizeof(state));
	for (size_t i = 0; i < n; i++)
		if (!p[i].before) { /* not undoable: the next build with other patches copies afresh */
			json_decref(list);
			return 0;
		}
	if (keep_patch_texts(work, p, n, err)) {
		json_decref(list);
		return -1;
	}
	for (size_t i = 0; list && i < n; i++) {
		snprintf(copy, sizeof(copy), "%s/patches/%s", work, p[i].sha256);
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:O, s:O?}", "name", p[i].name, "path", copy,
						      "sha256", p[i].sha256, "before", p[i].before, "moved",
						      p[i].moved));
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", state);
	rec = json_pack("{s:s, s:s, s:o}", "base", base, "source_id", source_id, "patches", list);
	if (!rec || json_dump_file(rec, tmp, JSON_INDENT(1)) || rename(tmp, state)) {
		json_decref(rec);
		unlink(tmp);
		return mgb_err(err, "cannot write %s: %s", state, strerror(errno));
	}
	json_decref(rec);
	return 0;
}

/* Copy from to to through a temporary name in to's directory that only we can have made
 * (mkostemp: O_CREAT|O_EXCL, so a planted symlink is never followed), synced, then renamed. */
int mgb_kb_copy_file(const char *from, const char *to, char *err)
{
	char tmp[PATH_MAX + 8];
	int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), out = -1, rc = -1;
	struct stat st;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", to);
	if (in < 0 || fstat(in, &st) || !S_ISREG(st.st_mode) || (out = mkostemp(tmp, O_CLOEXEC)) < 0) {
		if (in >= 0 && !S_ISREG(st.st_mode))
			errno = EINVAL;
		mgb_err(err, "cannot copy %s to %s: %s", from, to, strerror(errno));
		tmp[0] = '\0';
		goto out;
	}
	for (off_t done = 0; done < st.st_size;) {
		ssize_t n = sendfile(out, in, NULL, (size_t)(st.st_size - done));

		if (n <= 0) {
			mgb_err(err, "cannot copy %s to %s: %s", from, to, n ? strerror(errno) : "short file");
			goto out;
		}
		done += n;
	}
	if (fchmod(out, 0644) || fsync(out) || close(out)) {
		out = -1;
		mgb_err(err, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	out = -1;
	if (rename(tmp, to)) {
		mgb_err(err, "cannot rename %s: %s", tmp, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (rc && tmp[0])
		unlink(tmp);
	return rc;
}

/* cp -FLAGS tree/name to/ for every top-level entry but .git: one cp each, run as make is (own
 * process group, parent-death signal, stopped on SIGINT/SIGTERM), with no shell in between
 * that would outlive a killed mgbench.  0, cp's exit status, or -1. */
static int copy_entries(const char *tree, const char *to, const char *flags, int logfd, char *err)
{
	struct dirent **ents = NULL;
	int n = scandir(tree, &ents, NULL, alphasort), st = 0;

	if (n < 0)
		return mgb_err(err, "cannot read %s: %s", tree, strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char from[PATH_MAX], dest[PATH_MAX];

		if (!st && strcmp(name, ".") && strcmp(name, "..") && strcmp(name, ".git")) {
			snprintf(from, sizeof(from), "%s/%s", tree, name);
			snprintf(dest, sizeof(dest), "%s/", to);
			const char *argv[] = { "cp", flags, "--", from, dest, NULL };

			st = mgb_kb_run_logged(argv, NULL, NULL, logfd, MGB_KB_PROGRESS_NONE, "", err);
		}
		free(ents[i]);
	}
	free(ents);
	return st;
}

int mgb_kb_copy_tree(const char *tree, const char *to, int logfd, char *err)
{
	/* hard links; a copy where links cannot cross filesystems */
	static const char *const flags[] = { "-al", "-a" };
	int st = -1;

	for (unsigned pass = 0; pass < MGB_ARRAY_SIZE(flags); pass++) {
		mgb_remove_tree(to);
		if (mgb_mkdirs(to, err))
			return -1;
		st = copy_entries(tree, to, flags[pass], logfd, err);
		if (st <= 0)
			break;
	}
	if (st > 0)
		mgb_err(err, "cannot copy %s to %s (cp exit %d)", tree, to, st);
	return st ? -1 : 0;
}
