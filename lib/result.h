/*
 * The result document (schema "mgbench/1", documented in mgbench-json(5)): built with jansson,
 * written atomically (a temp file beside the destination, fsync, rename), read back by
 * compare/plot and the tests.
 */
#ifndef MGB_RESULT_H
#define MGB_RESULT_H

#include <jansson.h>
#include <stdio.h>

#include "probe.h"

#define MGB_SCHEMA "mgbench/1"

/* The top of a document: schema, tool, host, kernel, command line, empty cells. */
json_t *mgb_result_new(int argc, char **argv, const struct mgb_clockinfo *ci);
/* The "kernel" object: release, version, clocks, multigrain counters and tracepoints present. */
json_t *mgb_kernel_json(const struct mgb_clockinfo *ci);

/* An output file reserved before the run, so an unwritable path fails before any work. */
struct mgb_output {
	char *path;  /* as given */
	char *base;  /* its last component */
	char *tmp;   /* a temporary name, while one exists */
	int dirfd;   /* the destination's directory */
	int fd;      /* the file being written */
};

/* Bytes reserved when the output is opened: a typical document fits, and a full filesystem shows
 * before the run. */
#define MGB_OUTPUT_RESERVE (1 << 20)

int mgb_output_open(struct mgb_output *out, const char *path, char *err);
int mgb_output_commit(struct mgb_output *out, json_t *doc, char *err);
void mgb_output_abort(struct mgb_output *out);
/* After a failed commit: write the document as mgbench-unsaved-PID.json in the current
 * directory, else in $HOME; 0 with the path in where, -1 if neither worked. */
int mgb_output_rescue(json_t *doc, char *where, size_t len);

/* Load and check a document; NULL with err set if it is not an mgbench/1 document. */
json_t *mgb_result_load(const char *path, char *err);

/* Look up a dotted path ("ctime.distinct_ratio") in an object; NULL if absent. */
json_t *mgb_json_path(json_t *obj, const char *path);

/* The plain-text table (72 columns) for every cell of a document.  A cell may carry extra rows
 * under MGB_REPORT_ROWS ([{"label", "metrics"}]), printed beneath it (never in a document). */
#define MGB_REPORT_ROWS "_report_rows"
void mgb_report_print(FILE *out, json_t *doc);
/* One value as the table shows it, by column format ("ratio", "ns", "rate", "int", "float",
 * "yesno"); "-" for a missing or null value. */
void mgb_format_value(char *buf, size_t len, json_t *v, const char *format);
/* text as lines of at most 72 columns, each indented by indent. */
void mgb_print_wrapped(FILE *out, const char *text, int indent);

#endif
