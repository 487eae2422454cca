/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read: does reading a file move what a client uses to tell that it changed?  A read changes
 * nothing a cache cares for, but it may update the file's atime, and "XFS and ext4 were updating
 * i_version based on atime updates" (LSFMM 2023, ../shared/seeds): a client that sees the NFSv4
 * change attribute move on a read throws away a valid cache.
 *
 * Each round makes a read update the atime, the way relatime does when atime is not newer than
 * mtime: write a byte (mtime moves past atime), query (the baseline: ctime, mtime, atime and,
 * over NFSv4, the change attribute), read, query again.  The read is the backend's, or with
 * --reader local one on the server's side (nfsd's own reads may not touch the atime): a local
 * reader's atime update seen by an NFS client.  Counted: reads after which atime moved
 * (the precondition: without atime updates the round tests nothing, and says so), and reads
 * after which ctime or the change attribute moved with nothing changed since the baseline.
 */
#include "config.h"
#include "observe.h"
#include "progress.h"
#include "stop.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FILE_NAME "read.dat"

struct read_params {
	unsigned reader;
};

static const char *const reader_choices[] = { "backend", "local", NULL };

static const struct mgb_option read_options[] = {
	{ .name = "reader", .type = MGB_OPT_CHOICE, .offset = offsetof(struct read_params, reader),
	  .defval = "backend",
	  .help = "who reads: the backend (an NFS client through the server), or a local\n"
	  "read of the same file on the server's side (its atime update, seen over NFS)",
	  .choices = reader_choices },
	{ 0 },
};

static const struct mgb_column read_columns[] = {
	{ "rounds", "rounds", "int", MGB_BETTER_NONE, NULL, NULL },
	{ "atime upd", "atime_updated", "int", MGB_BETTER_NONE, "atime_updated", "rounds" },
	{ "ctime mov", "ctime_moved_by_read", "int", MGB_BETTER_LOWER, "ctime_moved_by_read", "atime_updated" },
	{ "chg mov", "change_moved_by_read", "int", MGB_BETTER_LOWER, "change_moved_by_read", "atime_updated" },
	{ "reads/s", "rounds_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ 0 },
};

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

static int read_run(struct mgb_ctx *ctx)
{
	const struct read_params *p = ctx->params;
	struct mgb_backend *be = ctx->be;
	char local[4200] = "";
	const unsigned want = MGB_STAT_TIMES | MGB_STAT_ATIME | MGB_STAT_CHANGE;
	struct mgb_file f;
	struct mgb_stat before, after;
	uint64_t done = 0, atime_updated = 0, ctime_moved = 0, change_moved = 0, change_seen = 0;
	const char *what = "open";
	int64_t t0, elapsed;
	char byte = 'x', buf[1];
	int r;

	if (p->reader == 1) {
		if (!ctx->local_dir) {
			ctx->unsupported = true;
			return mgb_err(ctx->err, "--reader local needs the server's files here (not --nfs-url)");
		}
		snprintf(local, sizeof(local), "%s/%s", ctx->local_dir, FILE_NAME);
	}
	r = mgb_be_open(be, FILE_NAME, O_RDWR | O_CREAT | O_TRUNC, 0644, &f);
	if (r < 0)
		return mgb_err(ctx->err, "%s: open: %s", FILE_NAME, strerror(-r));
	mgb_measure_begin(ctx);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	while (done < ctx->rounds) {
		what = "pwrite";
		if ((r = (int)mgb_be_pwrite(be, &f, &byte, 1, 0)) < 0)
			goto fail;
		what = "fstat";
		if ((r = mgb_be_fstat(be, &f, want, &before)) < 0)
			goto fail;
		what = local[0] ? "local pread" : "pread";
		if ((r = local[0] ? local_read(local) : (int)mgb_be_pread(be, &f, buf, 1, 0)) < 0)
			goto fail;
		what = "fstat";
		if ((r = mgb_be_fstat(be, &f, want, &after)) < 0)
			goto fail;
		done++;
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
	mgb_put_rate(ctx, "rounds_per_s", done, elapsed);
	json_object_set_new(ctx->metrics, "atime_updated", json_integer((json_int_t)atime_updated));
	json_object_set_new(ctx->metrics, "ctime_moved_by_read", json_integer((json_int_t)ctime_moved));
	/* null where the backend gives no change attribute (statx has none for userspace) */
	json_object_set_new(ctx->metrics, "change_moved_by_read",
			    change_seen ? json_integer((json_int_t)change_moved) : json_null());
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
