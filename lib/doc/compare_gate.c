/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The regression gate over a comparison: did a named metric get worse beyond noise in any
 * document, or could it not be judged?  compare --fail-on-regression asks it, and so does ab.
 */
#include "config.h"
#include "compare.h"
#include "util.h"
#include "workload.h"

#include <stdio.h>
#include <string.h>

static bool is_verdict(json_t *v, const char *name)
{
	return !strcmp(json_string_value(json_object_get(v, "verdict")) ?: "", name);
}

/* Every compared metric's names, for a message when a name matches none. */
static void list_names(json_t *cmp, char *buf, size_t len)
{
	size_t i, j, n = 0;
	json_t *c, *m;

	*buf = '\0';
	json_array_foreach(json_object_get(cmp, "cells"), i, c)
		json_array_foreach(json_object_get(c, "metrics"), j, m) {
			const char *path = json_string_value(json_object_get(m, "metric"));

			if (i == 0 || !strstr(buf, path))
				n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s'%s' (%s)", n ? ", " : "",
						      json_string_value(json_object_get(m, "header")), path);
		}
}

/* Exit 1 if a named metric got worse beyond noise in any document; EXIT_UNJUDGED if none got
 * worse but one could not be judged: a gate must never pass silently. */
int mgb_compare_gate(json_t *cmp, const char *const *names, unsigned n, FILE *msgs, char *err)
{
	unsigned worse = 0, unjudged = 0;
	size_t i, j, k;
	json_t *c, *m, *v;

	for (unsigned x = 0; x < n; x++) {
		bool seen = false;

		json_array_foreach(json_object_get(cmp, "cells"), i, c)
			json_array_foreach(json_object_get(c, "metrics"), j, m) {
				if (!mgb_compare_name_matches(names[x], json_string_value(json_object_get(m, "metric")),
							      json_string_value(json_object_get(m, "header"))))
					continue;
				seen = true;
				json_array_foreach(json_object_get(m, "against_base"), k, v) {
					if (k == 0)
						continue;
					if (is_verdict(v, "worse")) {
						fprintf(msgs, "mgbench compare: regression: %s of %s on %s got worse in %c\n",
							mgb_compare_safe(names[x]), mgb_compare_safe(json_string_value(json_object_get(c, "workload"))),
							mgb_compare_safe(json_string_value(json_array_get(json_object_get(c, "fs"), k))),
							mgb_compare_letter(k));
						worse++;
					} else if (!is_verdict(v, "no change") && !is_verdict(v, "better") &&
						   !is_verdict(v, "changed")) {
						fprintf(msgs, "mgbench compare: not judged: %s of %s on %s in %c: %s\n",
							mgb_compare_safe(names[x]), mgb_compare_safe(json_string_value(json_object_get(c, "workload"))),
							mgb_compare_safe(json_string_value(json_array_get(json_object_get(c, "fs"), k))),
							mgb_compare_letter(k), mgb_compare_safe(json_string_value(json_object_get(v, "verdict"))));
						unjudged++;
					}
				}
			}
		if (!seen) {
			char list[2000];

			list_names(cmp, list, sizeof(list));
			return mgb_err(err, "no compared metric is named '%s' (%s)", names[x],
				       *list ? list : "nothing was compared");
		}
	}
	return worse ? MGB_GATE_REGRESSION : unjudged ? MGB_GATE_UNJUDGED : MGB_GATE_PASS;
}

/* Whether any matched cell is of a workload this mgbench knows (has columns to judge). */
bool mgb_compare_any_known(json_t *cmp)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(cmp, "cells"), i, c)
		if (json_is_true(json_object_get(c, "known_workload")))
			return true;
	return false;
}

/* A --metrics name that matches no compared column is a typo, not an empty table. */
const char *mgb_compare_unknown_metric(json_t *cmp, const char *const *names, unsigned n)
{
	for (unsigned x = 0; x < n; x++) {
		size_t i, j;
		json_t *c, *m;
		bool seen = false;

		json_array_foreach(json_object_get(cmp, "cells"), i, c)
			json_array_foreach(json_object_get(c, "metrics"), j, m)
				seen |= mgb_compare_name_matches(names[x], json_string_value(json_object_get(m, "metric")),
								 json_string_value(json_object_get(m, "header")));
		if (!seen)
			return names[x];
	}
	return NULL;
}

bool mgb_compare_column_known(const struct mgb_workload *const *w, unsigned n, const char *name, char *cols,
			      size_t len)
{
	size_t used = 0;

	if (cols && len)
		*cols = '\0';
	for (unsigned i = 0; i < n; i++)
		for (const struct mgb_column *c = w[i] ? w[i]->columns : NULL; c && c->header; c++) {
			if (mgb_compare_name_matches(name, c->path, c->header))
				return true;
			if (cols && used < len)
				used += (size_t)snprintf(cols + used, len - used, "%s%s", used ? ", " : "", c->header);
		}
	return false;
}
