/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's command line, `run WORKLOAD[,...] [options]`, parsed into its plan: the workloads and
 * their options (a comma list sweeps), the filesystems, the backends and their options, and what
 * only run itself uses (-o, --json, --check, -q).  run parses its own; vm, kernel bisect and ab
 * check their guest's with it before anything is built or booted.
 */
#include "config.h"
#include "run_args.h"
#include "backend.h"
#include "cmdline.h"
#include "target.h"
#include "util.h"
#include "workload.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS MGB_PLAN_MAX

enum {
	OPT_FS = 256, OPT_DIR, OPT_BACKEND, OPT_ROUNDS, OPT_REPEAT, OPT_JSON, OPT_CHECK,
	OPT_WORKLOAD = 1024, /* + index into the merged workload option list */
	OPT_BACKEND_OPTION = 4096, /* + index of the option in the merged backend option list */
};

static const struct mgb_cmd_option common_options[] = {
	{ "fs", 0, "LIST", "filesystems to make and mount\n(default " MGB_DEFAULT_FS ")", OPT_FS },
	{ "dir", 0, "PATH", "run in a new subdirectory of PATH instead", OPT_DIR },
	{ "backend", 0, "LIST", "how operations reach the kernel (default sync)", OPT_BACKEND },
	{ "rounds", 0, "N", "rounds per cell (default: the workload's)", OPT_ROUNDS },
	{ "repeat", 0, "N", "run every cell N times (default 1)", OPT_REPEAT },
	{ "output", 'o', "FILE", "result document\n(default mgbench-<workload>-<time>.json)", 'o' },
	{ "json", 0, NULL, "print the document on stdout instead of the table", OPT_JSON },
	{ "check", 0, NULL, "exit 1 if a documented invariant is broken", OPT_CHECK },
	{ "quiet", 'q', NULL, "print no table", 'q' },
	{ 0 },
};

/* Does an earlier backend share backend i's option table? */
static bool shown_before(size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (mgb_backends[j]->options == mgb_backends[i]->options)
			return true;
	return false;
}

void mgb_run_usage(FILE *out, const struct mgb_run_args *ro)
{
	fprintf(out,
		"usage: mgbench run <workload>[,<workload>...|all] [options]\n\n"
		"Runs each workload on each filesystem and backend, writes a JSON result\n"
		"document and prints a table.  Needs root for scratch filesystems.\n\n"
		"options:\n");
	mgb_cmd_options_print(out, common_options);
	for (size_t i = 0; mgb_backends[i]; i++)
		if (mgb_backends[i]->options && mgb_backends[i]->options->name &&
		    mgb_backend_option_first(mgb_backends[i]->options->name) == mgb_backends[i]->options &&
		    mgb_backend_find(mgb_backends[i]->name) == mgb_backends[i] && !shown_before(i)) {
			/* a table shared by several backends (nfs3, nfs4) is shown once */
			fprintf(out, "\nbackend %s", mgb_backends[i]->name);
			for (size_t j = i + 1; mgb_backends[j]; j++)
				if (mgb_backends[j]->options == mgb_backends[i]->options)
					fprintf(out, ", %s", mgb_backends[j]->name);
			fprintf(out, ":\n");
			mgb_option_table_print(out, mgb_backends[i]->options);
		}
	for (unsigned i = 0; ro && i < ro->plan.nworkloads; i++) {
		fprintf(out, "\n%s: %s\n", ro->plan.workloads[i]->name, ro->plan.workloads[i]->summary);
		mgb_options_print(out, ro->plan.workloads[i]);
	}
	if (!ro || !ro->plan.nworkloads) {
		fputc('\n', out);
		for (size_t i = 0; mgb_workloads[i]; i++)
			fprintf(out, "  %-10s %s\n", mgb_workloads[i]->name, mgb_workloads[i]->summary);
		fprintf(out, "\n'mgbench run <workload> --help' shows a workload's options.\n");
	}
}

/* mgb_parse_list cuts its text at the commas: give it a copy, for argv is what the document records
 * as the command (--fs tmpfs,ramfs must not become --fs tmpfs). */
static int parse_list(const char *what, const char *text, const void **items, unsigned *n,
		      const void *(*find)(const char *))
{
	char *copy = strdup(text);
	int r;

	if (!copy) {
		mgb_usage_error("run", "out of memory");
		return -1;
	}
	r = mgb_parse_list("run", what, copy, items, MAX_ITEMS, n, find) ? -1 : 0;
	free(copy);
	return r;
}

static const void *find_fs(const char *name) { return mgb_fs_type_find(name); }
static const void *find_backend(const char *name) { return mgb_backend_find(name); }
static const void *find_workload(const char *name) { return mgb_workload_find(name); }

static int parse_workloads(struct mgb_run_args *ro, const char *arg)
{
	char *copy = strdup(arg);
	int r = 0;

	if (!strcmp(arg, "all")) {
		for (ro->plan.nworkloads = 0; mgb_workloads[ro->plan.nworkloads]; ro->plan.nworkloads++)
			ro->plan.workloads[ro->plan.nworkloads] = mgb_workloads[ro->plan.nworkloads];
	} else {
		r = parse_list("workload", copy, (const void **)ro->plan.workloads, &ro->plan.nworkloads, find_workload);
	}
	free(copy);
	return r;
}

/* The rows mgb_getopt parses: the common ones, then every distinct workload option name as one
 * long option (it applies to every workload that has it), then the backends' options.  Those rows
 * have no help: print_usage shows them from the workloads' and backends' own tables. */
static struct mgb_cmd_option *build_options(const struct mgb_run_args *ro, const char ***names)
{
	size_t n = MGB_ARRAY_SIZE(common_options) - 1, cap = n + 1, k = 0;
	struct mgb_cmd_option *opts;

	for (unsigned i = 0; i < ro->plan.nworkloads; i++)
		for (const struct mgb_option *o = ro->plan.workloads[i]->options; o->name; o++)
			cap++;
	for (size_t b = 0; mgb_backends[b]; b++)
		for (const struct mgb_option *o = mgb_backends[b]->options; o && o->name; o++)
			cap++;
	opts = calloc(cap, sizeof(*opts));
	*names = calloc(cap, sizeof(**names));
	memcpy(opts, common_options, n * sizeof(*opts));
	for (unsigned i = 0; i < ro->plan.nworkloads; i++)
		for (const struct mgb_option *o = ro->plan.workloads[i]->options; o->name; o++) {
			bool seen = false;

			for (size_t j = 0; j < k; j++)
				seen = seen || !strcmp((*names)[j], o->name);
			if (seen)
				continue;
			(*names)[k] = o->name;
			opts[n++] = (struct mgb_cmd_option){ .name = o->name, .value = o->type == MGB_OPT_BOOL ? NULL : "X",
							     .id = OPT_WORKLOAD + (int)k };
			k++;
		}
	/* Every built-in backend's options, whichever backends are chosen: they are checked
	 * against --backend once the whole line is read. */
	for (size_t b = 0; mgb_backends[b]; b++)
		for (const struct mgb_option *o = mgb_backends[b]->options; o && o->name; o++) {
			/* nfs3 and nfs4 share their options: one long option sets both */
			if (o != mgb_backend_option_first(o->name))
				continue;
			opts[n++] = (struct mgb_cmd_option){
				.name = o->name, .value = o->type == MGB_OPT_BOOL ? NULL : "X",
				.id = OPT_BACKEND_OPTION + (int)(b << 8) + (int)(o - mgb_backends[b]->options) };
		}
	return opts;
}


/* A backend option sets the params of every backend that has it (nfs3 and nfs4 share theirs);
 * given without one of those backends, it is a usage error. */
static int set_backend_option(struct mgb_run_args *ro, int code, const char *value, bool *given)
{
	size_t b = (size_t)(code - OPT_BACKEND_OPTION) >> 8;
	const char *name = mgb_backends[b]->options[(code - OPT_BACKEND_OPTION) & 0xff].name;
	char err[MGB_ERR_LEN];

	for (b = 0; mgb_backends[b]; b++) {
		const struct mgb_option *o = mgb_option_table_find(mgb_backends[b]->options, name);

		if (!o)
			continue;
		given[b] = true;
		ro->backend_option = ro->backend_option ?: o->name;
		if (mgb_param_set(o, ro->plan.backend_params[b], value, err) < 0)
			return mgb_usage_error("run", "%s", err);
	}
	return 0;
}

static bool backend_chosen(const struct mgb_run_args *ro, const struct mgb_backend_ops *ops)
{
	for (unsigned i = 0; i < ro->plan.nbackends; i++)
		if (ro->plan.backends[i] == ops)
			return true;
	return false;
}

/*
 * Backend options given, and none of the backends that take them chosen: name the option and
 * every backend that takes it (--nfs-server is four backends', not nfs3's alone).
 */
static int check_backend_options(const struct mgb_run_args *ro, const bool *given)
{
	bool any = false;
	char takes[200] = "", chosen[200] = "";
	size_t n = 0, m = 0;

	for (size_t b = 0; mgb_backends[b]; b++) {
		if (given[b] && backend_chosen(ro, mgb_backends[b]))
			return 0;
		any = any || given[b];
	}
	if (!any)
		return 0;
	for (size_t b = 0; mgb_backends[b]; b++)
		if (mgb_option_table_find(mgb_backends[b]->options, ro->backend_option) && n < sizeof(takes))
			n += (size_t)snprintf(takes + n, sizeof(takes) - n, "%s%s", n ? ", " : "", mgb_backends[b]->name);
	for (unsigned i = 0; i < ro->plan.nbackends && m < sizeof(chosen); i++)
		m += (size_t)snprintf(chosen + m, sizeof(chosen) - m, "%s%s", m ? "," : "", ro->plan.backends[i]->name);
	return mgb_usage_error("run", "--%s is an option of backend%s %s, and --backend is %s", ro->backend_option,
			       strchr(takes, ',') ? "s" : "", takes, chosen);
}

/* Do two parameter sets hold the same value of option o? */
static bool same_option_value(const struct mgb_option *o, const void *a, const void *b)
{
	switch (o->type) {
	case MGB_OPT_U64:
	case MGB_OPT_SIZE:
		return MGB_PARAM(a, uint64_t, o) == MGB_PARAM(b, uint64_t, o);
	case MGB_OPT_CHOICE:
		return MGB_PARAM(a, unsigned, o) == MGB_PARAM(b, unsigned, o);
	case MGB_OPT_BOOL:
		return MGB_PARAM(a, bool, o) == MGB_PARAM(b, bool, o);
	case MGB_OPT_STRING:
		break;
	}
	return false;
}

/*
 * A comma list given to an option that sweeps: entry i becomes one entry per value, each with
 * its own copy of the parameters so far (options given later apply to every copy).  Returns how
 * many entries it made, or -1.
 */
static int sweep_workload(struct mgb_run_args *ro, unsigned i, const struct mgb_option *o, const char *list)
{
	size_t size = ro->plan.workloads[i]->params_size;
	char *copy = strdup(list), *rest = copy, *v, err[MGB_ERR_LEN];
	void *pristine = malloc(size);
	int n = 0, rc = 0;

	if (!copy || !pristine) {
		free(copy), free(pristine);
		return mgb_usage_error("run", "out of memory");
	}
	memcpy(pristine, ro->plan.params[i], size);
	while (rc == 0 && (v = strsep(&rest, ",")) != NULL) {
		unsigned at = i + (unsigned)n;

		if (!*v) {
			rc = mgb_usage_error("run", "--%s '%s': an empty value in the list", o->name, list);
		} else if (n > 0 && ro->plan.nworkloads >= MAX_ITEMS) {
			rc = mgb_usage_error("run", "--%s '%s': at most %d sets of cells in one run", o->name, list,
					     MAX_ITEMS);
		} else if (n > 0) {
			memmove(&ro->plan.workloads[at + 1], &ro->plan.workloads[at], (ro->plan.nworkloads - at) * sizeof(ro->plan.workloads[0]));
			memmove(&ro->plan.params[at + 1], &ro->plan.params[at], (ro->plan.nworkloads - at) * sizeof(ro->plan.params[0]));
			ro->plan.nworkloads++;
			ro->plan.workloads[at] = ro->plan.workloads[i];
			ro->plan.params[at] = malloc(size);
			if (!ro->plan.params[at])
				rc = mgb_usage_error("run", "out of memory");
			else
				memcpy(ro->plan.params[at], pristine, size);
		}
		if (rc == 0 && mgb_param_set(o, ro->plan.params[at], v, err) < 0)
			rc = mgb_usage_error("run", "%s", err);
		/* "10,max,10" or "4096,4k": one value twice makes two cells the document reader
		 * refuses as one repeated, after the run's time is spent */
		for (unsigned k = i; rc == 0 && k < at; k++)
			if (same_option_value(o, ro->plan.params[k], ro->plan.params[at]))
				rc = mgb_usage_error("run", "--%s '%s': the value '%s' is given twice (use --repeat N "
							    "to run it again)", o->name, list, v);
		n++;
	}
	free(copy);
	free(pristine);
	return rc ? -1 : n;
}

static int set_workload_option(struct mgb_run_args *ro, const char *name, const char *value)
{
	char err[MGB_ERR_LEN];

	for (unsigned i = 0; i < ro->plan.nworkloads; i++) {
		const struct mgb_option *o = mgb_option_find(ro->plan.workloads[i], name);

		/* only numbers and choices sweep: a string parameter would point into the list */
		if (o && o->sweep && o->type != MGB_OPT_STRING && strchr(value, ',')) {
			int n = sweep_workload(ro, i, o, value);

			if (n < 0)
				return MGB_EXIT_USAGE;
			i += (unsigned)n - 1;
		} else if (o && mgb_param_set(o, ro->plan.params[i], value, err) < 0) {
			return mgb_usage_error("run", "%s", err);
		}
	}
	return 0;
}

/*
 * Two sweeps of one option (--poll-rate 10,20 --poll-rate 10,20: the second sweeps each entry
 * of the first again) can still make one workload's parameters twice: the same check as the
 * document reader's (doc_read.c check_duplicates), before the run rather than after it.
 */
static int check_distinct_params(const struct mgb_run_args *ro)
{
	char *keys[MAX_ITEMS] = { NULL };
	int rc = 0;

	for (unsigned i = 0; i < ro->plan.nworkloads; i++) {
		json_t *p = mgb_params_to_json(ro->plan.workloads[i], ro->plan.params[i]);

		keys[i] = json_dumps(p, JSON_SORT_KEYS | JSON_COMPACT);
		json_decref(p);
		if (!keys[i]) {
			rc = mgb_usage_error("run", "out of memory");
			break;
		}
		for (unsigned j = 0; rc == 0 && j < i; j++)
			if (ro->plan.workloads[j] == ro->plan.workloads[i] && !strcmp(keys[j], keys[i]))
				rc = mgb_usage_error("run", "%s: two sets of cells have the same parameters (give "
							    "each option's list once; --repeat N runs a cell again)",
						     ro->plan.workloads[i]->name);
		if (rc)
			break;
	}
	for (unsigned i = 0; i < ro->plan.nworkloads; i++)
		free(keys[i]);
	return rc;
}

static int parse_count(const char *opt, const char *text, uint64_t *v)
{
	if (mgb_parse_u64(text, v) < 0 || *v == 0)
		return mgb_usage_error("run", "--%s '%s': expected a positive integer", opt, text);
	return 0;
}

static int parse_args(int argc, char **argv, struct mgb_run_args *ro)
{
	char help_cmd[128];
	const char **names = NULL;
	struct mgb_cmd_option *opts;
	struct mgb_cmdline cmdline = { .verb = "run", .help_cmd = help_cmd };
	char err[MGB_ERR_LEN], fs_default[] = MGB_DEFAULT_FS, backend_default[] = "sync";
	bool backend_given[MAX_ITEMS] = { false };
	int c, rc = 0;

	if (parse_workloads(ro, argv[1]) < 0)
		return MGB_EXIT_USAGE;
	for (unsigned i = 0; i < ro->plan.nworkloads; i++) {
		ro->plan.params[i] = calloc(1, ro->plan.workloads[i]->params_size);
		if (mgb_params_defaults(ro->plan.workloads[i], ro->plan.params[i], err) < 0)
			return mgb_usage_error("run", "%s", err);
	}
	for (size_t b = 0; mgb_backends[b] && b < MAX_ITEMS; b++) {
		ro->plan.backend_params[b] = calloc(1, mgb_backends[b]->params_size ? mgb_backends[b]->params_size : 1);
		if (mgb_option_table_defaults(mgb_backends[b]->options, ro->plan.backend_params[b],
					      mgb_backends[b]->params_size, err) < 0)
			return mgb_usage_error("run", "%s", err);
	}
	ro->plan.repeat = 1;
	parse_list("filesystem", fs_default, (const void **)ro->plan.fs, &ro->plan.nfs, find_fs);
	parse_list("backend", backend_default, (const void **)ro->plan.backends, &ro->plan.nbackends, find_backend);

	opts = build_options(ro, &names);
	cmdline.opts = opts;
	snprintf(help_cmd, sizeof(help_cmd), "mgbench run %s --help", argv[1]);
	optind = 2;
	while (rc == 0 && (c = mgb_getopt(&cmdline, argc, argv)) != MGB_GETOPT_END) {
		switch (c) {
		case OPT_FS:
			if (parse_list("filesystem", optarg, (const void **)ro->plan.fs, &ro->plan.nfs, find_fs) < 0)
				rc = MGB_EXIT_USAGE;
			ro->fs_given = true;
			break;
		case OPT_BACKEND:
			if (parse_list("backend", optarg, (const void **)ro->plan.backends, &ro->plan.nbackends, find_backend) < 0)
				rc = MGB_EXIT_USAGE;
			break;
		case OPT_DIR:
			ro->plan.dir = optarg;
			break;
		case OPT_ROUNDS:
			rc = parse_count("rounds", optarg, &ro->plan.rounds);
			break;
		case OPT_REPEAT:
			rc = parse_count("repeat", optarg, &ro->plan.repeat);
			break;
		case 'o':
			ro->output = optarg;
			break;
		case OPT_JSON:
			ro->json = true;
			break;
		case OPT_CHECK:
			ro->check = true;
			break;
		case 'q':
			ro->quiet = true;
			break;
		case MGB_GETOPT_HELP:
			mgb_run_usage(stdout, ro);
			rc = -1;
			break;
		case MGB_GETOPT_ERROR:
			rc = MGB_EXIT_USAGE;
			break;
		default:
			if (c >= OPT_BACKEND_OPTION)
				rc = set_backend_option(ro, c, optarg, backend_given);
			else
				rc = set_workload_option(ro, names[c - OPT_WORKLOAD], optarg);
			break;
		}
	}
	if (rc == 0)
		rc = check_backend_options(ro, backend_given);
	if (rc == 0 && optind < argc)
		rc = mgb_usage_error("run", "unexpected argument '%s'", argv[optind]);
	for (unsigned i = 0; rc == 0 && i < ro->plan.nworkloads; i++)
		if (ro->plan.workloads[i]->check_params && ro->plan.workloads[i]->check_params(ro->plan.params[i], err) < 0)
			rc = mgb_usage_error("run", "%s: %s", ro->plan.workloads[i]->name, err);
	if (rc == 0)
		rc = check_distinct_params(ro);
	free(opts);
	free(names);
	return rc;
}

/* The plan's needs, asked through the command line's options. */
static struct mgb_plan_needs needs_of(const struct mgb_run_args *ro)
{
	struct mgb_plan_needs n;

	mgb_plan_needs(&ro->plan, &n);
	return n;
}

/* What parse_args cannot see option by option. */
static int check_combinations(const struct mgb_run_args *ro)
{
	int rc = 0;

	if (ro->plan.dir && ro->fs_given)
		return mgb_usage_error("run", "--dir and --fs exclude each other");
	if (needs_of(ro).nfs_url) {
		for (unsigned i = 0; i < ro->plan.nbackends && rc == 0; i++)
			if (ro->plan.backends[i]->reach == MGB_REACH_LOCAL)
				rc = mgb_usage_error("run", "--nfs-url runs NFS backends only, not '%s'", ro->plan.backends[i]->name);
			else if (ro->plan.backends[i]->kernel_client)
				rc = mgb_usage_error("run", "--nfs-url is for nfs3 and nfs4 (libnfs); '%s' mounts only the "
						     "server started for each cell", ro->plan.backends[i]->name);
		if (rc == 0 && (ro->plan.dir || ro->fs_given))
			rc = mgb_usage_error("run", "--nfs-url excludes --dir and --fs (the server's export is the target)");
		if (rc == 0 && needs_of(ro).knfsd)
			rc = mgb_usage_error("run", "--nfs-url and --nfs-server knfsd exclude each other (knfsd is "
					     "started for each cell, inside a guest)");
	}
	return rc;
}

int mgb_run_args_parse(int argc, char **argv, struct mgb_run_args *ra)
{
	int rc;

	memset(ra, 0, sizeof(*ra));
	if (argc < 2)
		return mgb_usage_error("run", "no workload (see 'mgbench list')");
	rc = parse_args(argc, argv, ra);
	if (rc == 0)
		rc = check_combinations(ra);
	return rc;
}

int mgb_run_args_check(int argc, char **argv, struct mgb_run_args *ra)
{
	/* getopt permutes the array it parses: the caller's argv stays in its order */
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));
	int rc;

	if (!copy) {
		memset(ra, 0, sizeof(*ra));
		return mgb_usage_error("run", "out of memory");
	}
	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	rc = mgb_run_args_parse(argc, copy, ra);
	free(copy);
	optind = 1;
	return rc;
}

void mgb_run_args_free(struct mgb_run_args *ra)
{
	mgb_plan_free(&ra->plan);
}
