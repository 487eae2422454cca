/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kernel bisect over a git source (cmd/kernel_bisect_git.c), for cmd/kernel_bisect.c. */
#ifndef MGB_KERNEL_BISECT_H
#define MGB_KERNEL_BISECT_H

#include <stdbool.h>
#include <stddef.h>

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
