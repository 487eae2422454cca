/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command table.  To add a subcommand:
 *   1. write cmd/<verb>.c with `int cmd_<verb>(int argc, char **argv)` (argv[0] is the verb),
 *   2. declare it below and add a row to the table in cmd/mgbench.c (STOPPABLE: see there),
 *   3. add the file to cmd/Makemodule.am,
 *   4. write man/mgbench-<verb>.1 and a test in tests/.
 * Exit codes (lib/base/cmdline.h): 0 success, 1 failure, 2 usage error, 77 skipped (automake's
 * skip, which the tests share), 128 + N stopped by signal N.
 */
#ifndef MGB_CMD_H
#define MGB_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "cmdline.h"

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

typedef int (*mgb_cmd_fn)(int argc, char **argv);

/* The command of that name from the table, or NULL. */
mgb_cmd_fn mgb_find_command(const char *name);

/* Print the command list (for help and for a bare `mgbench`). */
void mgb_print_commands(FILE *out);
#endif
