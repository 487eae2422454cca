/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plain-text table: one block per workload, one row per cell, at most 72 columns. */
#include "config.h"
#include "report.h"
#include "doc.h"
#include "json_text.h"
#include "result.h"
#include "util.h"
#include "workload.h"

#include <stdlib.h>
#include <string.h>

#define COL_WIDTH 9
/* the fs column's widest, and the buffer a name is printed from */
#define FS_WIDTH_MAX 64

void mgb_format_value(char *buf, size_t len, json_t *v, const char *format)
{
	/* a value of the wrong type is no value: "fast" must not print as 0 */
	if (!v || json_is_null(v) || (!strcmp(format, "yesno") ? !json_is_boolean(v) : !json_is_number(v)))
		snprintf(buf, len, "-");
	else if (!strcmp(format, "yesno"))
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "NO");
	else if (!strcmp(format, "ratio"))
		/* Truncated, not rounded: 0.9995 must not read as 1.000. */
		snprintf(buf, len, "%.3f", (double)(long long)(json_number_value(v) * 1000.0) / 1000.0);
	else if (!strcmp(format, "ns"))
		mgb_format_ns(buf, len, json_number_value(v));
	else if (!strcmp(format, "rate") || !strcmp(format, "int"))
		snprintf(buf, len, "%.0f", json_number_value(v));
	else
		snprintf(buf, len, "%.2f", json_number_value(v));
}

static void print_value(FILE *out, json_t *v, const char *format)
{
	char buf[32];

	mgb_format_value(buf, sizeof(buf), v, format);
	fprintf(out, " %*s", COL_WIDTH, buf);
}

/* A long message (an error) as lines of at most 72 columns, indented. */
void mgb_print_wrapped(FILE *out, const char *text, int indent)
{
	int width = 72 - indent;
	/* text may come from a document: control characters (an escape sequence, a newline, a C1
	 * control, a bidi override) print as '?' */
	char *safe = mgb_printable_dup(text);

	text = safe;
	while (*text) {
		int n = (int)strlen(text);

		if (n > width) {
			n = width;
			while (n > width / 2 && text[n] != ' ')
				n--;
			n = (int)mgb_utf8_cut(text, (size_t)n); /* never half a character */
		}
		fprintf(out, "%*s%.*s\n", indent, "", n, text);
		text += n;
		while (*text == ' ')
			text++;
	}
	free(safe);
}

/* Cells with the same workload and parameters share one table block. */
static char *block_key_of(json_t *cell)
{
	json_t *k = MGB_JSON_PACK("{s:O?, s:O?}", "w", json_object_get(cell, "workload"), "p",
			      json_object_get(cell, "params"));
	char *s = json_dumps(k, JSON_SORT_KEYS | JSON_COMPACT);

	json_decref(k);
	return s;
}

/* In the workload's option order, so a run and a document read back print the same line. */
static void print_params(FILE *out, const struct mgb_workload *w, json_t *params)
{
	int col = 0;

	for (const struct mgb_option *o = w->options; o && o->name; o++) {
		json_t *v = json_object_get(params, o->name);
		char *s;
		int len;

		if (!v)
			continue;
		s = json_is_string(v) ? strdup(json_string_value(v)) : json_dumps(v, JSON_ENCODE_ANY);
		len = (int)(strlen(o->name) + strlen(s) + 3);
		if (col > 0 && col + len > 72) {
			fputc('\n', out);
			col = 0;
		}
		mgb_printable(s); /* a value from a document is no escape sequence */
		col += fprintf(out, "  %s=%s", o->name, s);
		free(s);
	}
	if (col > 0)
		fputc('\n', out);
}

/* Under each block, where multigrain was in effect (the cells' own probe), so a pasted table
 * says what kind of kernel and filesystem made it. */
struct mg_line {
	char yes[160], no[160], unknown[160];
};

static void mg_line_add(struct mg_line *l, json_t *cell)
{
	json_t *in_effect = json_object_get(json_object_get(cell, "multigrain"), "in_effect");
	char fsname[64];
	const char *fs =
		mgb_printable_into(fsname, sizeof(fsname), json_string_value(json_object_get(cell, "fs")) ?: "?");
	char *list = json_is_true(in_effect) ? l->yes : json_is_false(in_effect) ? l->no : l->unknown;
	size_t n = strlen(list);

	if (!json_object_get(cell, "multigrain"))
		return;
	/* One mention per filesystem: repeats and backends share the fs. */
	for (const char *p = strstr(list, fs); p; p = strstr(p + 1, fs))
		if ((p == list || p[-1] == ' ') && (p[strlen(fs)] == ' ' || !p[strlen(fs)]))
			return;
	snprintf(list + n, sizeof(l->yes) - n, "%s%s", n ? " " : "", fs);
}

static void mg_line_print(FILE *out, struct mg_line *l)
{
	char text[620];
	int n = snprintf(text, sizeof(text), "multigrain: ");

	if (*l->yes)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "yes on %s", l->yes);
	if (*l->no)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%sno on %s", *l->yes ? "; " : "", l->no);
	if (*l->unknown)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%sunknown on %s", *l->yes || *l->no ? "; " : "",
			      l->unknown);
	if (*l->yes || *l->no || *l->unknown)
		mgb_print_wrapped(out, text, 0);
	memset(l, 0, sizeof(*l));
}

/* Rows a reader added under a cell (report's min and max over several documents), columns
 * [first, last) of w's. */
static void print_extra_rows(FILE *out, const struct mgb_workload *w, json_t *rows, size_t first, size_t last)
{
	size_t i;
	json_t *row;

	json_array_foreach(rows, i, row) {
		char label[64];

		fprintf(out, "  %-10.10s",
			mgb_printable_into(label, sizeof(label), json_string_value(json_object_get(row, "label"))));
		for (size_t c = first; c < last; c++)
			print_value(out, mgb_json_path(json_object_get(row, "metrics"), w->columns[c].path),
				    w->columns[c].format);
		fputc('\n', out);
	}
}

/* An NFS cell's server: ": 2 clients, nfs-ganesha 4.3 up in 23.1ms", or ": 2 clients"; through
 * the kernel's client, ": kernel client, knfsd 6.12.1 up in 1.02s". */
static void print_server(FILE *out, json_t *server, json_t *bm)
{
	json_t *start = json_object_get(server, "start_ns");
	const char *client = json_string_value(mgb_json_path(server, "client.kind"));
	char when[32], software[64], version[64];

	if (!server)
		return;
	if (client && !strcmp(client, "kernel"))
		fputs(": kernel client", out);
	else
		fprintf(out, ": %lld client%s", (long long)json_integer_value(json_object_get(bm, "clients")),
			json_integer_value(json_object_get(bm, "clients")) == 1 ? "" : "s");
	if (!json_is_integer(start))
		return; /* --nfs-url: the URL is among the options */
	fputs(", ", out);
	mgb_format_ns(when, sizeof(when), (double)json_integer_value(start));
	fprintf(out, "%s %s up in %s",
		mgb_printable_into(software, sizeof(software),
				   json_string_value(json_object_get(server, "software")) ?: "?"),
		mgb_printable_into(version, sizeof(version),
				   json_string_value(json_object_get(server, "version")) ?: "?"),
		when);
}

/*
 * The "via" column has room for the backend's name only: a backend with options or numbers of
 * its own (io_uring's depth and punts) gets a line of its own under the row, e.g.
 * "      uring depth=32 link: punted 99.1% of writes, 99.5% of all".  Writes are told apart:
 * io_uring always hands a statx to a worker, so only the writes' punts say what timestamps cost.
 */
/* A cell's warnings, each wrapped under its row. */
static void print_warnings(FILE *out, json_t *cell)
{
	size_t i;
	json_t *w;

	json_array_foreach(json_object_get(cell, "warnings"), i, w) {
		char *line;

		if (asprintf(&line, "warning: %s", json_string_value(w) ?: "") < 0)
			continue;
		mgb_print_wrapped(out, line, 4);
		free(line);
	}
}

static void print_backend_text(FILE *out, json_t *cell)
{
	json_t *b = json_object_get(cell, "backend"), *opts = json_object_get(b, "options");
	json_t *bm = json_object_get(cell, "backend_metrics");
	json_t *ratio = json_object_get(bm, "punted_ratio"), *wratio = json_object_get(bm, "writes_punted_ratio");
	const char *key;
	char name[64], k[64], val[256];
	json_t *v;

	fprintf(out, "%s", mgb_printable_into(name, sizeof(name), json_string_value(json_object_get(b, "name"))));
	json_object_foreach(opts, key, v) {
		if (json_is_false(v) || json_is_null(v))
			continue;
		mgb_printable_into(k, sizeof(k), key);
		if (json_is_true(v))
			fprintf(out, " %s", k);
		else if (json_is_integer(v))
			fprintf(out, " %s=%lld", k, (long long)json_integer_value(v));
		else if (json_is_string(v))
			fprintf(out, " %s=%s", k, mgb_printable_into(val, sizeof(val), json_string_value(v)));
	}
	if (json_is_number(ratio) && json_is_number(wratio) && json_integer_value(json_object_get(bm, "writes")))
		fprintf(out, ": punted %.1f%% of writes, %.1f%% of all", 100 * json_number_value(wratio),
			100 * json_number_value(ratio));
	else if (json_is_number(ratio))
		fprintf(out, ": punted %.1f%% of %lld requests", 100 * json_number_value(ratio),
			(long long)json_integer_value(json_object_get(bm, "requests")));
	else if (bm && !json_object_get(cell, "server"))
		fprintf(out, ": punts not counted (%s)",
			mgb_printable_into(val, sizeof(val),
					   json_string_value(json_object_get(bm, "punted_reason")) ?: "no tracepoint"));
	print_server(out, json_object_get(cell, "server"), bm);
}

/* The backend's line under a row, wrapped at 72 (an NFS server's name and version run long). */
static void print_backend_line(FILE *out, json_t *cell)
{
	char *text = NULL;
	size_t len = 0;
	FILE *line;

	if (!json_object_size(json_object_get(json_object_get(cell, "backend"), "options")) &&
	    !json_object_size(json_object_get(cell, "backend_metrics")))
		return;
	line = open_memstream(&text, &len);
	if (!line)
		return;
	print_backend_text(line, cell);
	if (fclose(line) == 0)
		mgb_print_wrapped(out, text, 6);
	free(text);
}

/* The workload of a cell, or NULL for one this mgbench does not know (not shown). */
static const struct mgb_workload *workload_of(json_t *cell)
{
	const char *name = json_string_value(json_object_get(cell, "workload"));

	return name ? mgb_workload_find(name) : NULL;
}

/*
 * One table of a block: the block's cells (from..to, those of known workloads) under columns
 * [first, last) of w's.  The first table of a block (first == 0) carries each row's status, error,
 * backend line and warnings; the columns that do not fit beside it in 72 columns follow in more
 * tables, the rows repeated (crash's ten columns: its ctime's, then its change attribute's).
 */
static void print_table(FILE *out, const struct mgb_workload *w, json_t *cells, size_t from, size_t to,
			size_t first, size_t last, int fsw)
{
	char fsname[FS_WIDTH_MAX], via[64], status[64];

	fprintf(out, "%-*s%-6s", fsw, "fs", "via");
	for (size_t c = first; c < last; c++)
		fprintf(out, " %*s", COL_WIDTH, w->columns[c].header);
	fputc('\n', out);
	for (size_t i = from; i < to; i++) {
		json_t *cell = json_array_get(cells, i), *metrics = json_object_get(cell, "metrics");

		if (!workload_of(cell) || (first > 0 && !json_is_object(metrics)))
			continue;
		fprintf(out, "%-*.*s%-6.6s", fsw, fsw,
			mgb_printable_into(fsname, sizeof(fsname), json_string_value(json_object_get(cell, "fs"))),
			mgb_printable_into(via, sizeof(via), mgb_cell_backend(cell)));
		if (!json_is_object(metrics)) {
			fprintf(out, " %s:\n",
				mgb_printable_into(status, sizeof(status),
						   json_string_value(json_object_get(cell, "status"))));
			mgb_print_wrapped(out, json_string_value(json_object_get(cell, "error")) ?: "", 4);
			continue;
		}
		for (size_t c = first; c < last; c++)
			print_value(out, mgb_metric_path(w, metrics, w->columns[c].path), w->columns[c].format);
		if (strcmp(json_string_value(json_object_get(cell, "status")) ?: "", "ok"))
			fprintf(out, " (%s)",
				mgb_printable_into(status, sizeof(status),
						   json_string_value(json_object_get(cell, "status"))));
		fputc('\n', out);
		if (first == 0)
			print_backend_line(out, cell);
		print_extra_rows(out, w, json_object_get(cell, MGB_REPORT_ROWS), first, last);
		if (first == 0)
			print_warnings(out, cell);
	}
}

void mgb_report_print(FILE *out, json_t *doc)
{
	struct mg_line mg = { 0 };
	json_t *cells = json_object_get(doc, "cells");
	size_t i, n = json_array_size(cells);
	json_t *cell;
	bool first_block = true;
	int fsw = 6; /* the fs column: six, or as wide as the longest name (overlay-btrfs) and a blank */
	size_t fit;

	json_array_foreach(cells, i, cell) {
		size_t len = strlen(json_string_value(json_object_get(cell, "fs")) ?: "");

		if ((int)len + 1 > fsw)
			fsw = len + 1 < FS_WIDTH_MAX ? (int)len + 1 : FS_WIDTH_MAX;
	}
	/* how many columns fit beside fs and via in 72 */
	fit = (size_t)((72 - fsw - 6) / (COL_WIDTH + 1));
	if (fit < 1)
		fit = 1;
	/* a block: the cells from i on with the same workload and parameters (unknown workloads
	 * between them are not shown and do not end it) */
	for (i = 0; i < n;) {
		const struct mgb_workload *w = workload_of(json_array_get(cells, i));
		char *key, *title;
		size_t end, ncol = 0;

		if (!w) {
			i++;
			continue;
		}
		key = block_key_of(json_array_get(cells, i));
		for (end = i + 1; end < n; end++) {
			json_t *next = json_array_get(cells, end);
			char *next_key;
			bool same;

			if (!workload_of(next))
				continue;
			next_key = block_key_of(next);
			same = !strcmp(key, next_key);
			free(next_key);
			if (!same)
				break;
		}
		free(key);
		if (!first_block)
			fputc('\n', out);
		first_block = false;
		if (asprintf(&title, "%s: %s", w->name, w->summary) >= 0) {
			mgb_print_wrapped(out, title, 0);
			free(title);
		}
		print_params(out, w, json_object_get(json_array_get(cells, i), "params"));
		while (w->columns[ncol].header)
			ncol++;
		for (size_t first = 0; first < ncol || first == 0; first += fit)
			print_table(out, w, cells, i, end, first, first + fit < ncol ? first + fit : ncol, fsw);
		for (; i < end; i++)
			if (workload_of(json_array_get(cells, i)))
				mg_line_add(&mg, json_array_get(cells, i));
		mg_line_print(out, &mg);
	}
}
