/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "json_text.h"
#include "observe.h"
#include "util.h"

#include <string.h>

void mgb_obs_init(struct mgb_stamp_obs *o)
{
	memset(o, 0, sizeof(*o));
	o->keep_steps = true;
	mgb_hist_init(&o->steps);
}

void mgb_obs_init_counts_only(struct mgb_stamp_obs *o)
{
	mgb_obs_init(o);
	o->keep_steps = false;
}

void mgb_obs_baseline(struct mgb_stamp_obs *o, int64_t stamp_ns)
{
	o->has_prev = true;
	o->prev_ns = stamp_ns;
}

double mgb_obs_distinct_ratio(const struct mgb_stamp_obs *o)
{
	return o->rounds ? (double)o->distinct / (double)o->rounds : 0.0;
}

double mgb_obs_distinct_per_tick(const struct mgb_stamp_obs *o, int64_t elapsed_ns, int64_t tick_ns)
{
	return mgb_per_tick(o->distinct, elapsed_ns, tick_ns);
}

/* The non-empty step buckets, [[lo_ns, hi_ns, count], ...], at most MGB_HIST_MAX_RANGES. */
static json_t *buckets_json(const struct mgb_hist *h)
{
	struct mgb_hist_range r[MGB_HIST_MAX_RANGES];
	unsigned n = mgb_hist_ranges(h, r, MGB_HIST_MAX_RANGES);
	json_t *a = json_array();

	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, MGB_JSON_PACK("[I, I, I]", (json_int_t)r[i].lo, (json_int_t)r[i].hi,
						   (json_int_t)r[i].count));
	return a;
}

/* Ratios and quantiles of nothing are unknown (null), not zero. */
json_t *mgb_obs_to_json(const struct mgb_stamp_obs *o, int64_t elapsed_ns, int64_t tick_ns)
{
	json_t *steps = json_null();

	if (o->steps.n)
		steps = MGB_JSON_PACK("{s:I, s:I, s:I, s:I, s:I, s:o}",
				  "count", (json_int_t)o->steps.n,
				  "min", (json_int_t)o->steps.min,
				  "p50", (json_int_t)mgb_hist_quantile(&o->steps, 0.50),
				  "p99", (json_int_t)mgb_hist_quantile(&o->steps, 0.99),
				  "max", (json_int_t)o->steps.max,
				  "buckets", buckets_json(&o->steps));
	return MGB_JSON_PACK("{s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:I, s:o}",
			 "rounds", (json_int_t)o->rounds,
			 "distinct", (json_int_t)o->distinct,
			 "distinct_ratio", o->rounds ? json_real(mgb_obs_distinct_ratio(o)) : json_null(),
			 "distinct_per_tick", o->rounds ? json_real(mgb_obs_distinct_per_tick(o, elapsed_ns, tick_ns))
							: json_null(),
			 "backwards", (json_int_t)o->backwards,
			 "worst_backwards_ns", (json_int_t)o->worst_backwards_ns,
			 "future", (json_int_t)o->future,
			 "worst_future_ns", (json_int_t)o->worst_future_ns,
			 "step_ns", steps);
}
