/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "affinity.h"
#include "json_text.h"
#include "runner.h"
#include "serve.h"
#include "stop.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

static json_t *target_json(const struct mgb_target *t)
{
	char dev[32];
	json_t *j = MGB_JSON_PACK("{s:s, s:o?, s:s?, s:s?}",
			 "kind", t->fs ? "scratch" : t->path ? "dir" : t->label, /* a server's: "nfs-url" */
			 "fstype", t->fstype ? mgb_json_text(t->fstype) : NULL,
			 "mkfs", t->mkfs_cmd,
			 "mount_options", t->fs ? t->fs->mount_options : NULL);

	if (!t->path)
		return j;
	/* the device whose inodes the tracepoints count: under an overlay, its upper layer's */
	snprintf(dev, sizeof(dev), "%u:%u", t->sb_dev_major, t->sb_dev_minor);
	json_object_set_new(j, "watched_device", json_string(dev));
	if (t->overlay_dev_major || t->overlay_dev_minor) {
		snprintf(dev, sizeof(dev), "%u:%u", t->overlay_dev_major, t->overlay_dev_minor);
		const struct mgb_copy_up *c = &t->copy_up;

		json_object_set_new(j, "overlay", MGB_JSON_PACK("{s:s, s:o?, s:o?}", "device", dev,
							    "upper_fstype", t->upper_fstype ? mgb_json_text(t->upper_fstype) : NULL,
							    "options", t->overlay_options ? mgb_json_text(t->overlay_options) : NULL));
		if (c->probed)
			json_object_set_new(json_object_get(j, "overlay"), "copy_up",
					    MGB_JSON_PACK("{s:b, s:b, s:b, s:b, s:b, s:b, s:b}", "lower_shown", c->lower_shown,
							  "copied_up", c->copied_up, "mtime_kept", c->mtime_kept,
							  "ctime_moved", c->ctime_moved, "written", c->written,
							  "matches_upper", c->matches_upper, "nsec_below_1e9", c->nsec_ok));
	}
	return j;
}

/* cell.target for a cell that never made its target: what the plan says, and null for what only
 * a made target knows (the mounted type, the mkfs command line). */
static json_t *unmade_target_json(const struct mgb_cell_spec *spec, const char *url)
{
	return MGB_JSON_PACK("{s:s, s:n, s:n, s:s?}",
			 "kind", spec->fs ? "scratch" : url ? "nfs-url" : "dir",
			 "fstype", "mkfs",
			 "mount_options", spec->fs ? spec->fs->mount_options : NULL);
}

/* ctx->crash and ctx->remount: what the crash workload calls; the target side does both. */
struct crash_arg {
	const struct mgb_cell_spec *spec;
	struct mgb_served *sv;
};

static int crash_target(struct mgb_ctx *ctx, bool flush_log)
{
	struct crash_arg *a = ctx->crash_arg;

	return mgb_served_crash(a->sv, flush_log);
}

static int remount_target(struct mgb_ctx *ctx, char *err)
{
	struct crash_arg *a = ctx->crash_arg;

	mgb_backend_close(ctx->be);
	if (mgb_served_recover(a->sv, err) < 0)
		return -1;
	if (mgb_backend_open(ctx->be, a->spec->backend, a->spec->backend_params, a->sv->root, err) < 0) {
		ctx->be->ops = NULL; /* nothing to close: the cell fails with err */
		return -1;
	}
	return 0;
}

/* Is multigrain in effect on the cell's filesystem?  Asked before the counters' window opens,
 * on the target's path, which the evidence names (over a protocol, the served filesystem). */
static json_t *evidence_json(const struct mgb_served *sv, const struct mgb_clockinfo *ci)
{
	json_t *e;

	if (!sv->target.path)
		return MGB_JSON_PACK("{s:n, s:{s:s}}", "in_effect", "evidence", "reason",
				     "the server's filesystem is not visible from here");
	e = mgb_mgtime_evidence_json(&sv->target, ci);
	json_object_set_new(e, "about", json_string(mgb_served_evidence_about(sv)));
	return e;
}

/* The evidence's answer for the workload: 1, 0, or -1 when the probe could not tell. */
static int in_effect(json_t *evidence)
{
	json_t *v = json_object_get(evidence, "in_effect");

	return json_is_true(v) ? 1 : json_is_false(v) ? 0 : -1;
}

/* cell.warnings: what makes the cell mean less than its workload says, on this machine. */
static void warn_cell(json_t *cell, const struct mgb_cell_spec *spec)
{
	const struct mgb_workload *w = spec->workload;
	int cpu[2];
	char msg[300];

	if (!w->needs_two_cpus || !w->needs_two_cpus(spec->params))
		return;
	/* the CPUs the workload's own threads would be pinned to (its affinity, which a container
	 * or taskset narrows) */
	mgb_pick_two_cpus(cpu);
	if (cpu[0] >= 0)
		return;
	snprintf(msg, sizeof(msg), "%s with these options runs two threads side by side, and this machine gives "
		 "it one CPU: they only take turns (in a guest, give vm --cpus 2)", w->name);
	json_object_set_new(cell, "warnings", json_pack("[o]", mgb_json_text(msg)));
}

/* The workload's own warnings after the runner's; takes them. */
static void append_warnings(json_t *cell, json_t *more)
{
	json_t *w = json_object_get(cell, "warnings");

	if (json_array_size(more) && !w)
		json_object_set(cell, "warnings", more);
	else if (json_array_size(more))
		json_array_extend(w, more);
	json_decref(more);
}

json_t *mgb_run_cell(struct mgb_session *s, const struct mgb_cell_spec *spec, const struct mgb_clockinfo *ci,
		     struct mgb_progress *progress)
{
	struct mgb_served sv;
	struct crash_arg crash_arg;
	struct mgb_serve_how how = mgb_backend_serve_how(spec->backend, spec->backend_params);
	const struct mgb_target *t = &sv.target;
	const char *url = how.url;
	struct mgb_backend be = { 0 };
	struct mgb_mg_counters before, after;
	struct mgb_ctx ctx;
	const char *status = "ok";
	char err[MGB_ERR_LEN] = "", comm[16], label[48];
	json_t *cell, *metrics = json_object();
	int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC), run_ns = 0, server_start_ns = 0;
	double setup_s = 0;
	bool unsupported = false;
	int r;

	cell = MGB_JSON_PACK("{s:s, s:s, s:o, s:i, s:I, s:o}",
			 "workload", spec->workload->name,
			 "fs", spec->fs ? spec->fs->name : url ? "url" : "dir",
			 "backend", mgb_backend_to_json(spec->backend, spec->backend_params),
			 "repeat", (int)spec->repeat,
			 "rounds", (json_int_t)spec->rounds,
			 "params", mgb_params_to_json(spec->workload, spec->params));

	warn_cell(cell, spec);
	/* A backend that lacks an operation the workload needs: say so before any mkfs or server. */
	if (mgb_backend_require(spec->backend, mgb_workload_needs_ops(spec->workload, spec->params), err) < 0) {
		json_object_set_new(cell, "target", unmade_target_json(spec, url));
		unsupported = true;
		r = -1;
		goto done;
	}
	r = mgb_serve_up(s, spec->fs, spec->dir, &how, &sv, err);
	unsupported = sv.unsupported;
	json_object_set_new(cell, "target", target_json(t));
	if (sv.reach != MGB_REACH_LOCAL)
		json_object_set_new(cell, "server", mgb_served_server_json(&sv));
	if (r == 0) {
		r = mgb_backend_open(&be, spec->backend, spec->backend_params, sv.root, err);
		if (r < 0 && mgb_served_death(&sv)) {
			char why[MGB_ERR_LEN];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, MGB_ERR_LEN, "%s: %.*s", mgb_served_death(&sv), MGB_ERR_LEN - 60, why);
		}
	}
	if (r == 0 && !mgb_stop_requested()) {
		memset(&ctx, 0, sizeof(ctx));
		ctx.be = &be;
		ctx.target = t;
		ctx.session = spec->fs ? s : NULL;
		if (mgb_served_can_crash(&sv)) {
			crash_arg = (struct crash_arg){ spec, &sv };
			ctx.crash = crash_target;
			ctx.remount = remount_target;
			ctx.crash_arg = &crash_arg;
		}
		ctx.params = spec->params;
		ctx.rounds = spec->rounds;
		ctx.clock = ci;
		ctx.progress = progress;
		ctx.metrics = metrics;
		ctx.warnings = json_array();
		/* Name the task after the workload: easy to find in traces. */
		snprintf(comm, sizeof(comm), "mgb-%s", spec->workload->name);
		prctl(PR_SET_NAME, comm);
		snprintf(label, sizeof(label), "%s on %s", spec->workload->name, t->label);
		json_object_set_new(cell, "multigrain", evidence_json(&sv, ci));
		ctx.multigrain = in_effect(json_object_get(cell, "multigrain"));
		ctx.local_dir = mgb_served_local_dir(&sv);
		/* The probe's own fine stamps lifted the floor: start once the coarse clock is past
		 * them, or the workload's first coarse stamps would be the probe's floor. */
		if (t->path)
			mgb_wait_coarse_past(mgb_clock_ns(CLOCK_REALTIME));
		mgb_progress_begin(progress, label);
		mgb_mg_counters_read(&before);
		run_ns = mgb_clock_ns(CLOCK_MONOTONIC);
		r = spec->workload->run(&ctx);
		run_ns = mgb_clock_ns(CLOCK_MONOTONIC) - run_ns;
		mgb_mg_counters_read(&after);
		mgb_progress_end(progress);
		if (r < 0) {
			const char *death = mgb_served_death(&sv);

			/* A dead server explains the failure first: the workload's message may be cut. */
			if (death)
				snprintf(err, sizeof(err), "%s: %.*s", death, (int)sizeof(err) - 40, ctx.err);
			else
				snprintf(err, sizeof(err), "%s", ctx.err);
		}
		unsupported = ctx.unsupported;
		if (r < 0 && be.ops && be.ops->unsupported) { /* none after a failed remount */
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
		append_warnings(cell, ctx.warnings);
		if (r == 0 && be.ops->cell_metrics) {
			json_t *bm = be.ops->cell_metrics(&be);

			if (bm)
				json_object_set_new(cell, "backend_metrics", bm);
		}
	}
	if (be.ops)
		mgb_backend_close(&be);
	server_start_ns = mgb_served_start_ns(&sv);
	setup_s = t->setup_s;
	mgb_serve_down(&sv);
done:
	if (r < 0) {
		/* a workload that failed once a stop was requested was stopped: the error says where */
		status = unsupported ? "unsupported" : mgb_stop_requested() ? "interrupted" : "error";
		json_object_set_new(cell, "error", mgb_json_text(err));
		json_decref(metrics);
		metrics = json_null();
	} else if (mgb_stop_requested()) {
		status = "interrupted";
	}
	json_object_set_new(cell, "status", json_string(status));
	json_object_set_new(cell, "metrics", metrics);
	json_object_set_new(cell, "timings", MGB_JSON_PACK("{s:f, s:o?, s:I, s:I}",
						       "setup_s", setup_s,
						       "server_start_ns", server_start_ns ? json_integer(server_start_ns) : NULL,
						       "run_ns", (json_int_t)run_ns,
						       "cell_ns", (json_int_t)(mgb_clock_ns(CLOCK_MONOTONIC) - t0)));
	return cell;
}
