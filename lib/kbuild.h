/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mgbench kernel build: a guest kernel from a source (a tree, or Debian's linux-source), patches
 * and config fragments, built with tinyconfig (or Debian's config, reduced) plus mgbench's fragment
 * and cached by all of them.
 * The contract of lib/kbuild/, used by cmd/kernel.c and cmd/kernel_bisect.c (and by vm, which
 * boots the builds).
 */
#ifndef MGB_KBUILD_H
#define MGB_KBUILD_H

#include "util.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct mgb_kbuild {
	const char *source;          /* a kernel tree, or debian:6.1 / debian:6.12 */
	const char *const *patches;  /* files or directories of patches, in order; NULL-terminated */
	const char *config;          /* the user's fragment, or NULL */
	bool config_debian;          /* --config debian: Debian's config for the version, reduced,
				      * in place of tinyconfig */
	const char *output;          /* -o DIR, or NULL: the cache entry is the build directory */
	unsigned fuzz;               /* patch's --fuzz (0: a hunk's context must match exactly) */
	unsigned jobs;
	bool quiet;
	bool config_only;            /* stop after the config is made and checked: config_text */
	/* results */
	char *dir;                   /* the build directory */
	char *release;               /* the built kernel's release (uname -r) */
	char *config_text;           /* config_only: the .config a build would use */
	bool cached;                 /* served from the cache */
	double build_s;              /* wall time of the build (this one, or the cached one's) */
	bool tree_kept;              /* built in the previous build's work tree, not a fresh copy */
	size_t patches_kept;         /* of the patches, how many that tree already had */
};

/* Build (or find in the cache) the kernel b describes; -1 with a one-line err (a failing
 * patch, an option that did not stick, a compile error: its log's tail went to stderr). */
int mgb_kbuild_run(struct mgb_kbuild *b, char *err);
void mgb_kbuild_free(struct mgb_kbuild *b);

/* The patch files that --patches arguments name, in the order a build applies them (a directory:
 * its *.patch, *.diff and *.mbox files in name order), as absolute paths in *files; for kernel
 * bisect, which builds the series' prefixes.  -1 with err for a missing or empty patch. */
int mgb_kbuild_series(const char *const *args, char ***files, size_t *n, char *err);
void mgb_kbuild_series_free(char **files, size_t n);

/* A --config argument: "debian" sets config_debian, anything else is the fragment's path
 * (./debian for a file of that name); -1 with err for a second fragment or a second debian. */
int mgb_kbuild_config_arg(struct mgb_kbuild *b, const char *arg, char *err);

/* The files a directory (or a commit) needs to be a Linux kernel tree mgbench builds: the top
 * Makefile (with VERSION and PATCHLEVEL), Kconfig, arch/x86/Kconfig, scripts/kconfig; NULL-ended. */
extern const char *const mgb_kb_tree_files[];

/* The fragment compiled in from lib/kbuild/kernel.config. */
extern const char mgb_kbuild_fragment[];

/* kernel bisect over a git source (bisect_git.c): the commits between two revisions, each
 * checked out in a worktree of mgbench's own under the cache's kbuild/. */
struct mgb_bisect_git {
	char *repo;     /* the repository's top directory */
	char *bad;      /* --bad's commit id */
	char **commits; /* [0] --good's id, [1..n] the first-parent commits after it up to --bad */
	char **labels;  /* "abbrev subject" of each, made when first asked for */
	size_t n;
	char *worktree; /* mgbench's checkout, under the cache's kbuild/ */
	int lockfd;
	bool added;
};

/* Resolve good and bad (NULL: HEAD) in the repository at source, list the commits between, and
 * add the worktree at good; -1 with err for a source that is not a git work tree, a revision
 * that is not a commit, good not an ancestor of bad, or nothing between them. */
int mgb_bisect_git_open(const char *source, const char *good, const char *bad, struct mgb_bisect_git *g, char *err);
/* The worktree at commit k (0: good). */
int mgb_bisect_git_checkout(struct mgb_bisect_git *g, size_t k, char *err);
/* "abbrev subject" of commit k, for the table. */
const char *mgb_bisect_git_label(struct mgb_bisect_git *g, size_t k);
void mgb_bisect_git_remove_worktree(struct mgb_bisect_git *g);
/* The worktree removed, everything freed. */
void mgb_bisect_git_close(struct mgb_bisect_git *g);

/*
 * kernel bisect (bisect.c): the request (a series of patches over a source, or the commits of a
 * git source from good_rev to bad_rev), and what each prefix gave.
 */
struct mgb_bisect {
	/* the request */
	const char **patch_args;
	const char *source, *config, *metric, *outdir, *cpus, *mem, *timeout;
	bool config_debian; /* --config debian */
	const char *good_rev, *bad_rev; /* a git source's --good and --bad */
	bool use_git;
	struct mgb_bisect_git git;
	unsigned jobs, fuzz;
	bool quiet;
	char **run_argv; /* "run", WORKLOAD, ... */
	int run_argc;
	/* the series and what each prefix gave: docs[k] is the document of the first k patches */
	char **files;
	size_t n;
	size_t good;
	json_t **docs;
	char **kdirs;
	double *build_s; /* this run's wall time building prefix k (0 when it came from the cache) */
	double *guest_s; /* this run's wall time of its guest */
	bool *built;     /* built by this run, not found in the cache */
	char **failed;   /* why prefix k could not be built or run: not tried again per filesystem */
	bool outdir_made; /* removed again if a failed or stopped bisect left it empty */
	bool opened;      /* the series (or the git walk) is open: mgb_bisect_free closes it */
};

/* What compare says of prefix k against the good prefix on fs. */
struct mgb_bisect_judgement {
	const char *verdict; /* "better", "worse", "no change", or why there is none */
	double good_value, value, p;
	bool changed, judged;
};

struct mgb_bisect_fs_result {
	const char *fs;
	size_t first; /* the first prefix that changes the metric; 0: none does */
	struct mgb_bisect_judgement at_first;
	char err[MGB_ERR_LEN];
};

/* The series (or the git walk) opened: n set; -1 with err. */
int mgb_bisect_open(struct mgb_bisect *b, char *err);
/*
 * Bisect each filesystem the good prefix's document has (documents go to b->outdir, which
 * exists): *fs and *res (one per filesystem, malloc'd) say what each found.  0; 1 when a
 * filesystem could not be decided (its res[].err says why); -1 with err when nothing could start.
 */
int mgb_bisect_run(struct mgb_bisect *b, const char ***fs, unsigned *nfs, struct mgb_bisect_fs_result **res,
		   char *err);
/* Prefix k's verdict against the good prefix on fs (built and run first if it is not yet). */
int mgb_bisect_judge(struct mgb_bisect *b, size_t k, const char *fs, struct mgb_bisect_judgement *jd, char *err);
/* What prefix k is, for the table: its last patch, or its commit. */
const char *mgb_bisect_label(struct mgb_bisect *b, size_t k);
void mgb_bisect_free(struct mgb_bisect *b);

#endif
