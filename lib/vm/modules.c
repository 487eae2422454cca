/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which module files the guest must load for the requested filesystems, in load order.
 * libkmod reads the kernel tree's modules.dep/.softdep/.alias/.builtin (written by depmod), so
 * aliases and softdeps keep their exact names (hand-written resolvers dropped crc32c and
 * blake2b by normalising them).  The guest has no modprobe, so a softdep's providers (all of
 * them: crc32c_generic and crc32c-intel) are loaded explicitly before the module.
 */
#include "config.h"
#include "vm.h"
#include "util.h"

#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct order {
	char **paths;
	char **seen;
	unsigned n, nseen, cap;
};

static bool seen(struct order *o, const char *name)
{
	for (unsigned i = 0; i < o->nseen; i++)
		if (!strcmp(o->seen[i], name))
			return true;
	return false;
}

static int visit(struct order *o, struct kmod_module *m, int depth);

static int visit_list(struct order *o, struct kmod_list *list, int depth)
{
	struct kmod_list *l;
	int rc = 0;

	kmod_list_foreach(l, list) {
		if (!rc)
			rc = visit(o, kmod_module_get_module(l), depth + 1);
		else
			kmod_module_unref(kmod_module_get_module(l));
	}
	return rc;
}

/* Depth-first: pre softdeps, then dependencies, then the module itself. Takes m's reference. */
static int visit(struct order *o, struct kmod_module *m, int depth)
{
	const char *name = kmod_module_get_name(m), *path;
	struct kmod_list *pre = NULL, *post = NULL, *deps;
	int rc = 0;

	if (depth > 32 || seen(o, name)) {
		kmod_module_unref(m);
		return 0;
	}
	if (o->nseen == o->cap) {
		unsigned cap = o->cap ? o->cap * 2 : 32;
		char **s = realloc(o->seen, cap * sizeof(*s)), **p;

		if (s)
			o->seen = s;
		p = realloc(o->paths, (cap + 1) * sizeof(*p));
		if (p)
			o->paths = p;
		if (!s || !p) {
			kmod_module_unref(m);
			return -1;
		}
		o->cap = cap;
	}
	o->seen[o->nseen++] = strdup(name);
	if (kmod_module_get_softdeps(m, &pre, &post) == 0) {
		rc = visit_list(o, pre, depth);
		kmod_module_unref_list(pre);
		kmod_module_unref_list(post);
	}
	deps = kmod_module_get_dependencies(m);
	if (!rc)
		rc = visit_list(o, deps, depth);
	kmod_module_unref_list(deps);
	path = kmod_module_get_path(m);
	if (!rc && path) /* no path: built in */
		o->paths[o->n++] = strdup(path);
	kmod_module_unref(m);
	return rc;
}

/* Look name up; *found says whether the kernel knows it (as a module or built in). */
static int want(struct kmod_ctx *ctx, struct order *o, const char *name, bool *found)
{
	struct kmod_list *list = NULL;
	int rc;

	*found = false;
	if (kmod_module_new_from_lookup(ctx, name, &list) < 0)
		return -1;
	*found = list != NULL;
	rc = visit_list(o, list, 0);
	kmod_module_unref_list(list);
	return rc;
}

int mgb_vm_modules(const struct mgb_vm_kernel *k, const char *const *fs, char ***paths, char *err)
{
	static const char *const no_config[] = { "/nonexistent/mgbench-no-modprobe.d", NULL };
	struct order o = { 0 };
	struct kmod_ctx *ctx;
	char *dir;
	int rc = 0;

	*paths = NULL;
	err[0] = '\0';
	if (!k->modroot)
		return 0; /* a bare image: everything it needs must be built in */
	if (asprintf(&dir, "%s/lib/modules/%s", k->modroot, k->release) < 0)
		return mgb_err(err, "out of memory");
	/* the tree's own index files only; the host's /etc/modprobe.d says nothing about it */
	ctx = kmod_new(dir, no_config);
	if (!ctx) {
		free(dir);
		return mgb_err(err, "libkmod cannot read %s", k->modroot);
	}
	for (unsigned i = 0; !rc && fs[i]; i++) {
		bool found;
		char alias[64];

		if (!strcmp(fs[i], "tmpfs") || !strcmp(fs[i], "ramfs"))
			continue; /* always built in (shmem, ramfs) */
		if (!strcmp(fs[i], "loop"))
			snprintf(alias, sizeof(alias), "loop");
		else
			snprintf(alias, sizeof(alias), "fs-%s", fs[i]);
		rc = want(ctx, &o, alias, &found);
		if (!rc && !found)
			rc = want(ctx, &o, fs[i], &found);
		/* a kernel without nfsd still boots: its knfsd cells say "unsupported" and why */
		if (!rc && !found && strcmp(fs[i], "nfsd"))
			rc = mgb_err(err, "kernel %s has no module for %s in %s", k->release, fs[i], dir);
		else if (rc < 0 && !err[0])
			mgb_err(err, "libkmod failed looking up %s", fs[i]);
	}
	kmod_unref(ctx);
	free(dir);
	for (unsigned i = 0; i < o.nseen; i++)
		free(o.seen[i]);
	free(o.seen);
	if (rc) {
		for (unsigned i = 0; i < o.n; i++)
			free(o.paths[i]);
		free(o.paths);
		return -1;
	}
	if (!o.paths)
		o.paths = calloc(1, sizeof(*o.paths));
	else
		o.paths[o.n] = NULL;
	*paths = o.paths;
	return 0;
}
