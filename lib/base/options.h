/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Declarative options: a table of rows (name, type, offset into a parameter struct, default,
 * help, bounds, words, choices) from which parsing, --help, `mgbench list` and the parameters
 * recorded in a result document all come.  Workloads and backends each have one (workload.h's
 * mgb_param_set and friends take a workload; the table functions here take any table).
 */
#ifndef MGB_OPTIONS_H
#define MGB_OPTIONS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum mgb_opt_type {
	MGB_OPT_U64,    /* uint64_t, digits only (or one of the option's words) */
	MGB_OPT_SIZE,   /* uint64_t with an optional k/m/g suffix */
	MGB_OPT_STRING, /* const char * (points into argv or the default) */
	MGB_OPT_BOOL,   /* bool, set by the bare flag */
	/* unsigned: the index in the row's choices of the word given, so run-time code compares
	 * enum values; shown, parsed and recorded as the word. */
	MGB_OPT_CHOICE,
};

/* A word accepted in place of a number: --query every == --query 1. */
struct mgb_opt_word {
	const char *word;
	uint64_t value;
};

struct mgb_option {
	const char *name;
	enum mgb_opt_type type;
	size_t offset;
	const char *defval;
	const char *help;
	uint64_t min, max;                 /* numeric bounds (max 0 = none) */
	const struct mgb_opt_word *words;  /* NULL-terminated, or NULL */
	const char *const *choices;        /* for MGB_OPT_CHOICE: the words, NULL-terminated */
	bool sweep;                        /* run accepts a comma list: one set of cells per value */
};

/* Set one option from its text; the error names the option and the bad value. */
int mgb_param_set(const struct mgb_option *o, void *params, const char *text, char *err);

/* The same for any option table (a backend's): opts terminated by a zero entry, or NULL. */
const struct mgb_option *mgb_option_table_find(const struct mgb_option *opts, const char *name);
int mgb_option_table_defaults(const struct mgb_option *opts, void *params, size_t size, char *err);
json_t *mgb_option_table_to_json(const struct mgb_option *opts, const void *params);
void mgb_option_table_print(FILE *out, const struct mgb_option *opts);

#define MGB_PARAM(params, type, o) (*(type *)((char *)(params) + (o)->offset))

/* A choice option's word for its stored index (choices[index]). */
const char *mgb_option_choice(const struct mgb_option *o, unsigned index);

#endif
