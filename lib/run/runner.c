/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "json_text.h"
#include "runner.h"
#include "stop.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static json_t *target_json(const struct mgb_target *t)
{
	return MGB_JSON_PACK("{s:s, s:o?, s:s?, s:s?}",
			 "kind", t->fs ? "scratch" : t->path ? "dir" : "nfs-url",
			 "fstype", t->fstype ? mgb_json_text(t->fstype) : NULL,
			 "mkfs", t->mkfs_cmd,
			 "mount_options", t->fs ? t->fs->mount_options : NULL);
}

/* cell.server: what served an NFS cell. */
/*
 * Is multigrain in effect on the cell's filesystem?  Asked before the counters' window opens.
 * Over NFS the answer is about the exported filesystem, probed here with local syscalls, not
 * about the NFS path the cell measures (the server's own queries, such as a v3 WRITE reply's
 * attributes, arm the flag where the client's would not): the evidence says so.
 */
static json_t *evidence_json(const struct mgb_target *t, const struct mgb_clockinfo *ci, int nfs_version)
{
	json_t *e;

	if (!t->path)
		return MGB_JSON_PACK("{s:n, s:{s:s}}", "in_effect", "evidence", "reason",
				     "the server's filesystem is not visible from here");
	e = mgb_mgtime_evidence_json(t, ci);
	json_object_set_new(e, "about", json_string(nfs_version ? "the exported filesystem, probed locally"
								: "the measured filesystem"));
	return e;
}

static json_t *server_json(const struct mgb_nfs_server *srv, const struct mgb_target *t, const char *url, int version)
{
	if (url)
		return MGB_JSON_PACK("{s:s, s:n, s:n, s:n, s:i, s:n, s:o}", "kind", "url", "software", "version",
				     "export_fs", "nfs_version", version, "start_ns", "url", mgb_json_text(url));
	return MGB_JSON_PACK("{s:s, s:s, s:s?, s:o?, s:i, s:I}", "kind", "embedded", "software", "nfs-ganesha",
			     "version", srv->version, "export_fs", t->fstype ? mgb_json_text(t->fstype) : NULL,
			     "nfs_version", version, "start_ns", (json_int_t)srv->start_ns);
}

/* The embedded server for an NFS cell (none for a --nfs-url one); the root the backend opens. */
static int nfs_server_up(struct mgb_session *s, const struct mgb_cell_spec *spec, const struct mgb_target *t,
			 struct mgb_nfs_server *srv, const char **root, bool *unsupported, char *err)
{
#ifdef HAVE_LIBNFS
	int r = mgb_nfs_server_start(s, t->path, spec->backend->nfs_version, srv, err);

	*unsupported = r == -2;
	if (r < 0)
		return -1;
	*root = srv->url;
	return 0;
#else
	return mgb_err(err, "this mgbench was built without libnfs");
#endif
}

static void nfs_server_down(struct mgb_nfs_server *srv)
{
#ifdef HAVE_LIBNFS
	mgb_nfs_server_stop(srv);
#endif
}

static bool nfs_server_died(const struct mgb_nfs_server *srv)
{
#ifdef HAVE_LIBNFS
	/* A killed server may take a moment to be seen dead after its socket closed. */
	for (int i = 0; srv->pid > 0 && i < 20; i++, usleep(10000))
		if (!mgb_nfs_server_alive(srv))
			return true;
	return false;
#else
	return false;
#endif
}

json_t *mgb_run_cell(struct mgb_session *s, const struct mgb_cell_spec *spec, const struct mgb_clockinfo *ci,
		     struct mgb_progress *progress)
{
	struct mgb_target t;
	struct mgb_nfs_server srv = { 0 };
	const char *nfs_url = mgb_backend_nfs_url(spec->backend, spec->backend_params), *root = NULL;
	struct mgb_backend be = { 0 };
	struct mgb_mg_counters before, after;
	struct mgb_ctx ctx;
	const char *status = "ok";
	char err[MGB_ERR_LEN] = "", comm[16], label[48];
	json_t *cell, *metrics = json_object();
	int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC), run_ns = 0, srv_start_ns;
	double setup_s;
	bool unsupported = false;
	int r;

	cell = MGB_JSON_PACK("{s:s, s:s, s:o, s:i, s:I, s:o}",
			 "workload", spec->workload->name,
			 "fs", spec->fs ? spec->fs->name : nfs_url ? "url" : "dir",
			 "backend", mgb_backend_to_json(spec->backend, spec->backend_params),
			 "repeat", (int)spec->repeat,
			 "rounds", (json_int_t)spec->rounds,
			 "params", mgb_params_to_json(spec->workload, spec->params));

	if (nfs_url) {
		/* Someone else's server: no local target, the backend makes its own directory. */
		memset(&t, 0, sizeof(t));
		t.label = strdup("nfs-url");
		root = nfs_url;
		r = 0;
	} else {
		r = spec->fs ? mgb_target_scratch(s, spec->fs, &t, err) : mgb_target_dir(spec->dir, &t, err);
		root = t.path;
	}
	json_object_set_new(cell, "target", target_json(&t));
	if (r == 0 && spec->backend->nfs_version && !nfs_url)
		r = nfs_server_up(s, spec, &t, &srv, &root, &unsupported, err);
	if (spec->backend->nfs_version)
		json_object_set_new(cell, "server", server_json(&srv, &t, nfs_url, spec->backend->nfs_version));
	if (r == 0)
		r = mgb_backend_open(&be, spec->backend, spec->backend_params, root, err);
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
		json_object_set_new(cell, "multigrain", evidence_json(&t, ci, spec->backend->nfs_version));
		/* The probe's own fine stamps lifted the floor: start once the coarse clock is past
		 * them, or the workload's first coarse stamps would be the probe's floor. */
		if (t.path)
			mgb_wait_coarse_past(mgb_clock_ns(CLOCK_REALTIME));
		mgb_progress_begin(progress, label);
		mgb_mg_counters_read(&before);
		run_ns = mgb_clock_ns(CLOCK_MONOTONIC);
		r = spec->workload->run(&ctx);
		run_ns = mgb_clock_ns(CLOCK_MONOTONIC) - run_ns;
		mgb_mg_counters_read(&after);
		mgb_progress_end(progress);
		if (r < 0) {
			/* A dead server explains the failure first: the workload's message may be cut. */
			if (nfs_server_died(&srv))
				snprintf(err, sizeof(err), "the NFS server exited: %.*s", (int)sizeof(err) - 40, ctx.err);
			else
				snprintf(err, sizeof(err), "%s", ctx.err);
		}
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
	srv_start_ns = srv.start_ns;
	nfs_server_down(&srv);
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
	json_object_set_new(cell, "timings", MGB_JSON_PACK("{s:f, s:o?, s:I, s:I}",
						       "setup_s", setup_s,
						       "server_start_ns", srv_start_ns ? json_integer(srv_start_ns) : NULL,
						       "run_ns", (json_int_t)run_ns,
						       "cell_ns", (json_int_t)(mgb_clock_ns(CLOCK_MONOTONIC) - t0)));
	return cell;
}
