/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: the text table never rounds a ratio below 1 up to 1.000, prints booleans as words, and
 * fits in 72 columns. */
#include "config.h"
#include "report.h"
#include "helpers.h"
#include "result.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Not inlined: GCC 12 then takes the returned buffer for table_of's own local (-Wdangling-pointer). */
static __attribute__((noinline)) char *table_of(json_t *doc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	mgb_report_print(out, doc);
	fclose(out);
	return text;
}

/* Does text hold a byte sequence a terminal would act on or display out of order? */
static const char *unsafe_in(const char *text)
{
	static const char *const bad[] = { "\033", "\007", "\r", "\xc2\x9b", "\xc2\x85", "\xe2\x80\xae",
					   "\xe2\x80\xaa", "\xe2\x81\xa6", "\xe2\x81\xa9", "\x9b" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strstr(text, bad[i]))
			return bad[i];
	return NULL;
}

static void printable_cases(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain ascii", "plain ascii" },
		{ "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80" },
		{ "a\033[31mb\nc\x7f", "a?[31mb?c?" },
		/* C1 controls in UTF-8: U+009B (CSI), U+0085 (NEL), U+0080 and U+009F at the edges */
		{ "x\xc2\x9b" "31my \xc2\x85 \xc2\x80\xc2\x9f \xc2\xa0", "x?31my ? ?? \xc2\xa0" },
		/* bidi embeddings, overrides and isolates; U+2029 and U+206A beside them stay */
		{ "\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x80\xae|\xe2\x80\xa9", "?????|\xe2\x80\xa9" },
		{ "\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9|\xe2\x81\xaa", "????|\xe2\x81\xaa" },
		/* bytes that are no UTF-8: a lone C1 byte, a stray continuation, an overlong '/', a
		 * surrogate, a sequence cut short, beyond U+10FFFF */
		{ "a\x9b" "b\x80" "c\xc0\xaf" "d\xed\xa0\x80" "e\xe2\x80", "a?b?c??d???e??" },
		{ "\xf4\x90\x80\x80|\xff", "????|?" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = mgb_printable_dup(cases[i].in);

		T_CHECK(!strcmp(got, cases[i].out), "case %zu: got \"%s\", want \"%s\"", i, got, cases[i].out);
		free(got);
	}
	/* cutting: never inside a character */
	T_CHECK(mgb_utf8_cut("ab\xc3\xa9", 3) == 2, "a cut inside \xc3\xa9 moves before it");
	T_CHECK(mgb_utf8_cut("ab\xc3\xa9", 4) == 4 && mgb_utf8_cut("ab\xc3\xa9", 10) == 4, "the whole string");
	T_CHECK(mgb_utf8_cut("\xf0\x9f\x98\x80z", 3) == 0 && mgb_utf8_cut("\xf0\x9f\x98\x80z", 4) == 4,
		"a 4-byte character is kept whole or left out");
}

/* whatever string of a document report prints goes through the filter */
static void report_strings(void)
{
	const char *evil = "x\033]0;t\007\xc2\x9b" "2J\xe2\x80\xae" "desrever\xe2\x81\xa6",
		   *evil2 = "k\xc2\x85\xe2\x80\xaa";
	json_t *doc = json_pack("{s:s, s:[{s:s, s:s, s:{s:s, s:{s:s, s:b}}, s:s, s:{s:s}, s:{s:{s:f}},"
				"s:{s:s, s:s, s:I}, s:{s:i}, s:[s], s:[{s:s, s:{}}]},"
				"{s:s, s:s, s:s, s:s, s:s, s:{}, s:n}]}",
				"schema", "mgbench/1", "cells",
				"workload", "write", "fs", evil, "backend", "name", evil, "options", evil, evil, evil2, true,
				"status", evil, "params", "query", evil, "metrics", "ctime", "distinct_ratio", 0.5,
				"server", "software", evil, "version", evil, "start_ns", (json_int_t)1000,
				"backend_metrics", "clients", 2, "warnings", evil, MGB_REPORT_ROWS, "label", evil, "metrics",
				"workload", "write", "fs", "ext4", "backend", evil, "status", evil, "error", evil, "params",
				"metrics");
	char *text;
	const char *bad;

	T_CHECK(doc != NULL, "the document packs");
	text = doc ? table_of(doc) : strdup("");
	bad = unsafe_in(text);
	T_CHECK(!bad, "report printed a sequence a terminal acts on (\\x%02x...):\n%s", bad ? (unsigned char)bad[0] : 0,
		text);
	T_CHECK(strstr(text, "desrever"), "the text around them is printed:\n%s", text);
	free(text);
	json_decref(doc);
	/* a long line wrapped at 72 columns is never cut inside a character: "x" and then 2-byte
	 * characters, so that a cut at the byte count lands inside one */
	{
		char line[400] = "x", *save = NULL;
		FILE *out;

		for (int i = 0; i < 60; i++)
			strcat(line, "\xc3\xa9\xc3\xa9\xc3\xa9");
		out = open_memstream(&text, &(size_t){ 0 });
		mgb_print_wrapped(out, line, 4);
		fclose(out);
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char *check = strdup(l);

			T_CHECK(!strcmp(mgb_printable(check), l), "wrapping cut a character: %s", l);
			free(check);
		}
		free(text);
	}
}

/* Lines over 72 columns in text (counted in characters), and the first of them in first. */
static unsigned wide_lines(const char *text, const char **first)
{
	unsigned n = 0;

	*first = NULL;
	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		size_t chars = 0;

		for (const char *c = l; *c && *c != '\n'; c++)
			chars += ((unsigned char)*c & 0xc0) != 0x80;
		if (chars > 72 && !n++)
			*first = l;
	}
	return n;
}

/* Real documents with more than a line's worth: crash through knfsd (ten columns, a server line
 * that runs long), overlay (a wide fs column), read (seven columns).  Every line fits in 72; the
 * columns that do not fit beside the first ones follow in a table of their own, every row again. */
static void fits_in_72(void)
{
	static const char *const docs[] = { "results/crash-knfsd/boots/3bc58437a619-A-01.json",
					    "results/overlay/crossfs/series.json",
					    "results/read-knfsd/local-reader/boots/3db78e1a5c5e-A-04.json" };
	const char *src = getenv("srcdir") ?: ".";

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char path[1024];
		json_t *doc;
		char *text;
		const char *wide;
		unsigned nwide;

		snprintf(path, sizeof(path), "%s/%s", src, docs[i]);
		doc = json_load_file(path, 0, NULL);
		T_CHECK(doc != NULL, "%s does not load", path);
		if (!doc)
			continue;
		text = table_of(doc);
		nwide = wide_lines(text, &wide);
		T_CHECK(nwide == 0, "%s: %u line(s) over 72 columns, first: %.*s", docs[i], nwide,
			wide ? (int)strcspn(wide, "\n") : 0, wide ?: "");
		if (i == 0) {
			/* two blocks (flush=none, log) of two rows, each under both tables */
			const char *second = strstr(text, "\nfs    via    chg older chg stale chg reuse chg behnd\n");
			unsigned ext4 = t_occurrences(text, "\next4  nfs4 ");
			T_CHECK(second && strstr(text, "\nfs    via       rounds      lost     older     stale    reused    "
							"behind\n") < second,
				"crash: the ctime's columns, then the change attribute's:\n%s", text);
			T_CHECK(ext4 == 4, "crash: ext4's row in both tables of both blocks, %u times:\n%s", ext4, text);
			T_CHECK(strstr(text, "\next4  nfs4          20         0         0         0\n"),
				"crash: the change attribute's counts under their header:\n%s", text);
		}
		free(text);
		json_decref(doc);
	}
}

int main(void)
{
	t_case("mgb_printable: controls, C1, bidi and bytes that are no UTF-8 become '?'");
	printable_cases();
	t_case("report: no string of a document reaches the terminal raw");
	report_strings();
	t_case("the table fits in 72 columns");
	fits_in_72();
	t_case("the table's numbers");
	/* 9,995 distinct of 10,000: %.3f would print 1.000 and hide 5 repeated stamps. */
	json_t *doc = json_pack("{s:s, s:[{s:s, s:s, s:s, s:s, s:{}, s:{s:{s:f}}},"
				"         {s:s, s:s, s:s, s:s, s:{}, s:{s:b, s:i}}]}",
				"schema", "mgbench/1", "cells",
				"workload", "write", "fs", "ext4", "backend", "sync", "status", "ok", "params",
				"metrics", "ctime", "distinct_ratio", 0.9995,
				"workload", "revalidate", "fs", "btrfs", "backend", "sync", "status", "ok", "params",
				"metrics", "conclusive", 0, "polls", 3);
	char *text = table_of(doc);

	T_CHECK(strstr(text, "0.999") != NULL && strstr(text, "1.000") == NULL, "0.9995 truncated:\n%s", text);
	T_CHECK(strstr(text, " NO") != NULL, "an inconclusive cell says NO:\n%s", text);
	free(text);
	json_decref(doc);

	doc = json_pack("{s:s, s:[{s:s, s:s, s:s, s:s, s:{}, s:{s:{s:f}}}]}", "schema", "mgbench/1", "cells",
			"workload", "write", "fs", "ext4", "backend", "sync", "status", "ok", "params",
			"metrics", "ctime", "distinct_ratio", 1.0);
	text = table_of(doc);
	T_CHECK(strstr(text, "1.000") != NULL, "a ratio of exactly 1 prints as 1.000:\n%s", text);
	free(text);
	json_decref(doc);
	return t_result();
}
