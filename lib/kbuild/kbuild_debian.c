/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --config debian: the config Debian ships for the source's version, as the base in place of
 * tinyconfig.  It is read from the same linux-image package that `mgbench vm --kernel debian:X`
 * boots (boot/config-<release>), then reduced to what a guest needs without changing how the
 * kernel keeps time or schedules: no modules (a guest has nothing to load them from, and
 * Kconfig would build every =m option in once CONFIG_MODULES is off), no debug info (hours of
 * DWARF and pahole for symbols nobody reads), and no signing certificates (Debian's build names
 * files its source package does not ship).  Everything Debian builds in stays built in, and
 * Debian's own timekeeping, preemption and -O choices stay too: mgbench's fragment goes on top
 * without its first section, tinyconfig's stand-in for them (Debian 6.1 and 6.12 have NO_HZ_FULL
 * where that section asks for NO_HZ_IDLE).
 */
#include "config.h"
#include "kbuild_internal.h"
#include "util.h"
#include "kbuild.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* After the =m lines are turned off: checked after olddefconfig like mgbench's fragment.
 * (Debian's shipped config names no certificate file: SYSTEM_TRUSTED_KEYS is left out of it and
 * defaults to none.) */
const char mgb_kb_debian_reduction[] =
	"# Debian's config reduced to a guest: no debug info (nor BTF, which needs it)\n"
	"CONFIG_DEBUG_INFO_NONE=y\n";

/* Lines of mgbench's fragment that only tinyconfig needs: ENABLE_DEFAULT_TRACERS exists only
 * while no tracer is chosen (it turns tracing on in a config that has none), and Debian's has
 * tracers, so it is absent there whatever is asked.  EVENT_TRACING is still checked. */
static const char *const tinyconfig_only[] = { "CONFIG_ENABLE_DEFAULT_TRACERS=" };

char *mgb_kb_debian_fragment(void)
{
	const char *m = strstr(mgb_kbuild_fragment, "\n" MGB_KB_MACHINE_MARK);
	char *out = m ? malloc(strlen(m)) : NULL;
	size_t n = 0;

	if (!out)
		return NULL;
	for (const char *l = m + 1; *l;) {
		size_t len = strcspn(l, "\n");
		bool drop = false;

		for (size_t i = 0; i < MGB_ARRAY_SIZE(tinyconfig_only); i++)
			drop |= !strncmp(l, tinyconfig_only[i], strlen(tinyconfig_only[i]));
		if (!drop)
			n += (size_t)sprintf(out + n, "%.*s\n", (int)len, l);
		l += len + (l[len] == '\n');
	}
	return out;
}

char *mgb_kb_debian_reduce(const char *config, size_t *modules_off)
{
	size_t cap = strlen(config) * 2 + sizeof(mgb_kb_debian_reduction) + 64, n = 0;
	char *out = malloc(cap);

	*modules_off = 0;
	if (!out)
		return NULL;
	for (const char *l = config; *l;) {
		size_t len = strcspn(l, "\n");
		size_t name = strspn(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

		/* CONFIG_X=m is "# CONFIG_X is not set": longer by 12 bytes at most, within cap */
		if (!strncmp(l, "CONFIG_", 7) && name == len - 2 && !strncmp(l + name, "=m", 2)) {
			n += (size_t)snprintf(out + n, cap - n, "# %.*s is not set\n", (int)name, l);
			(*modules_off)++;
		} else {
			n += (size_t)snprintf(out + n, cap - n, "%.*s\n", (int)len, l);
		}
		l += len + (l[len] == '\n');
	}
	snprintf(out + n, cap - n, "%s", mgb_kb_debian_reduction);
	return out;
}

/* The Debian kernel a source stands for: debian:NAME itself, or the one whose name is the
 * tree's VERSION.PATCHLEVEL ("6.1.192" -> 6.1). */
static const struct mgb_debian_kernel *debian_for(const struct mgb_kb_source *src, char *err)
{
	const struct mgb_debian_kernel *k = NULL;
	char mm[32];

	if (!strncmp(src->label, "debian:", 7))
		k = mgb_debian_kernel_find(src->label + 7);
	if (!k) {
		const char *dot = strchr(src->version, '.');
		size_t len = dot ? strspn(dot + 1, "0123456789") + (size_t)(dot + 1 - src->version) : 0;

		snprintf(mm, sizeof(mm), "%.*s", (int)(len < sizeof(mm) ? len : 0), src->version);
		k = mgb_debian_kernel_find(mm);
	}
	if (!k || !k->source_pkg)
		mgb_err(err, "--config debian: Debian ships no kernel config mgbench knows for %s (it knows %s)",
			src->version, mgb_debian_kernel_names(true));
	return k && k->source_pkg ? k : NULL;
}

int mgb_kb_debian_config(const struct mgb_kb_source *src, bool quiet, struct mgb_kb_debian *d, char *err)
{
	const struct mgb_debian_kernel *known = debian_for(src, err);
	struct mgb_vm_kernel k;
	char spec[64], path[4096], *text = NULL;
	int rc = -1;

	memset(d, 0, sizeof(*d));
	if (!known)
		return -1;
	if (!(d->fragment = mgb_kb_debian_fragment()))
		return mgb_err(err, "mgbench's kernel.config has no '%s' line", MGB_KB_MACHINE_MARK);
	snprintf(spec, sizeof(spec), "debian:%s", known->name);
	if (mgb_vm_kernel_get(spec, NULL, NULL, quiet ? NULL : "mgbench kernel", &k, err)) {
		mgb_kb_debian_free(d);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/boot/config-%s", k.modroot, k.release);
	if (!(text = mgb_read_text(path, err)) || !*text)
		mgb_err(err, "--config debian: %s has no config (%s)", k.package, path);
	else if (!(d->config = mgb_kb_debian_reduce(text, &d->modules_off)))
		mgb_err(err, "out of memory");
	else {
		mgb_sha256_buf(text, strlen(text), d->debian_sha256);
		mgb_sha256_buf(d->config, strlen(d->config), d->sha256);
		d->package = k.package;
		d->version = k.version;
		d->release = k.release;
		k.package = k.version = k.release = NULL;
		rc = 0;
	}
	free(text);
	mgb_vm_kernel_free(&k);
	if (rc)
		mgb_kb_debian_free(d);
	return rc;
}

void mgb_kb_debian_free(struct mgb_kb_debian *d)
{
	free(d->config);
	free(d->fragment);
	free(d->package);
	free(d->version);
	free(d->release);
	memset(d, 0, sizeof(*d));
}
