/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read: does reading a file move what a client uses to tell that it changed?  A read changes
 * nothing a cache cares for, but it may update the file's atime, and "XFS and ext4 were updating
 * i_version based on atime updates" (LSFMM 2023, ../shared/seeds): a client that sees the NFSv4
 * change attribute move on a read throws away a valid cache.
 *
 * Each round makes a read update the atime, the way relatime does when atime is not newer than
 * mtime: write a byte (mtime moves past atime), query (the baseline: ctime, mtime, atime and,
 * over NFSv4, the change attribute), read, query again.  The read is the backend's (knfsd's
 * reads update the atime too: it opens files without O_NOATIME), or with --reader local one on
 * the server's side: a local reader's atime update seen by an NFS client.  Counted: reads after
 * which atime moved (the precondition: without atime updates the round tests nothing, and says
 * so), and reads after which ctime or the change attribute moved with nothing changed since the
 * baseline.
 *
 * Before the rounds the file's atime is brought back to now when it is ahead of its mtime:
 * an NFSv4 exclusive create stores its verifier in atime and mtime (knfsd's nfsd4_create_file,
 * seconds up to 2^31, in 2038; OPEN's attrset tells the client so, which is to set real times
 * afterwards), and libnfs 4.0 creates every O_CREAT file exclusively and never does.  The write moves the mtime, the atime
 * stays in the future, and relatime never updates it again: every read would test nothing.
 *
 * --reread adds, two coarse ticks after that read, a second one with nothing changed: under
 * relatime (the default) an atime already newer than mtime and ctime must stay.  The 2023
 * series keeps its QUERIED flag in ctime's tv_nsec, and relatime compares the raw field: a
 * flagged ctime looks 1.07 s newer than it is, so the re-read moves the atime.  Through an
 * overlay, its own inode's copy of ctime decides first (patch 2/6 copies it without the flag).
 */
#include "config.h"
#include "json_text.h"
#include "observe.h"
#include "progress.h"
#include "stop.h"
#include "util.h"
#include "lower.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_NAME "read.dat"

struct read_params {
	unsigned reader;
	bool reread;
};

static const char *const reader_choices[] = { "backend", "local", NULL };

static const struct mgb_option read_options[] = {
	{ .name = "reader", .type = MGB_OPT_CHOICE, .offset = offsetof(struct read_params, reader),
	  .defval = "backend",
	  .help = "who reads: the backend (an NFS client through the server), or a local\n"
	  "read of the same file on the server's side (its atime update, seen over NFS)",
	  .choices = reader_choices },
	{ .name = "reread", .type = MGB_OPT_BOOL, .offset = offsetof(struct read_params, reread),
	  .help = "read again two coarse ticks later, nothing changed: relatime must leave\n"
	  "the atime, now newer than mtime and ctime" },
	{ 0 },
};

static const struct mgb_column read_columns[] = {
	{ "rounds", "rounds", "int", MGB_BETTER_NONE, NULL, NULL },
	{ "atime upd", "atime_updated", "int", MGB_BETTER_NONE, "atime_updated", "rounds" },
	{ "ctime mov", "ctime_moved_by_read", "int", MGB_BETTER_LOWER, "ctime_moved_by_read", "atime_updated" },
	{ "chg mov", "change_moved_by_read", "int", MGB_BETTER_LOWER, "change_moved_by_read", "atime_updated" },
	{ "reread", "reread.rounds", "int", MGB_BETTER_NONE, NULL, NULL },
	{ "re atime", "reread.atime_moved", "int", MGB_BETTER_LOWER, "reread.atime_moved", "reread.rounds" },
	{ "reads/s", "rounds_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ 0 },
};

/*
 * The atime to now, on the server's side: through the backend where it can (sync, NFSv3's
 * SETATTR to server time); else on the served file itself (NFSv4 here has no SETATTR on an
 * open file).  Returns 1 when done, 0 when no way was open, -errno on failure.
 */
static int atime_to_now(struct mgb_ctx *ctx, struct mgb_file *f, const char *local_path)
{
	int fd, r = 0;

	if (mgb_be_has(ctx->be, MGB_OP_FUTIMENS_NOW)) {
		r = mgb_be_futimens_now(ctx->be, f);
		return r < 0 ? r : 1;
	}
	if (!local_path[0])
		return 0;
	fd = open(local_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (futimens(fd, NULL) < 0)
		r = -errno;
	close(fd);
	return r < 0 ? r : 1;
}

/* A read on the server's side: the file opened by its local path, as a local reader would. */
static int local_read(const char *path)
{
	char buf[1];
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (pread(fd, buf, 1, 0) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* Two ticks of the coarse clock: a read after it gets another coarse time for its atime. */
static void sleep_two_ticks(const struct mgb_ctx *ctx)
{
	int64_t ns = 2 * (ctx->clock->coarse_tick_ns > 0 ? ctx->clock->coarse_tick_ns : 4000000);
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR && !mgb_stop_requested())
		;
}

/* --reread's tally: re-reads whose precondition held (the atime newer than both stamps), and
 * those of them that moved the atime anyway. */
struct reread {
	uint64_t rounds, atime_moved, same_second;
};

static int reread_step(struct mgb_ctx *ctx, struct mgb_file *f, const char *local, const struct mgb_stat *before,
		       struct reread *rr, const char **what)
{
	const unsigned want = MGB_STAT_TIMES | MGB_STAT_ATIME;
	int64_t atime = mgb_ts_ns(before->atime);
	struct mgb_stat after;
	char buf[1];
	int r;

	sleep_two_ticks(ctx);
	*what = "re-read";
	if ((r = local[0] ? local_read(local) : (int)mgb_be_pread(ctx->be, f, buf, 1, 0)) < 0)
		return r;
	*what = "fstat after the re-read";
	if ((r = mgb_be_fstat(ctx->be, f, want, &after)) < 0)
		return r;
	if (atime <= mgb_ts_ns(before->mtime) || atime <= mgb_ts_ns(before->ctime))
		return 0; /* relatime would update it rightly: this round tests nothing */
	rr->rounds++;
	rr->same_second += before->atime.sec == before->ctime.sec;
	rr->atime_moved += mgb_ts_ns(after.atime) != atime;
	return 0;
}

static void put_reread(struct mgb_ctx *ctx, const struct reread *rr)
{
	json_object_set_new(ctx->metrics, "reread",
			    MGB_JSON_PACK("{s:I, s:I, s:I}", "rounds", (json_int_t)rr->rounds, "atime_moved",
					  (json_int_t)rr->atime_moved, "same_second", (json_int_t)rr->same_second));
	if (!rr->rounds)
		mgb_warn(ctx, "no re-read found an atime newer than mtime and ctime: --reread tests nothing here");
}

static int read_run(struct mgb_ctx *ctx)
{
	const struct read_params *p = ctx->params;
	struct mgb_backend *be = ctx->be;
	char served[4200] = ""; /* the file on the server's side, where the run can reach it */
	const char *local = "";  /* --reader local: read there */
	const unsigned want = MGB_STAT_TIMES | MGB_STAT_ATIME | MGB_STAT_CHANGE;
	struct mgb_file f;
	struct mgb_stat before, after;
	uint64_t done = 0, atime_updated = 0, ctime_moved = 0, change_moved = 0, change_seen = 0;
	int64_t atime_ahead_ns = 0;
	struct reread rr = { 0 };
	const char *what = "open";
	int64_t t0, elapsed;
	char byte = 'x', buf[1];
	int r;

	if (p->reader == 1) {
		if (!ctx->local_dir) {
			ctx->unsupported = true;
			return mgb_err(ctx->err, "--reader local needs the server's files here (not --nfs-url)");
		}
		local = served;
	}
	if (ctx->local_dir)
		snprintf(served, sizeof(served), "%s/%s", ctx->local_dir, FILE_NAME);
	r = mgb_open_from_lower(ctx, FILE_NAME, O_RDWR | O_CREAT | O_TRUNC, 0644, &f);
	if (r < 0)
		return mgb_err(ctx->err, "%s: open: %s", FILE_NAME, strerror(-r));
	what = "first pwrite";
	if ((r = (int)mgb_be_pwrite(be, &f, &byte, 1, 0)) < 0)
		goto fail;
	what = "first fstat";
	if ((r = mgb_be_fstat(be, &f, want, &before)) < 0)
		goto fail;
	atime_ahead_ns = mgb_ts_ns(before.atime) - mgb_ts_ns(before.mtime);
	if (atime_ahead_ns > 0) {
		what = "setting the atime to now";
		if ((r = atime_to_now(ctx, &f, served)) < 0)
			goto fail;
		if (!r)
			json_array_append_new(ctx->warnings,
					      json_string("the file was created with its atime ahead of its mtime (an "
							  "NFSv4 exclusive create's verifier) and this backend cannot set it: "
							  "relatime will not update it"));
	}
	mgb_measure_begin(ctx);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	while (done < ctx->rounds) {
		what = "pwrite";
		if ((r = (int)mgb_be_pwrite(be, &f, &byte, 1, 0)) < 0)
			goto fail;
		what = "fstat";
		if ((r = mgb_be_fstat(be, &f, want, &before)) < 0)
			goto fail;
		if (p->reread)
			sleep_two_ticks(ctx); /* the read's coarse atime then follows the write's stamps */
		what = local[0] ? "local pread" : "pread";
		if ((r = local[0] ? local_read(local) : (int)mgb_be_pread(be, &f, buf, 1, 0)) < 0)
			goto fail;
		what = "fstat";
		if ((r = mgb_be_fstat(be, &f, want, &after)) < 0)
			goto fail;
		done++;
		if (p->reread && (r = reread_step(ctx, &f, local, &after, &rr, &what)) < 0)
			goto fail;
		if (mgb_ts_ns(after.atime) == mgb_ts_ns(before.atime))
			continue; /* no atime update: this read tests nothing */
		atime_updated++;
		ctime_moved += mgb_ts_ns(after.ctime) != mgb_ts_ns(before.ctime);
		if ((before.mask & after.mask & MGB_STAT_CHANGE)) {
			change_seen++;
			change_moved += after.change != before.change;
		}
		if (mgb_round_tick(ctx, done))
			break;
	}
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	mgb_measure_end(ctx);
	mgb_be_close(be, &f);
	mgb_be_unlink(be, FILE_NAME);
	json_object_set_new(ctx->metrics, "rounds", json_integer((json_int_t)done));
	/* how far in the future the created file's atime was (0: not), before it was set to now */
	json_object_set_new(ctx->metrics, "created_atime_ahead_s",
			    json_real(atime_ahead_ns > 0 ? (double)atime_ahead_ns / 1e9 : 0.0));
	mgb_put_rate(ctx, "rounds_per_s", done, elapsed);
	json_object_set_new(ctx->metrics, "atime_updated", json_integer((json_int_t)atime_updated));
	json_object_set_new(ctx->metrics, "ctime_moved_by_read", json_integer((json_int_t)ctime_moved));
	/* null where the backend gives no change attribute (statx has none for userspace) */
	json_object_set_new(ctx->metrics, "change_moved_by_read",
			    change_seen ? json_integer((json_int_t)change_moved) : json_null());
	if (p->reread)
		put_reread(ctx, &rr);
	if (!atime_updated)
		json_array_append_new(ctx->warnings,
				      json_string("no read updated the atime (noatime, or a backend that does not "
						  "show it): the moved counts test nothing here"));
	return 0;
fail:
	mgb_be_close(be, &f);
	mgb_be_unlink(be, FILE_NAME);
	return mgb_fail(ctx, r, "%s: %s after %llu rounds: %s", FILE_NAME, what, (unsigned long long)done,
			strerror(-r));
}

const struct mgb_workload mgb_workload_read = {
	.name = "read",
	.summary = "write, query, read, query: do reads (atime updates) move ctime or the change attribute?",
	.options = read_options,
	.params_size = sizeof(struct read_params),
	.columns = read_columns,
	.run = read_run,
	.needs_ops = MGB_OP_PWRITE | MGB_OP_PREAD | MGB_OP_FSTAT | MGB_OP_UNLINK,
};
