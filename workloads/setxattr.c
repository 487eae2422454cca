/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * setxattr: set the user.mgbench xattr of a file to a new value (the round number) every round,
 * and query the file's ctime/mtime after each set.
 *
 * Setting an xattr changes the inode (ctime) but not its data: mtime must stay where it is, so
 * rounds in which the queried mtime moved are counted.
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
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define XATTR_NAME "user.mgbench"
#define FILE_NAME "setxattr.dat"

static const struct mgb_option setxattr_options[] = {
	{ 0 },
};

static const struct mgb_column setxattr_columns[] = {
	MGB_COL_DISTINCT("ctime"),
	MGB_STAMP_COLUMNS("ctime"),
	{ "mtime mov", "mtime_moved", "int", MGB_BETTER_LOWER, "mtime_moved", "rounds" },
	{ "sets/s", "setxattrs_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ 0 },
};

static int setxattr_run(struct mgb_ctx *ctx)
{
	struct mgb_backend *be = ctx->be;
	struct mgb_stamp_obs ctime_obs;
	struct mgb_file f;
	struct mgb_stat st;
	const char *what = "fstat";
	uint64_t done = 0, mtime_moved = 0;
	int64_t t0, elapsed, prev_mtime;
	char value[24];
	int r;

	r = mgb_open_from_lower(ctx, FILE_NAME, O_RDWR | O_CREAT | O_TRUNC, 0644, &f);
	if (r < 0)
		return mgb_err(ctx->err, "%s: open: %s", FILE_NAME, strerror(-r));
	mgb_obs_init(&ctime_obs);
	r = mgb_be_fstat(be, &f, MGB_STAT_TIMES, &st);
	if (r < 0)
		goto fail;
	mgb_obs_baseline(&ctime_obs, mgb_ts_ns(st.ctime));
	prev_mtime = mgb_ts_ns(st.mtime);

	mgb_measure_begin(ctx);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	while (done < ctx->rounds) {
		int64_t now;
		int len = snprintf(value, sizeof(value), "%" PRIu64, done);

		what = "fsetxattr " XATTR_NAME;
		r = mgb_be_fsetxattr(be, &f, XATTR_NAME, value, (size_t)len);
		if (r < 0)
			goto fail;
		done++;
		what = "fstat";
		r = mgb_be_fstat(be, &f, MGB_STAT_TIMES, &st);
		if (r < 0)
			goto fail;
		now = mgb_clock_ns(CLOCK_REALTIME);
		mgb_obs_add(&ctime_obs, mgb_ts_ns(st.ctime), now);
		mtime_moved += mgb_ts_ns(st.mtime) != prev_mtime;
		prev_mtime = mgb_ts_ns(st.mtime);
		if (mgb_round_tick(ctx, done))
			break;
	}
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	mgb_measure_end(ctx);
	mgb_be_close(be, &f);
	mgb_be_unlink(be, FILE_NAME);

	json_object_set_new(ctx->metrics, "rounds", json_integer((json_int_t)done));
	mgb_put_rate(ctx, "setxattrs_per_s", done, elapsed);
	mgb_put_stamps(ctx, "ctime", &ctime_obs, elapsed);
	json_object_set_new(ctx->metrics, "mtime_moved", json_integer((json_int_t)mtime_moved));
	return 0;
fail:
	mgb_be_close(be, &f);
	mgb_be_unlink(be, FILE_NAME);
	return mgb_fail(ctx, r, "%s: %s after %llu rounds: %s%s", FILE_NAME, what, (unsigned long long)done,
			strerror(-r), r == -EOPNOTSUPP ? " (this filesystem takes no user.* xattrs)" : "");
}

const struct mgb_workload mgb_workload_setxattr = {
	.name = "setxattr",
	.summary = "set a user.* xattr to a new value, statx the file's times",
	.options = setxattr_options,
	.params_size = 0,
	.columns = setxattr_columns,
	.run = setxattr_run,
	.needs_ops = MGB_OP_FSETXATTR | MGB_OP_FSTAT | MGB_OP_UNLINK,
};
