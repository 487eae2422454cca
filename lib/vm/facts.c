/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a guest's numbers depend on that the guest cannot see: the config of the kernel booted
 * (timekeeping, preemption, code generation: the tick and the timers scale every distinct ratio
 * and tie count), read from the .config beside a build or the config-* a Debian package ships,
 * and the outer host's name and CPU model (a TCG guest's rates are that CPU's).
 */
#include "config.h"
#include "json_text.h"
#include "probe.h"
#include "util.h"
#include "vm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The options recorded (mgb_kconfig_recorded): what changes what mgbench measures. */
#define recorded mgb_kconfig_recorded

/* The kernel's config file, if one is known: NULL when none. */
static char *config_path(const struct mgb_vm_kernel *k)
{
	/* beside a build's image; in an unpacked Debian package, boot/config-R (bookworm) or
	 * lib/modules/R/config (trixie and later, under usr/ once merged) */
	static const char *const where[] = { "%s/.config", "%s/boot/config-%s", "%s/lib/modules/%s/config",
					     "%s/usr/lib/modules/%s/config" };
	char dir[PATH_MAX], *slash, *p = NULL;

	snprintf(dir, sizeof(dir), "%s", k->image);
	if (!(slash = strrchr(dir, '/')))
		return NULL;
	*slash = '\0';
	for (size_t i = 0; i < MGB_ARRAY_SIZE(where); i++) {
		if (i > 0 && !k->release)
			break;
		if (asprintf(&p, where[i], dir, k->release) < 0)
			return NULL;
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

json_t *mgb_vm_kernel_config_json(const struct mgb_vm_kernel *k)
{
	char *path = config_path(k), line[512];
	json_t *opts, *out;
	FILE *f;

	if (!path || !(f = fopen(path, "re"))) {
		free(path);
		return MGB_JSON_PACK("{s:n, s:s}", "file", "reason", "no config beside the kernel image");
	}
	opts = json_object();
	for (size_t i = 0; recorded[i]; i++)
		json_object_set_new(opts, recorded[i], json_null()); /* not set, unless the file says */
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		if (line[0] != 'C' || !eq)
			continue;
		*eq = '\0';
		line[strcspn(line, "\n")] = '\0';
		eq[1 + strcspn(eq + 1, "\n")] = '\0';
		if (json_object_get(opts, line))
			json_object_set_new(opts, line, mgb_json_text(eq + 1));
	}
	fclose(f);
	out = MGB_JSON_PACK("{s:o, s:o}", "file", mgb_json_text(path), "options", opts);
	free(path);
	return out;
}

json_t *mgb_vm_outer_host_json(json_t *vm)
{
	char name[256] = "", line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");
	json_t *cpu = json_null();

	gethostname(name, sizeof(name) - 1);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			char *v = strchr(line, ':') + 1;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			json_decref(cpu);
			cpu = mgb_json_text(v);
			break;
		}
	if (f)
		fclose(f);
	json_object_set_new(vm, "host", mgb_json_text(name));
	json_object_set_new(vm, "host_cpu", cpu);
	return vm;
}
