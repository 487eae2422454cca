/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Streaming metrics over observed timestamps of one inode, defined once here for every workload
 * (man/mgbench-workloads.7 documents them).
 *
 * Feed it the baseline stamp (a query before the first change), then one stamp per queried round:
 *   distinct   rounds whose stamp differs from the previous query's
 *   backwards  rounds whose stamp is earlier than the previous query's (must be 0)
 *   future     stamps later than CLOCK_REALTIME read right after the query (must be 0)
 *   steps      the distribution of stamp - previous stamp, in ns (zero steps included)
 * Nothing grows with the number of rounds.
 */
#ifndef MGB_OBSERVE_H
#define MGB_OBSERVE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "histogram.h"

struct mgb_stamp_obs {
	bool has_prev;
	int64_t prev_ns;
	uint64_t rounds;
	uint64_t distinct;
	uint64_t backwards;
	int64_t worst_backwards_ns;
	uint64_t future;
	int64_t worst_future_ns;
	bool keep_steps; /* false: no step histogram (its JSON is null), a little cheaper per round */
	struct mgb_hist steps;
};

void mgb_obs_init(struct mgb_stamp_obs *o);
/* An observer that counts but keeps no step distribution (for a second stamp of the same round). */
void mgb_obs_init_counts_only(struct mgb_stamp_obs *o);
void mgb_obs_baseline(struct mgb_stamp_obs *o, int64_t stamp_ns);

/* One queried round: stamp as returned, now_ns = CLOCK_REALTIME read after the query. */
static inline void mgb_obs_add(struct mgb_stamp_obs *o, int64_t stamp_ns, int64_t now_ns)
{
	if (stamp_ns > now_ns) {
		o->future++;
		if (stamp_ns - now_ns > o->worst_future_ns)
			o->worst_future_ns = stamp_ns - now_ns;
	}
	if (o->has_prev) {
		int64_t step = stamp_ns - o->prev_ns;

		o->rounds++;
		if (step != 0)
			o->distinct++;
		if (step < 0) {
			o->backwards++;
			if (-step > o->worst_backwards_ns)
				o->worst_backwards_ns = -step;
		}
		if (o->keep_steps)
			mgb_hist_add(&o->steps, step);
	}
	o->has_prev = true;
	o->prev_ns = stamp_ns;
}

/*
 * A stamp that is checked (future, backwards against the previous one) but is not a measured
 * round: it becomes the baseline of the next round (meta's undo query).
 */
static inline void mgb_obs_rebase(struct mgb_stamp_obs *o, int64_t stamp_ns, int64_t now_ns)
{
	if (stamp_ns > now_ns) {
		o->future++;
		if (stamp_ns - now_ns > o->worst_future_ns)
			o->worst_future_ns = stamp_ns - now_ns;
	}
	if (o->has_prev && stamp_ns < o->prev_ns) {
		o->backwards++;
		if (o->prev_ns - stamp_ns > o->worst_backwards_ns)
			o->worst_backwards_ns = o->prev_ns - stamp_ns;
	}
	o->has_prev = true;
	o->prev_ns = stamp_ns;
}

double mgb_obs_distinct_ratio(const struct mgb_stamp_obs *o);
/* distinct values per elapsed coarse tick: tick_ns is the measured coarse clock step. */
double mgb_obs_distinct_per_tick(const struct mgb_stamp_obs *o, int64_t elapsed_ns, int64_t tick_ns);

/* {"rounds", "distinct", "distinct_ratio", "distinct_per_tick", "backwards", "future", "step_ns": {...}} */
json_t *mgb_obs_to_json(const struct mgb_stamp_obs *o, int64_t elapsed_ns, int64_t tick_ns);

#endif
