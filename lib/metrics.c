/* Helpers that put the numbers every workload reports into its cell, named the same way everywhere. */
#include "config.h"
#include "observe.h"
#include "util.h"
#include "workload.h"

void mgb_put_rate(struct mgb_ctx *ctx, uint64_t ops, int64_t elapsed_ns)
{
	json_object_set_new(ctx->metrics, "elapsed_ns", json_integer(elapsed_ns));
	json_object_set_new(ctx->metrics, "ops_per_s", json_real(mgb_per_s(ops, elapsed_ns)));
}

void mgb_put_stamps(struct mgb_ctx *ctx, const char *key, const struct mgb_stamp_obs *o, int64_t elapsed_ns)
{
	json_object_set_new(ctx->metrics, key, mgb_obs_to_json(o, elapsed_ns, ctx->clock->coarse_tick_ns));
}
