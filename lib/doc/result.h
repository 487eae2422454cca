/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The result document (schema "mgbench/1", documented in mgbench-json(5)): built with jansson,
 * written atomically (a temp file beside the destination, fsync, rename), read back by
 * compare/plot and the tests.
 */
#ifndef MGB_RESULT_H
#define MGB_RESULT_H

#include <jansson.h>
#include <stdbool.h>
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
	bool no_replace; /* a name mgbench chose: commit fails rather than replace a file */
};

/* Bytes reserved when the output is opened: a typical document fits, and a full filesystem shows
 * before the run. */
#define MGB_OUTPUT_RESERVE (1 << 20)

int mgb_output_open(struct mgb_output *out, const char *path, char *err);
/* A default result name: "STEM.json", or "STEM-2.json" and on if that exists (two runs in one
 * second); NULL when out of memory.  Open it and set no_replace: a run that races for the same
 * name fails its commit and is rescued (mgb_output_rescue) rather than replacing the other. */
char *mgb_output_unused_name(const char *stem);
int mgb_output_commit(struct mgb_output *out, json_t *doc, char *err);
/* The same for any bytes (a picture, a script): the file appears whole or not at all. */
int mgb_output_commit_bytes(struct mgb_output *out, const void *buf, size_t len, char *err);
void mgb_output_abort(struct mgb_output *out);
/* After a failed commit: write the document as mgbench-unsaved-PID.json in the current
 * directory, else in $HOME; 0 with the path in where, -1 if neither worked. */
int mgb_output_rescue(json_t *doc, char *where, size_t len);

/* Look up a dotted path ("ctime.distinct_ratio") in an object; NULL if absent. */
json_t *mgb_json_path(json_t *obj, const char *path);
struct mgb_workload;
/* A cell's metric by its path, or in an older document by the name w->renamed says it had. */
json_t *mgb_metric_path(const struct mgb_workload *w, json_t *metrics, const char *path);

#endif
