/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command table.  To add a subcommand:
 *   1. write cmd/<verb>.c with `int cmd_<verb>(int argc, char **argv)` (argv[0] is the verb),
 *   2. declare it below and add a row to the table in cmd/mgbench.c (STOPPABLE: see there),
 *   3. add the file to cmd/Makemodule.am,
 *   4. write man/mgbench-<verb>.1 and a test in tests/.
 * Exit codes: 0 success, 1 failure, 2 usage error, 77 skipped (DESIGN.md).
 */
#ifndef MGB_CMD_H
#define MGB_CMD_H

#include <stdbool.h>
#include <stdio.h>

enum {
	MGB_EXIT_OK = 0,
	MGB_EXIT_FAIL = 1,
	MGB_EXIT_USAGE = 2,
	MGB_EXIT_SIGNAL_BASE = 128, /* stopped by signal N: 128 + N, like a shell (130 for SIGINT) */
};

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_vm(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_kernel_bisect(int argc, char **argv); /* kernel's subcommand, in cmd/kernel_bisect.c */
int cmd_help(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* What a `run` command line asks for, checked without running it (vm checks its guest's command
 * on the host, before a boot): 0, a usage error (printed; MGB_EXIT_USAGE), or -1 after --help. */
#define MGB_RUN_MAX_WORKLOADS 16
struct mgb_workload;
struct mgb_run_check {
	bool output;         /* -o given */
	bool json, nfs, nfs_url;
	bool knfsd;          /* an NFS backend with --nfs-server knfsd */
	bool ganesha;        /* an NFS backend with the embedded nfs-ganesha (the default) */
	bool kernel_client;  /* an NFS backend through the kernel's client (nfs3-mount, nfs4-mount) */
	/* the workloads the run names, in its order (kernel bisect checks --metric against their
	 * columns before it builds anything) */
	const struct mgb_workload *workloads[MGB_RUN_MAX_WORKLOADS];
	unsigned nworkloads;
};
int mgb_run_args_check(int argc, char **argv, struct mgb_run_check *c);

typedef int (*mgb_cmd_fn)(int argc, char **argv);

/* The command of that name from the table, or NULL. */
mgb_cmd_fn mgb_find_command(const char *name);

/* Split a comma list into at most max items, each looked up by find; an unknown item, an empty
 * list or too many items is a usage error of verb (the message names the item). */
int mgb_parse_list(const char *verb, const char *what, char *text, const void **items, unsigned max,
		   unsigned *n, const void *(*find)(const char *));

/* Print the command list (for help and for a bare `mgbench`). */
void mgb_print_commands(FILE *out);
/* Print "mgbench <verb>: <message>" to stderr and return MGB_EXIT_USAGE. */
int mgb_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
