/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checking mode (--check): the invariants the kernel documents.  Any metric named in
 * mgb_invariant_keys that is above zero, anywhere in a cell's metrics, is a violation.
 */
#ifndef MGB_CHECK_H
#define MGB_CHECK_H

#include <jansson.h>
#include <stdio.h>

/* Print one line per violation ("write on ext4 via sync: ctime.backwards = 3") and count them. */
unsigned mgb_check_document(json_t *doc, FILE *out);

#endif
