/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: rename (in one directory and with --dirs), setxattr and every meta --op on
 * scratch ext4, xfs, btrfs, tmpfs and ramfs made by mgbench.  With a query between changes,
 * every stamp the change must move is distinct on every round on the multigrain filesystems,
 * never backwards, never in the future.  ramfs (coarse stamps) gives far fewer; it has neither
 * user.* xattrs nor fallocate, and the error says so.  Bad options are refused, naming the
 * option.  The host is left as it was.
 *
 * The ramfs bound is t_check_coarse_bound's: other processes' fine stamps move the global floor,
 * and on a busy machine ramfs stamps then differ on most rounds.
 */
#include "config.h"
#include "helpers.h"
#include "util.h"

#include <math.h>
#include <string.h>

#define ROUNDS 2000
#define ROUNDS_TEXT "2000"

static const char *const mg_fs[] = { "ext4", "xfs", "btrfs", "tmpfs" };

static const char *const file_ctime[] = { "ctime", NULL };
static const char *const one_dir[] = { "ctime", "dir1_ctime", "dir1_mtime", NULL };
static const char *const two_dirs[] = { "ctime", "dir1_ctime", "dir1_mtime", "dir2_ctime", "dir2_mtime", NULL };

struct run_case {
	const char *workload;
	const char *option, *value;   /* one workload option (value NULL for a flag), or none */
	const char *const *observers; /* stamps that must change on every round */
	bool ramfs_unsupported;       /* ramfs lacks the operation: that cell is "unsupported" */
};

static const struct run_case cases[] = {
	{ "rename", NULL, NULL, one_dir, false },
	{ "rename", "--dirs", NULL, two_dirs, false },
	{ "setxattr", NULL, NULL, file_ctime, true },
	{ "meta", "--op", "truncate", file_ctime, false },
	{ "meta", "--op", "chmod", file_ctime, false },
	{ "meta", "--op", "link", file_ctime, false },
	{ "meta", "--op", "unlink", file_ctime, false },
	{ "meta", "--op", "utimens", file_ctime, false },
	{ "meta", "--op", "fallocate", file_ctime, true },
};

static void check_multigrain(json_t *cell, const char *label, const char *fs, const char *const *observers)
{
	char path[64];

	T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "ok"), "%s on %s: ok", label, fs);
	T_CHECK(!strcmp(json_string_value(json_object_get(json_object_get(cell, "target"), "fstype")), fs),
		"%s: really mounted as %s", label, fs);
	T_CHECK(t_metric(cell, "rounds") == ROUNDS, "%s on %s: rounds %g", label, fs, t_metric(cell, "rounds"));
	/* Each workload names its rate for what it counts. */
	T_CHECK(t_metric(cell, !strncmp(label, "rename", 6) ? "renames_per_s"
			       : !strncmp(label, "setxattr", 8) ? "setxattrs_per_s" : "rounds_per_s") > 0,
		"%s on %s: rate", label, fs);
	for (const char *const *o = observers; *o; o++) {
		snprintf(path, sizeof(path), "%s.rounds", *o);
		T_CHECK(t_metric(cell, path) == ROUNDS, "%s on %s: %s %g", label, fs, path, t_metric(cell, path));
		snprintf(path, sizeof(path), "%s.distinct_ratio", *o);
		T_CHECK(t_metric(cell, path) == 1.0, "%s on %s: %s %g", label, fs, path, t_metric(cell, path));
		snprintf(path, sizeof(path), "%s.backwards", *o);
		T_CHECK(t_metric(cell, path) == 0, "%s on %s: %s %g", label, fs, path, t_metric(cell, path));
		snprintf(path, sizeof(path), "%s.future", *o);
		T_CHECK(t_metric(cell, path) == 0, "%s on %s: %s %g", label, fs, path, t_metric(cell, path));
	}
}

static void check_ramfs(json_t *doc, json_t *cell, const char *label, const char *const *observers)
{
	char path[64], what[128];

	T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "ok"), "%s on ramfs: ok", label);
	for (const char *const *o = observers; *o; o++) {
		snprintf(path, sizeof(path), "%s.distinct", *o);
		snprintf(what, sizeof(what), "%s on ramfs, %s", label, *o);
		t_check_coarse_bound(doc, cell, what, t_metric(cell, path), ROUNDS);
		snprintf(path, sizeof(path), "%s.backwards", *o);
		T_CHECK(t_metric(cell, path) == 0, "%s on ramfs: %s", label, path);
		snprintf(path, sizeof(path), "%s.future", *o);
		T_CHECK(t_metric(cell, path) == 0, "%s on ramfs: %s", label, path);
	}
}

static void run_case(const struct run_case *c)
{
	const char *path = t_result_path("result.json");
	const char *args[12] = { "run", c->workload };
	char label[64];
	struct t_output o;
	size_t n = 2;
	json_t *doc, *cell;

	if (c->option)
		args[n++] = c->option;
	if (c->value)
		args[n++] = c->value;
	args[n++] = "--fs";
	args[n++] = T_FS_ALL;
	args[n++] = "--rounds";
	args[n++] = ROUNDS_TEXT;
	args[n++] = "-o";
	args[n++] = path;
	snprintf(label, sizeof(label), "%s%s%s%s%s", c->workload, c->option ? " " : "", c->option ? c->option : "",
		 c->value ? " " : "", c->value ? c->value : "");

	t_mgbench(&o, args);
	/* What a filesystem cannot do is reported, with the reason, and does not fail the run. */
	T_CHECK(o.status == 0, "%s: exit %d: %s", label, o.status, o.err);
	if (c->ramfs_unsupported)
		T_CHECK(strstr(o.out, "unsupported:") != NULL,
			"%s: ramfs row says why:\n%s", label, o.out);
	for (const char *line = o.out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		size_t len = strcspn(line, "\n");

		T_CHECK(len <= 72, "%s: table line over 72 columns: %.*s", label, (int)len, line);
	}
	doc = t_load(path);
	T_CHECK(doc != NULL, "%s: result document written", label);
	for (size_t i = 0; doc && i < MGB_ARRAY_SIZE(mg_fs); i++) {
		cell = t_cell(doc, c->workload, mg_fs[i]);
		T_CHECK(cell != NULL, "%s: %s cell present", label, mg_fs[i]);
		if (!cell)
			continue;
		check_multigrain(cell, label, mg_fs[i], c->observers);
		if (!strcmp(c->workload, "setxattr"))
			T_CHECK(t_metric(cell, "mtime_moved") == 0, "%s on %s: mtime moved %g times", label, mg_fs[i],
				t_metric(cell, "mtime_moved"));
		if (!strcmp(c->workload, "meta"))
			T_CHECK(!strcmp(json_string_value(json_object_get(json_object_get(cell, "metrics"), "op")) ?: "",
					c->value), "%s on %s: op recorded", label, mg_fs[i]);
		if (c->observers == one_dir)
			T_CHECK(isnan(t_metric(cell, "dir2_ctime.rounds")), "%s on %s: one directory, no dir2", label,
				mg_fs[i]);
	}
	cell = doc ? t_cell(doc, c->workload, "ramfs") : NULL;
	T_CHECK(cell != NULL, "%s: ramfs cell present", label);
	if (cell && c->ramfs_unsupported)
		T_CHECK(!strcmp(json_string_value(json_object_get(cell, "status")), "unsupported") &&
				strstr(json_string_value(json_object_get(cell, "error")) ?: "", "not supported"),
			"%s: ramfs cell is unsupported, with the reason", label);
	else if (cell)
		check_ramfs(doc, cell, label, c->observers);
	json_decref(doc);
	t_output_free(&o);
}

struct bad_case {
	const char *args[8];
	const char *names[2]; /* the message must name both */
};

static const struct bad_case bad_cases[] = {
	{ { "run", "meta", "--op", "nosuch", NULL }, { "--op", "nosuch" } },
	{ { "run", "meta", "--op", "", NULL }, { "--op", "''" } },
	{ { "run", "meta", "--op", NULL }, { "--op", "value" } },
	{ { "run", "meta", "--rounds", "1e3", NULL }, { "--rounds", "1e3" } },
	{ { "run", "rename", "--dirs=yes", NULL }, { "--dirs=yes", "rename" } },
	{ { "run", "rename", "--op", "chmod", NULL }, { "--op", "rename" } },
	{ { "run", "rename", "--rounds", "many", NULL }, { "--rounds", "many" } },
	{ { "run", "setxattr", "--dirs", NULL }, { "--dirs", "setxattr" } },
	{ { "run", "setxattr", "--rounds", "-1", NULL }, { "--rounds", "-1" } },
};

static void run_bad_case(const struct bad_case *c)
{
	struct t_output o;

	t_mgbench(&o, c->args);
	T_CHECK(o.status == 2, "%s %s: exit %d, want 2", c->args[1], c->args[2], o.status);
	for (int i = 0; i < 2; i++)
		T_CHECK(strstr(o.err, c->names[i]) != NULL, "%s %s: message does not name '%s': %s", c->args[1],
			c->args[2], c->names[i], o.err);
	T_CHECK(strlen(o.out) == 0, "%s %s: nothing on stdout: %s", c->args[1], c->args[2], o.out);
	t_output_free(&o);
}

int main(void)
{
	struct t_host before;

	t_require(&(struct t_needs){ .root = true, .filesystems = T_FS_ALL, .slow = true });
	t_host_snapshot(&before);
	for (size_t i = 0; i < MGB_ARRAY_SIZE(bad_cases); i++) {
		char label[200];

		snprintf(label, sizeof(label), "%s %s", bad_cases[i].args[2] ?: "", bad_cases[i].args[3] ?: "");
		T_RUN_FOR(label, run_bad_case(&bad_cases[i]));
	}
	for (size_t i = 0; i < MGB_ARRAY_SIZE(cases); i++) {
		char label[200];

		snprintf(label, sizeof(label), "%s%s%s%s%s", cases[i].workload, cases[i].option ? " " : "",
			 cases[i].option ?: "", cases[i].value ? " " : "", cases[i].value ?: "");
		T_RUN_FOR(label, run_case(&cases[i]));
	}
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after rename, setxattr, meta");
	t_cleanup();
	return t_result();
}
