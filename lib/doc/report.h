/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plain-text tables: what `mgbench run` prints after a run and `mgbench report` prints again
 * from documents (report.c), and report's summary of several (report_summary.c).
 */
#ifndef MGB_REPORT_H
#define MGB_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* The plain-text table (72 columns) for every cell of a document.  A cell may carry extra rows
 * under MGB_REPORT_ROWS ([{"label", "metrics"}]), printed beneath it (never in a document). */
#define MGB_REPORT_ROWS "_report_rows"
void mgb_report_print(FILE *out, json_t *doc);
/* One value as the table shows it, by column format ("ratio", "ns", "rate", "int", "float",
 * "yesno"); "-" for a missing or null value. */
void mgb_format_value(char *buf, size_t len, json_t *v, const char *format);
/* text as lines of at most 72 columns, each indented by indent. */
void mgb_print_wrapped(FILE *out, const char *text, int indent);

/* Whether any cell of the documents is of a workload this mgbench knows. */
bool mgb_report_any_known(json_t *const *docs, unsigned ndocs);
/* Whether a document has repeats (or a failed cell): its table is a summary. */
bool mgb_report_has_repeats(json_t *doc);
/* The summary's tables: per cell key the median of each column over the documents' cells, with
 * min and max beneath, a note when the documents mix kernels or machines, and failed repeats. */
void mgb_report_print_summary(FILE *out, json_t *const *docs, unsigned ndocs);

#endif
