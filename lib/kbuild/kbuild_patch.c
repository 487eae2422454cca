/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Patches for a kernel build: listed in order, hashed for the manifest and the cache key, and
 * applied one by one with GNU patch to the private copy.  A failure names the patch and its
 * first failing hunk, before anything is compiled.
 */
#include "config.h"
#include "kbuild_internal.h"
#include "proc.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void mgb_kb_patches_free(struct mgb_kb_patch *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		free(p[i].name);
		free(p[i].path);
		json_decref(p[i].moved);
		json_decref(p[i].before);
	}
	free(p);
}

static bool patch_name(const char *n)
{
	size_t l = strlen(n);
	static const char *const ext[] = { ".patch", ".diff", ".mbox" };

	if (n[0] == '.')
		return false;
	for (size_t i = 0; i < MGB_ARRAY_SIZE(ext); i++)
		if (l > strlen(ext[i]) && !strcmp(n + l - strlen(ext[i]), ext[i]))
			return true;
	return false;
}

/* A patch: a regular file (a FIFO would hang the hashing) that is not empty (an empty one
 * applies as nothing, yet would be counted as a patch). */
static int add(struct mgb_kb_patch **v, size_t *n, const char *path, char *err)
{
	struct mgb_kb_patch *nv;
	const char *base = strrchr(path, '/');
	struct stat st;

	if (stat(path, &st))
		return mgb_err(err, "patch %.200s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return mgb_err(err, "patch %.200s is not a regular file", path);
	if (st.st_size == 0)
		return mgb_err(err, "patch %.200s is empty", path);
	if (!(nv = realloc(*v, (*n + 1) * sizeof(**v))))
		return mgb_err(err, "out of memory");
	*v = nv;
	nv[*n].moved = nv[*n].before = NULL;
	/* absolute: patch runs with -d TREE */
	if (!(nv[*n].path = realpath(path, NULL)))
		return mgb_err(err, "patch %.200s: %s", path, strerror(errno));
	if (!(nv[*n].name = strdup(base ? base + 1 : path))) {
		free(nv[*n].path);
		return mgb_err(err, "out of memory");
	}
	(*n)++;
	return mgb_sha256_file(path, nv[*n - 1].sha256, err);
}

static void explain(const char *out, char *why, size_t len);

/*
 * Is each patch a diff GNU patch can read?  Read by patch itself, as a build applies it, against
 * an empty directory: it skips the files it cannot find (exit 0 or 1) and exits 2 on a file that
 * holds no diff or a malformed one, which a build would otherwise find only when it came to that
 * patch, and kernel bisect only after building and booting the prefixes before it.  Nothing
 * is written: --dry-run, in a directory of its own.
 */
static int check_readable(const struct mgb_kb_patch *p, size_t n, char *err)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], why[200];
	int rc = 0;

	if (!n)
		return 0;
	snprintf(dir, sizeof(dir), "%s/mgbench-patchcheck.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return mgb_err(err, "cannot make a directory to read the patches in: %s: %s", dir, strerror(errno));
	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *argv[] = { "patch", "-p1", "--forward", "--batch", "--dry-run", "-r", "-", "-d", dir, "-i",
				       p[i].path, NULL };
		char *out = NULL;
		int st = mgb_capture(argv, NULL, &out, err);

		if (st < 0) {
			rc = -1;
		} else if (st > 1) {
			explain(out, why, sizeof(why));
			rc = mgb_err(err, "patch %s cannot be read: %s", p[i].name, why);
		}
		free(out);
	}
	rmdir(dir);
	return rc;
}

int mgb_kb_patches(const char *const *args, struct mgb_kb_patch **out, size_t *n, char *err)
{
	*out = NULL;
	*n = 0;
	for (size_t a = 0; args && args[a]; a++) {
		struct stat st;

		if (stat(args[a], &st)) {
			mgb_err(err, "--patches %s: %s", args[a], strerror(errno));
			goto fail;
		}
		if (S_ISREG(st.st_mode)) {
			if (add(out, n, args[a], err))
				goto fail;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			mgb_err(err, "--patches %s is neither a file nor a directory", args[a]);
			goto fail;
		}
		struct dirent **ents = NULL;
		int k = scandir(args[a], &ents, NULL, alphasort), found = 0, bad = 0;

		if (k < 0) {
			mgb_err(err, "--patches %s: %s", args[a], strerror(errno));
			goto fail;
		}
		for (int i = 0; i < k; i++) {
			char p[PATH_MAX];

			if (!bad && patch_name(ents[i]->d_name)) {
				snprintf(p, sizeof(p), "%s/%s", args[a], ents[i]->d_name);
				bad = add(out, n, p, err);
				found++;
			}
			free(ents[i]);
		}
		free(ents);
		if (bad)
			goto fail;
		if (!found) {
			mgb_err(err, "--patches %s holds no *.patch, *.diff or *.mbox file", args[a]);
			goto fail;
		}
	}
	if (check_readable(*out, *n, err))
		goto fail;
	return 0;
fail:
	mgb_kb_patches_free(*out, *n);
	*out = NULL;
	*n = 0;
	return -1;
}

int mgb_kbuild_series(const char *const *args, char ***files, size_t *n, char *err)
{
	struct mgb_kb_patch *p;

	*files = NULL;
	if (mgb_kb_patches(args, &p, n, err))
		return -1;
	if (*n && !(*files = calloc(*n, sizeof(**files)))) {
		mgb_kb_patches_free(p, *n);
		return mgb_err(err, "out of memory");
	}
	for (size_t i = 0; i < *n; i++) {
		(*files)[i] = p[i].path; /* the list takes the paths */
		p[i].path = NULL;
	}
	mgb_kb_patches_free(p, *n);
	return 0;
}

void mgb_kbuild_series_free(char **files, size_t n)
{
	for (size_t i = 0; files && i < n; i++)
		free(files[i]);
	free(files);
}

/* What went wrong, from patch's output: the first failing hunk and its file. */
static void explain(const char *out, char *why, size_t len)
{
	char file[200] = "?", *dup = strdup(out ? out : ""), *save = NULL;
	int hunk, at;

	snprintf(why, len, "patch failed");
	/* without a known message, patch's last line */
	if (dup && *dup) {
		char *end = dup + strlen(dup);

		while (end > dup && end[-1] == '\n')
			*--end = '\0';
		char *last = strrchr(dup, '\n');

		snprintf(why, len, "%.150s", last ? last + 1 : dup);
		free(dup);
		dup = strdup(out);
	}
	for (char *l = dup ? strtok_r(dup, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		if (sscanf(l, "patching file %199s", file) == 1 || sscanf(l, "checking file %199s", file) == 1)
			continue;
		if (sscanf(l, "Hunk #%d FAILED at %d", &hunk, &at) == 2) {
			snprintf(why, len, "hunk #%d of %s FAILED at line %d", hunk, file, at);
			break;
		}
		if (strstr(l, "Reversed (or previously applied) patch detected")) {
			snprintf(why, len, "%s is already patched (or the patch is reversed)", file);
			break;
		}
		if (strstr(l, "can't find file to patch")) {
			snprintf(why, len, "%s", l);
			break;
		}
		if (strstr(l, "Only garbage was found")) {
			snprintf(why, len, "it holds no diff");
			break;
		}
		if (strstr(l, "malformed patch") || strstr(l, "unexpected end of file")) {
			snprintf(why, len, "%s", l);
			break;
		}
	}
	free(dup);
}

/* "Hunk #2 succeeded at 2530 (offset 4 lines)." or "... with fuzz 1 (offset -2 lines).": where
 * patch put the hunks it did not put where the patch says. */
static json_t *moved_hunks(const char *out)
{
	char file[200] = "?", *dup = strdup(out ? out : ""), *save = NULL;
	json_t *moved = json_array();

	for (char *l = dup ? strtok_r(dup, "\n", &save) : NULL; l && moved; l = strtok_r(NULL, "\n", &save)) {
		const char *f = strstr(l, " with fuzz "), *o = strstr(l, "(offset ");
		int hunk, line;

		if (sscanf(l, "patching file %199s", file) == 1)
			continue;
		if (sscanf(l, "Hunk #%d succeeded at %d", &hunk, &line) == 2)
			json_array_append_new(moved, json_pack("{s:s, s:i, s:i, s:i, s:i}", "file", file, "hunk", hunk,
							       "line", line, "offset", o ? atoi(o + 8) : 0, "fuzz",
							       f ? atoi(f + 11) : 0));
	}
	free(dup);
	return moved;
}

/* A file name from patch's "checking file X" (quoted 'X' when it has odd characters). */
static void file_of(const char *l, const char *lead, char *file, size_t len)
{
	const char *f = l + strlen(lead);
	size_t n = strcspn(f, "\n");

	if (n >= 2 && f[0] == '\'' && f[n - 1] == '\'') {
		f++;
		n -= 2;
	}
	snprintf(file, len, "%.*s", (int)n, f);
}

/* {path: sha256 or null} of the files patch's dry-run output says it would touch, as they are. */
static json_t *files_before(const char *tree, const char *out, char *err)
{
	char *dup = strdup(out ? out : ""), *save = NULL;
	json_t *files = json_object();

	for (char *l = dup ? strtok_r(dup, "\n", &save) : NULL; l && files; l = strtok_r(NULL, "\n", &save)) {
		char file[PATH_MAX / 2], path[PATH_MAX], hex[65];
		const char *from = strstr(l, " (renamed from ");

		if (strncmp(l, "checking file ", 14) || from) {
			if (from) { /* a git rename: both names are the patch's */
				json_decref(files);
				files = NULL;
				mgb_err(err, "renames are not undone: %s", l);
			}
			continue;
		}
		file_of(l, "checking file ", file, sizeof(file));
		snprintf(path, sizeof(path), "%s/%s", tree, file);
		if (access(path, F_OK) && errno == ENOENT)
			json_object_set_new(files, file, json_null());
		else if (!mgb_sha256_file(path, hex, err))
			json_object_set_new(files, file, json_string(hex));
		else {
			json_decref(files);
			files = NULL;
		}
	}
	free(dup);
	return files;
}

int mgb_kb_patch_apply(const char *tree, struct mgb_kb_patch *p, unsigned fuzz, FILE *log, char *err)
{
	/* --fuzz=0 by default: a hunk whose context does not match exactly fails, never lands
	 * elsewhere (GNU patch's default fuzz of 2 ignores two lines of context each side) */
	char fz[32];

	snprintf(fz, sizeof(fz), "--fuzz=%u", fuzz);
	const char *argv[] = { "patch", "-p1", "--forward", "--batch", "--no-backup-if-mismatch", fz,
			       "-r", "-", "-d", tree, "-i", p->path, NULL, NULL };
	char *out = NULL, why[200];
	int st;

	/* first a dry run: the files it will touch, hashed as they are, so that it can be undone */
	argv[12] = "--dry-run";
	st = mgb_capture(argv, NULL, &out, err);
	argv[12] = NULL;
	if (st == 0) {
		char e[MGB_ERR_LEN] = "";

		json_decref(p->before);
		if (!(p->before = files_before(tree, out, e)) && log)
			fprintf(log, "== %s: cannot be undone (%s)\n", p->name, e);
		free(out);
		out = NULL;
		st = mgb_capture(argv, NULL, &out, err);
	}
	if (log)
		fprintf(log, "== patch -p1 %s < %s\n%s", fz, p->path, out ? out : "");
	if (st == 0) {
		json_decref(p->moved);
		p->moved = moved_hunks(out);
	}
	if (st > 0) {
		explain(out, why, sizeof(why));
		mgb_err(err, "patch %s does not apply: %s", p->name, why);
	}
	free(out);
	return st ? -1 : 0;
}

int mgb_kb_patch_revert(const char *tree, const char *path, const char *name, const json_t *before, unsigned fuzz,
			FILE *log, char *err)
{
	char fz[32], *out = NULL;
	const char *file;
	json_t *want;
	int st;

	if (!json_is_object(before))
		return mgb_err(err, "%s: no record of the files it touched", name);
	snprintf(fz, sizeof(fz), "--fuzz=%u", fuzz);
	const char *argv[] = { "patch", "-p1", "-R", "--batch", "--no-backup-if-mismatch", fz,
			       "-r", "-", "-d", tree, "-i", path, NULL };

	st = mgb_capture(argv, NULL, &out, err);
	if (log)
		fprintf(log, "== patch -p1 -R %s < %s\n%s", fz, path, out ? out : "");
	free(out);
	if (st)
		return st > 0 ? mgb_err(err, "%s does not undo (patch -R exit %d)", name, st) : -1;
	json_object_foreach((json_t *)before, file, want) {
		char p[PATH_MAX], hex[65];
		bool absent = access((snprintf(p, sizeof(p), "%s/%s", tree, file), p), F_OK) && errno == ENOENT;

		if (json_is_null(want) ? !absent
				       : absent || mgb_sha256_file(p, hex, err) || strcmp(hex, json_string_value(want)))
			return mgb_err(err, "undoing %s did not give back %s", name, file);
	}
	return 0;
}
