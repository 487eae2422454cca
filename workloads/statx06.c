/*
 * statx06: LTP statx06's timestamp bracket, counted instead of asserted.
 *
 * One round: before = CLOCK_REALTIME_COARSE; wait --ticks coarse ticks; change; wait again;
 * after = CLOCK_REALTIME_COARSE; after_fine = CLOCK_REALTIME; read the stamp the change set
 * (create -> btime of a new file, write -> mtime, chmod -> ctime).  Counted per group:
 *   below_before      stamp < before
 *   above_after       stamp > after: the coarse upper bound the old LTP test used.  A fine
 *                     stamp, or a coarse one raised to the global floor, can lie above it.
 *   above_after_fine  stamp > after_fine: a stamp from the future, a real violation.
 *
 * Each change runs as two groups, one after the other:
 *   queried    stat the file just before the round, so its QUERIED flag is armed.  The change
 *              then takes a fine stamp if the coarse clock has not moved past the file's ctime.
 *   unqueried  the previous round's read armed the flag too, so first undo it: wait until the
 *              coarse clock has passed the file's ctime (so the next change takes a coarse stamp
 *              and does not move the floor), then make an unmeasured change of the same kind.
 * A new file cannot have been queried, so create has only the unqueried group; its "undo" is
 * removing the previous round's file.
 *
 * Rounds are slow (two tick waits: about 8 ms at --ticks 1), so the default is 300 rounds, each
 * group running --rounds of them.
 */
#include "config.h"
#include "progress.h"
#include "stop.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>

struct statx06_params {
	uint64_t ticks;
	const char *change;
	const char *prequery;
};

static const char *const change_choices[] = { "all", "create", "write", "chmod", NULL };
static const char *const prequery_choices[] = { "both", "yes", "no", NULL };

static const struct mgb_workload_option statx06_options[] = {
	{ "ticks", MGB_OPT_U64, offsetof(struct statx06_params, ticks), "1",
	  "coarse ticks waited around the change", 0, 2, NULL, NULL },
	{ "change", MGB_OPT_STRING, offsetof(struct statx06_params, change), "all",
	  "create, write, chmod or all", 0, 0, NULL, change_choices },
	{ "prequery", MGB_OPT_STRING, offsetof(struct statx06_params, prequery), "both",
	  "stat first: yes, no or both", 0, 0, NULL, prequery_choices },
	{ 0 },
};

/* "Q" marks the queried group. */
static const struct mgb_column statx06_columns[] = {
	{ "bt >aft", "create.unqueried.above_after", "int", MGB_BETTER_NONE, "create.unqueried.above_after", "create.unqueried.rounds" },
	{ "mt >aft", "write.unqueried.above_after", "int", MGB_BETTER_NONE, "write.unqueried.above_after", "write.unqueried.rounds" },
	{ "mt Q>aft", "write.queried.above_after", "int", MGB_BETTER_NONE, "write.queried.above_after", "write.queried.rounds" },
	{ "ct >aft", "chmod.unqueried.above_after", "int", MGB_BETTER_NONE, "chmod.unqueried.above_after", "chmod.unqueried.rounds" },
	{ "ct Q>aft", "chmod.queried.above_after", "int", MGB_BETTER_NONE, "chmod.queried.above_after", "chmod.queried.rounds" },
	{ ">fine", "all.above_after_fine", "int", MGB_BETTER_LOWER, "all.above_after_fine", "all.rounds" },
	{ 0 },
};

enum change { CHANGE_CREATE, CHANGE_WRITE, CHANGE_CHMOD, CHANGE_COUNT };

static const char *const change_names[CHANGE_COUNT] = { "create", "write", "chmod" };
static const char *const stamp_names[CHANGE_COUNT] = { "btime", "mtime", "ctime" };

struct bracket {
	uint64_t rounds, below_before, above_after, above_after_fine;
	int64_t max_above_after_ns;
};

/* One (change, prequery) group: its file and its counts. */
struct group {
	enum change change;
	bool queried;
	char name[32];
	struct mgb_file file;
	bool open;
	mode_t mode;
	int64_t ctime_ns; /* the file's ctime at the last read */
	bool no_btime;    /* the filesystem does not report btime */
	struct bracket b;
	int64_t fine_stamps_global; /* system-wide, during the group; -1 if unknown */
};

/* Wait until the coarse clock is past t, so that a change now takes a coarse stamp even if the
 * file is queried.  Bounded, so that a stamp from the future cannot hang the run. */
static void wait_coarse_past(int64_t t)
{
	int64_t give_up = mgb_clock_ns(CLOCK_MONOTONIC) + 100 * 1000 * 1000;

	while (mgb_clock_ns(CLOCK_REALTIME_COARSE) <= t && mgb_clock_ns(CLOCK_MONOTONIC) < give_up)
		;
}

static int close_file(struct mgb_backend *be, struct group *g)
{
	if (!g->open)
		return 0;
	g->open = false;
	return be->ops->close(be, &g->file);
}

static int do_change(struct mgb_backend *be, struct group *g)
{
	static const char byte = 'x';
	ssize_t n;

	switch (g->change) {
	case CHANGE_CREATE: {
		int r = be->ops->open(be, g->name, O_RDWR | O_CREAT | O_EXCL, 0644, &g->file);

		g->open = r == 0;
		return r;
	}
	case CHANGE_WRITE:
		n = be->ops->pwrite(be, &g->file, &byte, 1, 0);
		return n < 0 ? (int)n : 0;
	case CHANGE_CHMOD:
		g->mode = g->mode == 0644 ? 0600 : 0644;
		return be->ops->fchmod(be, &g->file, g->mode);
	default:
		return -EINVAL;
	}
}

/* Clear the flag the previous round's read armed, without a fine stamp (see the top comment). */
static int undo_query(struct mgb_backend *be, struct group *g)
{
	int r;

	wait_coarse_past(g->ctime_ns);
	if (g->change != CHANGE_CREATE)
		return do_change(be, g);
	if (!g->open)
		return 0;
	r = close_file(be, g);
	return r < 0 ? r : be->ops->unlink(be, g->name);
}

static int read_stamp(struct mgb_backend *be, struct group *g, int64_t *stamp)
{
	struct mgb_stat st;
	int r = be->ops->fstat(be, &g->file, MGB_STAT_TIMES | MGB_STAT_BTIME, &st);

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

static int one_round(struct mgb_ctx *ctx, struct group *g, unsigned ticks)
{
	struct mgb_backend *be = ctx->be;
	struct mgb_stat st;
	int64_t before, after, after_fine, stamp = 0;
	int r;

	r = g->queried ? be->ops->fstat(be, &g->file, MGB_STAT_TIMES, &st) : undo_query(be, g);
	if (r < 0)
		return r;
	before = mgb_clock_ns(CLOCK_REALTIME_COARSE);
	mgb_wait_coarse_ticks(ticks);
	r = do_change(be, g);
	if (r < 0)
		return r;
	mgb_wait_coarse_ticks(ticks);
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
	return 0;
}

static json_t *bracket_json(const struct bracket *b, const char *stamp)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I}",
			      "rounds", (json_int_t)b->rounds,
			      "below_before", (json_int_t)b->below_before,
			      "above_after", (json_int_t)b->above_after,
			      "max_above_after_ns", (json_int_t)b->max_above_after_ns,
			      "above_after_fine", (json_int_t)b->above_after_fine);

	if (stamp)
		json_object_set_new(o, "stamp", json_string(stamp));
	return o;
}

static json_t *group_json(const struct group *g)
{
	json_t *o = bracket_json(&g->b, stamp_names[g->change]);

	/* Unqueried groups take no fine stamps themselves: any counted here came from elsewhere
	 * on the machine and lifted the floor under them. */
	json_object_set_new(o, "fine_stamps_global",
			    g->fine_stamps_global >= 0 ? json_integer(g->fine_stamps_global) : json_null());
	return o;
}

static void bracket_sum(struct bracket *sum, const struct bracket *b)
{
	sum->rounds += b->rounds;
	sum->below_before += b->below_before;
	sum->above_after += b->above_after;
	sum->above_after_fine += b->above_after_fine;
	if (b->max_above_after_ns > sum->max_above_after_ns)
		sum->max_above_after_ns = b->max_above_after_ns;
}

/* The groups --change and --prequery ask for, in run order; returns how many. */
static unsigned plan_groups(const struct statx06_params *p, struct group *groups)
{
	bool want_no = strcmp(p->prequery, "yes") != 0, want_yes = strcmp(p->prequery, "no") != 0;
	unsigned n = 0;

	for (enum change c = 0; c < CHANGE_COUNT; c++) {
		if (strcmp(p->change, "all") && strcmp(p->change, change_names[c]))
			continue;
		for (int queried = 0; queried < 2; queried++) {
			if ((queried && !want_yes) || (!queried && !want_no) || (queried && c == CHANGE_CREATE))
				continue;
			memset(&groups[n], 0, sizeof(groups[n]));
			groups[n].change = c;
			groups[n].queried = queried;
			groups[n].mode = 0644;
			snprintf(groups[n].name, sizeof(groups[n].name), "statx06.%s%s", change_names[c],
				 queried ? ".q" : "");
			n++;
		}
	}
	return n;
}

/* Run one group to the end; on error, its file is left for the caller to close and remove. */
static int run_group(struct mgb_ctx *ctx, struct group *g, uint64_t rounds, unsigned ticks,
		     uint64_t *done, uint64_t total)
{
	struct mgb_backend *be = ctx->be;
	int64_t ignored;
	int r;

	/* Start once the coarse clock has passed every stamp taken so far (earlier groups', the
	 * target setup's), so that no fine stamp from before the group lifts the floor in it. */
	wait_coarse_past(mgb_clock_ns(CLOCK_REALTIME));
	if (g->change != CHANGE_CREATE) {
		r = be->ops->open(be, g->name, O_RDWR | O_CREAT | O_TRUNC, g->mode, &g->file);
		if (r < 0)
			return r;
		g->open = true;
		r = read_stamp(be, g, &ignored);
		if (r < 0)
			return r;
	}
	for (uint64_t i = 0; i < rounds && !g->no_btime && !mgb_stop_requested(); i++) {
		r = one_round(ctx, g, ticks);
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
	struct group groups[2 * CHANGE_COUNT];
	struct bracket all = { 0 };
	uint64_t done = 0;
	unsigned n = plan_groups(p, groups), i;
	int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	int r;

	if (mgb_require_op(ctx, fstat) || mgb_require_op(ctx, pwrite) || mgb_require_op(ctx, fchmod) ||
	    mgb_require_op(ctx, unlink))
		return -1;
	if (n == 0)
		return mgb_err(ctx->err, "--change create needs --prequery no or both: "
			       "a new file cannot have been queried");
	for (i = 0; i < n; i++) {
		struct group *g = &groups[i];
		struct mgb_mg_counters mg_before, mg_after;

		mgb_mg_counters_read(&mg_before);
		r = run_group(ctx, g, ctx->rounds, (unsigned)p->ticks, &done, ctx->rounds * n);
		mgb_mg_counters_read(&mg_after);
		g->fine_stamps_global = mg_before.valid && mg_after.valid ?
			(int64_t)(mg_after.fine_stamps - mg_before.fine_stamps) : -1;
		/* Tidy as we go: every group starts in a directory as clean as the first. */
		close_file(be, g);
		be->ops->unlink(be, g->name);
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
		json_object_set_new(by_change, g->queried ? "queried" : "unqueried",
				    g->no_btime ? json_null() : group_json(g));
		if (g->change == CHANGE_CREATE)
			json_object_set_new(ctx->metrics, "btime_reported", json_boolean(!g->no_btime));
		bracket_sum(&all, &g->b);
	}
	json_object_set_new(ctx->metrics, "all", bracket_json(&all, NULL));
	json_object_set_new(ctx->metrics, "elapsed_ns", json_integer(mgb_clock_ns(CLOCK_MONOTONIC) - t0));
	return 0;
}

const struct mgb_workload mgb_workload_statx06 = {
	.name = "statx06",
	.summary = "LTP statx06's coarse-clock bracket: create, write, chmod",
	.options = statx06_options,
	.params_size = sizeof(struct statx06_params),
	.default_rounds = 300,
	.columns = statx06_columns,
	.run = statx06_run,
};
