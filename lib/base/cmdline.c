/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One option parser for every command: getopt_long driven by the command's rows (cmdline.h). */
#include "config.h"
#include "cmdline.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_ROWS 256
#define LABEL_MAX 22 /* a longer label puts its help on the next line */

static size_t count_rows(const struct mgb_cmd_option *opts)
{
	size_t n = 0;

	while (opts && opts[n].name)
		n++;
	return n;
}

/* The option just read, as the user wrote it: "--name[=value]" or "-x". */
static void option_as_given(char *buf, size_t len, char **argv)
{
	const char *arg = argv[optind - 1];

	if (strncmp(arg, "--", 2) && optopt > 0 && optopt < 128)
		snprintf(buf, len, "-%c", optopt);
	else
		snprintf(buf, len, "%s", arg); /* with any "=value": --flag=yes names what was wrong */
}

int mgb_getopt(const struct mgb_cmdline *cl, int argc, char **argv)
{
	struct option longopts[MAX_ROWS + 2];
	char shortopts[2 * MAX_ROWS + 4], given[128];
	size_t n = count_rows(cl->opts), k = 0, s = 0;
	int c;

	if (n > MAX_ROWS)
		n = MAX_ROWS;
	if (cl->stop_at_operand)
		shortopts[s++] = '+';
	shortopts[s++] = ':'; /* a missing value returns ':', told apart from an unknown option */
	for (size_t i = 0; i < n; i++) {
		const struct mgb_cmd_option *o = &cl->opts[i];

		longopts[k++] = (struct option){ o->name, o->value ? required_argument : no_argument, NULL, o->id };
		if (o->letter) {
			shortopts[s++] = (char)o->letter;
			if (o->value)
				shortopts[s++] = ':';
		}
	}
	longopts[k++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[k] = (struct option){ 0 };
	shortopts[s++] = 'h';
	shortopts[s] = '\0';

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c == -1)
		return MGB_GETOPT_END;
	if (c == 'h')
		return MGB_GETOPT_HELP;
	if (c == ':' || c == '?') {
		option_as_given(given, sizeof(given), argv);
		if (c == ':')
			mgb_usage_error(cl->verb, "option '%s' needs a value", given);
		else if (cl->help_cmd)
			mgb_usage_error(cl->verb, "unknown option '%s' (see '%s')", given, cl->help_cmd);
		else
			mgb_usage_error(cl->verb, "unknown option '%s' (see 'mgbench %s --help')", given, cl->verb);
		return MGB_GETOPT_ERROR;
	}
	return c; /* a row's id: its letter when it has one (cmdline.h) */
}

int mgb_cmd_no_operands(const struct mgb_cmdline *cl, int argc, char **argv)
{
	if (optind < argc)
		return mgb_usage_error(cl->verb, "unexpected argument '%s'", argv[optind]);
	return 0;
}

void mgb_cmd_options_print(FILE *out, const struct mgb_cmd_option *opts)
{
	size_t n = count_rows(opts), width = 0;
	bool any_letter = false;
	char label[MAX_ROWS][64];

	for (size_t i = 0; i < n; i++)
		any_letter = any_letter || (opts[i].letter && opts[i].help);
	for (size_t i = 0; i < n && i < MAX_ROWS; i++) {
		const struct mgb_cmd_option *o = &opts[i];
		size_t len;

		/* long-only rows line up with the long names of "-x, --name" rows */
		if (o->letter)
			snprintf(label[i], sizeof(label[i]), "-%c, --%s%s%s", o->letter, o->name, o->value ? " " : "",
				 o->value ?: "");
		else
			snprintf(label[i], sizeof(label[i]), "%s--%s%s%s", any_letter ? "    " : "", o->name,
				 o->value ? " " : "", o->value ?: "");
		len = strlen(label[i]);
		if (o->help && len <= LABEL_MAX && len > width)
			width = len;
	}
	for (size_t i = 0; i < n && i < MAX_ROWS; i++) {
		const char *line = opts[i].help;

		if (!line)
			continue;
		if (strlen(label[i]) > width)
			fprintf(out, "  %s\n%*s", label[i], (int)width + 4, "");
		else
			fprintf(out, "  %-*s  ", (int)width, label[i]);
		for (;;) {
			size_t len = strcspn(line, "\n");

			fprintf(out, "%.*s\n", (int)len, line);
			if (!line[len])
				break;
			line += len + 1;
			fprintf(out, "%*s", (int)width + 4, "");
		}
	}
}

int mgb_parse_list(const char *verb, const char *what, char *text, const void **items, unsigned max,
		   unsigned *n, const void *(*find)(const char *))
{
	char *save = NULL;

	*n = 0;
	for (char *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const void *item = find(tok);

		if (!item)
			return mgb_usage_error(verb, "unknown %s '%s' (see 'mgbench list')", what, tok);
		if (*n == max)
			return mgb_usage_error(verb, "too many items in the %s list", what);
		/* Two equal entries would make cells that cannot be told apart: use --repeat. */
		for (unsigned i = 0; i < *n; i++)
			if (items[i] == item)
				return mgb_usage_error(verb, "%s '%s' given twice (use --repeat N to run it again)",
						       what, tok);
		items[(*n)++] = item;
	}
	if (*n == 0)
		return mgb_usage_error(verb, "empty %s list", what);
	return 0;
}

int mgb_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mgbench%s%s: ", verb ? " " : "", verb ? verb : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return MGB_EXIT_USAGE;
}

int mgb_split_names(const char *verb, const char *opt, char *text, const char **items, unsigned max, unsigned *n)
{
	char *save = NULL;

	*n = 0;
	for (char *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			return mgb_usage_error(verb, "%s: at most %u names", opt, max);
		items[(*n)++] = tok;
	}
	return *n ? 0 : mgb_usage_error(verb, "%s: an empty list", opt);
}
