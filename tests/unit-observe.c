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
	json_decref(j);

	/* No rounds: ratios are unknown (null), not 0. */
	mgb_obs_init(&o);
	j = mgb_obs_to_json(&o, 8000000, 4000000);
	T_CHECK(json_is_null(json_object_get(j, "distinct_ratio")), "null ratio without rounds");
	T_CHECK(json_is_null(json_object_get(j, "step_ns")), "null steps without rounds");
	json_decref(j);
	return t_result();
}
