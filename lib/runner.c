#include "config.h"
#include "json_text.h"
#include "runner.h"
#include "stop.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

static json_t *target_json(const struct mgb_target *t)
{
	return MGB_JSON_PACK("{s:s, s:o?, s:s?, s:s?}",
			 "kind", t->fs ? "scratch" : "dir",
			 "fstype", t->fstype ? mgb_json_text(t->fstype) : NULL,
			 "mkfs", t->mkfs_cmd,
			 "mount_options", t->fs ? t->fs->mount_options : NULL);
}

json_t *mgb_run_cell(struct mgb_session *s, const struct mgb_cell_spec *spec, const struct mgb_clockinfo *ci,
		     struct mgb_progress *progress)
{
	struct mgb_target t;
	struct mgb_backend be = { 0 };
	struct mgb_mg_counters before, after;
	struct mgb_ctx ctx;
	const char *status = "ok";
	char err[MGB_ERR_LEN] = "", comm[16], label[48];
	json_t *cell, *metrics = json_object();
	int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC), run_ns = 0;
	double setup_s;
	bool unsupported = false;
	int r;

	cell = MGB_JSON_PACK("{s:s, s:s, s:o, s:i, s:I, s:o}",
			 "workload", spec->workload->name,
			 "fs", spec->fs ? spec->fs->name : "dir",
			 "backend", mgb_backend_to_json(spec->backend, spec->backend_params),
			 "repeat", (int)spec->repeat,
			 "rounds", (json_int_t)spec->rounds,
			 "params", mgb_params_to_json(spec->workload, spec->params));

	r = spec->fs ? mgb_target_scratch(s, spec->fs, &t, err) : mgb_target_dir(spec->dir, &t, err);
	json_object_set_new(cell, "target", target_json(&t));
	if (r == 0)
		r = mgb_backend_open(&be, spec->backend, spec->backend_params, t.path, err);
	if (r == 0 && !mgb_stop_requested()) {
		memset(&ctx, 0, sizeof(ctx));
		ctx.be = &be;
		ctx.target = &t;
		ctx.session = spec->fs ? s : NULL;
		ctx.params = spec->params;
		ctx.rounds = spec->rounds;
		ctx.clock = ci;
		ctx.progress = progress;
		ctx.metrics = metrics;
		/* Name the task after the workload: easy to find in traces. */
		snprintf(comm, sizeof(comm), "mgb-%s", spec->workload->name);
		prctl(PR_SET_NAME, comm);
		snprintf(label, sizeof(label), "%s on %s", spec->workload->name, t.label);
		/* Is multigrain in effect here?  Asked before the counters' window opens. */
		json_object_set_new(cell, "multigrain", mgb_mgtime_evidence_json(&t, ci));
		mgb_progress_begin(progress, label);
		mgb_mg_counters_read(&before);
		run_ns = mgb_clock_ns(CLOCK_MONOTONIC);
		r = spec->workload->run(&ctx);
		run_ns = mgb_clock_ns(CLOCK_MONOTONIC) - run_ns;
		mgb_mg_counters_read(&after);
		mgb_progress_end(progress);
		if (r < 0)
			snprintf(err, sizeof(err), "%s", ctx.err);
		unsupported = ctx.unsupported;
		if (r < 0 && be.ops->unsupported) {
			const char *what = be.ops->unsupported(&be);

			if (what) {
				/* the opcode first: the workload's message may be cut */
				int n = snprintf(err, sizeof(err), "backend '%s': the kernel lacks %s (", be.ops->name,
						 what);

				if (n > 0 && (size_t)n < sizeof(err))
					snprintf(err + n, sizeof(err) - (size_t)n, "%.*s)", (int)(sizeof(err) - (size_t)n - 2),
						 ctx.err);
				unsupported = true;
			}
		}
		/* The workload's measured window where it marked one, else all of run(). */
		if (ctx.measured_ended) {
			before = ctx.measured_before;
			after = ctx.measured_after;
		}
		json_object_set_new(cell, "counters", MGB_JSON_PACK("{s:o, s:s}", "multigrain",
								mgb_mg_counters_delta_json(&before, &after),
								"window", ctx.measured_ended ? "measured" : "run"));
		if (r == 0 && be.ops->cell_metrics) {
			json_t *bm = be.ops->cell_metrics(&be);

			if (bm)
				json_object_set_new(cell, "backend_metrics", bm);
		}
	}
	if (be.ops)
		mgb_backend_close(&be);
	setup_s = t.setup_s;
	mgb_target_down(&t);

	if (r < 0) {
		status = unsupported ? "unsupported" : "error";
		json_object_set_new(cell, "error", mgb_json_text(err));
		json_decref(metrics);
		metrics = json_null();
	} else if (mgb_stop_requested()) {
		status = "interrupted";
	}
	json_object_set_new(cell, "status", json_string(status));
	json_object_set_new(cell, "metrics", metrics);
	json_object_set_new(cell, "timings", MGB_JSON_PACK("{s:f, s:I, s:I}",
						       "setup_s", setup_s,
						       "run_ns", (json_int_t)run_ns,
						       "cell_ns", (json_int_t)(mgb_clock_ns(CLOCK_MONOTONIC) - t0)));
	return cell;
}
