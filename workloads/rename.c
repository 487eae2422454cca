/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rename: move a file back and forth between two names in one directory, or with --dirs between
 * two subdirectories, and query the file and its parent directories after every rename.
 *
 * A rename changes the moved inode's ctime and the ctime and mtime of the directory it leaves
 * and of the one it enters, so each of those stamps gets an observer.  In one-directory mode
 * both parents are the same inode: it is queried once and reported as dir1.
 */
#include "config.h"
#include "observe.h"
#include "progress.h"
#include "stop.h"
#include "util.h"
#include "workload.h"

#include <fcntl.h>
#include <string.h>

struct rename_params {
	bool dirs;
};

static const struct mgb_option rename_options[] = {
	{ .name = "dirs", .type = MGB_OPT_BOOL, .offset = offsetof(struct rename_params, dirs),
	  .help = "move the file between two subdirectories instead of within one" },
	{ 0 },
};

static const struct mgb_column rename_columns[] = {
	MGB_COL_DISTINCT("ctime"),
	{ "d1 ctime", "dir1_ctime.distinct_ratio", "ratio", MGB_BETTER_HIGHER, "dir1_ctime.distinct", "dir1_ctime.rounds" },
	{ "d1 mtime", "dir1_mtime.distinct_ratio", "ratio", MGB_BETTER_HIGHER, "dir1_mtime.distinct", "dir1_mtime.rounds" },
	{ "d2 ctime", "dir2_ctime.distinct_ratio", "ratio", MGB_BETTER_HIGHER, "dir2_ctime.distinct", "dir2_ctime.rounds" },
	MGB_COL_BACKWARD("ctime"),
	{ "renames/s", "renames_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ 0 },
};

#define TOP_DIR "rename.d"

/* Where the file lives: its two names and their parent directories. */
struct rename_layout {
	unsigned ndirs;      /* distinct parent directories to query: 1 or 2 */
	const char *dir[2];  /* dir[i] is the parent of name[i] */
	const char *name[2];
};

static const struct rename_layout one_dir = { 1, { TOP_DIR, TOP_DIR }, { TOP_DIR "/a", TOP_DIR "/b" } };
static const struct rename_layout two_dirs = { 2, { TOP_DIR "/d1", TOP_DIR "/d2" },
					       { TOP_DIR "/d1/f", TOP_DIR "/d2/f" } };

struct rename_obs {
	struct mgb_stamp_obs file_ctime, dir_ctime[2], dir_mtime[2];
};

static void observe(struct mgb_stamp_obs *o, struct mgb_ts stamp, int64_t now, bool baseline)
{
	if (baseline)
		mgb_obs_baseline(o, mgb_ts_ns(stamp));
	else
		mgb_obs_add(o, mgb_ts_ns(stamp), now);
}

/*
 * Query the file under its current name, then each parent directory, and feed the stamps to
 * the observers as their baseline or as one round.  On error *failed names the path.
 */
static int query_all(struct mgb_backend *be, const struct rename_layout *L, unsigned at, struct rename_obs *obs,
		     bool baseline, const char **failed)
{
	struct mgb_stat file, dir[2];
	int64_t now;
	int r;

	*failed = L->name[at];
	r = mgb_be_stat(be, L->name[at], MGB_STAT_TIMES, &file);
	for (unsigned i = 0; r == 0 && i < L->ndirs; i++) {
		*failed = L->dir[i];
		r = mgb_be_stat(be, L->dir[i], MGB_STAT_TIMES, &dir[i]);
	}
	if (r < 0)
		return r;
	now = mgb_clock_ns(CLOCK_REALTIME);
	observe(&obs->file_ctime, file.ctime, now, baseline);
	for (unsigned i = 0; i < L->ndirs; i++) {
		observe(&obs->dir_ctime[i], dir[i].ctime, now, baseline);
		observe(&obs->dir_mtime[i], dir[i].mtime, now, baseline);
	}
	return 0;
}

/* Create the directories and the file under name[0]; on error *failed names the path. */
static int make_layout(struct mgb_backend *be, const struct rename_layout *L, const char **failed)
{
	struct mgb_file f;
	int r = 0;

	/* With two parents they are subdirectories; with one it is TOP_DIR itself. */
	for (unsigned i = 0; r == 0 && L->ndirs == 2 && i < 2; i++) {
		*failed = L->dir[i];
		r = mgb_be_mkdir(be, L->dir[i], 0755);
	}
	if (r < 0)
		return r;
	*failed = L->name[0];
	r = mgb_be_open(be, L->name[0], O_RDWR | O_CREAT | O_EXCL, 0644, &f);
	if (r < 0)
		return r;
	return mgb_be_close(be, &f);
}

/* Best effort, on every path: what was never made fails to go, harmlessly. */
static void remove_layout(struct mgb_backend *be, const struct rename_layout *L, unsigned at)
{
	mgb_be_unlink(be, L->name[at]);
	for (unsigned i = 0; L->ndirs == 2 && i < 2; i++)
		mgb_be_rmdir(be, L->dir[i]);
	mgb_be_rmdir(be, TOP_DIR);
}

static int rename_run(struct mgb_ctx *ctx)
{
	const struct rename_params *p = ctx->params;
	const struct rename_layout *L = p->dirs ? &two_dirs : &one_dir;
	struct mgb_backend *be = ctx->be;
	struct rename_obs obs;
	const char *failed = TOP_DIR, *what = "mkdir";
	uint64_t done = 0;
	unsigned at = 0; /* which name the file has now */
	int64_t t0, elapsed;
	int r;

	/* A TOP_DIR that already exists is not ours: fail without removing anything. */
	r = mgb_be_mkdir(be, TOP_DIR, 0755);
	if (r < 0)
		return mgb_err(ctx->err, "%s: mkdir: %s", TOP_DIR, strerror(-r));
	what = "create";
	r = make_layout(be, L, &failed);
	if (r < 0)
		goto fail;

	mgb_obs_init(&obs.file_ctime);
	for (unsigned i = 0; i < 2; i++) {
		mgb_obs_init(&obs.dir_ctime[i]);
		mgb_obs_init(&obs.dir_mtime[i]);
	}
	what = "stat";
	r = query_all(be, L, at, &obs, true, &failed);
	if (r < 0)
		goto fail;

	mgb_measure_begin(ctx);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	while (done < ctx->rounds) {
		what = "rename";
		failed = L->name[at];
		r = mgb_be_rename(be, L->name[at], L->name[!at]);
		if (r < 0)
			goto fail;
		at = !at;
		done++;
		what = "stat";
		r = query_all(be, L, at, &obs, false, &failed);
		if (r < 0)
			goto fail;
		if (mgb_round_tick(ctx, done))
			break;
	}
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	mgb_measure_end(ctx);
	remove_layout(be, L, at);

	json_object_set_new(ctx->metrics, "rounds", json_integer((json_int_t)done));
	mgb_put_rate(ctx, "renames_per_s", done, elapsed);
	mgb_put_stamps(ctx, "ctime", &obs.file_ctime, elapsed);
	mgb_put_stamps(ctx, "dir1_ctime", &obs.dir_ctime[0], elapsed);
	mgb_put_stamps(ctx, "dir1_mtime", &obs.dir_mtime[0], elapsed);
	if (L->ndirs == 2) {
		mgb_put_stamps(ctx, "dir2_ctime", &obs.dir_ctime[1], elapsed);
		mgb_put_stamps(ctx, "dir2_mtime", &obs.dir_mtime[1], elapsed);
	}
	return 0;
fail:
	remove_layout(be, L, at);
	return mgb_err(ctx->err, "%s: %s after %llu renames: %s", failed, what, (unsigned long long)done,
		       strerror(-r));
}

const struct mgb_workload mgb_workload_rename = {
	.name = "rename",
	.summary = "rename a file back and forth, statx it and its parent dirs",
	.options = rename_options,
	.params_size = sizeof(struct rename_params),
	.columns = rename_columns,
	.run = rename_run,
	.needs_ops = MGB_OP_RENAME | MGB_OP_STAT | MGB_OP_MKDIR | MGB_OP_RMDIR | MGB_OP_UNLINK,
};
