/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A command's options as one table of rows, after fio's single option table: getopt_long's
 * arrays, the option rows of --help and the wording of every option error all come from it,
 * so --help and the parser cannot drift apart (tests/it-docs holds the man pages to --help).
 */
#ifndef MGB_CMDLINE_H
#define MGB_CMDLINE_H

#include <stdbool.h>
#include <stdio.h>

enum {
	MGB_EXIT_OK = 0,
	MGB_EXIT_FAIL = 1,
	MGB_EXIT_USAGE = 2,
	MGB_EXIT_SIGNAL_BASE = 128, /* stopped by signal N: 128 + N, like a shell (130 for SIGINT) */
};

struct mgb_cmd_option {
	const char *name;  /* the long name, without "--" */
	int letter;        /* the short form, or 0 */
	const char *value; /* the value's name in --help ("N", "FILE"); NULL for a flag */
	const char *help;  /* its --help text, lines separated by '\n'; NULL: not shown (tests only) */
	int id;            /* what mgb_getopt returns for it: the letter if it has one, else a number >= 256 */
};

/* A command line being parsed: the command's name for errors and its rows (ended by a zero row).
 * -h and --help are understood without a row. */
struct mgb_cmdline {
	const char *verb;     /* "vm", "kernel build": errors read "mgbench <verb>: ..." */
	const char *help_cmd; /* named in an unknown-option error; NULL: "mgbench <verb> --help" */
	const struct mgb_cmd_option *opts;
	bool stop_at_operand; /* options end at the first operand (vm: the guest's command follows) */
};

enum {
	MGB_GETOPT_END = -1,   /* no more options; operands start at optind */
	MGB_GETOPT_HELP = -2,  /* -h or --help: print the usage, exit 0 */
	MGB_GETOPT_ERROR = -3, /* an unknown option or a missing value, already printed: exit 2 */
};

/* The next option's id (its value in optarg), or one of MGB_GETOPT_*.  Set optind before the
 * first call (1, or 2 when argv[1] is an operand such as run's workload). */
int mgb_getopt(const struct mgb_cmdline *cl, int argc, char **argv);

/* The option rows of --help: "  -o, --output FILE  text", continuation lines aligned. */
void mgb_cmd_options_print(FILE *out, const struct mgb_cmd_option *opts);

/* A usage error unless every argument from optind on was taken: for commands without operands. */
int mgb_cmd_no_operands(const struct mgb_cmdline *cl, int argc, char **argv);

/* Split a comma list into at most max items, each looked up by find; an unknown item, an empty
 * list or too many items is a usage error of verb (the message names the item). */
int mgb_parse_list(const char *verb, const char *what, char *text, const void **items, unsigned max,
		   unsigned *n, const void *(*find)(const char *));

/* Split a comma list of names (metrics) into at most max items, in place; none or too many is a
 * usage error of verb naming opt. */
int mgb_split_names(const char *verb, const char *opt, char *text, const char **items, unsigned max, unsigned *n);

/* Print "mgbench <verb>: <message>" to stderr and return MGB_EXIT_USAGE. */
int mgb_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
