/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ab: two kernels compared in one command (lib/ab/).  Each boot is one `mgbench vm` of the same
 * run, kernels A and B alternated (or in a seeded random order), each boot's document kept in
 * the output directory with its kernel, index, place in the order and times; then the documents
 * of each kernel, its runs, are compared (lib/doc/compare.h) and drawn, and the directory gets a
 * README.md that says how to reproduce it.  Running the same ab again reuses every complete boot
 * of the same set (kernels, run, vm options, mgbench version) and redoes the others.
 */
#ifndef MGB_AB_H
#define MGB_AB_H

#include <stdbool.h>
#include <stdint.h>

/* Fewest boots a side from which compare can judge every kind of metric (an exact Mann-Whitney
 * test over runs reaches alpha 0.05 from four against four: 2/70). */
#define MGB_AB_DEFAULT_BOOTS 4

struct mgb_ab {
	const char *self;            /* the mgbench binary each boot runs */
	const char *kernel[2];       /* A and B: anything `vm --kernel` takes */
	const char *source;          /* or: A built from source (with config), B from it + patches */
	const char *patches, *config;
	unsigned boots;              /* per kernel */
	bool random_order;           /* else A B A B ... */
	uint64_t seed;               /* for the random order */
	const char *dir;             /* where everything is kept (made if missing) */
	const char *const *fail;     /* --fail-on-regression metrics */
	unsigned nfail;
	const char *const *vm_args;  /* options every `vm` gets (--accel, --mem, --cpus, --timeout) */
	unsigned nvm_args;
	char *const *run_argv;       /* "run" WORKLOADS [run options] */
	unsigned run_argc;
	char *const *argv;           /* ab's arguments as given (after "ab"), for README.md */
	unsigned argc;
	bool quiet;
};

/*
 * Run the boots still missing, then compare, draw and write the report.  Returns compare's gate
 * status (0, 1 regression, 3 unjudged) or 1 when a boot failed (the kernel named in err, every
 * finished boot kept), -1 with err for anything else; a stop (SIGINT) keeps the finished boots.
 */
int mgb_ab_run(const struct mgb_ab *ab, char *err);

#endif
