/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading result documents back (compare, report, plot).  A document comes from a user, so
 * everything is checked: the file (a regular file of sane size; a FIFO or a device never blocks
 * the reader), the JSON (no duplicate keys, no NaN), the schema (a newer major is refused, unknown
 * keys of the same major are ignored) and the type of every key these commands read.  Errors are
 * one line naming the file and what is wrong.
 */
#ifndef MGB_DOC_H
#define MGB_DOC_H

#include <jansson.h>
#include <stdbool.h>

/* Larger documents are refused.  mgbench writes a few KB a cell (at most 64 step ranges a
 * stamp), so 32 MiB is thousands of cells; a parsed document takes about 30 times its size
 * (a crafted 136 MB one took 4 GB to report), so a cap far above what mgbench writes is memory
 * any document could take (issue 36). */
#define MGB_DOC_MAX_BYTES (32L << 20)

/* The most documents one command reads at once (report, compare, ab's boots of a side): ab's
 * 64 boots a side four times over.  A document may take 32 MiB and more parsed, so some bound. */
#define MGB_DOCS_MAX 256

/* The document at path, checked; NULL with err set ("FILE: what is wrong"). */
json_t *mgb_doc_read(const char *path, char *err);
/* The same, from bytes in memory (the fuzz target's entry); name is used in messages. */
json_t *mgb_doc_parse(const char *name, const char *data, size_t len, char *err);

/* A cell's backend name: the string of old documents or the object's "name". */
const char *mgb_cell_backend(json_t *cell);
/*
 * What identifies a cell across documents: workload, backend (name and options), parameters and,
 * unless without_fs, the filesystem; as a canonical string (sorted compact JSON) to free().  The
 * repeat index is not part of it: repeats of one cell share its key.
 */
char *mgb_cell_key(json_t *cell, bool without_fs);

#endif
