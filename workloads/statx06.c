/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * statx06: LTP statx06's timestamp bracket, counted instead of asserted.
 *
 * One round, as LTP's test_statx() does it: before = CLOCK_REALTIME_COARSE; wait; change;
 * wait; after = CLOCK_REALTIME_COARSE; after_fine = CLOCK_REALTIME; read the stamp the change
 * set (create -> btime of a new file, write -> mtime, chmod -> ctime).  The wait is LTP's
 * clock_wait_tick() by default (--wait sleep: usleep for clock_getres(CLOCK_REALTIME_COARSE)),
 * or a spin until the coarse clock steps (--wait spin), --ticks times.  Each round starts at a
 * random phase within the coarse tick, as one run of LTP's test does.  Counted per group:
 *   below_before      stamp < before: LTP's "< before time" failure, a real violation
 *   above_after       stamp > after: the coarse upper bound the old LTP test used.  A fine
 *                     stamp, or a coarse one raised to the global floor, can lie above it.
 *   above_after_fine  stamp > after_fine: a stamp from the future, a real violation.
 *   fine_stamps       measured changes that the kernel's timestamp:ctime_ns_xchg tracepoint saw
 *                     swap in a ctime above CLOCK_REALTIME_COARSE read right after the change.
 *                     Exact on a quiet machine (it then equals fine_stamps_global); while other
 *                     processes take fine stamps the floor lifts coarse stamps above the coarse
 *                     clock too, and no tracepoint tells the two apart: fine_stamps_global far
 *                     above the group's rounds says the count includes such lifts.
 *
 * The groups differ in what the file's QUERIED flag and ctime are at the measured change:
 *   unqueried  the flag is clear: the previous round's read armed it, so first wait until the
 *              coarse clock has passed the file's ctime and make an unmeasured change (a coarse
 *              stamp, which clears the flag).  Every design takes a coarse stamp.
 *   armed      wait until the coarse clock has passed the file's ctime, then stat the file right
 *              before the change: the flag is set but the ctime is from an earlier tick.  The
 *              2023 design (6.6-rc1/rc2) took a fine stamp whenever the flag was set; mainline
 *              (6.13+) takes a coarse one, as the coarse clock is already past the ctime.
 *   current    change, stat, measured change: the flag is set and the ctime is from the current
 *              tick, so mainline needs, and takes, a fine stamp (as the 2023 design did).
 * A new file cannot have been queried, so create has only the unqueried group; its "undo" is
 * removing the previous round's file.
 *
 * Rounds are slow (two waits and a random phase: about 10 ms at --ticks 1), so the default is
 * 300 rounds, each group running --rounds of them.
 */
#include "config.h"
#include "json_text.h"
#include "progress.h"
#include "stop.h"
#include "util.h"
#include "lower.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>

struct statx06_params {
	uint64_t ticks;
	unsigned wait;     /* enum wait_opt */
	unsigned change;   /* enum change_opt */
	unsigned prequery; /* enum prequery_opt */
};

enum wait_opt { WAIT_SLEEP, WAIT_SPIN };
/* After "all", in enum change's order: CHANGE_OPT_x is CHANGE_x + 1. */
enum change_opt { CHANGE_OPT_ALL, CHANGE_OPT_CREATE, CHANGE_OPT_WRITE, CHANGE_OPT_CHMOD };
enum prequery_opt { PREQUERY_BOTH, PREQUERY_YES, PREQUERY_NO };

static const char *const wait_choices[] = { [WAIT_SLEEP] = "sleep", [WAIT_SPIN] = "spin", NULL };
static const char *const change_choices[] = {
	[CHANGE_OPT_ALL] = "all", [CHANGE_OPT_CREATE] = "create", [CHANGE_OPT_WRITE] = "write",
	[CHANGE_OPT_CHMOD] = "chmod", NULL,
};
static const char *const prequery_choices[] = {
	[PREQUERY_BOTH] = "both", [PREQUERY_YES] = "yes", [PREQUERY_NO] = "no", NULL,
};

static const struct mgb_option statx06_options[] = {
	{ .name = "ticks", .type = MGB_OPT_U64, .offset = offsetof(struct statx06_params, ticks), .defval = "1",
	  .help = "waits before and after the change", .min = 0, .max = 2 },
	{ .name = "wait", .type = MGB_OPT_CHOICE, .offset = offsetof(struct statx06_params, wait), .defval = "sleep",
	  .help = "sleep one coarse resolution (LTP) or spin to a tick step", .choices = wait_choices },
	{ .name = "change", .type = MGB_OPT_CHOICE, .offset = offsetof(struct statx06_params, change), .defval = "all",
	  .help = "create, write, chmod or all", .choices = change_choices },
	{ .name = "prequery", .type = MGB_OPT_CHOICE, .offset = offsetof(struct statx06_params, prequery),
	  .defval = "both", .help = "queried groups (armed, current): yes, no or both", .choices = prequery_choices },
	{ 0 },
};

/* "A": the armed groups, "C": the current groups, summed over write and chmod. */
static const struct mgb_column statx06_columns[] = {
	{ "A >aft", "all.armed.above_after", "int", MGB_BETTER_NONE, "all.armed.above_after", "all.armed.rounds" },
	{ "C >aft", "all.current.above_after", "int", MGB_BETTER_NONE, "all.current.above_after", "all.current.rounds" },
	{ "A fine", "all.armed.fine_stamps", "int", MGB_BETTER_NONE, "all.armed.fine_stamps", "all.armed.rounds" },
	{ "C fine", "all.current.fine_stamps", "int", MGB_BETTER_NONE, "all.current.fine_stamps", "all.current.rounds" },
	{ "<before", "all.below_before_sum", "int", MGB_BETTER_LOWER, "all.below_before_sum", "all.rounds" },
	{ ">fine", "all.above_after_fine_sum", "int", MGB_BETTER_LOWER, "all.above_after_fine_sum", "all.rounds" },
	{ 0 },
};

enum change { CHANGE_CREATE, CHANGE_WRITE, CHANGE_CHMOD, CHANGE_COUNT };
enum kind { KIND_UNQUERIED, KIND_ARMED, KIND_CURRENT, KIND_COUNT };

static const char *const change_names[CHANGE_COUNT] = { "create", "write", "chmod" };
static const char *const stamp_names[CHANGE_COUNT] = { "btime", "mtime", "ctime" };
static const char *const kind_names[KIND_COUNT] = { "unqueried", "armed", "current" };

struct bracket {
	uint64_t rounds, below_before, above_after, above_after_fine;
	uint64_t in_tick; /* queried rounds whose measured change found a ctime of the current tick */
	int64_t max_above_after_ns;
	int64_t fine_stamps; /* -1: the tracepoint could not count them */
};

/* One (change, kind) group: its file and its counts. */
struct group {
	enum change change;
	enum kind kind;
	char name[32];
	struct mgb_file file;
	bool open;
	mode_t mode;
	int64_t ctime_ns; /* the file's ctime at the last read */
	bool no_btime;    /* the filesystem does not report btime */
	struct mgb_tracecount swaps; /* timestamp:ctime_ns_xchg on the group's inode */
	struct bracket b;
	int64_t fine_stamps_global; /* system-wide, during the group; -1 if unknown */
};

/* How a round waits, and the state of its random phase. */
struct waiter {
	bool sleep;
	unsigned ticks;
	int64_t res_ns, tick_ns;
	uint64_t rng;
};

/* LTP's clock_wait_tick(): usleep(clock_getres(CLOCK_REALTIME_COARSE)); or a spin to a step. */
static void wait_ticks(const struct waiter *w)
{
	if (!w->sleep) {
		mgb_wait_coarse_ticks(w->ticks);
		return;
	}
	for (unsigned i = 0; i < w->ticks; i++) {
		struct timespec ts = { w->res_ns / MGB_NSEC_PER_SEC, w->res_ns % MGB_NSEC_PER_SEC };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !mgb_stop_requested())
			;
	}
}

/* Sleep a uniformly random fraction of a tick, so rounds do not all start at a tick step. */
static void random_phase(struct waiter *w)
{
	struct timespec ts = { 0, 0 };

	w->rng ^= w->rng << 13; /* xorshift64: no state shared with anything else */
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	if (w->tick_ns <= 0)
		return;
	ts.tv_nsec = (long)(w->rng % (uint64_t)w->tick_ns);
	nanosleep(&ts, NULL);
}

static int close_file(struct mgb_backend *be, struct group *g)
{
	if (!g->open)
		return 0;
	g->open = false;
	return mgb_be_close(be, &g->file);
}

static int do_change(struct mgb_backend *be, struct group *g)
{
	static const char byte = 'x';
	ssize_t n;

	switch (g->change) {
	case CHANGE_CREATE: {
		int r = mgb_be_open(be, g->name, O_RDWR | O_CREAT | O_EXCL, 0644, &g->file);

		g->open = r == 0;
		return r;
	}
	case CHANGE_WRITE:
		n = mgb_be_pwrite(be, &g->file, &byte, 1, 0);
		return n < 0 ? (int)n : 0;
	case CHANGE_CHMOD:
		g->mode = g->mode == 0644 ? 0600 : 0644;
		return mgb_be_fchmod(be, &g->file, g->mode);
	default:
		return -EINVAL;
	}
}

/* Clear the flag the previous round's read armed, without a fine stamp (see the top comment). */
static int undo_query(struct mgb_backend *be, struct group *g)
{
	int r;

	mgb_wait_coarse_past(g->ctime_ns);
	if (g->change != CHANGE_CREATE)
		return do_change(be, g);
	if (!g->open)
		return 0;
	r = close_file(be, g);
	return r < 0 ? r : mgb_be_unlink(be, g->name);
}

static int read_stamp(struct mgb_backend *be, struct group *g, int64_t *stamp)
{
	struct mgb_stat st;
	int r = mgb_be_fstat(be, &g->file, MGB_STAT_TIMES | MGB_STAT_BTIME, &st);

	if (r < 0)
		return r;
	g->ctime_ns = mgb_ts_ns(st.ctime);
	if (g->change == CHANGE_CREATE && !(st.mask & MGB_STAT_BTIME)) {
		g->no_btime = true;
		return 0;
	}
	*stamp = mgb_ts_ns(g->change == CHANGE_CREATE ? st.btime : g->change == CHANGE_WRITE ? st.mtime : st.ctime);
	return 0;
}

/* The measured change, with what the tracepoint and the coarse clock say about its stamp. */
static int measured_change(struct mgb_backend *be, struct group *g, int64_t *swaps, int64_t *coarse_at)
{
	int64_t c0 = g->swaps.nfds ? mgb_tracecount_read(&g->swaps) : -1, c1;
	int r = do_change(be, g);

	*coarse_at = mgb_clock_ns(CLOCK_REALTIME_COARSE);
	c1 = c0 >= 0 ? mgb_tracecount_read(&g->swaps) : -1;
	*swaps = c0 >= 0 && c1 >= 0 ? c1 - c0 : -1;
	return r;
}

static int one_round(struct mgb_ctx *ctx, struct group *g, struct waiter *w)
{
	struct mgb_backend *be = ctx->be;
	struct mgb_stat st;
	int64_t before, after, after_fine, stamp = 0, swaps, coarse_at, ctime_before = -1;
	int r = 0;

	if (g->kind == KIND_UNQUERIED)
		r = undo_query(be, g);
	else if (g->kind == KIND_ARMED)
		mgb_wait_coarse_past(g->ctime_ns);
	if (r < 0)
		return r;
	random_phase(w);
	before = mgb_clock_ns(CLOCK_REALTIME_COARSE);
	wait_ticks(w);
	/* current: an unmeasured change first, so the measured one finds this tick's ctime. */
	if (g->kind == KIND_CURRENT && (r = do_change(be, g)) < 0)
		return r;
	if (g->kind != KIND_UNQUERIED) {
		if ((r = mgb_be_fstat(be, &g->file, MGB_STAT_TIMES, &st)) < 0)
			return r;
		ctime_before = mgb_ts_ns(st.ctime);
	}
	r = measured_change(be, g, &swaps, &coarse_at);
	if (r < 0)
		return r;
	wait_ticks(w);
	after = mgb_clock_ns(CLOCK_REALTIME_COARSE);
	after_fine = mgb_clock_ns(CLOCK_REALTIME);
	r = read_stamp(be, g, &stamp);
	if (r < 0 || g->no_btime)
		return r;

	g->b.rounds++;
	g->b.below_before += stamp < before;
	if (stamp > after) {
		g->b.above_after++;
		if (stamp - after > g->b.max_above_after_ns)
			g->b.max_above_after_ns = stamp - after;
	}
	g->b.above_after_fine += stamp > after_fine;
	/* the coarse clock, read after the change, had not passed the queried ctime: the change
	 * needed a fine stamp (mainline's rule); a tick boundary in between makes it coarse */
	g->b.in_tick += ctime_before >= 0 && coarse_at <= ctime_before;
	/* A coarse stamp is at most the coarse clock, unless another fine stamp lifted the floor. */
	if (swaps < 0)
		g->b.fine_stamps = -1;
	else if (g->b.fine_stamps >= 0)
		g->b.fine_stamps += swaps > 0 && g->ctime_ns > coarse_at;
	return 0;
}

static json_t *null_or_int(int64_t v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static json_t *group_json(const struct group *g)
{
	const struct bracket *b = &g->b;

	/* Unqueried groups take no fine stamps themselves: any counted in fine_stamps_global came
	 * from elsewhere on the machine and lifted the floor under them. */
	return MGB_JSON_PACK("{s:s, s:I, s:o, s:I, s:I, s:I, s:I, s:o, s:o}",
			 "stamp", stamp_names[g->change],
			 "rounds", (json_int_t)b->rounds,
			 "in_tick", g->kind == KIND_UNQUERIED ? json_null() : json_integer((json_int_t)b->in_tick),
			 "below_before", (json_int_t)b->below_before,
			 "above_after", (json_int_t)b->above_after,
			 "max_above_after_ns", (json_int_t)b->max_above_after_ns,
			 "above_after_fine", (json_int_t)b->above_after_fine,
			 "fine_stamps", null_or_int(b->fine_stamps),
			 "fine_stamps_global", null_or_int(g->fine_stamps_global));
}

static void bracket_sum(struct bracket *sum, const struct bracket *b)
{
	sum->rounds += b->rounds;
	sum->below_before += b->below_before;
	sum->above_after += b->above_after;
	sum->above_after_fine += b->above_after_fine;
	sum->in_tick += b->in_tick;
	if (b->max_above_after_ns > sum->max_above_after_ns)
		sum->max_above_after_ns = b->max_above_after_ns;
	if (b->fine_stamps < 0 || sum->fine_stamps < 0)
		sum->fine_stamps = -1;
	else
		sum->fine_stamps += b->fine_stamps;
}

/*
 * The sums the table shows.  The invariants' sums are named *_sum so that --check, which judges
 * every "below_before" and "above_after_fine" key, counts each violation once (in its group).
 */
static json_t *all_json(const struct bracket *all, const struct bracket by_kind[KIND_COUNT], const bool has_kind[KIND_COUNT])
{
	json_t *o = MGB_JSON_PACK("{s:I, s:I, s:I, s:I, s:I}",
			      "rounds", (json_int_t)all->rounds,
			      "below_before_sum", (json_int_t)all->below_before,
			      "above_after_sum", (json_int_t)all->above_after,
			      "above_after_fine_sum", (json_int_t)all->above_after_fine,
			      "max_above_after_ns", (json_int_t)all->max_above_after_ns);

	for (enum kind k = 0; k < KIND_COUNT; k++)
		json_object_set_new(o, kind_names[k],
				    !has_kind[k] ? json_null()
						 : MGB_JSON_PACK("{s:I, s:I, s:I, s:o}", "rounds", (json_int_t)by_kind[k].rounds,
							     "in_tick", (json_int_t)by_kind[k].in_tick,
							     "above_after", (json_int_t)by_kind[k].above_after,
							     "fine_stamps", null_or_int(by_kind[k].fine_stamps)));
	return o;
}

/* The groups --change and --prequery ask for, in run order; returns how many. */
static unsigned plan_groups(const struct statx06_params *p, struct group *groups)
{
	bool want_no = p->prequery != PREQUERY_YES, want_yes = p->prequery != PREQUERY_NO;
	unsigned n = 0;

	for (enum change c = 0; c < CHANGE_COUNT; c++) {
		if (p->change != CHANGE_OPT_ALL && p->change != (unsigned)c + 1)
			continue;
		for (enum kind k = 0; k < KIND_COUNT; k++) {
			bool queried = k != KIND_UNQUERIED;

			if ((queried && !want_yes) || (!queried && !want_no) || (queried && c == CHANGE_CREATE))
				continue;
			memset(&groups[n], 0, sizeof(groups[n]));
			groups[n].change = c;
			groups[n].kind = k;
			groups[n].mode = 0644;
			snprintf(groups[n].name, sizeof(groups[n].name), "statx06.%s.%s", change_names[c], kind_names[k]);
			n++;
		}
	}
	return n;
}

/* Run one group to the end; on error, its file is left for the caller to close and remove. */
static int run_group(struct mgb_ctx *ctx, struct group *g, uint64_t rounds, struct waiter *w,
		     uint64_t *done, uint64_t total)
{
	struct mgb_backend *be = ctx->be;
	struct mgb_stat st;
	int r;

	/* Start once the coarse clock has passed every stamp taken so far (earlier groups', the
	 * target setup's), so that no fine stamp from before the group lifts the floor in it. */
	mgb_wait_coarse_past(mgb_clock_ns(CLOCK_REALTIME));
	/* A new file's stamps cannot be fine: create counts none (null). */
	g->b.fine_stamps = g->change == CHANGE_CREATE ? -1 : 0;
	if (g->change != CHANGE_CREATE) {
		r = mgb_open_from_lower(ctx, g->name, O_RDWR | O_CREAT | O_TRUNC, g->mode, &g->file);
		if (r < 0)
			return r;
		g->open = true;
		r = mgb_be_fstat(be, &g->file, MGB_STAT_TIMES, &st);
		if (r < 0)
			return r;
		g->ctime_ns = mgb_ts_ns(st.ctime);
		if (mgb_tracecount_open(&g->swaps, "timestamp", "ctime_ns_xchg", ctx->target->sb_dev_major,
					ctx->target->sb_dev_minor, st.ino, NULL) < 0)
			g->swaps.nfds = 0;
		if (!g->swaps.nfds)
			g->b.fine_stamps = -1;
	}
	for (uint64_t i = 0; i < rounds && !g->no_btime && !mgb_stop_requested(); i++) {
		r = one_round(ctx, g, w);
		if (r < 0)
			return r;
		if ((++*done & 63) == 0)
			mgb_progress_update(ctx->progress, *done, total);
	}
	return 0;
}

static int statx06_run(struct mgb_ctx *ctx)
{
	const struct statx06_params *p = ctx->params;
	struct mgb_backend *be = ctx->be;
	struct group groups[KIND_COUNT * CHANGE_COUNT];
	struct bracket all = { 0 }, by_kind[KIND_COUNT] = { { 0 } };
	bool has_kind[KIND_COUNT] = { false };
	struct waiter w = { .sleep = p->wait == WAIT_SLEEP, .ticks = (unsigned)p->ticks,
			    .res_ns = ctx->clock->res_realtime_coarse_ns, .tick_ns = ctx->clock->coarse_tick_ns,
			    .rng = (uint64_t)mgb_clock_ns(CLOCK_REALTIME) | 1 };
	uint64_t done = 0;
	unsigned n = plan_groups(p, groups), i;
	int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	int r;

	if (w.sleep && w.res_ns <= 0)
		w.res_ns = w.tick_ns;
	for (i = 0; i < n; i++) {
		struct group *g = &groups[i];
		struct mgb_mg_counters mg_before, mg_after;

		mgb_mg_counters_read(&mg_before);
		r = run_group(ctx, g, ctx->rounds, &w, &done, ctx->rounds * n);
		mgb_mg_counters_read(&mg_after);
		g->fine_stamps_global = mg_before.valid && mg_after.valid ?
			(int64_t)(mg_after.fine_stamps - mg_before.fine_stamps) : -1;
		/* Tidy as we go: every group starts in a directory as clean as the first. */
		mgb_tracecount_close(&g->swaps);
		close_file(be, g);
		mgb_be_unlink(be, g->name);
		if (r < 0)
			return mgb_err(ctx->err, "%s after %llu rounds: %s", g->name,
				       (unsigned long long)g->b.rounds, strerror(-r));
	}
	for (i = 0; i < n; i++) {
		const struct group *g = &groups[i];
		const char *change = change_names[g->change];
		json_t *by_change = json_object_get(ctx->metrics, change);

		if (!by_change) {
			by_change = json_object();
			json_object_set_new(ctx->metrics, change, by_change);
		}
		/* No btime from this filesystem: nothing was measured, say so with null. */
		json_object_set_new(by_change, kind_names[g->kind], g->no_btime ? json_null() : group_json(g));
		if (g->change == CHANGE_CREATE) {
			json_object_set_new(ctx->metrics, "btime_reported", json_boolean(!g->no_btime));
			if (g->no_btime)
				continue;
		}
		bracket_sum(&all, &g->b);
		/* The per-kind sums are of write and chmod: create has no fine stamps to count. */
		if (g->change != CHANGE_CREATE) {
			bracket_sum(&by_kind[g->kind], &g->b);
			has_kind[g->kind] = true;
		}
	}
	json_object_set_new(ctx->metrics, "all", all_json(&all, by_kind, has_kind));
	json_object_set_new(ctx->metrics, "elapsed_ns", json_integer(mgb_clock_ns(CLOCK_MONOTONIC) - t0));
	return 0;
}

static int statx06_check_params(const void *params, char *err)
{
	struct group groups[KIND_COUNT * CHANGE_COUNT];

	if (plan_groups(params, groups) == 0)
		return mgb_err(err, "--change create needs --prequery no or both: a new file cannot have been queried");
	return 0;
}

const struct mgb_workload mgb_workload_statx06 = {
	.check_params = statx06_check_params,
	.name = "statx06",
	.summary = "LTP statx06's coarse-clock bracket: create, write, chmod",
	.options = statx06_options,
	.params_size = sizeof(struct statx06_params),
	.default_rounds = 300,
	.columns = statx06_columns,
	.run = statx06_run,
	.needs_ops = MGB_OP_FSTAT | MGB_OP_PWRITE | MGB_OP_FCHMOD | MGB_OP_UNLINK,
};
