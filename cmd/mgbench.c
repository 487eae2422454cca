/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mgbench: the command table and dispatch. */
#include "config.h"
#include "mgbench.h"
#include "stop.h"

#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/*
 * STOPPABLE: a SIGINT or SIGTERM asks the command to stop rather than killing it (it cleans up:
 * mounts, servers, guests, make), and a command so stopped exits 128 + the signal, as a shell
 * reports a killed one.  Dispatch does both, so no command does it by hand.
 */
#define STOPPABLE 0x1

struct command {
	const char *name;
	mgb_cmd_fn fn;
	const char *summary;
	unsigned flags;
};

static const struct command commands[] = {
	{ "run", cmd_run, "run a workload on scratch filesystems and record the results", STOPPABLE },
	{ "list", cmd_list, "list workloads, their options, filesystems and backends", 0 },
	{ "vm", cmd_vm, "run a command inside another kernel under qemu", STOPPABLE },
	{ "kernel", cmd_kernel, "build a guest kernel from a source and patches", STOPPABLE },
	{ "ab", cmd_ab, "compare two kernels over alternated boots, one command", STOPPABLE },
	{ "info", cmd_info, "what this kernel does with timestamps, per filesystem", 0 },
	{ "compare", cmd_compare, "result documents side by side, with significance", 0 },
	{ "report", cmd_report, "print a document's tables again (median over several)", 0 },
	{ "plot", cmd_plot, "draw result documents with gnuplot (png, svg, text)", 0 },
	{ "help", cmd_help, "show help for mgbench or one of its commands", 0 },
};

void mgb_print_commands(FILE *out)
{
	fprintf(out, "usage: mgbench [--version] [--help] <command> [<args>]\n\n"
		     "mgbench measures multigrain file timestamps on Linux.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'mgbench help <command>' or 'man mgbench-<command>' for more.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

mgb_cmd_fn mgb_find_command(const char *name)
{
	const struct command *c = find_command(name);

	return c ? c->fn : NULL;
}

/* What every command gets from dispatch, as git's run_builtin gives its builtins. */
static int run_command(const struct command *c, int argc, char **argv)
{
	int rc;

	if (c->flags & STOPPABLE)
		mgb_stop_install();
	rc = c->fn(argc, argv);
	/* a usage error stays one: it was decided before anything ran */
	if ((c->flags & STOPPABLE) && mgb_stop_requested() && rc != MGB_EXIT_USAGE)
		rc = MGB_EXIT_SIGNAL_BASE + mgb_stop_signal;
	return rc;
}

/* Like git: a write error on stdout (a full disk, a closed pipe) must not pass silently. */
static int finish_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("mgbench: writing output");
		return rc ? rc : MGB_EXIT_FAIL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	/* Under a file-size limit (ulimit -f) the call that passes it fails with EFBIG, which the
	 * cell reports; the default SIGXFSZ would kill the run and lose its document. */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		mgb_print_commands(stdout);
		return finish_stdout(MGB_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("mgbench %s\n", PACKAGE_VERSION);
		return finish_stdout(MGB_EXIT_OK);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return finish_stdout(cmd_help(argc - 1, argv + 1));
	if (find_command(argv[1]))
		return finish_stdout(run_command(find_command(argv[1]), argc - 1, argv + 1));
	mgb_usage_error(NULL, "'%s' is not a command (see 'mgbench help')", argv[1]);
	return MGB_EXIT_USAGE;
}
