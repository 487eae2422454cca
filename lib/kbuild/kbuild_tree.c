/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The work tree builds share, kept from one build to the next.  A series' prefixes differ in a
 * few patches: undoing and applying those and running make again compiles the files they touch
 * and links, instead of copying the source and compiling everything through ccache (minutes
 * even when every object is a hit).  What the tree holds is recorded in state.json once a build
 * succeeded; the record goes before the tree is changed, so a tree a build left half-made is
 * never trusted, only copied afresh.
 */
#include "config.h"
#include "kbuild_internal.h"
#include "target.h"
#include "util.h"
#include "vm.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
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

int mgb_kb_tree_prepare(const char *work, const char *base, const char *tree, struct mgb_kb_patch *p, size_t n,
			unsigned fuzz, int logfd, FILE *log, size_t *applied, bool *kept, char *err)
{
	char state[PATH_MAX], src[PATH_MAX], obj[PATH_MAX];
	json_t *rec;
	size_t keep = 0;
	bool reuse;

	*applied = 0;
	*kept = false;
	paths(work, state, src, obj, sizeof(state));
	rec = json_load_file(state, 0, NULL);
	unlink(state); /* from here on the tree is being changed */
	reuse = rec && !strcmp(json_string_value(json_object_get(rec, "base")) ?: "", base) && is_dir(src) &&
		is_dir(obj);
	if (reuse) {
		json_t *recorded = json_object_get(rec, "patches");

		/* the longest common prefix: the same patch file, the same contents */
		while (keep < n && keep < json_array_size(recorded)) {
			json_t *r = json_array_get(recorded, keep);

			if (strcmp(json_string_value(json_object_get(r, "sha256")) ?: "", p[keep].sha256) ||
			    strcmp(json_string_value(json_object_get(r, "path")) ?: "", p[keep].path))
				break;
			keep++;
		}
		reuse = undo_to(src, recorded, keep, fuzz, log);
		for (size_t i = 0; reuse && i < keep; i++) {
			json_t *r = json_array_get(recorded, i);

			p[i].moved = json_incref(json_object_get(r, "moved"));
			p[i].before = json_incref(json_object_get(r, "before"));
		}
	}
	json_decref(rec);
	if (log) {
		fprintf(log, "== work tree: %s, %zu of %zu patches kept\n", reuse ? "kept" : "copied afresh",
			reuse ? keep : 0, n);
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

int mgb_kb_tree_save(const char *work, const char *base, const struct mgb_kb_patch *p, size_t n, char *err)
{
	char state[PATH_MAX], tmp[PATH_MAX + 8], src[PATH_MAX], obj[PATH_MAX];
	json_t *list = json_array(), *rec;

	paths(work, state, src, obj, sizeof(state));
	for (size_t i = 0; list && i < n; i++) {
		if (!p[i].before) { /* not undoable: the next build with other patches copies afresh */
			json_decref(list);
			return 0;
		}
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:O, s:O?}", "name", p[i].name, "path", p[i].path,
						      "sha256", p[i].sha256, "before", p[i].before, "moved",
						      p[i].moved));
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", state);
	rec = json_pack("{s:s, s:o}", "base", base, "patches", list);
	if (!rec || json_dump_file(rec, tmp, JSON_INDENT(1)) || rename(tmp, state)) {
		json_decref(rec);
		unlink(tmp);
		return mgb_err(err, "cannot write %s: %s", state, strerror(errno));
	}
	json_decref(rec);
	return 0;
}
