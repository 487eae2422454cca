/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every make bench program shares: a target is reported, not enforced.  A missed target
 * prints MISSED and the program still exits 0, so `make bench` runs every benchmark; whoever
 * wants a gate runs `make bench BENCH_STRICT=1`.  A run that fails is an error either way.
 */
#ifndef MGB_BENCH_H
#define MGB_BENCH_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print one target's line; 1 if it was missed. */
static inline int bench_check(bool ok, const char *fs, const char *what, double got)
{
	printf("  %-6s %-52s %6.3f  %s\n", fs, what, got, ok ? "ok" : "MISSED");
	return ok ? 0 : 1;
}

/* The exit status for a run whose figures all came in: 1 only for misses under BENCH_STRICT. */
static inline int bench_exit(int missed)
{
	const char *strict = getenv("BENCH_STRICT");

	if (missed)
		printf("%d target%s missed%s\n", missed, missed == 1 ? "" : "s",
		       strict && *strict && strcmp(strict, "0") ? " (BENCH_STRICT: failing)" : "");
	return missed && strict && *strict && strcmp(strict, "0") ? 1 : 0;
}

#endif
