/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a guest run needs from the host's side: the guest's command line (its -o taken out, the
 * guest's own path put in), the modules its filesystems and servers need, and the "vm" object
 * the host adds to the document that comes back.  cmd/vm.c parses, boots and writes.
 */
#include "config.h"
#include "stop.h"
#include "target.h"
#include "util.h"
#include "vm.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The guest command with -o/--output taken out (the host writes the document) and the guest's
 * own output path added; *fs gets the --fs list (or the default). */
char **mgb_vm_guest_argv(int argc, char **argv, const char **output, const char **fs)
{
	char **g = calloc((size_t)argc + 4, sizeof(*g));
	int n = 0;
	bool run = !strcmp(argv[0], "run");

	if (!g)
		return NULL;
	*fs = MGB_DEFAULT_FS;
	for (int i = 0; i < argc; i++) {
		if (run && (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
			*output = argv[++i];
			continue;
		}
		if (run && !strncmp(argv[i], "--output=", 9)) {
			*output = argv[i] + 9;
			continue;
		}
		if (run && !strncmp(argv[i], "-o", 2) && argv[i][2]) { /* -oFILE */
			*output = argv[i] + 2;
			continue;
		}
		if (!strcmp(argv[i], "--fs") && i + 1 < argc)
			*fs = argv[i + 1];
		else if (!strncmp(argv[i], "--fs=", 5))
			*fs = argv[i] + 5;
		g[n++] = argv[i];
	}
	if (run && argc > 1) {
		g[n++] = "-o";
		g[n++] = "/out/result.json";
	}
	return g;
}

/* The filesystems the guest needs modules for: the --fs list, plus loop for image-backed ones,
 * plus nfsd for --nfs-server knfsd, plus the NFS client for nfs3-mount and nfs4-mount. */
const char **mgb_vm_module_targets(const char *list, bool knfsd, bool kernel_client, char **copy)
{
	const char **v = calloc(70, sizeof(*v));
	char *save = NULL;
	bool loop = false;
	int n = 0;

	*copy = strdup(list);
	if (!v || !*copy)
		return v;
	for (char *t = strtok_r(*copy, ",", &save); t && n < 32; t = strtok_r(NULL, ",", &save)) {
		const struct mgb_fs_type *fs = mgb_fs_type_find(t);

		if (fs && fs->overlay_on) { /* overlayfs and its layers' filesystem */
			v[n++] = "overlay";
			v[n++] = fs->overlay_on;
		} else {
			v[n++] = t;
		}
		loop |= fs && fs->loop;
	}
	if (loop)
		v[n++] = "loop";
	if (knfsd)
		v[n++] = "nfsd"; /* and sunrpc, lockd, grace ... through libkmod */
	if (kernel_client) {
		/* nfs asks for its version's module when it mounts: the guest has no modprobe */
		v[n++] = "nfsv3";
		v[n++] = "nfsv4";
	}
	return v;
}

/*
 * A guest whose coarse clock never stepped by a single tick of its kernel's HZ lost ticks (TCG
 * under load): its per-tick figures, counted in the kernel's ticks, had fewer steps to fill.
 * Flag it in the document (vm.tick_matches_config) and say so.
 */
static void note_lost_ticks(json_t *doc, bool quiet)
{
	json_t *vm = json_object_get(doc, "vm");
	const char *hz = json_string_value(
		json_object_get(json_object_get(json_object_get(vm, "kernel_config"), "options"), "CONFIG_HZ"));
	json_t *clocks = json_object_get(json_object_get(doc, "kernel"), "clocks");
	/* a document from before the step was recorded apart measured its tick as the step */
	json_int_t measured = json_integer_value(json_object_get(clocks, "coarse_step_seen_ns") ?:
						 json_object_get(clocks, "coarse_tick_ns"));
	double want = hz && atoi(hz) > 0 ? 1e9 / atoi(hz) : 0;
	bool matches = want > 0 && measured > 0 && measured < want * 1.25 && measured > want * 0.75;

	if (want <= 0 || measured <= 0) {
		json_object_set_new(vm, "tick_matches_config", json_null());
		return;
	}
	json_object_set_new(vm, "tick_matches_config", json_boolean(matches));
	if (!matches && !quiet)
		fprintf(stderr, "mgbench vm: the guest's coarse clock stepped by %lld ns at the least, its config says HZ=%s (%.0f ns): "
			"it lost ticks (TCG under load?): per-tick figures count ticks its clock did not step on\n",
			(long long)measured, hz, want);
}

void mgb_vm_doc_annotate(json_t *doc, const struct mgb_vm_kernel *k, const struct mgb_vm_boot *b, const char *qver,
			 unsigned cpus, unsigned mem, bool quiet)
{
	json_error_t je;
	json_t *src;

	if (!strcmp(k->kind, "build")) {
		json_t *m = json_loads(k->manifest, 0, &je);

		src = json_pack("{s:s, s:s, s:s?, s:o?, s:b}", "kind", "build", "path", k->image, "version", k->release,
				"manifest", m, "verified", k->verified);
	} else if (!strcmp(k->kind, "path"))
		src = json_pack("{s:s, s:s, s:s?}", "kind", "path", "path", k->image, "version", k->release);
	else
		src = json_pack("{s:s, s:s, s:s}", "kind", "debian", "package", k->package, "version", k->version);
	json_object_set_new(doc, "vm",
			    mgb_vm_outer_host_json(json_pack(
				    "{s:s, s:s, s:s, s:i, s:i, s:o, s:o, s:f}", "qemu_version", qver, "accel", b->accel_used,
				    "cpu", "max", "cpus", (int)cpus, "mem_mib", (int)mem, "kernel_source", src,
				    "kernel_config", mgb_vm_kernel_config_json(k), "boot_s", b->boot_s)));
	/* part of boot_s: what loading each module took (nfsd's for knfsd cells) */
	json_object_set(json_object_get(doc, "vm"), "modules_s", b->modules ? b->modules : json_null());
	json_object_set_new(json_object_get(doc, "vm"), "boot_retried",
			    b->boot_retried ? json_string(b->boot_retried) : json_null());
	note_lost_ticks(doc, quiet);
}

char *mgb_vm_guest_initramfs(struct mgb_vm_kernel *k, const char *scratch, const char *fs, bool kernel_client,
			     struct mgb_vm_guest *g, char ***mods, char *err)
{
	char *fscopy = NULL, *initrd = NULL;
	const char **targets = mgb_vm_module_targets(fs, g->knfsd, kernel_client, &fscopy);

	*mods = NULL;
	if (!targets || !fscopy) {
		mgb_err(err, "out of memory");
		goto out;
	}
	/* a kernel without a usable module index gets one, once */
	if (mgb_vm_modules(k, targets, mods, err) &&
	    (mgb_stop_requested() || mgb_vm_reindex(k, scratch, err) || mgb_vm_modules(k, targets, mods, err)))
		goto out;
	g->modules = *mods;
	initrd = mgb_vm_initramfs(scratch, g, err);
out:
	free(targets);
	free(fscopy);
	return initrd;
}
