/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mgbench run <workload>[,<workload>...] [options]
 *
 * Parses the command line into a plan (workloads x filesystems x backends x repeats), enters a
 * session, runs every cell, and writes the result document and the table.
 */
#include "config.h"
#include "report.h"
#include "backend.h"
#include "check.h"
#include "cmdline.h"
#include "mgbench.h"
#include "progress.h"
#include "result.h"
#include "plan.h"
#include "run_args.h"
#include "runner.h"
#include "stop.h"
#include "target.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_directory(const char *path, char *err)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return mgb_err(err, "--dir %s: %s", path, strerror(errno)), false;
	if (!S_ISDIR(st.st_mode))
		return mgb_err(err, "--dir %s: not a directory", path), false;
	return true;
}

/* One workload, swept or not: its name names the file. */
static bool one_workload(const struct mgb_run_args *ro)
{
	for (unsigned i = 1; i < ro->plan.nworkloads; i++)
		if (ro->plan.workloads[i] != ro->plan.workloads[0])
			return false;
	return ro->plan.nworkloads > 0;
}

static char *default_output_name(const struct mgb_run_args *ro)
{
	char prefix[64], stem[96];

	snprintf(prefix, sizeof(prefix), "mgbench-%s", one_workload(ro) ? ro->plan.workloads[0]->name : "suite");
	mgb_time_name(stem, sizeof(stem), prefix, false);
	return mgb_output_unused_name(stem);
}

int cmd_run(int argc, char **argv)
{
	struct mgb_run_args ro = { 0 };
	struct mgb_plan_needs needs;
	struct mgb_session session;
	struct mgb_output out;
	struct mgb_clockinfo ci;
	struct mgb_progress progress;
	char err[MGB_ERR_LEN], *outname = NULL;
	json_t *doc = NULL;
	bool committed;
	int rc;

	if (argc < 2) {
		mgb_run_usage(stdout, NULL);
		return MGB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		mgb_run_usage(stdout, NULL);
		return MGB_EXIT_OK;
	}
	rc = mgb_run_args_parse(argc, argv, &ro);
	if (rc != 0)
		goto out_params;
	mgb_plan_needs(&ro.plan, &needs);

	/* Check what can be checked before reserving the output or touching the system. */
	if (ro.plan.dir && !is_directory(ro.plan.dir, err)) {
		fprintf(stderr, "mgbench run: %s\n", err);
		rc = MGB_EXIT_FAIL;
		goto out_params;
	}
	if (ro.plan.dir && mgb_check_trusted_dir(ro.plan.dir, true, err) < 0) {
		/* the run's own subdirectory is reached through descriptors (lib/target/target.c); an
		 * NFS server would resolve the path again */
		if (needs.nfs && !needs.nfs_url) {
			fprintf(stderr, "mgbench run: --dir: %s; the embedded NFS server resolves the path itself, "
					"so it needs a directory only root can change\n", err);
			rc = MGB_EXIT_FAIL;
			goto out_params;
		}
		fprintf(stderr, "mgbench run: note: --dir: %s; running anyway: the run reaches its subdirectory only "
				"through the descriptor it opened, and removes only what it made\n", err);
	}
	outname = ro.output ? strdup(ro.output) : default_output_name(&ro);
	if (!outname || mgb_output_open(&out, outname, err) < 0) {
		fprintf(stderr, "mgbench run: %s\n", outname ? err : "out of memory");
		rc = MGB_EXIT_FAIL;
		goto out_params;
	}
	out.no_replace = !ro.output; /* -o FILE replaces FILE; a name we chose replaces nothing */
	/* With --dir, only the embedded NFS server needs root: say that, not "use --dir" (which
	 * was given already) */
	if (geteuid() != 0 && ro.plan.dir && needs.nfs && !needs.nfs_url) {
		fprintf(stderr, "mgbench run: the embedded NFS server needs root "
				"(or give --nfs-url for a server of your own)\n");
		mgb_output_abort(&out);
		rc = MGB_EXIT_FAIL;
		goto out_params;
	}
	/* Scratch space for filesystems, or for an embedded NFS server's files in --dir runs. */
	if (mgb_session_begin(&session, !needs.nfs_url && (ro.plan.dir == NULL || needs.nfs), err) < 0) {
		fprintf(stderr, "mgbench run: %s\n", err);
		mgb_output_abort(&out);
		mgb_session_end(&session);
		rc = MGB_EXIT_FAIL;
		goto out_params;
	}
	mgb_clock_probe(&ci);
	mgb_progress_init(&progress, !ro.quiet && isatty(STDERR_FILENO));
	doc = mgb_result_new(argc, argv, &ci);

	rc = mgb_plan_run(&ro.plan, &session, doc, &ci, &progress) ? MGB_EXIT_FAIL : MGB_EXIT_OK;
	mgb_session_end(&session);

	/* dispatch makes the exit 128 + the signal */
	if (mgb_stop_requested())
		json_object_set_new(doc, "interrupted", json_true());
	/* Judge whatever ran, even if another cell failed or the run was cut short. */
	if (ro.check && mgb_check_document(doc, stderr) > 0 && rc == MGB_EXIT_OK)
		rc = MGB_EXIT_FAIL;
	committed = mgb_output_commit(&out, doc, err) == 0;
	if (!committed) {
		/* A finished run is never discarded: keep it elsewhere, or print it. */
		char where[4096];

		fprintf(stderr, "mgbench run: %s\n", err);
		if (mgb_output_rescue(doc, where, sizeof(where)) == 0) {
			fprintf(stderr, "mgbench run: the document was kept in %s\n", where);
		} else if (!ro.json) {
			fprintf(stderr, "mgbench run: the document could not be kept anywhere; it follows on "
				"standard output\n");
			ro.json = true;
		}
		if (rc == MGB_EXIT_OK)
			rc = MGB_EXIT_FAIL;
	}
	if (ro.json) {
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', stdout);
	} else if (!ro.quiet) {
		mgb_report_print(stdout, doc);
		if (committed)
			printf("\nresults: %s\n", outname);
	}
	if (mgb_stop_requested() && committed)
		fprintf(stderr, "mgbench run: interrupted by signal %d; partial results in %s\n", (int)mgb_stop_signal,
			outname);
	json_decref(doc);
out_params:
	free(outname);
	mgb_run_args_free(&ro);
	return rc < 0 ? MGB_EXIT_OK : rc;
}
