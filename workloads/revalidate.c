/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * revalidate: what an NFS client or make does.  A writer (the calling thread) writes versions
 * 1..rounds of a file, each a --size buffer whose every whole 64-bit word holds the version
 * number k.  A poller (a second thread) plays the client: it queries the ctime and re-reads the
 * file iff the ctime differs from the one it cached.  As an oracle no real client has, it also
 * reads the data on every poll, to learn what the client would have served stale.
 *
 * One poll:   oracle read -> version w
 *             fstat(ctime) -> stamp S, then b = the writer's `started` counter
 *             if S != cached stamp: re-read -> version v; cache (S, v, b)    [a "reread"]
 *             else if w > cached v: the client serves stale data             [a "stale poll"]
 * The oracle reads *before* the stat: the kernel updates the stamp when a write starts, before
 * it copies the data, so every version the oracle shows had its stamp update before the stat.
 * A read's version is the smaller of its first and last word; they differ in a torn read (one
 * that overlapped a write), which counts as the older, incomplete version.
 *
 * Misses count versions, each once: at a stale poll, versions x in (cached v, w] not counted
 * before are missed, and each x goes to exactly one class by when write x began relative to the
 * stat whose stamp the client cached.  The writer sets `started` to x before it calls pwrite
 * for x; the poller reads it right before that stat (b0) and right after it returned (b1):
 *   announced    x <= b0: write x was announced before the cached stamp's stat, yet the
 *                client's re-read got older data.  Announced is all user space sees: the write
 *                may not have entered the kernel yet.  Where a stamp update after the stat must
 *                move the ctime (a local multigrain filesystem: the stat armed the flag), the
 *                update came before the stat, so the stamp was settled before the data was
 *                visible: an ordering miss (announced_implies_ordering says when).  With coarse
 *                stamps the write may have entered after the stat, in the same tick (a
 *                granularity miss); over NFS the server may answer the GETATTR first.
 *   inflight     b0 < x <= b1: write x was announced while the stat ran; whether its stamp
 *                update came before or after the stamp was read cannot be told.
 *   granularity  x > b1: write x began after the stat, completed (the oracle saw its data
 *                before this poll's stat), and the stamp still equals the cached one: it did
 *                not move across a completed write.
 * With --sequenced, write k+1 only starts after the poll that follows write k has finished, and
 * that poll only starts once write k has returned, so at every re-read b0 == b1 == v: each
 * missed version is > b1, and announced and inflight misses are impossible by construction.
 * On a multigrain filesystem the stat arms the inode's QUERIED flag, so the first stamp update
 * after it gives a new stamp, and stamps never come back: a multigrain kernel shows no
 * granularity misses, in either mode.
 *
 * Free-running results depend on the two threads really running side by side, so the writer
 * and the poller are pinned to two different CPUs where there are two (pinned says whether it
 * took; --sequenced threads take turns and are not pinned), and fresh_polls (polls whose oracle
 * saw newer data than the previous poll's) shows whether they did: with fewer than
 * MIN_FRESH_POLLS the cell is inconclusive (conclusive false, a failure under --check), never a
 * clean 0.
 *
 * Each class is also counted per opportunity (reval_columns says why): announced and in-flight
 * misses per re-read (a re-read whose data missed such a version, once per class), granularity
 * misses per fresh poll (a fresh poll that found one).
 */
#include "config.h"
#include "json_text.h"
#include "affinity.h"
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

struct reval_params {
	uint64_t size;
	bool sequenced;
};

static const struct mgb_option reval_options[] = {
	{ .name = "size", .type = MGB_OPT_SIZE, .offset = offsetof(struct reval_params, size), .defval = "4096",
	  .help = "bytes per version, written at offset 0 (at least 8)", .min = 8, .max = 64 << 20 },
	{ .name = "sequenced", .type = MGB_OPT_BOOL, .offset = offsetof(struct reval_params, sequenced),
	  .help = "alternate write and poll (only granularity misses possible)" },
	{ 0 },
};

/*
 * What compare judges is each class per opportunity, not the count of missed versions: an
 * announced or in-flight miss can only follow a re-read, and a multigrain kernel re-reads at
 * almost every poll where a coarse one re-reads about once per tick, so counts of versions
 * compare kernels by how often they gave the race a chance.  A granularity miss can only be found
 * at a fresh poll.  The version counts stay in the document (misses_*), beside the ratios, as do
 * the polls (the table keeps to 72 columns: the opportunities are what the ratios need).
 */
static const struct mgb_column reval_columns[] = {
	{ "fresh", "fresh_polls", "int", MGB_BETTER_NONE, NULL, NULL },
	{ "re-reads", "rereads", "int", MGB_BETTER_NONE, NULL, NULL },
	{ "gran/frsh", "granularity_miss_ratio", "ratio", MGB_BETTER_LOWER, "fresh_polls_missed_granularity",
	  "fresh_polls" },
	{ "ann/read", "announced_miss_ratio", "ratio", MGB_BETTER_LOWER, "rereads_missed_announced", "rereads" },
	{ "infl/read", "inflight_miss_ratio", "ratio", MGB_BETTER_NONE, "rereads_missed_inflight", "rereads" },
	{ "judged", "conclusive", "yesno", MGB_BETTER_NONE, NULL, NULL },
	{ 0 },
};

/* The announced class was called "ordering" before it was named for what it shows. */
static const char *const reval_renamed[] = {
	"announced_miss_ratio", "ordering_miss_ratio",
	"rereads_missed_announced", "rereads_missed_ordering",
	"misses_announced", "misses_ordering",
	"misses_announced_per_s", "misses_ordering_per_s",
	NULL,
};

/* A free-running cell needs this many fresh polls, the chances to find a granularity miss, before
 * its misses say anything: fewer means the threads did not really run side by side. */
#define MIN_FRESH_POLLS 100

/* What the client caches, and what the poller counts. */
struct client {
	int64_t stamp;    /* cached ctime, ns */
	uint64_t version; /* version of the cached data */
	uint64_t began;   /* writes begun before the cached stamp's stat started */
	uint64_t began_after; /* writes begun when that stat had returned */
	uint64_t counted; /* versions up to here are already counted as missed */
	uint64_t last_seen; /* the oracle's version at the previous poll */
	uint64_t polls, fresh_polls, rereads, stale_polls, torn;
	uint64_t miss_granularity, miss_announced, miss_inflight; /* versions */
	/* per opportunity: re-reads whose data missed an announced or in-flight version (each
	 * re-read once per class), fresh polls that found a granularity miss */
	uint64_t rereads_missed_announced, rereads_missed_inflight, fresh_polls_missed_granularity;
	bool entry_missed_announced, entry_missed_inflight; /* the cached re-read is already counted */
	char *buf;
};

struct reval {
	struct mgb_ctx *ctx;
	struct mgb_file file;
	size_t size;
	bool sequenced;
	atomic_uint_fast64_t started;   /* the newest version whose pwrite has been (or is about to be) called */
	atomic_uint_fast64_t completed; /* the newest version whose pwrite has returned */
	atomic_bool writer_done;
	pthread_mutex_t lock; /* with cond: the --sequenced handshake */
	pthread_cond_t cond;
	uint64_t polled;      /* --sequenced: the newest version the poller has checked (under lock) */
	atomic_bool quit;     /* an error or an interrupted call: both threads stop */
	atomic_int error;     /* the first -errno, unless it was a stop request interrupting a call */
	const char *error_what;
	struct client client; /* the poller's, once it runs */
	/* NFSv4: a second client that validates by the change attribute instead of ctime, fed the
	 * same polls (it re-reads when the change attribute moved). */
	bool has_change;
	struct client change_client;
};

static void fail(struct reval *rv, int err, const char *what)
{
	int none = 0;

	if (!(err == -EINTR && mgb_stop_requested()) && atomic_compare_exchange_strong(&rv->error, &none, err))
		rv->error_what = what;
	atomic_store(&rv->quit, true);
	pthread_mutex_lock(&rv->lock);
	pthread_cond_broadcast(&rv->cond);
	pthread_mutex_unlock(&rv->lock);
}

static uint64_t word_at(const char *buf, size_t off)
{
	uint64_t w;

	memcpy(&w, buf + off, sizeof(w));
	return w;
}

/* Read the whole file; its version is the older of the first and last whole word. */
static int read_version(struct reval *rv, struct client *c, uint64_t *version)
{
	struct mgb_backend *be = rv->ctx->be;
	ssize_t n = mgb_be_pread(be, &rv->file, c->buf, rv->size, 0);
	uint64_t first, last, begun;

	if (n < 0 || (size_t)n != rv->size) {
		fail(rv, n < 0 ? (int)n : -EIO, "pread");
		return -1;
	}
	first = word_at(c->buf, 0);
	last = word_at(c->buf, (rv->size / sizeof(uint64_t) - 1) * sizeof(uint64_t));
	begun = atomic_load(&rv->started);
	if (first > begun || last > begun) {
		fail(rv, -EBADMSG, "pread returned a version never written");
		return -1;
	}
	c->torn += first != last;
	*version = first < last ? first : last;
	return 0;
}

/* The client's view: the stamp it would cache, and how many writes had begun before the stat
 * and by the time it returned. */
static int query(struct reval *rv, int64_t *stamp, int64_t *change, uint64_t began[2])
{
	struct mgb_backend *be = rv->ctx->be;
	struct mgb_stat st;
	int r;

	began[0] = atomic_load(&rv->started);
	r = mgb_be_fstat(be, &rv->file, MGB_STAT_TIMES, &st);
	began[1] = atomic_load(&rv->started);
	if (r < 0 || !(st.mask & MGB_STAT_CTIME)) {
		fail(rv, r < 0 ? r : -EOPNOTSUPP, "fstat (ctime)");
		return -1;
	}
	*stamp = mgb_ts_ns(st.ctime);
	*change = (int64_t)st.change;
	rv->has_change = st.mask & MGB_STAT_CHANGE;
	return 0;
}

/* Fill the cache: stamp first, then data, as a client does. */
static int refill(struct reval *rv, struct client *c, int64_t stamp, const uint64_t began[2])
{
	if (read_version(rv, c, &c->version) < 0)
		return -1;
	c->stamp = stamp;
	c->began = began[0];
	c->began_after = began[1];
	c->counted = c->version;
	c->entry_missed_announced = c->entry_missed_inflight = false;
	return 0;
}

/*
 * A stale poll: the client keeps version c->version though the oracle saw `seen`.  Versions up
 * to c->counted were counted by an earlier stale poll of this cache entry; of the new ones,
 * those whose write was announced before the cached stamp's stat (<= c->began) are announced misses,
 * those begun while it ran (<= c->began_after) in-flight misses, the later ones granularity
 * misses.
 */
static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void count_misses(struct client *c, uint64_t seen)
{
	uint64_t lo = c->counted, ann_end, infl_end;

	if (seen <= lo)
		return;
	ann_end = clamp(c->began, lo, seen);
	infl_end = clamp(c->began_after, ann_end, seen);
	c->miss_announced += ann_end - lo;
	c->miss_inflight += infl_end - ann_end;
	c->miss_granularity += seen - infl_end;
	c->counted = seen;
	if (ann_end > lo && !c->entry_missed_announced) {
		c->rereads_missed_announced++;
		c->entry_missed_announced = true;
	}
	if (infl_end > ann_end && !c->entry_missed_inflight) {
		c->rereads_missed_inflight++;
		c->entry_missed_inflight = true;
	}
	/* new versions at this poll, so it is a fresh one (the previous poll saw at most `counted`) */
	c->fresh_polls_missed_granularity += seen > infl_end;
}

/* One client's decision on this poll's stamp: re-read, or serve its cache (stale or not). */
static int judge(struct reval *rv, struct client *c, uint64_t seen, int64_t stamp, const uint64_t began[2])
{
	c->polls++;
	/* New data since the previous poll: the writer really ran while the poller did. */
	c->fresh_polls += seen > c->last_seen;
	c->last_seen = seen;
	if (stamp != c->stamp) {
		c->rereads++;
		if (refill(rv, c, stamp, began) < 0)
			return -1;
	} else if (seen > c->version) {
		c->stale_polls++;
		count_misses(c, seen);
	}
	return 0;
}

static int poll_once(struct reval *rv, struct client *c)
{
	uint64_t seen, began[2];
	int64_t stamp, change;

	if (read_version(rv, c, &seen) < 0 || query(rv, &stamp, &change, began) < 0 ||
	    judge(rv, c, seen, stamp, began) < 0)
		return -1;
	return rv->has_change ? judge(rv, &rv->change_client, seen, change, began) : 0;
}

static void *poller(void *arg)
{
	struct reval *rv = arg;
	struct client *c = &rv->client;

	for (;;) {
		bool last;

		if (rv->sequenced) {
			/* Wait for a write we have not checked yet, or the end. */
			pthread_mutex_lock(&rv->lock);
			while (rv->polled == atomic_load(&rv->completed) && !atomic_load(&rv->writer_done) &&
			       !atomic_load(&rv->quit))
				pthread_cond_wait(&rv->cond, &rv->lock);
			last = rv->polled == atomic_load(&rv->completed) || atomic_load(&rv->quit);
			pthread_mutex_unlock(&rv->lock);
			if (last)
				break;
			if (poll_once(rv, c) < 0)
				break;
			pthread_mutex_lock(&rv->lock);
			rv->polled = atomic_load(&rv->completed);
			pthread_cond_broadcast(&rv->cond);
			pthread_mutex_unlock(&rv->lock);
		} else {
			/* Free-running: poll flat out; the poll after the writer finished is the last. */
			last = atomic_load(&rv->writer_done);
			if (poll_once(rv, c) < 0 || last || atomic_load(&rv->quit))
				break;
		}
	}
	return NULL;
}

/* Every whole 64-bit word holds k; a tail shorter than a word stays zero. */
static void fill_version(char *buf, size_t size, uint64_t k)
{
	for (size_t off = 0; off + sizeof(k) <= size; off += sizeof(k))
		memcpy(buf + off, &k, sizeof(k));
}

/* Write versions 1..rounds; returns how many were written. */
static uint64_t writer(struct reval *rv, char *buf)
{
	struct mgb_backend *be = rv->ctx->be;
	uint64_t k;

	for (k = 1; k <= rv->ctx->rounds; k++) {
		ssize_t n;

		if (mgb_stop_requested() || atomic_load(&rv->quit))
			break;
		if (rv->sequenced) {
			/* Wait until the poller has checked version k-1. */
			pthread_mutex_lock(&rv->lock);
			while (rv->polled != k - 1 && !atomic_load(&rv->quit))
				pthread_cond_wait(&rv->cond, &rv->lock);
			pthread_mutex_unlock(&rv->lock);
			if (atomic_load(&rv->quit))
				break;
		}
		fill_version(buf, rv->size, k);
		atomic_store(&rv->started, k);
		n = mgb_be_pwrite(be, &rv->file, buf, rv->size, 0);
		if (n < 0 || (size_t)n != rv->size) {
			fail(rv, n < 0 ? (int)n : mgb_short_write_errno(be, &rv->file, buf, rv->size, 0, (size_t)n),
			     "pwrite");
			break;
		}
		pthread_mutex_lock(&rv->lock);
		atomic_store(&rv->completed, k);
		pthread_cond_broadcast(&rv->cond);
		pthread_mutex_unlock(&rv->lock);
		if ((k & 1023) == 0)
			mgb_progress_update(rv->ctx->progress, k, rv->ctx->rounds);
	}
	pthread_mutex_lock(&rv->lock);
	atomic_store(&rv->writer_done, true);
	pthread_cond_broadcast(&rv->cond);
	pthread_mutex_unlock(&rv->lock);
	return k - 1;
}

/* The writer as a thread of its own, so that it can be pinned like the poller. */
struct writer_job {
	struct reval *rv;
	char *buf;
	uint64_t written;
};

static void *writer_thread(void *arg)
{
	struct writer_job *job = arg;

	job->written = writer(job->rv, job->buf);
	return NULL;
}

/*
 * Both threads, free-running on two different CPUs where there are two; *pinned says whether
 * both took.  --sequenced threads take turns, so they are not pinned: a pinned handoff waits for
 * its CPU, and on a busy machine that only slows the turns.
 */
static int run_threads(struct reval *rv, char *wbuf, uint64_t *written, int cpu[2], bool *pinned)
{
	struct writer_job job = { .rv = rv, .buf = wbuf };
	pthread_t poll_tid, write_tid;
	bool poll_pinned, write_pinned;
	int r;

	if (!rv->sequenced)
		mgb_pick_two_cpus(cpu);
	r = mgb_thread_start_pinned(&poll_tid, cpu[1], poller, rv, &poll_pinned);
	if (r < 0) {
		fail(rv, r, "starting the poller thread");
		return r;
	}
	r = mgb_thread_start_pinned(&write_tid, cpu[0], writer_thread, &job, &write_pinned);
	if (r < 0) {
		fail(rv, r, "starting the writer thread");
		pthread_join(poll_tid, NULL);
		return r;
	}
	pthread_join(write_tid, NULL);
	pthread_join(poll_tid, NULL);
	*written = job.written;
	*pinned = poll_pinned && write_pinned;
	return 0;
}

/* events / opportunities, or null with no opportunity (no re-read: nothing to miss, nothing shown) */
static json_t *ratio(uint64_t events, uint64_t opportunities)
{
	return opportunities ? json_real((double)events / (double)opportunities) : json_null();
}

/* Each class of miss per opportunity to make it, and both counts that make the ratio. */
static void set_per_opportunity(json_t *m, const struct client *c)
{
	json_object_set_new(m, "fresh_polls_missed_granularity", json_integer((json_int_t)c->fresh_polls_missed_granularity));
	json_object_set_new(m, "rereads_missed_announced", json_integer((json_int_t)c->rereads_missed_announced));
	json_object_set_new(m, "rereads_missed_inflight", json_integer((json_int_t)c->rereads_missed_inflight));
	json_object_set_new(m, "granularity_miss_ratio", ratio(c->fresh_polls_missed_granularity, c->fresh_polls));
	json_object_set_new(m, "announced_miss_ratio", ratio(c->rereads_missed_announced, c->rereads));
	json_object_set_new(m, "inflight_miss_ratio", ratio(c->rereads_missed_inflight, c->rereads));
}

/*
 * Whether the announced misses are ordering misses, and why: only where a stamp update after the
 * stat must have moved the ctime, which holds on a multigrain filesystem reached locally.
 */
static void set_implies_ordering(json_t *m, const struct mgb_ctx *ctx)
{
	const char *why;
	bool yes = false;

	if (ctx->be->ops->reach != MGB_REACH_LOCAL)
		why = "over NFS the server may answer the GETATTR before the WRITE arrives";
	else if (ctx->multigrain < 0)
		why = "whether this filesystem is multigrain is unknown";
	else if (!ctx->multigrain)
		why = "coarse stamps: a write announced before the stat may enter after it and take the same tick's stamp";
	else {
		why = "local multigrain filesystem: the stat armed the flag, so a stamp update after it would have moved the "
		      "ctime";
		yes = true;
	}
	json_object_set_new(m, "announced_implies_ordering", json_boolean(yes));
	json_object_set_new(m, "announced_implies_ordering_reason", json_string(why));
}

static int reval_run(struct mgb_ctx *ctx)
{
	const struct reval_params *p = ctx->params;
	struct mgb_backend *be = ctx->be;
	struct reval rv = { .ctx = ctx, .size = p->size, .sequenced = p->sequenced };
	struct client *c = &rv.client;
	bool opened = false;
	char *wbuf = NULL;
	uint64_t written = 0, began[2];
	int cpu[2] = { -1, -1 };
	bool pinned = false;
	int64_t t0, elapsed, stamp, change;
	int r;

	wbuf = calloc(1, p->size);
	c->buf = malloc(p->size);
	rv.change_client.buf = malloc(p->size);
	if (!wbuf || !c->buf || !rv.change_client.buf) {
		free(wbuf);
		free(c->buf);
		free(rv.change_client.buf);
		return mgb_err(ctx->err, "out of memory for two %llu-byte buffers", (unsigned long long)p->size);
	}
	pthread_mutex_init(&rv.lock, NULL);
	pthread_cond_init(&rv.cond, NULL);
	r = mgb_open_from_lower(ctx, "revalidate.dat", O_RDWR | O_CREAT | O_TRUNC, 0644, &rv.file);
	if (r < 0) {
		fail(&rv, r, "open");
		goto out;
	}
	opened = true;
	/* Version 0, then the client's first fill (not counted as a poll). */
	fill_version(wbuf, rv.size, 0);
	r = (int)mgb_be_pwrite(be, &rv.file, wbuf, rv.size, 0);
	if (r < 0 || (size_t)r != rv.size) {
		fail(&rv, r < 0 ? r : mgb_short_write_errno(be, &rv.file, wbuf, rv.size, 0, (size_t)r), "pwrite");
		goto out;
	}
	if (query(&rv, &stamp, &change, began) < 0 || refill(&rv, c, stamp, began) < 0 ||
	    (rv.has_change && refill(&rv, &rv.change_client, change, began) < 0))
		goto out;
	c->last_seen = c->version;
	rv.change_client.last_seen = rv.change_client.version;

	mgb_measure_begin(ctx);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	if (run_threads(&rv, wbuf, &written, cpu, &pinned) < 0) {
		mgb_measure_end(ctx);
		goto out;
	}
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	mgb_measure_end(ctx);
	if (atomic_load(&rv.error))
		goto out;

	json_object_set_new(ctx->metrics, "versions_written", json_integer((json_int_t)written));
	json_object_set_new(ctx->metrics, "polls", json_integer((json_int_t)c->polls));
	json_object_set_new(ctx->metrics, "rereads", json_integer((json_int_t)c->rereads));
	json_object_set_new(ctx->metrics, "fresh_polls", json_integer((json_int_t)c->fresh_polls));
	json_object_set_new(ctx->metrics, "stale_polls", json_integer((json_int_t)c->stale_polls));
	json_object_set_new(ctx->metrics, "misses_granularity", json_integer((json_int_t)c->miss_granularity));
	json_object_set_new(ctx->metrics, "misses_announced", json_integer((json_int_t)c->miss_announced));
	json_object_set_new(ctx->metrics, "misses_inflight", json_integer((json_int_t)c->miss_inflight));
	json_object_set_new(ctx->metrics, "misses_granularity_per_s", json_real(mgb_per_s(c->miss_granularity, elapsed)));
	json_object_set_new(ctx->metrics, "misses_announced_per_s", json_real(mgb_per_s(c->miss_announced, elapsed)));
	json_object_set_new(ctx->metrics, "misses_inflight_per_s", json_real(mgb_per_s(c->miss_inflight, elapsed)));
	json_object_set_new(ctx->metrics, "torn_reads", json_integer((json_int_t)c->torn));
	set_per_opportunity(ctx->metrics, c);
	set_implies_ordering(ctx->metrics, ctx);
	if (rv.has_change) {
		const struct client *cc = &rv.change_client;
		json_t *by_change = MGB_JSON_PACK("{s:I, s:I, s:I, s:I, s:I}", "rereads", (json_int_t)cc->rereads,
					       "stale_polls", (json_int_t)cc->stale_polls,
					       "misses_granularity", (json_int_t)cc->miss_granularity,
					       "misses_announced", (json_int_t)cc->miss_announced,
					       "misses_inflight", (json_int_t)cc->miss_inflight);

		set_per_opportunity(by_change, cc);
		json_object_set_new(ctx->metrics, "change", by_change);
	}
	/* Too few fresh polls: the threads did not really run side by side; the misses say nothing. */
	json_object_set_new(ctx->metrics, "min_fresh_polls", json_integer(MIN_FRESH_POLLS));
	json_object_set_new(ctx->metrics, "conclusive", json_boolean(c->fresh_polls >= MIN_FRESH_POLLS));
	json_object_set_new(ctx->metrics, "pinned", json_boolean(pinned));
	json_object_set_new(ctx->metrics, "cpus", cpu[0] >= 0 ? MGB_JSON_PACK("[i, i]", cpu[0], cpu[1]) : json_null());
	json_object_set_new(ctx->metrics, "elapsed_ns", json_integer(elapsed));
out:
	if (opened)
		mgb_be_close(be, &rv.file);
	pthread_cond_destroy(&rv.cond);
	pthread_mutex_destroy(&rv.lock);
	free(wbuf);
	free(c->buf);
	free(rv.change_client.buf);
	r = atomic_load(&rv.error);
	if (r)
		return mgb_err(ctx->err, "revalidate.dat: %s after %llu versions: %s", rv.error_what,
			       (unsigned long long)written, strerror(-r));
	return 0;
}

/* Free-running, the poller and the writer race; sequenced, they take turns. */
static bool reval_needs_two_cpus(const void *params)
{
	return !((const struct reval_params *)params)->sequenced;
}

const struct mgb_workload mgb_workload_revalidate = {
	.name = "revalidate",
	.summary = "poll ctime, re-read on change; count the versions missed",
	.options = reval_options,
	.params_size = sizeof(struct reval_params),
	.columns = reval_columns,
	.run = reval_run,
	.needs_ops = MGB_OP_PWRITE | MGB_OP_PREAD | MGB_OP_FSTAT,
	.needs_two_cpus = reval_needs_two_cpus,
	.renamed = reval_renamed,
};
