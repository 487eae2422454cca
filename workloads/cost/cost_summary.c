/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cost: medians over cycles and the ratios against the controls, from the phases' records. */
#include "config.h"
#include "json_text.h"
#include "stats.h"
#include "cost.h"

#include <math.h>
#include <string.h>

/* Median, min and max of a number over the phases of one kind. */
json_t *cost_over_cycles(json_t *phases, enum cost_kind k, const char *key, const char *sub)
{
	double v[MAX_CYCLES], lo, hi;
	size_t n = 0, i;
	json_t *ph;

	json_array_foreach(phases, i, ph) {
		json_t *x = sub ? json_object_get(json_object_get(ph, sub), key) : json_object_get(ph, key);

		if (!strcmp(json_string_value(json_object_get(ph, "kind")), cost_kind_names[k]) && json_is_number(x) &&
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

double cost_median_of(json_t *o)
{
	json_t *m = json_object_get(o, "median");

	return json_is_number(m) ? json_number_value(m) : NAN;
}

/* The median of a spread as a number, or null; takes the spread. */
json_t *cost_median_json(json_t *spread)
{
	double m = cost_median_of(spread);

	json_decref(spread);
	return isnan(m) ? json_null() : json_real(m);
}

json_t *cost_ratio_json(double a, double b)
{
	return isnan(a) || isnan(b) || b == 0 ? json_null() : json_real(a / b);
}

/* Per kind, the median over cycles of every *_per_1000 figure of the phases' sub-object. */
json_t *cost_per_1000_medians(json_t *phases, enum cost_kind k, const char *sub)
{
	json_t *o = json_object(), *first = json_object_get(json_array_get(phases, 0), sub), *v;
	const char *key;

	json_object_foreach(first, key, v) {
		size_t n = strlen(key);

		if (n > 9 && !strcmp(key + n - 9, "_per_1000"))
			json_object_set_new(o, key, cost_median_json(cost_over_cycles(phases, k, key, sub)));
	}
	return o;
}

/* ctime's figure minus size's, for each *_per_1000 key both have. */
json_t *cost_extra_per_1000(json_t *ctime, json_t *size)
{
	json_t *o = json_object(), *v;
	const char *key;

	json_object_foreach(ctime, key, v) {
		json_t *w = json_object_get(size, key);

		json_object_set_new(o, key, json_is_number(v) && json_is_number(w)
						    ? json_real(json_number_value(v) - json_number_value(w))
						    : json_null());
	}
	return o;
}
