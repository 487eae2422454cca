/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What ab's boots (ab.c) hand its report (ab_report.c). */
#ifndef MGB_AB_INTERNAL_H
#define MGB_AB_INTERNAL_H

#include "ab.h"

#include <jansson.h>
#include <stdbool.h>

struct mgb_ab_boot {
	int side;           /* 0: A, 1: B */
	unsigned index;     /* 1.. within its kernel */
	unsigned position;  /* 1.. in the order the boots ran */
	char name[64];      /* SET-A-01.json in boots/ */
	bool done;
};

struct mgb_ab_state {
	const struct mgb_ab *ab;
	char *dir;          /* the output directory's real path (checked: only root can change it) */
	char *kernel[2];    /* what each boot's vm --kernel got (in build mode, kernels/A and B) */
	char key[13];       /* the set: what determines a boot's document */
	struct mgb_ab_boot *order;
	unsigned n;
};

/* A boot's whole document of this set, or NULL. */
json_t *mgb_ab_boot_doc(const struct mgb_ab_state *st, const struct mgb_ab_boot *b);
/* Compare the kernels' boots, print the table, write compare.{txt,md,json}, the pictures and
 * README.md into the directory; the gate's status, or -1 with err. */
int mgb_ab_report(const struct mgb_ab_state *st, char *err);

#endif
