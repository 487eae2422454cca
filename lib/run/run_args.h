/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's command line parsed into its plan (plan.h) and run's own options.  run parses its own
 * argv; vm, kernel bisect and ab check their guest's before a build or a boot, and ask the plan
 * what it needs (mgb_plan_needs) and which workloads it names.
 */
#ifndef MGB_RUN_ARGS_H
#define MGB_RUN_ARGS_H

#include "plan.h"

#include <stdbool.h>
#include <stdio.h>

struct mgb_run_args {
	struct mgb_plan plan;
	const char *output;         /* -o */
	bool fs_given;              /* --fs */
	bool quiet, json, check;    /* -q, --json, --check */
	const char *backend_option; /* the first backend option given, for its usage error */
};

/*
 * Parse argv ("run", WORKLOAD, options...) into ra: 0; a usage error, printed (MGB_EXIT_USAGE);
 * or -1 after --help printed run's usage.  getopt permutes argv; ra points into its strings.
 */
int mgb_run_args_parse(int argc, char **argv, struct mgb_run_args *ra);
/* The same on a copy of the array: argv keeps its order (a guest's command passed on). */
int mgb_run_args_check(int argc, char **argv, struct mgb_run_args *ra);
void mgb_run_args_free(struct mgb_run_args *ra);

/* run's --help: its options, the backends' and the named workloads' (ra may be NULL). */
void mgb_run_usage(FILE *out, const struct mgb_run_args *ra);

#endif
