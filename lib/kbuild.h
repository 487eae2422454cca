/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mgbench kernel build: a guest kernel from a source (a tree, or Debian's linux-source), patches
 * and config fragments, built with tinyconfig (or Debian's config, reduced) plus mgbench's fragment
 * and cached by all of them.
 * The contract of lib/kbuild/, used by cmd/kernel.c (and by vm, which boots the builds).
 */
#ifndef MGB_KBUILD_H
#define MGB_KBUILD_H

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

#endif
