/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The global multigrain counters in debugfs.  They move with unrelated activity: record, don't attribute. */
#include "config.h"
#include "json_text.h"
#include "probe.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void mgb_mg_counters_read(struct mgb_mg_counters *c)
{
	FILE *f = fopen(MGB_DEBUGFS_COUNTERS, "re");

	memset(c, 0, sizeof(*c));
	if (!f)
		return;
	c->valid = fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &c->ctime_updates,
			  &c->ctime_swaps, &c->fine_stamps, &c->floor_swaps) == 4;
	fclose(f);
}

json_t *mgb_mg_counters_delta_json(const struct mgb_mg_counters *b, const struct mgb_mg_counters *a)
{
	if (!b->valid || !a->valid)
		return json_null();
	return MGB_JSON_PACK("{s:I, s:I, s:I, s:I}",
			 "ctime_updates", (json_int_t)(a->ctime_updates - b->ctime_updates),
			 "ctime_swaps", (json_int_t)(a->ctime_swaps - b->ctime_swaps),
			 "fine_stamps", (json_int_t)(a->fine_stamps - b->fine_stamps),
			 "floor_swaps", (json_int_t)(a->floor_swaps - b->floor_swaps));
}
