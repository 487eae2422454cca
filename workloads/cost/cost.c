/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cost: what fine-grained stamps cost a writer.  A write load on one file (4 KiB overwrites, or
 * appends, optionally fsync/fdatasync every K writes) runs in phases, each with a different
 * query stream beside it from a second thread at --poll-rate Hz:
 *   none   no queries;
 *   size   statx(STATX_SIZE): the same syscalls, but no flag armed (the control);
 *   ctime  statx(CTIME|MTIME): arms the flag, so the next write takes a fine stamp and the
 *          filesystem logs an inode update it would otherwise have skipped.
 * Each phase writes for --phase-ms (or --rounds writes).  Phases run interleaved for --cycles
 * cycles, the order rotating (none size ctime, size ctime none, ...), so drift of the machine
 * and the place after the idle sleep hit all alike.  Per phase: writes/s over the time the load
 * wrote, the journal and device counters of the target (lib/probe/fscounters.c) per 1000 writes,
 * raw and less the idle background by time, and the global fine stamps; per kind the median over
 * cycles; and per cycle the ctime phase against that cycle's controls (ratios of rates,
 * differences of counters), summarised by their median and range.
 * The load is fio (a job file per mode in workloads/cost/fio/, run once per phase) when configure
 * found it and the backend is sync, else mgbench's own backend loop (--load picks one).
 * Before the phases an unrecorded warm-up phase, then an idle interval of a phase's length that
 * gives the background rate of every counter, with how busy the machine was.
 * This file runs the phases; the load is in cost_load.c, the per-inode counts and the idle
 * baseline in cost_counts.c, --crosstalk's other process in cost_crosstalk.c, and the medians
 * and ratios in cost_summary.c.
 */
#include "config.h"
#include "json_text.h"
#include "stop.h"
#include "cost.h"
#include "../lower.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

const char *const cost_kind_names[KIND_COUNT] = { "none", "size", "ctime", "alone", "crosstalk" };

static const char *const mode_choices[] = {
	[MODE_OVERWRITE] = "overwrite", [MODE_APPEND] = "append", [MODE_FIO_BASIC] = "fio-basic", NULL,
};
static const char *const load_choices[] = {
	[LOAD_AUTO] = "auto", [LOAD_FIO] = "fio", [LOAD_BUILTIN] = "builtin", NULL,
};
static const char *const sync_choices[] = {
	[SYNC_NONE] = "none", [SYNC_FSYNC] = "fsync", [SYNC_FDATASYNC] = "fdatasync", NULL,
};
static const char *const poll_choices[] = {
	[POLL_ALL] = "all", [POLL_NONE] = "none", [POLL_SIZE] = "size", [POLL_CTIME] = "ctime", NULL,
};

/* --poll-rate max: the poller queries as fast as it can, no pause */
static const struct mgb_opt_word poll_words[] = { { "max", 0 }, { NULL, 0 } };

/* --phase-ms rounds: the phases of old, --rounds writes each whatever the time */
static const struct mgb_opt_word phase_words[] = { { "rounds", 0 }, { NULL, 0 } };

static const struct mgb_option cost_options[] = {
	{ .name = "size", .type = MGB_OPT_SIZE, .offset = offsetof(struct cost_params, size), .defval = "4096",
	  .help = "bytes per write", .min = 1, .max = 64 << 20 },
	{ .name = "mode", .type = MGB_OPT_CHOICE, .offset = offsetof(struct cost_params, mode), .defval = "overwrite",
	  .help = "overwrite (within --file-size), append, or fio-basic (the robot's falloc job)",
	  .choices = mode_choices },
	{ .name = "sync", .type = MGB_OPT_CHOICE, .offset = offsetof(struct cost_params, sync), .defval = "none",
	  .help = "none, fsync or fdatasync", .choices = sync_choices },
	{ .name = "sync-every", .type = MGB_OPT_U64, .offset = offsetof(struct cost_params, sync_every),
	  .defval = "1", .help = "writes between syncs", .min = 1 },
	{ .name = "poll", .type = MGB_OPT_CHOICE, .offset = offsetof(struct cost_params, poll), .defval = "all",
	  .help = "query stream: all (none, size, ctime interleaved) or one", .choices = poll_choices },
	{ .name = "poll-rate", .type = MGB_OPT_U64, .offset = offsetof(struct cost_params, poll_rate),
	  .defval = "1000", .help = "queries per second, or max (no pause); a list (10,100,max) sweeps",
	  .min = 1, .max = 1000000, .words = poll_words, .sweep = true },
	{ .name = "cycles", .type = MGB_OPT_U64, .offset = offsetof(struct cost_params, cycles), .defval = "3",
	  .help = "interleaved cycles of the phases", .min = 1, .max = 100 },
	{ .name = "phase-ms", .type = MGB_OPT_U64, .offset = offsetof(struct cost_params, phase_ms),
	  .defval = "2000", .help = "milliseconds each phase writes for (rounds: --rounds writes each)",
	  .max = 3600000, .words = phase_words },
	{ .name = "file-size", .type = MGB_OPT_SIZE, .offset = offsetof(struct cost_params, file_size),
	  .defval = "1m", .help = "where overwrites wrap (file size, e.g. for btrfs)", .min = 4096,
	  .max = 1ULL << 34 },
	{ .name = "load", .type = MGB_OPT_CHOICE, .offset = offsetof(struct cost_params, load), .defval = "auto",
	  .help = "fio, builtin, or auto (fio if configured, with --backend sync)", .choices = load_choices },
	{ .name = "nocow", .type = MGB_OPT_BOOL, .offset = offsetof(struct cost_params, nocow),
	  .help = "set NOCOW on the file (chattr +C; btrfs: no copy-on-write)" },
	{ .name = "crosstalk", .type = MGB_OPT_BOOL, .offset = offsetof(struct cost_params, crosstalk),
	  .help = "no poller; alone and crosstalk phases (another process write+statx on a tmpfs)" },
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

/*
 * The paced poller's schedule may fall this far behind (a preemption, a slow query) and catch up
 * with queries back to back; a longer stall is not made up in a burst.
 */
#define POLL_CATCH_UP_NS (10 * 1000000LL)

static void *poll_loop(void *arg)
{
	struct poller *p = arg;
	int64_t period = p->rate ? MGB_NSEC_PER_SEC / (int64_t)p->rate : 0;
	int64_t next = mgb_clock_ns(CLOCK_MONOTONIC);

	while (!atomic_load(&p->stop)) {
		struct mgb_stat st;
		int r = mgb_be_fstat(p->ctx->be, p->file, p->want, &st);
		int64_t now;

		if (r < 0) {
			p->error = r;
			break;
		}
		atomic_fetch_add(&p->polls, 1);
		if (!period)
			continue;
		next += period;
		/*
		 * Sleep only when ahead: a clock_nanosleep whose deadline has passed still costs a
		 * system call (some 25 us on a VM), which held --poll-rate 1000000 at 33k-44k
		 * queries/s while max reached 900k.
		 */
		now = mgb_clock_ns(CLOCK_MONOTONIC);
		if (now - next > POLL_CATCH_UP_NS)
			next = now - POLL_CATCH_UP_NS;
		if (next > now) {
			struct timespec ts = { .tv_sec = next / MGB_NSEC_PER_SEC, .tv_nsec = next % MGB_NSEC_PER_SEC };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	return NULL;
}

/*
 * The counter that stands for "the journal" on this filesystem, per 1000 writes: one that moves
 * per inode update.  Not btrfs's commits, which come every 30 s and read 0 in a phase.
 */
static const char *journal_key(const char *fstype)
{
	if (!fstype)
		return NULL;
	if (!strcmp(fstype, "ext4"))
		return "jbd2_handles_per_1000";
	if (!strcmp(fstype, "xfs"))
		return "xfs_transactions_per_1000";
	if (!strcmp(fstype, "btrfs"))
		return "btrfs_ctime_updates_per_1000";
	return NULL;
}

static json_t *ns_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* Write latencies as a phase records them, from either load. */
static json_t *clat_json(double mean, double p50, double p90, double p99, double p99_9)
{
	return MGB_JSON_PACK("{s:o, s:o, s:o, s:o, s:o}", "mean", ns_or_null(mean), "p50", ns_or_null(p50), "p90",
			     ns_or_null(p90), "p99", ns_or_null(p99), "p99_9", ns_or_null(p99_9));
}

/*
 * The backend's counts over one phase (io_uring's punts: the share of writes sent to a worker is
 * a phase's figure, not the cell's, which lumps the lay-out, the warm-up and every kind
 * together); null for a backend without counts.
 */
static json_t *backend_counts_delta(json_t *before, json_t *after)
{
	json_t *d, *v;
	const char *key;

	if (!before || !after)
		return json_null();
	d = json_object();
	json_object_foreach(after, key, v) {
		json_t *b = json_object_get(before, key);

		json_object_set_new(d, key, json_is_integer(v) && json_is_integer(b)
						    ? json_integer(json_integer_value(v) - json_integer_value(b))
						    : json_null());
	}
	/* the shares, where the counts that make them are known */
	if (json_is_integer(json_object_get(d, "punted")) && json_integer_value(json_object_get(d, "requests")) > 0)
		json_object_set_new(d, "punted_ratio",
				    json_real((double)json_integer_value(json_object_get(d, "punted")) /
					      (double)json_integer_value(json_object_get(d, "requests"))));
	if (json_is_integer(json_object_get(d, "writes_punted")) && json_integer_value(json_object_get(d, "writes")) > 0)
		json_object_set_new(d, "writes_punted_ratio",
				    json_real((double)json_integer_value(json_object_get(d, "writes_punted")) /
					      (double)json_integer_value(json_object_get(d, "writes"))));
	return d;
}

/*
 * A phase shorter than this gives rates whose error (a tick's worth of start-up, the clock's
 * reads, others' bursts) is the size of the regressions people look for: flagged.
 */
#define SHORT_PHASE_NS (MGB_NSEC_PER_SEC)

/* One phase: the load with the given query stream beside it; cycle < 0 is the warm-up. */
static int run_phase(struct cost_cell *c, enum cost_kind k, json_t *phases, int cycle, int position,
		     int64_t *wall_ns)
{
	struct mgb_ctx *ctx = c->ctx;
	struct mgb_backend *be = ctx->be;
	const struct cost_params *p = c->p;
	struct poller poller = { .ctx = ctx, .file = &c->f, .rate = p->poll_rate };
	struct mgb_fio_result res = { 0 };
	struct mgb_fs_counters fc;
	struct mgb_mg_counters mg0, mg1;
	struct inode_counts ic;
	json_t *counters, *inode, *ch;
	bool polled = k == KIND_SIZE || k == KIND_CTIME;
	struct cost_stirrer stirrer = { .pid = -1 };
	json_t *other = NULL, *be0, *be1, *backend;
	struct lat_stats *lat = c->fio ? NULL : malloc(sizeof(*lat));
	json_t *clat;
	uint64_t done = 0, polls0, polls;
	int64_t t0, wall, load_ns, writer_cpu, poller_cpu;
	clockid_t poller_clock;
	bool polled_cpu = k == KIND_SIZE || k == KIND_CTIME;
	int r = 0;

	if (!c->fio && !lat)
		return mgb_err(ctx->err, "out of memory");
	if (lat) {
		mgb_hist_init(&lat->h);
		lat->sum_ns = 0;
	}
	if (p->mode == MODE_APPEND && (r = mgb_be_ftruncate(be, &c->f, 0)) < 0) {
		free(lat);
		return mgb_err(ctx->err, "truncate cost.dat: %s", strerror(-r));
	}
	atomic_init(&poller.stop, false);
	atomic_init(&poller.polls, 0);
	poller.want = k == KIND_SIZE ? MGB_STAT_SIZE : MGB_STAT_TIMES;
	if (k == KIND_CROSSTALK && cost_stirrer_start(c, &stirrer) < 0) {
		free(lat);
		return -1;
	}
	if (polled && pthread_create(&poller.tid, NULL, poll_loop, &poller) != 0) {
		cost_stirrer_stop(&stirrer);
		free(lat);
		return mgb_err(ctx->err, "cannot start the poller thread");
	}
	/* The phase starts once the stream runs: on a busy machine the thread may wait for a CPU. */
	while (polled && atomic_load(&poller.polls) == 0 && !poller.error && !mgb_stop_requested())
		sched_yield();
	cost_inode_counts_begin(&ic, c);
	mgb_fs_counters_begin(&fc, ctx->target);
	mgb_mg_counters_read(&mg0);
	be0 = mgb_be_counts(be);
	if (stirrer.shared)
		cost_stirrer_begin(&stirrer);
	/* the queries of the window only: not those while the counters were set up and read */
	polls0 = atomic_load(&poller.polls);
	if (polled && pthread_getcpuclockid(poller.tid, &poller_clock) != 0)
		polled_cpu = false;
	poller_cpu = polled_cpu ? mgb_clock_ns(poller_clock) : 0;
	writer_cpu = mgb_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	if (c->fio) {
		r = cost_fio_load(c, &res);
		done = res.write_ios;
	} else {
		r = cost_builtin_load(c, &done, lat, t0);
	}
	/*
	 * Two windows, both recorded: the counters cover the whole phase (window_ns), the rate the
	 * time the load wrote (load_ns).  They differ by fio's start-up and exit, some 300 ms here in
	 * which it writes nothing, and whose background cost_subtract_background takes out by time.
	 * fio's runtime has millisecond resolution: 0.05 % of a 2 s phase.
	 */
	wall = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	polls = atomic_load(&poller.polls) - polls0;
	writer_cpu = mgb_clock_ns(CLOCK_THREAD_CPUTIME_ID) - writer_cpu;
	poller_cpu = polled_cpu ? mgb_clock_ns(poller_clock) - poller_cpu : 0;
	load_ns = c->fio ? res.runtime_ns : wall;
	mgb_mg_counters_read(&mg1);
	be1 = mgb_be_counts(be);
	backend = backend_counts_delta(be0, be1);
	json_decref(be0);
	json_decref(be1);
	if (stirrer.shared)
		other = cost_stirrer_end(&stirrer, wall);
	counters = mgb_fs_counters_end(&fc, done);
	inode = cost_inode_counts_end(&ic, done, wall, ctx->clock ? ctx->clock->coarse_tick_ns : 0);
	atomic_store(&poller.stop, true);
	if (polled)
		pthread_join(poller.tid, NULL);
	cost_stirrer_stop(&stirrer);
	*wall_ns = wall;
	/* distinct stamps of the file per second of its load: what others' fine stamps did to it */
	ch = json_object_get(inode, "ctime_changes");
	json_object_set_new(inode, "ctime_changes_per_s",
			    json_is_integer(ch) ? json_real(mgb_per_s((uint64_t)json_integer_value(ch), load_ns))
						: json_null());
	/* one key for both loads: fio's write.clat_ns, or the builtin loop's own timing */
	if (c->fio)
		clat = clat_json(res.clat_mean_ns, res.clat_p50_ns, res.clat_p90_ns, res.clat_p99_ns, res.clat_p99_9_ns);
	else if (lat->h.n)
		clat = clat_json(lat->sum_ns / (double)lat->h.n, (double)mgb_hist_quantile(&lat->h, 0.5),
				 (double)mgb_hist_quantile(&lat->h, 0.9), (double)mgb_hist_quantile(&lat->h, 0.99),
				 (double)mgb_hist_quantile(&lat->h, 0.999));
	else
		clat = json_null();
	free(lat);
	if (cycle >= 0 && r == 0) {
		json_array_append_new(
			phases, MGB_JSON_PACK("{s:s, s:i, s:i, s:I, s:I, s:I, s:b, s:f, s:f, s:I, s:o, s:o, s:o, s:o, s:o}",
					      "kind", cost_kind_names[k], "cycle", cycle, "position", position, "writes",
					      (json_int_t)done, "window_ns", (json_int_t)wall, "load_ns", (json_int_t)load_ns,
					      "short", load_ns < SHORT_PHASE_NS, "writes_per_s", mgb_per_s(done, load_ns),
					      "polls_per_s", mgb_per_s(polls, wall), "polls", (json_int_t)polls, "multigrain",
					      mgb_mg_counters_delta_json(&mg0, &mg1), "counters", counters, "inode", inode,
					      "fio", c->fio ? mgb_fio_result_json(&res) : json_null(), "write_clat_ns", clat));
		json_object_set_new(json_array_get(phases, json_array_size(phases) - 1), "backend", backend);
		/*
		 * The CPU time the writer (the builtin load's thread; fio is a process of its own) and
		 * the poller had in the window: when their sum is not well above the window, they took
		 * turns on one CPU rather than ran side by side, and few writes could follow a query.
		 */
		json_object_set_new(json_array_get(phases, json_array_size(phases) - 1), "cpu_ns",
				    MGB_JSON_PACK("{s:o, s:o}", "writer",
						  c->fio ? json_null() : json_integer((json_int_t)writer_cpu), "poller",
						  polled_cpu ? json_integer((json_int_t)poller_cpu) : json_null()));
		/* the other process's own counts: whether it had a CPU at all in this window */
		if (other)
			json_object_set_new(json_array_get(phases, json_array_size(phases) - 1), "other_process", other);
	} else {
		json_decref(counters), json_decref(inode), json_decref(clat), json_decref(other);
		json_decref(backend);
	}
	mgb_fio_result_free(&res);
	if (r == 0 && poller.error)
		r = poller.error;
	if (r < 0 && c->fio && !poller.error)
		return -1; /* cost_fio_load said why */
	if (r < 0)
		return mgb_err(ctx->err, "cost.dat after %llu writes (%s phase): %s", (unsigned long long)done,
			       cost_kind_names[k], strerror(-r));
	return 0;
}

/* --nocow: FS_NOCOW_FL on the still empty file (btrfs honours it only before data exists). */
static json_t *apply_nocow(struct cost_cell *c)
{
	int flags = 0;

	if (!c->p->nocow)
		return json_null();
	if (c->f.fd < 0 || ioctl(c->f.fd, FS_IOC_GETFLAGS, &flags) < 0)
		return json_false();
	flags |= FS_NOCOW_FL;
	if (ioctl(c->f.fd, FS_IOC_SETFLAGS, &flags) < 0 || ioctl(c->f.fd, FS_IOC_GETFLAGS, &flags) < 0)
		return json_false();
	return json_boolean(flags & FS_NOCOW_FL);
}

/*
 * Before the phases, for both loads: the file as the mode needs it, outside any measured window
 * (overwrite: written once; fio-basic: one fallocate of it all, as the robot's fallocate=posix
 * layout pass does).  fio finds it the right size and leaves it alone.
 */
static int lay_out(struct cost_cell *c)
{
	struct mgb_backend *be = c->ctx->be;
	const struct cost_params *p = c->p;
	int r = 0;

	if (p->mode == MODE_APPEND)
		return 0;
	if (p->mode == MODE_FIO_BASIC)
		r = mgb_be_fallocate(be, &c->f, 0, (off_t)c->file_size);
	for (off_t off = 0; r >= 0 && p->mode == MODE_OVERWRITE && off < (off_t)c->file_size;
	     off += (off_t)p->size) {
		ssize_t n = mgb_be_pwrite(be, &c->f, c->buf, p->size, off);

		r = n < 0 ? (int)n : 0;
	}
	if (r == 0)
		r = mgb_be_fsync(be, &c->f);
	/* ramfs cannot fallocate: mgb_fail makes that a fact about the filesystem, not a failure */
	return r < 0 ? mgb_fail(c->ctx, r, "laying out cost.dat: %s", strerror(-r)) : 0;
}

static int cost_prepare(struct cost_cell *c)
{
	struct mgb_ctx *ctx = c->ctx;
	struct mgb_backend *be = ctx->be;
	const struct cost_params *p = c->p;
	struct mgb_stat st;
	const char *tmp = ctx->session && ctx->session->tmpdir ? ctx->session->tmpdir : getenv("TMPDIR");
	int r;

	if (cost_pick_load(c) < 0)
		return -1;
	if (p->crosstalk) {
		char err[MGB_ERR_LEN];

		if (!ctx->session)
			return mgb_err(ctx->err, "--crosstalk needs --fs: a --dir run cannot make a second filesystem");
		if (mgb_target_scratch(ctx->session, mgb_fs_type_find("tmpfs"), &c->other, err) < 0)
			return mgb_err(ctx->err, "--crosstalk: the other filesystem: %s", err);
		c->other_up = true;
	}
	if (c->fio) {
		char name[64];

		snprintf(name, sizeof(name), "%s.fio", mode_choices[p->mode]);
		if (mgb_fio_job_path(name, c->job, sizeof(c->job), ctx->err) < 0)
			return -1;
		snprintf(c->workdir, sizeof(c->workdir), "%s/mgbench-fio.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(c->workdir)) {
			*c->workdir = 0;
			return mgb_err(ctx->err, "a directory for fio's output: %s", strerror(errno));
		}
		snprintf(c->path, sizeof(c->path), "%s/cost.dat", ctx->target->path);
	}
	/* Here, not in needs_ops: the load picked above fails with its own message first. */
	if (p->mode == MODE_FIO_BASIC && mgb_require_ops(ctx, MGB_OP_FALLOCATE))
		return -1;
	if (c->fio && mgb_require_ops(ctx, MGB_OP_STAT))
		return -1;
	r = mgb_open_from_lower(ctx, "cost.dat", O_RDWR | O_CREAT | O_TRUNC, 0644, &c->f);
	if (r < 0) {
		c->f.fd = -1;
		return mgb_err(ctx->err, "open cost.dat: %s", strerror(-r));
	}
	json_object_set_new(ctx->metrics, "nocow_in_effect", apply_nocow(c));
	r = mgb_be_fstat(be, &c->f, MGB_STAT_SIZE, &st);
	if (r < 0)
		return mgb_err(ctx->err, "stat cost.dat: %s", strerror(-r));
	c->ino = st.ino;
	return lay_out(c);
}

/* The medians over cycles of the phases' write latency percentiles. */
static json_t *clat_medians(json_t *phases, enum cost_kind k)
{
	return MGB_JSON_PACK("{s:o, s:o, s:o}", "p50", cost_median_json(cost_over_cycles(phases, k, "p50", "write_clat_ns")),
			     "p99", cost_median_json(cost_over_cycles(phases, k, "p99", "write_clat_ns")), "p99_9",
			     cost_median_json(cost_over_cycles(phases, k, "p99_9", "write_clat_ns")));
}

/* A paired figure: the median of the per-cycle values as the metric, and their spread beside it. */
static void put_paired(struct mgb_ctx *ctx, const char *name, json_t *spread)
{
	char k[80];

	snprintf(k, sizeof(k), "%s_spread", name);
	json_object_set_new(ctx->metrics, name, cost_median_json(json_incref(spread)));
	json_object_set_new(ctx->metrics, k, spread);
}

/* Per kind the medians; then each cycle against the control of the same cycle. */
static void put_summary(struct mgb_ctx *ctx, json_t *phases, const char *journal, bool crosstalk)
{
	enum cost_kind lo = crosstalk ? KIND_ALONE : KIND_NONE, hi = crosstalk ? KIND_CROSSTALK : KIND_CTIME;
	/* the kind that costs, and the control it is measured against */
	enum cost_kind cost = crosstalk ? KIND_CROSSTALK : KIND_CTIME, control = crosstalk ? KIND_ALONE : KIND_SIZE;

	for (enum cost_kind k = lo; k <= hi; k++) {
		json_t *wps = cost_over_cycles(phases, k, "writes_per_s", NULL);

		json_object_set_new(
			ctx->metrics, cost_kind_names[k],
			MGB_JSON_PACK("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "writes_per_s",
				      cost_median_json(json_incref(wps)), "writes_per_s_spread", wps, "polls_per_s",
				      cost_median_json(cost_over_cycles(phases, k, "polls_per_s", NULL)), "journal_per_1000",
				      journal ? cost_median_json(cost_over_cycles(phases, k, journal, "counters")) : json_null(),
				      "journal_per_1000_corrected",
				      journal ? cost_median_json(cost_over_cycles(phases, k, journal, "background_corrected"))
					      : json_null(),
				      "counters_per_1000", cost_per_1000_medians(phases, k, "counters"),
				      "ctime_changes_per_1000",
				      cost_median_json(cost_over_cycles(phases, k, "ctime_changes_per_1000", "inode")),
				      "ctime_changes_per_s",
				      cost_median_json(cost_over_cycles(phases, k, "ctime_changes_per_s", "inode")),
				      "queried_changes_per_1000",
				      cost_median_json(cost_over_cycles(phases, k, "queried_changes_per_1000", "inode")),
				      "write_clat_ns", clat_medians(phases, k), "short_phases",
				      json_integer((json_int_t)cost_short_phases(phases, k))));
	}
	if (crosstalk) {
		put_paired(ctx, "crosstalk_alone_ratio",
			   cost_paired(phases, KIND_CROSSTALK, KIND_ALONE, "writes_per_s", NULL, COST_RATIO));
	} else {
		put_paired(ctx, "ctime_size_ratio", cost_paired(phases, KIND_CTIME, KIND_SIZE, "writes_per_s", NULL, COST_RATIO));
		put_paired(ctx, "ctime_none_ratio", cost_paired(phases, KIND_CTIME, KIND_NONE, "writes_per_s", NULL, COST_RATIO));
	}
	json_object_set_new(ctx->metrics, "journal", journal ? json_string(journal) : json_null());
	put_paired(ctx, "extra_journal_per_1000",
		   journal ? cost_paired(phases, cost, control, journal, "counters", COST_DIFFERENCE) : json_null());
	put_paired(ctx, "extra_journal_per_1000_corrected",
		   journal ? cost_paired(phases, cost, control, journal, "background_corrected", COST_DIFFERENCE)
			   : json_null());
	json_object_set_new(ctx->metrics, "extra_counters_per_1000",
			    cost_extra_per_1000(phases, cost, control, "counters"));
	json_object_set_new(ctx->metrics, "extra_counters_per_1000_corrected",
			    cost_extra_per_1000(phases, cost, control, "background_corrected"));
}

/*
 * The counters the kernel advances on its own clock when nothing syncs: the jbd2 commit timer,
 * xfs's CIL push and log forces, btrfs's transaction commit, the flusher's block writes.  In a
 * phase they are whatever that clock did during it, not the phase's own work; with --sync fsync
 * or fdatasync each write drives them.  Named here so that a reader does not sum them with the
 * synchronous counts.
 */
static json_t *asynchronous_counters(const struct cost_params *p)
{
	static const char *const timed[] = { "jbd2_transactions", "xfs_log_writes", "xfs_log_forces",
					     "btrfs_commits", "block_writes", "block_sectors", "block_flushes" };
	json_t *a = json_array();

	for (size_t i = 0; p->sync == SYNC_NONE && i < MGB_ARRAY_SIZE(timed); i++)
		json_array_append_new(a, json_string(timed[i]));
	return a;
}

/* The kinds of phase a cycle runs, in the order of the first cycle. */
static unsigned phase_kinds(const struct cost_params *p, enum cost_kind *kinds)
{
	unsigned n = 0;

	for (enum cost_kind k = 0; k < KIND_COUNT; k++)
		if (p->crosstalk ? k >= KIND_ALONE : k < KIND_ALONE && (p->poll == POLL_ALL || p->poll == (unsigned)k + 1))
			kinds[n++] = k;
	return n;
}

static int cost_run(struct mgb_ctx *ctx)
{
	const struct cost_params *p = ctx->params;
	const char *journal = journal_key(ctx->target->fstype);
	struct cost_cell c = { .ctx = ctx, .p = p, .f = { .fd = -1 } };
	json_t *phases = json_array(), *idle = NULL;
	enum cost_kind kinds[KIND_COUNT];
	unsigned nkinds, nshort;
	int64_t warm_ns = 0;
	char msg[300];
	int r;

	c.file_size = p->mode == MODE_FIO_BASIC ? ctx->rounds * p->size : p->file_size;
	c.buf = malloc(p->size);
	if (!c.buf)
		return mgb_err(ctx->err, "out of memory");
	memset(c.buf, 'c', p->size);
	r = cost_prepare(&c);
	/* The warm-up (not recorded): a quarter of a phase's time, or a phase's writes. */
	c.phase_ns = (int64_t)p->phase_ms * 1000000 / 4;
	if (r == 0)
		r = run_phase(&c, KIND_NONE, phases, -1, 0, &warm_ns);
	c.phase_ns = (int64_t)p->phase_ms * 1000000;
	if (r == 0)
		idle = cost_idle_interval(&c, c.phase_ns ? c.phase_ns : warm_ns);
	if (r == 0)
		mgb_measure_begin(ctx);
	nkinds = phase_kinds(p, kinds);
	/* ABC, BCA, CAB, ...: no kind always follows the idle sleep or the same other kind */
	for (unsigned cy = 0; cy < p->cycles && r == 0 && !mgb_stop_requested(); cy++)
		for (unsigned i = 0; i < nkinds && r == 0; i++)
			r = run_phase(&c, kinds[(i + cy) % nkinds], phases, (int)cy, (int)i, &warm_ns);
	if (ctx->measured_begun)
		mgb_measure_end(ctx);
	if (c.f.fd >= 0 || c.f.priv)
		mgb_be_close(ctx->be, &c.f);
	if (*c.workdir)
		rmdir(c.workdir);
	if (c.other_up)
		mgb_target_down(&c.other);
	free(c.buf);
	if (r < 0) {
		json_decref(phases);
		json_decref(idle);
		return -1;
	}
	json_object_set_new(ctx->metrics, "load",
			    MGB_JSON_PACK("{s:s, s:o, s:o}", "name", c.fio ? "fio" : "builtin", "job",
					  c.fio ? mgb_json_text(c.job) : json_null(), "fio_version",
					  c.fio ? json_string(c.fio_version) : json_null()));
	json_object_set_new(ctx->metrics, "file_size_bytes", json_integer((json_int_t)c.file_size));
	cost_subtract_background(phases, idle);
	json_object_set_new(ctx->metrics, "idle", idle);
	put_summary(ctx, phases, journal, p->crosstalk);
	/* before the short phases' line, which readers (it-cost) take as the last */
	if (cost_poll_shortfall(phases, p->poll_rate, msg, sizeof(msg)))
		mgb_warn(ctx, "%s", msg);
	nshort = cost_short_phases(phases, KIND_COUNT);
	if (nshort)
		mgb_warn(ctx, "%u of %zu phases wrote for under %d ms: their rates carry start-up and scheduling "
			 "error of a few per cent (give --phase-ms 2000 or more)", nshort, json_array_size(phases),
			 (int)(SHORT_PHASE_NS / 1000000));
	json_object_set_new(ctx->metrics, "asynchronous_counters", asynchronous_counters(p));
	json_object_set_new(ctx->metrics, "phases", phases);
	return 0;
}

/* The query stream polls from a thread of its own beside the writer (and --crosstalk adds a
 * process). */
static bool cost_needs_two_cpus(const void *params)
{
	(void)params;
	return true;
}

const struct mgb_workload mgb_workload_cost = {
	.name = "cost",
	.summary = "write load with and without a flag-arming query stream",
	.options = cost_options,
	.params_size = sizeof(struct cost_params),
	.default_rounds = 20000,
	.columns = cost_columns,
	.run = cost_run,
	.needs_ops = MGB_OP_PWRITE | MGB_OP_FSTAT | MGB_OP_FSYNC | MGB_OP_FTRUNCATE,
	.needs_two_cpus = cost_needs_two_cpus,
};
