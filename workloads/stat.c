/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stat: query throughput.  --threads threads run statx loops on one inode.  With --mask times
 * (CTIME|MTIME) every query after a change arms the inode's QUERIED flag; --mask size asks only
 * for the size, which does not, and is the control.  --writer adds a thread that keeps writing
 * the file, so that there is a flag to arm and the next write pays for a fine-grained stamp.
 */
#include "config.h"
#include "progress.h"
#include "stop.h"
#include "util.h"
#include "lower.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct stat_params {
	uint64_t threads;
	unsigned mask; /* enum stat_mask */
	bool writer;
};

enum stat_mask { MASK_TIMES, MASK_SIZE };
static const char *const mask_choices[] = { [MASK_TIMES] = "times", [MASK_SIZE] = "size", NULL };

static const struct mgb_option stat_options[] = {
	{ .name = "threads", .type = MGB_OPT_U64, .offset = offsetof(struct stat_params, threads), .defval = "1",
	  .help = "query threads, each doing --rounds statx calls", .min = 1, .max = 64 },
	{ .name = "mask", .type = MGB_OPT_CHOICE, .offset = offsetof(struct stat_params, mask), .defval = "times",
	  .help = "what each statx asks for: times (arms the flag) or size (does not)", .choices = mask_choices },
	{ .name = "writer", .type = MGB_OPT_BOOL, .offset = offsetof(struct stat_params, writer),
	  .help = "also run a thread that writes the file while the queries run" },
	{ 0 },
};

static const struct mgb_column stat_columns[] = {
	{ "queries/s", "queries_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ "per thrd", "queries_per_s_per_thread", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ "writes/s", "writer_writes_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ "changes", "ctime_changes_seen", "int", MGB_BETTER_NONE, NULL, NULL },
	{ 0 },
};

struct stat_shared {
	struct mgb_ctx *ctx;
	struct mgb_file file;
	unsigned want;
	atomic_bool queries_done;
	/* The newest ctime any query thread has seen: a change is counted by the thread that
	 * first moves it forward, so N threads seeing one change count it once. */
	_Atomic int64_t newest_ctime;
	atomic_int error; /* first -errno seen */
};

#define STAT_BATCH 64
#define MGB_MIN_U64(a, b) ((uint64_t)(a) < (uint64_t)(b) ? (uint64_t)(a) : (uint64_t)(b))

struct query_thread {
	pthread_t tid;
	struct stat_shared *sh;
	unsigned index;
	uint64_t done;
	uint64_t changes_seen; /* ctime values this thread was the first to see */
};

static void *query_loop(void *arg)
{
	struct query_thread *qt = arg;
	struct stat_shared *sh = qt->sh;
	struct mgb_backend *be = sh->ctx->be;
	int64_t prev = -1;
	struct mgb_stat st[STAT_BATCH];

	while (qt->done < sh->ctx->rounds) {
		/* A backend with a queue depth (io_uring --depth) takes a batch per call and keeps
		 * its depth in flight; batches divide MGB_ROUND_CHECK, so the checks below still run. */
		bool batch = mgb_be_has(be, MGB_OP_FSTAT_N);
		unsigned n = batch ? (unsigned)MGB_MIN_U64(STAT_BATCH, sh->ctx->rounds - qt->done) : 1;
		int r = batch ? mgb_be_fstat_n(be, &sh->file, sh->want, st, n)
			      : mgb_be_fstat(be, &sh->file, sh->want, &st[0]);

		if (r < 0) {
			int none = 0;

			atomic_compare_exchange_strong(&sh->error, &none, r);
			break;
		}
		for (unsigned i = 0; i < n; i++)
			if ((st[i].mask & MGB_STAT_CTIME) && mgb_ts_ns(st[i].ctime) != prev) {
				int64_t now = mgb_ts_ns(st[i].ctime), newest = atomic_load(&sh->newest_ctime);

				/* Only on a change this thread sees: the shared word stays off the fast path. */
				while (now > newest && !atomic_compare_exchange_weak(&sh->newest_ctime, &newest, now))
					;
				qt->changes_seen += now > newest;
				prev = now;
			}
		qt->done += n;
		if (qt->done % MGB_ROUND_CHECK == 0) {
			if (mgb_stop_requested() || atomic_load(&sh->error))
				break;
			if (qt->index == 0)
				mgb_progress_update(sh->ctx->progress, qt->done, sh->ctx->rounds);
		}
	}
	return NULL;
}

struct writer_thread {
	pthread_t tid;
	struct stat_shared *sh;
	uint64_t done;
	int64_t elapsed_ns;
};

static void *write_loop(void *arg)
{
	struct writer_thread *wt = arg;
	struct stat_shared *sh = wt->sh;
	struct mgb_backend *be = sh->ctx->be;
	int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	char byte = 's';

	while (!atomic_load(&sh->queries_done) && !mgb_stop_requested()) {
		ssize_t r = mgb_be_pwrite(be, &sh->file, &byte, 1, 0);

		if (r < 0) {
			int none = 0;

			atomic_compare_exchange_strong(&sh->error, &none, (int)r);
			break;
		}
		wt->done++;
	}
	wt->elapsed_ns = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	return NULL;
}

/* A timestamp:* tracepoint counted for the file's inode; left closed (count null) where absent. */
static void open_inode_count(struct mgb_ctx *ctx, struct mgb_tracecount *tc, const char *event, uint64_t ino)
{
	if (mgb_tracecount_open(tc, "timestamp", event, ctx->target->sb_dev_major, ctx->target->sb_dev_minor,
				ino, NULL) < 0)
		tc->nfds = 0;
}

static int64_t inode_count(const struct mgb_tracecount *tc)
{
	return tc->nfds ? mgb_tracecount_read(tc) : -1;
}

static json_t *inode_count_json(const struct mgb_tracecount *tc)
{
	int64_t n = inode_count(tc);

	return n >= 0 ? json_integer((json_int_t)n) : json_null();
}

static int stat_run(struct mgb_ctx *ctx)
{
	const struct stat_params *p = ctx->params;
	struct mgb_backend *be = ctx->be;
	struct stat_shared sh = { .ctx = ctx };
	struct writer_thread wt = { .sh = &sh };
	struct query_thread *qt;
	uint64_t total = 0, changes = 0, st0_ino = 0;
	struct mgb_tracecount arming = { .nfds = 0 };
	struct mgb_ctime_changes swaps = { .mg.nfds = 0, .other.nfds = 0 };
	unsigned started = 0;
	int64_t t0, elapsed, traced;
	int r;

	sh.want = p->mask == MASK_SIZE ? MGB_STAT_SIZE : MGB_STAT_TIMES;
	r = mgb_open_from_lower(ctx, "stat.dat", O_RDWR | O_CREAT | O_TRUNC, 0644, &sh.file);
	if (r < 0)
		return mgb_err(ctx->err, "open stat.dat: %s", strerror(-r));
	qt = calloc(p->threads, sizeof(*qt));
	if (!qt) {
		mgb_be_close(be, &sh.file);
		return mgb_err(ctx->err, "out of memory");
	}
	{
		struct mgb_stat st0;

		/* With sh.want: the size-only control must arm nothing, this query included. */
		r = mgb_be_fstat(be, &sh.file, sh.want, &st0);
		if (r < 0)
			goto out;
		atomic_init(&sh.newest_ctime, st0.mask & MGB_STAT_CTIME ? mgb_ts_ns(st0.ctime) : 0);
		st0_ino = st0.ino;
	}
	/*
	 * The kernel's own view of this inode: fill_mg_cmtime fires for each query that arms the
	 * flag (the multigrain getattr path), ctime_ns_xchg for each ctime change (and
	 * inode_set_ctime_to_ts for each of ramfs's).  The size-only control must leave the first at
	 * 0 and the second at about one per tick.
	 */
	open_inode_count(ctx, &arming, "fill_mg_cmtime", st0_ino);
	mgb_ctime_changes_open(&swaps, ctx->target, st0_ino, true);
	if (p->writer && pthread_create(&wt.tid, NULL, write_loop, &wt) != 0) {
		r = -EAGAIN;
		goto out;
	}
	mgb_measure_begin(ctx);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	for (; started < p->threads; started++) {
		qt[started].sh = &sh;
		qt[started].index = started;
		if (pthread_create(&qt[started].tid, NULL, query_loop, &qt[started]) != 0)
			break;
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(qt[i].tid, NULL);
		total += qt[i].done;
		changes += qt[i].changes_seen;
	}
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	mgb_measure_end(ctx);
	atomic_store(&sh.queries_done, true);
	if (p->writer)
		pthread_join(wt.tid, NULL);
	r = atomic_load(&sh.error);
	if (!r && started < p->threads)
		r = -EAGAIN;
	if (r < 0)
		goto out;

	json_object_set_new(ctx->metrics, "queries", json_integer((json_int_t)total));
	json_object_set_new(ctx->metrics, "elapsed_ns", json_integer(elapsed));
	json_object_set_new(ctx->metrics, "queries_per_s", json_real(mgb_per_s(total, elapsed)));
	json_object_set_new(ctx->metrics, "queries_per_s_per_thread",
			    json_real(mgb_per_s(total, elapsed) / (double)p->threads));
	json_object_set_new(ctx->metrics, "writer_writes", p->writer ? json_integer((json_int_t)wt.done) : json_null());
	json_object_set_new(ctx->metrics, "writer_writes_per_s",
			    p->writer && wt.elapsed_ns > 0 ? json_real(mgb_per_s(wt.done, wt.elapsed_ns)) : json_null());
	json_object_set_new(ctx->metrics, "mg_queries", inode_count_json(&arming));
	traced = mgb_ctime_changes_total(&swaps, p->writer ? wt.done : 0, ctx->multigrain);
	json_object_set_new(ctx->metrics, "ctime_changes_traced", traced >= 0 ? json_integer(traced) : json_null());
	/* A size-only query returns no ctime: nothing to count. */
	json_object_set_new(ctx->metrics, "ctime_changes_seen",
			    sh.want & MGB_STAT_CTIME ? json_integer((json_int_t)changes) : json_null());
out:
	mgb_tracecount_close(&arming);
	mgb_ctime_changes_close(&swaps);
	free(qt);
	mgb_be_close(be, &sh.file);
	if (r < 0)
		return mgb_err(ctx->err, "stat.dat: %s", strerror(-r));
	return 0;
}

/* Several query threads, or a writer beside them, contend only when they run at once. */
static bool stat_needs_two_cpus(const void *params)
{
	const struct stat_params *p = params;

	return p->threads > 1 || p->writer;
}

const struct mgb_workload mgb_workload_stat = {
	.name = "stat",
	.summary = "statx throughput on one inode, with or without a writer",
	.options = stat_options,
	.params_size = sizeof(struct stat_params),
	.columns = stat_columns,
	.run = stat_run,
	.needs_ops = MGB_OP_FSTAT | MGB_OP_PWRITE,
	.needs_two_cpus = stat_needs_two_cpus,
};
