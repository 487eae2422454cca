/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: the streaming stamp observer (distinct, backwards, future, steps, per-tick, JSON). */
#include "config.h"
#include "helpers.h"
#include "observe.h"

#include <math.h>

int main(void)
{
	static struct mgb_stamp_obs o;
	json_t *j;

	/* Strictly increasing stamps, all in the past: every round distinct, nothing wrong. */
	mgb_obs_init(&o);
	mgb_obs_baseline(&o, 1000);
	for (int i = 1; i <= 100; i++)
		mgb_obs_add(&o, 1000 + i * 10, 1000000);
	T_CHECK(o.rounds == 100 && o.distinct == 100, "rounds %llu distinct %llu",
		(unsigned long long)o.rounds, (unsigned long long)o.distinct);
	T_CHECK(o.backwards == 0 && o.future == 0, "no backwards, no future");
	T_CHECK(mgb_obs_distinct_ratio(&o) == 1.0, "ratio 1");
	T_CHECK(o.steps.min == 10 && o.steps.max == 10, "steps all 10");

	/* Repeated values are not distinct; a step back is counted with its size; a stamp after now is future. */
	mgb_obs_init(&o);
	mgb_obs_baseline(&o, 5000);
	mgb_obs_add(&o, 5000, 10000);  /* same: not distinct */
	mgb_obs_add(&o, 6000, 10000);  /* distinct */
	mgb_obs_add(&o, 5500, 10000);  /* backwards by 500, distinct */
	mgb_obs_add(&o, 20000, 10000); /* future by 10000 */
	T_CHECK(o.rounds == 4, "rounds %llu", (unsigned long long)o.rounds);
	T_CHECK(o.distinct == 3, "distinct %llu", (unsigned long long)o.distinct);
	T_CHECK(o.backwards == 1 && o.worst_backwards_ns == 500, "backwards %llu worst %lld",
		(unsigned long long)o.backwards, (long long)o.worst_backwards_ns);
	T_CHECK(o.future == 1 && o.worst_future_ns == 10000, "future %llu worst %lld",
		(unsigned long long)o.future, (long long)o.worst_future_ns);
	T_CHECK(fabs(mgb_obs_distinct_ratio(&o) - 0.75) < 1e-9, "ratio 0.75");

	/* Per tick: 3 distinct over 2 ticks of 4 ms = 1.5; a run shorter than a tick counts as one tick. */
	T_CHECK(fabs(mgb_obs_distinct_per_tick(&o, 8000000, 4000000) - 1.5) < 1e-9, "per tick 1.5");
	T_CHECK(fabs(mgb_obs_distinct_per_tick(&o, 1000, 4000000) - 3.0) < 1e-9, "short run: one tick");

	j = mgb_obs_to_json(&o, 8000000, 4000000);
	T_CHECK(json_integer_value(json_object_get(j, "distinct")) == 3, "json distinct");
	T_CHECK(json_integer_value(json_object_get(j, "backwards")) == 1, "json backwards");
	T_CHECK(json_integer_value(json_object_get(json_object_get(j, "step_ns"), "max")) == 14500, "json step max");
	/* The backwards step (-500) is the exact min, not 0. */
	T_CHECK(json_integer_value(json_object_get(json_object_get(j, "step_ns"), "min")) == -500, "json step min %lld",
		(long long)json_integer_value(json_object_get(json_object_get(j, "step_ns"), "min")));
	{
		/* Steps 0, 1000, -500, 14500: buckets [-500, 0] (the 0 and the -500), 1000's, 14500's. */
		json_t *b = json_object_get(json_object_get(j, "step_ns"), "buckets");
		json_int_t want[3][3] = { { -500, 0, 2 }, { 992, 1007, 1 }, { 14336, 14500, 1 } };

		T_CHECK(json_array_size(b) == 3, "three buckets, got %zu", json_array_size(b));
		for (size_t i = 0; i < 3 && json_array_size(b) == 3; i++)
			for (size_t k = 0; k < 3; k++)
				T_CHECK(json_integer_value(json_array_get(json_array_get(b, i), k)) == want[i][k],
					"bucket %zu field %zu: %lld, want %lld", i, k,
					(long long)json_integer_value(json_array_get(json_array_get(b, i), k)),
					(long long)want[i][k]);
	}
	json_decref(j);

	/* A rebase (meta's undo query) is checked for backwards and future but is not a round. */
	mgb_obs_init(&o);
	mgb_obs_baseline(&o, 5000);
	mgb_obs_add(&o, 6000, 10000);
	mgb_obs_rebase(&o, 5900, 10000);  /* backwards by 100 */
	mgb_obs_rebase(&o, 30000, 10000); /* future by 20000 */
	mgb_obs_add(&o, 30000, 40000);    /* same as the rebase: not distinct */
	T_CHECK(o.rounds == 2 && o.distinct == 1, "rounds %llu distinct %llu", (unsigned long long)o.rounds,
		(unsigned long long)o.distinct);
	T_CHECK(o.backwards == 1 && o.worst_backwards_ns == 100, "rebase backwards %llu", (unsigned long long)o.backwards);
	T_CHECK(o.future == 1 && o.worst_future_ns == 20000, "rebase future %llu", (unsigned long long)o.future);

	/* No rounds: ratios are unknown (null), not 0. */
	mgb_obs_init(&o);
	j = mgb_obs_to_json(&o, 8000000, 4000000);
	T_CHECK(json_is_null(json_object_get(j, "distinct_ratio")), "null ratio without rounds");
	T_CHECK(json_is_null(json_object_get(j, "step_ns")), "null steps without rounds");
	json_decref(j);
	return t_result();
}
