/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * meta: the other operations that change a file's ctime, one per run (--op), each followed by a
 * query.  truncate, chmod and utimens change the file every round by themselves (alternating
 * lengths and modes).  link, unlink and fallocate need their change undone before it can be
 * repeated: link is undone by unlinking the second name, unlink by linking it again, fallocate
 * (which grows the empty file) by truncating it back.  The undo changes the ctime too, so it is
 * queried as well, and that query is the observer's new baseline: each observed round is
 * "query, the --op change, query", and only the --op change is measured.
 */
#include "config.h"
#include "observe.h"
#include "progress.h"
#include "stop.h"
#include "util.h"
#include "lower.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#define FILE_NAME "meta.dat"
#define LINK_NAME "meta.lnk"
#define GROW_LEN 4096 /* truncate alternates between 0 and this; fallocate grows 0 to this */

struct meta_params {
	unsigned op; /* enum meta_kind */
};

/* --op's words; meta_ops below has a row for each, at the same index. */
enum meta_kind { OP_TRUNCATE, OP_CHMOD, OP_LINK, OP_UNLINK, OP_UTIMENS, OP_FALLOCATE, OP_COUNT };
static const char *const op_choices[OP_COUNT + 1] = {
	[OP_TRUNCATE] = "truncate", [OP_CHMOD] = "chmod", [OP_LINK] = "link", [OP_UNLINK] = "unlink",
	[OP_UTIMENS] = "utimens", [OP_FALLOCATE] = "fallocate",
};

static const struct mgb_option meta_options[] = {
	{ .name = "op", .type = MGB_OPT_CHOICE, .offset = offsetof(struct meta_params, op), .defval = "truncate",
	  .help = "the change: truncate, chmod, link, unlink, utimens or fallocate", .choices = op_choices },
	{ 0 },
};

static const struct mgb_column meta_columns[] = {
	MGB_COL_DISTINCT("ctime"),
	{ "per tick", "ctime.distinct_per_tick", "float", MGB_BETTER_HIGHER, NULL, NULL },
	MGB_STAMP_COLUMNS("ctime"),
	{ "rounds/s", "rounds_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ 0 },
};

typedef int (*meta_fn)(struct mgb_backend *be, struct mgb_file *f, uint64_t round);

static int truncate_alternating(struct mgb_backend *be, struct mgb_file *f, uint64_t round)
{
	return mgb_be_ftruncate(be, f, round & 1 ? 0 : GROW_LEN);
}

static int truncate_empty(struct mgb_backend *be, struct mgb_file *f, uint64_t round)
{
	return mgb_be_ftruncate(be, f, 0);
}

static int chmod_alternating(struct mgb_backend *be, struct mgb_file *f, uint64_t round)
{
	return mgb_be_fchmod(be, f, round & 1 ? 0644 : 0600);
}

static int link_second_name(struct mgb_backend *be, struct mgb_file *f, uint64_t round)
{
	return mgb_be_link(be, FILE_NAME, LINK_NAME);
}

static int unlink_second_name(struct mgb_backend *be, struct mgb_file *f, uint64_t round)
{
	return mgb_be_unlink(be, LINK_NAME);
}

static int touch_now(struct mgb_backend *be, struct mgb_file *f, uint64_t round)
{
	return mgb_be_futimens_now(be, f);
}

static int fallocate_grow(struct mgb_backend *be, struct mgb_file *f, uint64_t round)
{
	return mgb_be_fallocate(be, f, 0, GROW_LEN);
}

struct meta_op {
	const char *name;
	meta_fn change;      /* the measured change */
	const char *what;    /* the change, for error messages */
	meta_fn undo;        /* puts the file back so change can repeat; NULL if change alternates */
	const char *undo_what;
	bool starts_linked;  /* LINK_NAME must exist before the first change */
	unsigned needs;      /* backend operations (MGB_OP_*) besides the fstat and unlink all need */
};

static const struct meta_op meta_ops[OP_COUNT] = {
	[OP_TRUNCATE] = { "truncate", truncate_alternating, "ftruncate", NULL, NULL, false, MGB_OP_FTRUNCATE },
	[OP_CHMOD] = { "chmod", chmod_alternating, "fchmod", NULL, NULL, false, MGB_OP_FCHMOD },
	[OP_LINK] = { "link", link_second_name, "link to " LINK_NAME, unlink_second_name, "unlink " LINK_NAME, false,
		      MGB_OP_LINK },
	[OP_UNLINK] = { "unlink", unlink_second_name, "unlink " LINK_NAME, link_second_name, "link to " LINK_NAME, true,
			MGB_OP_LINK },
	[OP_UTIMENS] = { "utimens", touch_now, "futimens", NULL, NULL, false, MGB_OP_FUTIMENS_NOW },
	[OP_FALLOCATE] = { "fallocate", fallocate_grow, "fallocate", truncate_empty, "ftruncate", false,
			   MGB_OP_FALLOCATE | MGB_OP_FTRUNCATE },
};

/* The backend operations --op needs, so that a backend lacking one says which. */
static unsigned meta_needs_ops_for(const void *params)
{
	return meta_ops[((const struct meta_params *)params)->op].needs;
}

/* One operation, then a query of the file; *what names the step that failed, for the error. */
static int change_then_query(struct mgb_backend *be, struct mgb_file *f, meta_fn fn, const char *fn_what,
			     uint64_t round, struct mgb_stat *st, const char **what)
{
	int r;

	*what = fn_what;
	r = fn(be, f, round);
	if (r < 0)
		return r;
	*what = "fstat";
	return mgb_be_fstat(be, f, MGB_STAT_TIMES, st);
}

static int meta_run(struct mgb_ctx *ctx)
{
	const struct meta_params *p = ctx->params;
	const struct meta_op *op = &meta_ops[p->op];
	struct mgb_backend *be = ctx->be;
	struct mgb_stamp_obs ctime_obs;
	struct mgb_file f;
	struct mgb_stat st;
	const char *what = "fstat";
	uint64_t done = 0;
	int64_t t0, elapsed;
	int r;

	r = mgb_open_from_lower(ctx, FILE_NAME, O_RDWR | O_CREAT | O_TRUNC, 0644, &f);
	if (r < 0)
		return mgb_err(ctx->err, "%s: open: %s", FILE_NAME, strerror(-r));
	if (op->starts_linked) {
		what = "link to " LINK_NAME;
		r = link_second_name(be, &f, 0);
		if (r < 0)
			goto fail;
	}
	mgb_obs_init(&ctime_obs);
	what = "fstat";
	r = mgb_be_fstat(be, &f, MGB_STAT_TIMES, &st);
	if (r < 0)
		goto fail;
	mgb_obs_baseline(&ctime_obs, mgb_ts_ns(st.ctime));

	mgb_measure_begin(ctx);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	while (done < ctx->rounds) {
		r = change_then_query(be, &f, op->change, op->what, done, &st, &what);
		if (r < 0)
			goto fail;
		mgb_obs_add(&ctime_obs, mgb_ts_ns(st.ctime), mgb_clock_ns(CLOCK_REALTIME));
		if (op->undo) {
			/* Queried too, so the next change also follows a query; not measured. */
			r = change_then_query(be, &f, op->undo, op->undo_what, done, &st, &what);
			if (r < 0)
				goto fail;
			/* Checked for backwards and future stamps, but not a measured round. */
			mgb_obs_rebase(&ctime_obs, mgb_ts_ns(st.ctime), mgb_clock_ns(CLOCK_REALTIME));
		}
		done++;
		if (mgb_round_tick(ctx, done))
			break;
	}
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	mgb_measure_end(ctx);
	mgb_be_close(be, &f);
	mgb_be_unlink(be, LINK_NAME);
	mgb_be_unlink(be, FILE_NAME);

	json_object_set_new(ctx->metrics, "op", json_string(op->name));
	json_object_set_new(ctx->metrics, "rounds", json_integer((json_int_t)done));
	mgb_put_rate(ctx, "rounds_per_s", done, elapsed);
	mgb_put_stamps(ctx, "ctime", &ctime_obs, elapsed);
	return 0;
fail:
	mgb_be_close(be, &f);
	mgb_be_unlink(be, LINK_NAME);
	mgb_be_unlink(be, FILE_NAME);
	return mgb_fail(ctx, r, "%s: %s after %llu rounds: %s", FILE_NAME, what, (unsigned long long)done,
			strerror(-r));
}

const struct mgb_workload mgb_workload_meta = {
	.name = "meta",
	.summary = "one other ctime change (--op) per round, statx between",
	.options = meta_options,
	.params_size = sizeof(struct meta_params),
	.columns = meta_columns,
	.run = meta_run,
	.needs_ops = MGB_OP_FSTAT | MGB_OP_UNLINK,
	.needs_ops_for = meta_needs_ops_for,
};
