/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: --config debian's reduction of Debian's config, and the part of mgbench's fragment that
 * goes on top of it (lib/kbuild/kbuild_debian.c). */
#include "config.h"
#include "helpers.h"
#include "kbuild/kbuild_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, line, n) && (l[n] == '\n' || !l[n]))
			return true;
	return false;
}

static void reduce(void)
{
	const char *debian = "# comment\n"
			     "CONFIG_HZ_250=y\n"
			     "CONFIG_HZ=250\n"
			     "CONFIG_NO_HZ_FULL=y\n"
			     "CONFIG_EXT4_FS=m\n"
			     "CONFIG_XFS_FS=m\n"
			     "CONFIG_DEFAULT_HOSTNAME=\"=m\"\n"
			     "CONFIG_DEBUG_INFO=y\n"
			     "# CONFIG_DEBUG_INFO_NONE is not set\n"
			     "CONFIG_LAST=m";
	size_t off = 99;
	char *r = mgb_kb_debian_reduce(debian, &off);

	T_CHECK(r != NULL, "reduced");
	if (!r)
		return;
	T_CHECK(off == 3, "three =m options turned off (%zu)", off);
	T_CHECK(has_line(r, "# CONFIG_EXT4_FS is not set") && has_line(r, "# CONFIG_XFS_FS is not set"),
		"=m is 'is not set': with CONFIG_MODULES off Kconfig would build it in");
	T_CHECK(has_line(r, "# CONFIG_LAST is not set"), "the last line needs no newline");
	T_CHECK(!strstr(r, "=m\n"), "no =m is left");
	T_CHECK(has_line(r, "CONFIG_DEFAULT_HOSTNAME=\"=m\""), "a string that ends in =m is a string");
	T_CHECK(has_line(r, "CONFIG_HZ_250=y") && has_line(r, "CONFIG_HZ=250") && has_line(r, "CONFIG_NO_HZ_FULL=y"),
		"Debian's built-in choices stay as they are");
	T_CHECK(strstr(r, "CONFIG_DEBUG_INFO_NONE=y\n") > strstr(r, "# CONFIG_DEBUG_INFO_NONE is not set"),
		"the reduction comes after Debian's lines, so it wins");
	free(r);
}

/* mgbench's fragment on top of Debian's: what a guest needs, not tinyconfig's stand-ins. */
static void fragment(void)
{
	char *f = mgb_kb_debian_fragment();

	T_CHECK(f != NULL, "kernel.config has its '" MGB_KB_MACHINE_MARK "' line");
	if (!f)
		return;
	T_CHECK(!strstr(f, "CONFIG_HZ_250") && !strstr(f, "CONFIG_NO_HZ_IDLE") && !strstr(f, "CONFIG_PREEMPT") &&
			!strstr(f, "CONFIG_HIGH_RES_TIMERS") && !strstr(f, "CONFIG_CC_OPTIMIZE"),
		"Debian's timekeeping, preemption and -O choices are not overridden");
	T_CHECK(has_line(f, "# CONFIG_MODULES is not set") && has_line(f, "CONFIG_EXT4_FS=y") &&
			has_line(f, "CONFIG_XFS_FS=y") && has_line(f, "CONFIG_BTRFS_FS=y") &&
			has_line(f, "CONFIG_VIRTIO_BLK=y") && has_line(f, "CONFIG_EVENT_TRACING=y"),
		"the guest's needs are there");
	T_CHECK(!strstr(f, "CONFIG_ENABLE_DEFAULT_TRACERS"), "tinyconfig's tracer switch is not");
	T_CHECK(strstr(mgb_kbuild_fragment, "CONFIG_NO_HZ_IDLE=y") != NULL,
		"tinyconfig builds still get the whole fragment");
	free(f);
}

int main(void)
{
	T_RUN(reduce());
	T_RUN(fragment());
	return t_result();
}
