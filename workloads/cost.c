/*
 * cost: what fine-grained stamps cost a writer.  A write load on one file (4 KiB overwrites, or
 * appends, optionally fsync/fdatasync every K writes) runs in phases, each with a different
 * query stream beside it from a second thread at --poll-rate Hz:
 *   none   no queries;
 *   size   statx(STATX_SIZE): the same syscalls, but no flag armed (the control);
 *   ctime  statx(CTIME|MTIME): arms the flag, so the next write takes a fine stamp and the
 *          filesystem logs an inode update it would otherwise have skipped.
 * Phases run interleaved (none size ctime none size ctime ...) for --cycles cycles, so drift of
 * the machine hits all alike.  Per phase: writes/s, the journal and device counters of the target
 * (lib/probe/fscounters.c) per 1000 writes, and the global fine stamps; per kind the median over
 * cycles, and the ratios ctime/size and ctime/none.
 */
#include "config.h"
#include "json_text.h"
#include "progress.h"
#include "stats.h"
#include "stop.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

struct cost_params {
	uint64_t size;
	const char *mode;
	const char *sync;
	uint64_t sync_every;
	const char *poll;
	uint64_t poll_rate;
	uint64_t cycles;
	uint64_t file_size;
};

static const char *const mode_choices[] = { "overwrite", "append", NULL };
static const char *const sync_choices[] = { "none", "fsync", "fdatasync", NULL };
static const char *const poll_choices[] = { "all", "none", "size", "ctime", NULL };

static const struct mgb_workload_option cost_options[] = {
	{ "size", MGB_OPT_SIZE, offsetof(struct cost_params, size), "4096", "bytes per write", 1, 64 << 20, NULL, NULL },
	{ "mode", MGB_OPT_STRING, offsetof(struct cost_params, mode), "overwrite",
	  "overwrite (records within --file-size) or append", 0, 0, NULL, mode_choices },
	{ "sync", MGB_OPT_STRING, offsetof(struct cost_params, sync), "none", "none, fsync or fdatasync", 0, 0, NULL,
	  sync_choices },
	{ "sync-every", MGB_OPT_U64, offsetof(struct cost_params, sync_every), "1", "writes between syncs", 1, 0, NULL,
	  NULL },
	{ "poll", MGB_OPT_STRING, offsetof(struct cost_params, poll), "all",
	  "query stream: all (none, size, ctime interleaved) or one", 0, 0, NULL, poll_choices },
	{ "poll-rate", MGB_OPT_U64, offsetof(struct cost_params, poll_rate), "1000", "queries per second", 1, 1000000,
	  NULL, NULL },
	{ "cycles", MGB_OPT_U64, offsetof(struct cost_params, cycles), "3", "interleaved cycles of the phases", 1, 100,
	  NULL, NULL },
	{ "file-size", MGB_OPT_SIZE, offsetof(struct cost_params, file_size), "1m",
	  "where overwrites wrap (file size, e.g. for btrfs)", 4096, 1ULL << 34, NULL, NULL },
	{ 0 },
};

static const struct mgb_column cost_columns[] = {
	{ "size w/s", "size.writes_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ "ctime w/s", "ctime.writes_per_s", "rate", MGB_BETTER_HIGHER, NULL, NULL },
	{ "c/size", "ctime_size_ratio", "float", MGB_BETTER_HIGHER, NULL, NULL },
	{ "c/none", "ctime_none_ratio", "float", MGB_BETTER_HIGHER, NULL, NULL },
	{ "jrnl/1k", "ctime.journal_per_1000", "float", MGB_BETTER_LOWER, NULL, NULL },
	{ "+jrnl/1k", "extra_journal_per_1000", "float", MGB_BETTER_LOWER, NULL, NULL },
	{ 0 },
};

enum kind { KIND_NONE, KIND_SIZE, KIND_CTIME, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = { "none", "size", "ctime" };

#define MAX_CYCLES 100

struct poller {
	struct mgb_ctx *ctx;
	struct mgb_file *file;
	unsigned want;
	uint64_t rate;
	atomic_bool stop;
	atomic_uint_fast64_t polls;
	int error;
	pthread_t tid;
};

static void *poll_loop(void *arg)
{
	struct poller *p = arg;
	struct timespec next;
	int64_t period = MGB_NSEC_PER_SEC / (int64_t)p->rate;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&p->stop)) {
		struct mgb_stat st;
		int r = p->ctx->be->ops->fstat(p->ctx->be, p->file, p->want, &st);

		if (r < 0) {
			p->error = r;
			break;
		}
		atomic_fetch_add(&p->polls, 1);
		next.tv_nsec += period;
		while (next.tv_nsec >= MGB_NSEC_PER_SEC) {
			next.tv_nsec -= MGB_NSEC_PER_SEC;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

/* The counter that stands for "the journal" on this filesystem, per 1000 writes. */
static const char *journal_key(const char *fstype)
{
	if (!fstype)
		return NULL;
	if (!strcmp(fstype, "ext4"))
		return "jbd2_handles_per_1000";
	if (!strcmp(fstype, "xfs"))
		return "xfs_transactions_per_1000";
	if (!strcmp(fstype, "btrfs"))
		return "btrfs_commits_per_1000";
	return NULL;
}

static int do_sync(struct mgb_backend *be, struct mgb_file *f, const struct cost_params *p)
{
	if (!strcmp(p->sync, "none"))
		return 0;
	/* fdatasync is fsync on backends without it: both force the data and what it needs */
	return be->ops->fsync(be, f);
}

/* One phase: rounds writes with the given query stream beside them. */
static int run_phase(struct mgb_ctx *ctx, struct mgb_file *f, const struct cost_params *p, enum kind k,
		     const char *buf, json_t *phases, unsigned cycle)
{
	struct mgb_backend *be = ctx->be;
	struct poller poller = { .ctx = ctx, .file = f, .rate = p->poll_rate };
	struct mgb_fs_counters fc;
	struct mgb_mg_counters mg0, mg1;
	uint64_t done = 0;
	off_t off = 0;
	int64_t t0, elapsed;
	int r = 0;

	if (!strcmp(p->mode, "append") && (r = be->ops->ftruncate(be, f, 0)) < 0)
		return mgb_err(ctx->err, "truncate cost.dat: %s", strerror(-r));
	atomic_init(&poller.stop, false);
	atomic_init(&poller.polls, 0);
	poller.want = k == KIND_SIZE ? MGB_STAT_SIZE : MGB_STAT_TIMES;
	if (k != KIND_NONE && pthread_create(&poller.tid, NULL, poll_loop, &poller) != 0)
		return mgb_err(ctx->err, "cannot start the poller thread");
	/* The phase starts once the stream runs: on a busy machine the thread may wait for a CPU. */
	while (k != KIND_NONE && atomic_load(&poller.polls) == 0 && !poller.error && !mgb_stop_requested())
		sched_yield();
	mgb_fs_counters_begin(&fc, ctx->target);
	mgb_mg_counters_read(&mg0);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	while (done < ctx->rounds && !mgb_stop_requested()) {
		ssize_t n = be->ops->pwrite(be, f, buf, p->size, off);

		if (n >= 0 && (size_t)n < p->size)
			n = mgb_short_write_errno(be, f, buf, p->size, off, (size_t)n);
		if (n < 0) {
			r = (int)n;
			break;
		}
		done++;
		off += (off_t)p->size;
		if (!strcmp(p->mode, "overwrite") && off + (off_t)p->size > (off_t)p->file_size)
			off = 0;
		if (done % p->sync_every == 0 && (r = do_sync(be, f, p)) < 0)
			break;
	}
	elapsed = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	mgb_mg_counters_read(&mg1);
	atomic_store(&poller.stop, true);
	if (k != KIND_NONE)
		pthread_join(poller.tid, NULL);
	json_array_append_new(phases, MGB_JSON_PACK("{s:s, s:i, s:I, s:I, s:f, s:I, s:o, s:o}", "kind", kind_names[k],
						    "cycle", (int)cycle, "writes", (json_int_t)done, "elapsed_ns",
						    (json_int_t)elapsed, "writes_per_s", mgb_per_s(done, elapsed), "polls",
						    (json_int_t)atomic_load(&poller.polls), "multigrain",
						    mgb_mg_counters_delta_json(&mg0, &mg1), "counters",
						    mgb_fs_counters_end(&fc, done)));
	if (r == 0 && poller.error)
		r = poller.error;
	if (r < 0)
		return mgb_err(ctx->err, "cost.dat after %llu writes (%s phase): %s", (unsigned long long)done,
			       kind_names[k], strerror(-r));
	return 0;
}

/* Median, min and max of a number over the phases of one kind. */
static json_t *over_cycles(json_t *phases, enum kind k, const char *key, const char *sub)
{
	double v[MAX_CYCLES], lo, hi;
	size_t n = 0, i;
	json_t *ph;

	json_array_foreach(phases, i, ph) {
		json_t *x = sub ? json_object_get(json_object_get(ph, sub), key) : json_object_get(ph, key);

		if (!strcmp(json_string_value(json_object_get(ph, "kind")), kind_names[k]) && json_is_number(x) &&
		    n < MAX_CYCLES)
			v[n++] = json_number_value(x);
	}
	if (!n)
		return json_null();
	lo = v[0];
	hi = v[0];
	for (size_t j = 1; j < n; j++) {
		lo = v[j] < lo ? v[j] : lo;
		hi = v[j] > hi ? v[j] : hi;
	}
	return MGB_JSON_PACK("{s:f, s:f, s:f}", "median", mgb_median(v, n), "min", lo, "max", hi);
}

static double median_of(json_t *o)
{
	json_t *m = json_object_get(o, "median");

	return json_is_number(m) ? json_number_value(m) : NAN;
}

/* The median of a spread as a number, or null; takes the spread. */
static json_t *median_json(json_t *spread)
{
	double m = median_of(spread);

	json_decref(spread);
	return isnan(m) ? json_null() : json_real(m);
}

static json_t *ratio_json(double a, double b)
{
	return isnan(a) || isnan(b) || b == 0 ? json_null() : json_real(a / b);
}

static int cost_run(struct mgb_ctx *ctx)
{
	const struct cost_params *p = ctx->params;
	struct mgb_backend *be = ctx->be;
	const char *journal = journal_key(ctx->target->fstype);
	json_t *phases = json_array(), *per_kind[KIND_COUNT] = { 0 };
	struct mgb_file f;
	char *buf;
	int r;

	if (mgb_require_op(ctx, pwrite) || mgb_require_op(ctx, fstat) || mgb_require_op(ctx, fsync) ||
	    mgb_require_op(ctx, ftruncate))
		return -1;
	buf = malloc(p->size);
	if (!buf)
		return mgb_err(ctx->err, "out of memory");
	memset(buf, 'c', p->size);
	r = be->ops->open(be, "cost.dat", O_RDWR | O_CREAT | O_TRUNC, 0644, &f);
	if (r < 0) {
		free(buf);
		return mgb_err(ctx->err, "open cost.dat: %s", strerror(-r));
	}
	mgb_measure_begin(ctx);
	for (unsigned c = 0; c < p->cycles && r == 0 && !mgb_stop_requested(); c++)
		for (enum kind k = 0; k < KIND_COUNT && r == 0; k++)
			if (!strcmp(p->poll, "all") || !strcmp(p->poll, kind_names[k]))
				r = run_phase(ctx, &f, p, k, buf, phases, c);
	mgb_measure_end(ctx);
	be->ops->close(be, &f);
	free(buf);
	if (r < 0) {
		json_decref(phases);
		return -1;
	}
	for (enum kind k = 0; k < KIND_COUNT; k++) {
		json_t *wps = over_cycles(phases, k, "writes_per_s", NULL);

		per_kind[k] = MGB_JSON_PACK("{s:o, s:o, s:o}", "writes_per_s", median_json(json_incref(wps)),
					    "writes_per_s_spread", wps, "journal_per_1000",
					    journal ? median_json(over_cycles(phases, k, journal, "counters")) : json_null());
		json_object_set_new(ctx->metrics, kind_names[k], per_kind[k]);
	}
	{
		double none = json_number_value(json_object_get(per_kind[KIND_NONE], "writes_per_s"));
		double size = json_number_value(json_object_get(per_kind[KIND_SIZE], "writes_per_s"));
		double ctime = json_number_value(json_object_get(per_kind[KIND_CTIME], "writes_per_s"));
		json_t *jc = json_object_get(per_kind[KIND_CTIME], "journal_per_1000");
		json_t *js = json_object_get(per_kind[KIND_SIZE], "journal_per_1000");

		if (!json_is_number(json_object_get(per_kind[KIND_NONE], "writes_per_s")))
			none = NAN;
		if (!json_is_number(json_object_get(per_kind[KIND_SIZE], "writes_per_s")))
			size = NAN;
		if (!json_is_number(json_object_get(per_kind[KIND_CTIME], "writes_per_s")))
			ctime = NAN;
		json_object_set_new(ctx->metrics, "ctime_size_ratio", ratio_json(ctime, size));
		json_object_set_new(ctx->metrics, "ctime_none_ratio", ratio_json(ctime, none));
		json_object_set_new(ctx->metrics, "journal", journal ? json_string(journal) : json_null());
		json_object_set_new(ctx->metrics, "extra_journal_per_1000",
				    json_is_number(jc) && json_is_number(js)
					    ? json_real(json_number_value(jc) - json_number_value(js))
					    : json_null());
	}
	json_object_set_new(ctx->metrics, "phases", phases);
	return 0;
}

const struct mgb_workload mgb_workload_cost = {
	.name = "cost",
	.summary = "write load with and without a flag-arming query stream",
	.options = cost_options,
	.params_size = sizeof(struct cost_params),
	.default_rounds = 20000,
	.columns = cost_columns,
	.run = cost_run,
};
