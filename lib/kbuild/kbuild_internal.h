/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to lib/kbuild/: the parts of `mgbench kernel build` (its contract is lib/kbuild.h). */
#ifndef MGB_KBUILD_INTERNAL_H
#define MGB_KBUILD_INTERNAL_H

#include "kbuild.h"

#include <jansson.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* How mgbench builds a kernel, in every cache key and manifest: a change to the procedure that
 * changes what it makes gets new keys. */
#define MGB_KBUILD_PROCEDURE 2

/* The kernel source: a pristine tree never written to. */
struct mgb_kb_source {
	char *tree;         /* the tree to copy from */
	char *label;        /* "debian:6.1" or the tree's absolute path */
	char *package;      /* Debian: linux-source-6.1 */
	char *pkg_version;  /* Debian: 6.1.192-3 */
	char *version;      /* the Makefile's VERSION.PATCHLEVEL.SUBLEVEL[EXTRAVERSION] */
	char *id;           /* what identifies this source's contents, for the cache key */
};
int mgb_kb_source_get(const char *spec, const char *cache, bool quiet, struct mgb_kb_source *s, char *err);
void mgb_kb_source_free(struct mgb_kb_source *s);
/* A private copy of tree at to: a hard-link farm (GNU patch replaces the files it changes, and
 * the build writes only into its O= directory, so the original's files are never written).
 * cp's messages go to logfd; SIGINT/SIGTERM stop it (-1, err says so). */
int mgb_kb_copy_tree(const char *tree, const char *to, int logfd, char *err);
/* Copy the regular file from to to (mode 0644), through a temporary name only we can have made,
 * synced and renamed into place. */
int mgb_kb_copy_file(const char *from, const char *to, char *err);

struct mgb_kb_patch {
	char *name;    /* file name, as the manifest records it */
	char *path;
	char sha256[65];
	json_t *moved;  /* after applying: the hunks that did not land where the patch says, each
			 * {file, hunk, line, offset, fuzz}, for the manifest */
	json_t *before; /* after applying: {path: sha256 or null} of each file it touched, as it was
			 * before: what undoing it must give back (kbuild_tree.c) */
};
/* The patches the arguments name, in order (a directory: its *.patch, *.diff, *.mbox files in
 * name order).  *n may be 0. */
int mgb_kb_patches(const char *const *args, struct mgb_kb_patch **out, size_t *n, char *err);
void mgb_kb_patches_free(struct mgb_kb_patch *p, size_t n);
/* Apply one patch to tree (patch -p1 --fuzz=fuzz); on failure err names the patch and its first
 * failing hunk.  p->moved gets the hunks patch moved or fuzzed, p->before the files it touched. */
int mgb_kb_patch_apply(const char *tree, struct mgb_kb_patch *p, unsigned fuzz, FILE *log, char *err);
/* Undo a patch applied by mgb_kb_patch_apply (patch -R), and check that every file it touched is
 * again what before says (sha256, or absent for null): -1 if not. */
int mgb_kb_patch_revert(const char *tree, const char *path, const char *name, const json_t *before, unsigned fuzz,
			FILE *log, char *err);

/* The work tree (src/, obj/) that builds share, kept after a build that succeeded with a record
 * of what it holds, so that the next build with the same base (everything in the key but the
 * patches and, for a --source directory, its contents) undoes and applies only the patches that
 * differ, and copies in only the source files that changed, and make compiles only what they
 * touch.  prepare: bring work/src to the longest common prefix of the recorded patches and p
 * (undoing the others; all of them when source_id differs, whose files are then synced from
 * tree), or to a fresh copy of tree when there is no usable record; *applied is how many of p
 * are already in (their moved and before filled in from the record), *kept whether the tree was
 * kept at all.  The record is removed first: a build that does not finish leaves a tree the next
 * one will not trust. */
int mgb_kb_tree_prepare(const char *work, const char *base, const char *tree, const char *source_id,
			struct mgb_kb_patch *p, size_t n, unsigned fuzz, int logfd, FILE *log, size_t *applied, bool *kept,
			char *err);
/* After a build that succeeded: the record of base, the source and p[0..n). */
int mgb_kb_tree_save(const char *work, const char *base, const char *source_id, const struct mgb_kb_patch *p,
		     size_t n, char *err);

/* Check every option line of fragment (CONFIG_X=v or "# CONFIG_X is not set") against the
 * .config at path, except those requested again later or in override (whose requests win);
 * err names the first one that did not stick (what: where it came from) and what it became. */
int mgb_kb_config_verify(const char *config_path, const char *fragment, const char *what,
			 const char *override, char *err);
/* Every "# CONFIG_X is not set" line of fragment whose option the .config at config_path does
 * not mention must name an option some Kconfig file under tree declares: a typo is refused as a
 * set option that does not exist is by mgb_kb_config_verify. */
int mgb_kb_config_known(const char *tree, const char *config_path, const char *fragment, const char *what,
			char *err);
/* Lines of a user fragment that are neither options, comments nor blank: -1 naming the first. */
int mgb_kb_config_parse(const char *fragment, const char *what, char *err);

/* --config debian (kbuild_debian.c): Debian's config for the source's version, reduced to a
 * guest (=m options off, no debug info, no signing certificates); the base in place of tinyconfig. */
struct mgb_kb_debian {
	char *config;           /* the reduced config, ending with mgb_kb_debian_reduction */
	char *fragment;         /* mgb_kb_debian_fragment(): what goes on top of it */
	char sha256[65];        /* of config: in the cache key */
	char debian_sha256[65]; /* of Debian's file as shipped */
	size_t modules_off;     /* =m options turned off */
	char *package, *version, *release; /* the linux-image package it came from */
};
extern const char mgb_kb_debian_reduction[];
/* mgbench's fragment from its MGB_KB_MACHINE_MARK line on, without the lines only tinyconfig
 * needs: what a guest needs, without the first section (HZ, timers, NO_HZ, preemption, -O2 as
 * tinyconfig lacks them), which Debian's config has its own values for.  malloc'd; NULL if
 * kernel.config lost that line. */
#define MGB_KB_MACHINE_MARK "# the machine:"
char *mgb_kb_debian_fragment(void);
/* The config of the Debian kernel src stands for (debian:NAME, or the one of the tree's
 * VERSION.PATCHLEVEL), from the linux-image package `vm --kernel debian:NAME` boots. */
int mgb_kb_debian_config(const struct mgb_kb_source *src, bool quiet, struct mgb_kb_debian *d, char *err);
void mgb_kb_debian_free(struct mgb_kb_debian *d);
/* config with each CONFIG_X=m line made "# CONFIG_X is not set" (*modules_off counts them) and
 * mgb_kb_debian_reduction appended (malloc'd; NULL when out of memory). */
char *mgb_kb_debian_reduce(const char *config, size_t *modules_off);

/* How a long step shows that it is alive: not at all, on a terminal's line redrawn four times a
 * second, or (stderr a log or a CI job's output) one line every 30 s. */
enum mgb_kb_progress { MGB_KB_PROGRESS_NONE, MGB_KB_PROGRESS_TTY, MGB_KB_PROGRESS_LINES };

/* Run argv in cwd with env (NAME=VALUE strings, or NULL), output appended to log, showing progress (elapsed time and the current make
 * target) labelled label.  Returns the exit status, or -1 (also when SIGINT or SIGTERM came: the
 * child's process group is then stopped). */
int mgb_kb_run_logged(const char *const argv[], const char *cwd, const char *const *env, int logfd,
		      enum mgb_kb_progress progress, const char *label, char *err);

#endif
