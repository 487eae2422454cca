/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * write: change a file by pwrite of --size bytes, and query its ctime/mtime with statx after
 * every write (--query every), every K-th write (--query K) or never (--query none).
 *
 * Queried rounds feed the stamp observers (distinct, backwards, future, steps).  ctime_changes
 * is how many writes gave the inode a new ctime: with --query every, each write is queried, so
 * the observer's distinct count is that number exactly; otherwise the kernel's tracepoints count
 * them, per inode: timestamp:ctime_ns_xchg on the multigrain path (a tracepoint costs a few
 * percent of a write, so it is attached only when the queries cannot see every change) and
 * timestamp:inode_set_ctime_to_ts on the other one (ramfs: once per tick, so it costs nothing).
 * The multigrain change of the first write, which the baseline query armed, is left out of the
 * count (ctime_changes_excluded says so), so that --query none counts only what the load caused;
 * ramfs's queries arm nothing, so none of its changes is left out.
 */
#include "config.h"
#include "observe.h"
#include "progress.h"
#include "stop.h"
#include "util.h"
#include "lower.h"
#include "workload.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct write_params {
	uint64_t size;
	uint64_t query_every; /* 0 = never */
};

static const struct mgb_opt_word query_words[] = {
	{ "every", 1 },
	{ "none", 0 },
	{ NULL, 0 },
};

static const struct mgb_option write_options[] = {
	{ .name = "size", .type = MGB_OPT_SIZE, .offset = offsetof(struct write_params, size), .defval = "4096",
	  .help = "bytes written per change, at offset 0", .min = 1, .max = 64 << 20 },
	{ .name = "query", .type = MGB_OPT_U64, .offset = offsetof(struct write_params, query_every),
	  .defval = "every", .help = "statx(CTIME|MTIME) after every write, every K-th write, or none",
	  .words = query_words },
	{ 0 },
};

static const struct mgb_column write_columns[] = {
	MGB_COL_DISTINCT("ctime"),
	{ "changes", "ctime_changes", "int", MGB_BETTER_NONE, NULL, NULL },
	MGB_STAMP_COLUMNS("ctime"),
	{ "writes/s", "writes_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ 0 },
};

/*
 * The load's ctime changes from both paths' counts, or -1 when unknown; *excluded is how many
 * were left out.  The baseline query armed the flag, so on a multigrain inode the first write
 * always swaps in a new ctime (the query's change, left out): no hit at all after writes is a
 * count that missed them, unless the filesystem is known not to be multigrain and its path was
 * counted (ramfs's writes within the tick of its creation change nothing).
 */
static int64_t read_changes(const struct mgb_ctime_changes *cc, uint64_t writes, int multigrain, int *excluded)
{
	int64_t mg, other, total = mgb_ctime_changes_total(cc, writes, multigrain);

	mgb_ctime_changes_read(cc, &mg, &other);
	*excluded = mg > 0;
	return total > 0 && mg > 0 ? total - 1 : total;
}

/* Write then query, in one backend call where the backend offers it. */
static ssize_t pwrite_fstat(struct mgb_backend *be, struct mgb_file *f, const void *buf, size_t len, struct mgb_stat *st)
{
	ssize_t r;
	int sr;

	if (mgb_be_has(be, MGB_OP_PWRITE_FSTAT))
		return mgb_be_pwrite_fstat(be, f, buf, len, 0, MGB_STAT_TIMES, st);
	r = mgb_be_pwrite(be, f, buf, len, 0);
	if (r < 0)
		return r;
	sr = mgb_be_fstat(be, f, MGB_STAT_TIMES, st);
	return sr < 0 ? sr : r;
}

static int write_run(struct mgb_ctx *ctx)
{
	const struct write_params *p = ctx->params;
	struct mgb_backend *be = ctx->be;
	struct mgb_stamp_obs ctime_obs, mtime_obs, change_obs;
	bool has_change;
	struct mgb_ctime_changes changes = { .mg.nfds = 0, .other.nfds = 0 };
	struct mgb_file f;
	struct mgb_stat st;
	uint64_t done = 0, queries = 0, until_query = p->query_every;
	int64_t t0, elapsed, traced;
	int excluded = 0;
	char *buf;
	int r;

	buf = malloc(p->size);
	if (!buf)
		return mgb_err(ctx->err, "out of memory for a %llu-byte buffer", (unsigned long long)p->size);
	memset(buf, 'w', p->size);
	r = mgb_open_from_lower(ctx, "write.dat", O_RDWR | O_CREAT | O_TRUNC, 0644, &f);
	if (r < 0) {
		free(buf);
		return mgb_err(ctx->err, "open write.dat: %s", strerror(-r));
	}
	mgb_obs_init(&ctime_obs);
	mgb_obs_init_counts_only(&mtime_obs); /* the steps asked for are ctime's */
	r = mgb_be_fstat(be, &f, MGB_STAT_TIMES, &st);
	if (r < 0)
		goto fail;
	mgb_obs_baseline(&ctime_obs, mgb_ts_ns(st.ctime));
	mgb_obs_baseline(&mtime_obs, mgb_ts_ns(st.mtime));
	/* NFSv4's change attribute, where the backend reads it with every query. */
	mgb_obs_init_counts_only(&change_obs);
	has_change = st.mask & MGB_STAT_CHANGE;
	if (has_change)
		mgb_obs_baseline(&change_obs, (int64_t)st.change);
	if (p->query_every != 1)
		mgb_ctime_changes_open(&changes, ctx->target, st.ino, true);

	mgb_measure_begin(ctx);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	while (done < ctx->rounds) {
		bool query = until_query && --until_query == 0;

		if (query) {
			int64_t now;

			r = (int)pwrite_fstat(be, &f, buf, p->size, &st);
			if (r >= 0 && (size_t)r < p->size)
				goto short_write;
			if (mgb_call_stopped(r))
				break;
			if (r < 0)
				goto fail;
			now = mgb_clock_ns(CLOCK_REALTIME);
			until_query = p->query_every;
			queries++;
			mgb_obs_add(&ctime_obs, mgb_ts_ns(st.ctime), now);
			mgb_obs_add(&mtime_obs, mgb_ts_ns(st.mtime), now);
			if (has_change) /* a counter, not a time: never "in the future" */
				mgb_obs_add(&change_obs, (int64_t)st.change, INT64_MAX);
		} else if (mgb_be_has(be, MGB_OP_PWRITE_N)) {
			/* The unqueried writes up to the next query or progress check in one call, so a
			 * backend with a queue depth (io_uring --depth) keeps them in flight. */
			uint64_t n = ctx->rounds - done, to_check = MGB_ROUND_CHECK - done % MGB_ROUND_CHECK;

			if (n > to_check)
				n = to_check;
			if (until_query && n > until_query)
				n = until_query;
			r = mgb_be_pwrite_n(be, &f, buf, p->size, 0, n);
			if (mgb_call_stopped(r))
				break;
			if (r < 0)
				goto fail;
			if (until_query)
				until_query -= n - 1;
			done += n - 1;
		} else {
			r = (int)mgb_be_pwrite(be, &f, buf, p->size, 0);
			if (r >= 0 && (size_t)r < p->size)
				goto short_write;
			if (mgb_call_stopped(r))
				break;
			if (r < 0)
				goto fail;
		}
		done++;
		if (mgb_round_tick(ctx, done))
			break;
	}
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	mgb_measure_end(ctx);
	/* With --query every each write follows a query, the first the baseline's, so all count. */
	traced = p->query_every == 1 ? (int64_t)ctime_obs.distinct
				     : read_changes(&changes, done, ctx->multigrain, &excluded);
	mgb_ctime_changes_close(&changes);
	mgb_be_close(be, &f);
	free(buf);

	json_object_set_new(ctx->metrics, "writes", json_integer((json_int_t)done));
	json_object_set_new(ctx->metrics, "queries", json_integer((json_int_t)queries));
	mgb_put_rate(ctx, "writes_per_s", done, elapsed);
	mgb_put_stamps(ctx, "ctime", &ctime_obs, elapsed);
	mgb_put_stamps(ctx, "mtime", &mtime_obs, elapsed);
	if (has_change)
		mgb_put_stamps(ctx, "change", &change_obs, elapsed);
	/* Exact per-inode counts; null where the kernel cannot say (no tracefs). */
	json_object_set_new(ctx->metrics, "ctime_changes", traced >= 0 ? json_integer(traced) : json_null());
	json_object_set_new(ctx->metrics, "ctime_changes_excluded", json_integer(traced >= 0 ? excluded : 0));
	json_object_set_new(ctx->metrics, "ctime_changes_source",
			    json_string(p->query_every == 1 ? "queries" : "tracepoint"));
	json_object_set_new(ctx->metrics, "ctime_changes_per_tick",
			    traced >= 0 ? json_real(mgb_per_tick((uint64_t)traced, elapsed, ctx->clock->coarse_tick_ns))
					: json_null());
	return 0;
short_write:
	mgb_err(ctx->err, "write.dat: write %llu stored %d of %llu bytes: %s", (unsigned long long)done + 1, r,
		(unsigned long long)p->size, strerror(-mgb_short_write_errno(be, &f, buf, p->size, 0, (size_t)r)));
	mgb_ctime_changes_close(&changes);
	mgb_be_close(be, &f);
	free(buf);
	return -1;
fail:
	mgb_ctime_changes_close(&changes);
	mgb_be_close(be, &f);
	free(buf);
	return mgb_err(ctx->err, "write.dat after %llu writes: %s", (unsigned long long)done, strerror(-r));
}

const struct mgb_workload mgb_workload_write = {
	.name = "write",
	.summary = "pwrite a file, statx its ctime/mtime between writes",
	.options = write_options,
	.params_size = sizeof(struct write_params),
	.columns = write_columns,
	.run = write_run,
	.needs_ops = MGB_OP_PWRITE | MGB_OP_FSTAT,
};
