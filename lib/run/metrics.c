/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers that put the numbers every workload reports into its cell, named the same way everywhere. */
#include "config.h"
#include "observe.h"
#include "util.h"
#include "workload.h"

void mgb_put_rate(struct mgb_ctx *ctx, const char *key, uint64_t n, int64_t elapsed_ns)
{
	json_object_set_new(ctx->metrics, "elapsed_ns", json_integer(elapsed_ns));
	json_object_set_new(ctx->metrics, key, json_real(mgb_per_s(n, elapsed_ns)));
}

void mgb_put_stamps(struct mgb_ctx *ctx, const char *key, const struct mgb_stamp_obs *o, int64_t elapsed_ns)
{
	json_object_set_new(ctx->metrics, key, mgb_obs_to_json(o, elapsed_ns, ctx->clock->coarse_tick_ns));
}

void mgb_measure_begin(struct mgb_ctx *ctx)
{
	mgb_mg_counters_read(&ctx->measured_before);
	ctx->measured_begun = true;
	ctx->measured_ended = false;
}

void mgb_measure_end(struct mgb_ctx *ctx)
{
	if (!ctx->measured_begun || ctx->measured_ended)
		return;
	mgb_mg_counters_read(&ctx->measured_after);
	ctx->measured_ended = true;
}
