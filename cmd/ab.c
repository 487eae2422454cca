/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mgbench ab: two kernels compared in one command, boots alternated, resumable (lib/ab.h). */
#include "config.h"
#include "ab.h"
#include "cmdline.h"
#include "compare.h"
#include "mgbench.h"
#include "plan.h"
#include "util.h"
#include "workload.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define MAX_FAIL 32
#define MAX_VM_ARGS 16

enum { OPT_SOURCE = 256, OPT_PATCHES, OPT_CONFIG, OPT_BOOTS, OPT_ORDER, OPT_SEED, OPT_FAIL, OPT_ACCEL, OPT_CPUS,
       OPT_MEM, OPT_TIMEOUT };

static const struct mgb_cmd_option options[] = {
	{ "boots", 0, "N", "boots (runs) per kernel (default 4: the fewest\nfrom which compare judges every metric)",
	  OPT_BOOTS },
	{ "order", 0, "O", "alternate (A B A B ..., the default) or random", OPT_ORDER },
	{ "seed", 0, "N", "the random order's seed (default: a new one,\nrecorded in each boot's document)", OPT_SEED },
	{ "output", 'o', "DIR", "where the boots' documents, logs and the report\ngo (default mgbench-ab-DATE; made "
	  "if missing;\nrunning again there resumes)", 'o' },
	{ "fail-on-regression", 0, "LIST", "exit 1 if one of these metrics got worse in B,\n3 if one could not be "
	  "judged", OPT_FAIL },
	{ "source", 0, "S", "instead of A and B: build A from S (a kernel\nbuild --source) and B from S + --patches",
	  OPT_SOURCE },
	{ "patches", 0, "DIR", "the series B adds to --source", OPT_PATCHES },
	{ "config", 0, "X", "kernel build --config for both builds", OPT_CONFIG },
	{ "accel", 0, "A", "vm --accel for every boot", OPT_ACCEL },
	{ "cpus", 0, "N", "vm --cpus for every boot", OPT_CPUS },
	{ "mem", 0, "MIB", "vm --mem for every boot", OPT_MEM },
	{ "timeout", 0, "S", "vm --timeout for every boot", OPT_TIMEOUT },
	{ "quiet", 'q', NULL, "no progress, only the table and errors", 'q' },
	{ 0 },
};

static const struct mgb_cmdline cmdline = { .verb = "ab", .opts = options };

static void usage(FILE *f)
{
	fprintf(f, "usage: mgbench ab A B [options] -- run WORKLOADS [run options]\n"
		   "       mgbench ab --source S --patches DIR [options] -- run WORKLOADS [run options]\n\n"
		   "Boot kernels A and B in turn under qemu (anything vm --kernel takes), one run\n"
		   "per boot, and compare the kernels over their boots.\n\n");
	mgb_cmd_options_print(f, options);
}

/* A gated metric is named before any boot: a typo found after an hour of boots is an hour lost.
 * workloads is the guest's run's ("all" or a comma list). */
static int check_gated(const char *workloads, const char *const *fail, unsigned nfail)
{
	const struct mgb_workload *named[MGB_PLAN_MAX];
	char *copy = strdup(workloads), *save = NULL;
	bool all = !strcmp(workloads, "all");
	unsigned n = 0;

	if (!copy)
		return mgb_usage_error("ab", "out of memory");
	for (char *w = all ? NULL : strtok_r(copy, ",", &save); w && n < MGB_PLAN_MAX; w = strtok_r(NULL, ",", &save))
		named[n++] = mgb_workload_find(w);
	free(copy);
	for (unsigned x = 0; x < nfail; x++) {
		unsigned nall = 0;

		while (all && mgb_workloads[nall])
			nall++;
		if (!mgb_compare_column_known(all ? (const struct mgb_workload *const *)mgb_workloads : named,
					      all ? nall : n, fail[x], NULL, 0))
			return mgb_usage_error("ab", "--fail-on-regression: no column of %s is named '%s'", workloads,
					       fail[x]);
	}
	return 0;
}

static char *default_dir(void)
{
	char name[64];

	mgb_time_name(name, sizeof(name), "mgbench-ab", true);
	return strdup(name);
}

int cmd_ab(int argc, char **argv)
{
	struct mgb_ab ab = { .boots = MGB_AB_DEFAULT_BOOTS };
	const char *fail[MAX_FAIL], *vm_args[MAX_VM_ARGS];
	char err[MGB_ERR_LEN] = "", self[4096], *dir = NULL, *fail_copy = NULL;
	unsigned nvm = 0;
	bool seed_given = false;
	int c, sep = argc, rc;
	uint64_t v;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			sep = i;
			break;
		}
	optind = 1;
	while ((c = mgb_getopt(&cmdline, sep, argv)) != MGB_GETOPT_END) {
		switch (c) {
		case OPT_BOOTS:
			if (mgb_parse_u64(optarg, &v) || v < 1 || v > 64)
				return mgb_usage_error("ab", "--boots wants a number from 1 to 64, not '%s'", optarg);
			ab.boots = (unsigned)v;
			break;
		case OPT_ORDER:
			if (strcmp(optarg, "alternate") && strcmp(optarg, "random"))
				return mgb_usage_error("ab", "--order is alternate or random, not '%s'", optarg);
			ab.random_order = !strcmp(optarg, "random");
			break;
		case OPT_SEED:
			if (mgb_parse_u64(optarg, &ab.seed))
				return mgb_usage_error("ab", "--seed wants a number, not '%s'", optarg);
			seed_given = true;
			break;
		case 'o': ab.dir = optarg; break;
		case OPT_FAIL:
			/* a copy: the command line as given goes into README.md */
			free(fail_copy);
			if (!(fail_copy = strdup(optarg)) ||
			    mgb_split_names("ab", "--fail-on-regression", fail_copy, fail, MAX_FAIL, &ab.nfail)) {
				free(fail_copy);
				return MGB_EXIT_USAGE;
			}
			ab.fail = fail;
			break;
		case OPT_SOURCE: ab.source = optarg; break;
		case OPT_PATCHES: ab.patches = optarg; break;
		case OPT_CONFIG: ab.config = optarg; break;
		case OPT_ACCEL:
		case OPT_CPUS:
		case OPT_MEM:
		case OPT_TIMEOUT:
			/* checked by vm itself, at the first boot, with its own words */
			if (nvm + 2 > MAX_VM_ARGS)
				return mgb_usage_error("ab", "too many vm options");
			vm_args[nvm++] = c == OPT_ACCEL ? "--accel" : c == OPT_CPUS ? "--cpus" : c == OPT_MEM ? "--mem" : "--timeout";
			vm_args[nvm++] = optarg;
			break;
		case 'q': ab.quiet = true; break;
		case MGB_GETOPT_HELP: usage(stdout); return MGB_EXIT_OK;
		default: return MGB_EXIT_USAGE;
		}
	}
	if (ab.source || ab.patches) {
		if (!ab.source || !ab.patches)
			return mgb_usage_error("ab", "--source and --patches go together (A = S, B = S + the patches)");
		if (optind != sep)
			return mgb_usage_error("ab", "give kernels A B, or --source and --patches, not both");
	} else {
		if (sep - optind != 2)
			return mgb_usage_error("ab", "two kernels, A and B: mgbench ab A B -- run WORKLOADS");
		if (ab.config)
			return mgb_usage_error("ab", "--config goes with --source");
		ab.kernel[0] = argv[optind];
		ab.kernel[1] = argv[optind + 1];
	}
	if (sep + 2 > argc || strcmp(argv[sep + 1], "run"))
		return mgb_usage_error("ab", "no run: mgbench ab ... -- run WORKLOADS [run options]");
	for (int i = sep + 2; i < argc; i++)
		if (!strcmp(argv[i], "-o") || !strncmp(argv[i], "--output", 8) || (!strncmp(argv[i], "-o", 2) && argv[i][2]))
			return mgb_usage_error("ab", "the run's -o: ab keeps each boot's document in its own -o DIR");
	if (ab.nfail && (rc = check_gated(argv[sep + 2 < argc ? sep + 2 : sep + 1], fail, ab.nfail)))
		return rc;
	if (ab.random_order && !seed_given && getrandom(&ab.seed, sizeof(ab.seed), 0) != sizeof(ab.seed))
		ab.seed = (uint64_t)time(NULL);
	if (geteuid() != 0) {
		fprintf(stderr, "mgbench ab: needs root (every boot is an mgbench vm)\n");
		return MGB_EXIT_FAIL;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0) {
		fprintf(stderr, "mgbench ab: cannot find this mgbench: %s\n", strerror(errno));
		return MGB_EXIT_FAIL;
	}
	self[n] = '\0';
	ab.self = self;
	if (!ab.dir && !(ab.dir = dir = default_dir()))
		return MGB_EXIT_FAIL;
	ab.vm_args = vm_args;
	ab.nvm_args = nvm;
	ab.run_argv = argv + sep + 1;
	ab.run_argc = (unsigned)(argc - sep - 1);
	ab.argv = argv + 1; /* after "ab" */
	ab.argc = (unsigned)argc - 1;
	if (ab.random_order && !ab.quiet)
		fprintf(stderr, "mgbench ab: random order, seed %llu\n", (unsigned long long)ab.seed);
	rc = mgb_ab_run(&ab, err);
	if (rc < 0 || rc == 1) {
		if (*err)
			fprintf(stderr, "mgbench ab: %s\n", err);
		rc = MGB_EXIT_FAIL;
	}
	free(dir);
	free(fail_copy);
	return rc;
}
