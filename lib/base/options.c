/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Declarative options (a workload's or a backend's): defaults, parsing, JSON and help text from
 * one table.  The workload-typed wrappers live beside the workload table (workloads/workloads.c). */
#include "config.h"
#include "json_text.h"
#include "options.h"
#include "util.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const struct mgb_option *mgb_option_table_find(const struct mgb_option *opts, const char *name)
{
	for (const struct mgb_option *o = opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

/* 1 for one of the option's words (a value of its own, outside the numeric bounds), 0 for a
 * number, -1 for neither. */
static int parse_number(const struct mgb_option *o, const char *text, uint64_t *v)
{
	for (const struct mgb_opt_word *wd = o->words; wd && wd->word; wd++)
		if (!strcmp(wd->word, text)) {
			*v = wd->value;
			return 1;
		}
	return o->type == MGB_OPT_SIZE ? mgb_parse_size(text, v) : mgb_parse_u64(text, v);
}

static void describe_expected(const struct mgb_option *o, char *buf, size_t len)
{
	size_t n = 0;

	n += snprintf(buf + n, len - n, "%s", o->type == MGB_OPT_SIZE ? "a size like 4096 or 64k" :
				      "a non-negative integer");
	for (const struct mgb_opt_word *wd = o->words; wd && wd->word && n < len; wd++)
		n += snprintf(buf + n, len - n, " or '%s'", wd->word);
}

int mgb_param_set(const struct mgb_option *o, void *params, const char *text, char *err)
{
	int word;
	uint64_t v;
	char expected[128];

	switch (o->type) {
	case MGB_OPT_U64:
	case MGB_OPT_SIZE:
		if (!text || (word = parse_number(o, text, &v)) < 0) {
			describe_expected(o, expected, sizeof(expected));
			return mgb_err(err, "--%s '%s': expected %s", o->name, text ? text : "", expected);
		}
		if (!word && (v < o->min || (o->max && v > o->max))) {
			if (o->max)
				return mgb_err(err, "--%s %s: must be between %llu and %llu", o->name, text,
					       (unsigned long long)o->min, (unsigned long long)o->max);
			return mgb_err(err, "--%s %s: must be at least %llu", o->name, text,
				       (unsigned long long)o->min);
		}
		MGB_PARAM(params, uint64_t, o) = v;
		return 0;
	case MGB_OPT_STRING:
		MGB_PARAM(params, const char *, o) = text;
		return 0;
	case MGB_OPT_CHOICE:
		for (unsigned i = 0; o->choices && o->choices[i]; i++)
			if (!strcmp(o->choices[i], text)) {
				MGB_PARAM(params, unsigned, o) = i;
				return 0;
			}
		return mgb_err(err, "--%s '%s': not one of the allowed values (see mgbench list)", o->name, text);
	case MGB_OPT_BOOL:
		MGB_PARAM(params, bool, o) = true;
		return 0;
	}
	return mgb_err(err, "--%s: unknown option type", o->name);
}

int mgb_option_table_defaults(const struct mgb_option *opts, void *params, size_t size, char *err)
{
	memset(params, 0, size);
	for (const struct mgb_option *o = opts; o && o->name; o++)
		if (o->defval && o->type != MGB_OPT_BOOL && mgb_param_set(o, params, o->defval, err) < 0)
			return -1;
	return 0;
}

json_t *mgb_option_table_to_json(const struct mgb_option *opts, const void *params)
{
	json_t *obj = json_object();

	for (const struct mgb_option *o = opts; o && o->name; o++) {
		json_t *v = NULL;

		switch (o->type) {
		case MGB_OPT_U64:
		case MGB_OPT_SIZE: {
			uint64_t n = MGB_PARAM(params, uint64_t, o);

			for (const struct mgb_opt_word *wd = o->words; !v && wd && wd->word; wd++)
				if (wd->value == n)
					v = json_string(wd->word);
			if (!v)
				v = json_integer((json_int_t)n);
			break;
		}
		case MGB_OPT_STRING:
			v = MGB_PARAM(params, const char *, o) ? mgb_json_text(MGB_PARAM(params, const char *, o))
							      : json_null();
			break;
		case MGB_OPT_BOOL:
			v = json_boolean(MGB_PARAM(params, bool, o));
			break;
		case MGB_OPT_CHOICE:
			v = mgb_json_text(mgb_option_choice(o, MGB_PARAM(params, unsigned, o)));
			break;
		}
		json_object_set_new(obj, o->name, v ? v : json_null());
	}
	return obj;
}

const char *mgb_option_choice(const struct mgb_option *o, unsigned index)
{
	return o->choices[index];
}

/* Help text wrapped at 72 columns under its own column (23). */
static void print_help_text(FILE *out, const char *text)
{
	const int indent = 23, width = 72 - indent;

	while (*text) {
		int n = (int)strlen(text);

		if (n > width) {
			n = width;
			while (n > 0 && text[n] != ' ')
				n--;
			if (n == 0)
				n = width;
		}
		fprintf(out, "%.*s\n", n, text);
		text += n;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(out, "%*s", indent, "");
	}
}

void mgb_option_table_print(FILE *out, const struct mgb_option *opts)
{
	for (const struct mgb_option *o = opts; o && o->name; o++) {
		char lhs[40], help[512];

		snprintf(lhs, sizeof(lhs), "--%s%s", o->name, o->type == MGB_OPT_BOOL ? "" :
			 o->type == MGB_OPT_STRING || o->type == MGB_OPT_CHOICE ? " WORD" : " N");
		if (o->defval)
			snprintf(help, sizeof(help), "%s (default %s)", o->help, o->defval);
		else
			snprintf(help, sizeof(help), "%s", o->help);
		fprintf(out, "    %-18s ", lhs);
		print_help_text(out, help);
	}
}
