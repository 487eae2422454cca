/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: reading a kernel config (mgb_kconfig_*), on text and on the running kernel's own. */
#include "config.h"
#include "helpers.h"
#include "probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void parse_text(void)
{
	static char text[] = "# comment\n"
			     "CONFIG_HZ_250=y\n"
			     "CONFIG_HZ=250\n"
			     "# CONFIG_HIGH_RES_TIMERS is not set\n"
			     "CONFIG_XFS_FS=m\n"
			     "CONFIG_LOCALVERSION=\"-mg\"\n"
			     "CONFIG_LAST=y";
	struct mgb_kconfig kc = { .text = text, .len = sizeof(text) - 1 };
	char v[32];

	T_CHECK(mgb_kconfig_value(&kc, "CONFIG_HZ", v, sizeof(v)) && !strcmp(v, "250"),
		"CONFIG_HZ is 250, not CONFIG_HZ_250's y");
	T_CHECK(mgb_kconfig_enabled(&kc, "CONFIG_HZ_250"), "=y is enabled");
	T_CHECK(mgb_kconfig_enabled(&kc, "CONFIG_XFS_FS"), "=m is enabled");
	T_CHECK(!mgb_kconfig_enabled(&kc, "CONFIG_HIGH_RES_TIMERS"), "'is not set' is not enabled");
	T_CHECK(!mgb_kconfig_value(&kc, "CONFIG_HIGH_RES", v, sizeof(v)), "a prefix of a name is not the name");
	T_CHECK(!mgb_kconfig_value(&kc, "CONFIG_ABSENT", v, sizeof(v)), "an absent option is unset");
	T_CHECK(mgb_kconfig_value(&kc, "CONFIG_LOCALVERSION", v, sizeof(v)) && !strcmp(v, "-mg"),
		"a string loses its quotes");
	T_CHECK(mgb_kconfig_enabled(&kc, "CONFIG_LAST"), "the last line needs no newline");
	T_CHECK(mgb_kconfig_value(&kc, "CONFIG_LOCALVERSION", v, 3) && !strcmp(v, "-m"),
		"a value is cut to the buffer");
}

/* The running kernel's: /boot/config-$(uname -r) on Debian, /proc/config.gz elsewhere. */
static void running_kernel(void)
{
	struct mgb_kconfig kc;
	char hz[16], option[32];

	if (mgb_kconfig_load(&kc)) {
		printf("# no config for this kernel (neither /boot/config-* nor /proc/config.gz): not checked\n");
		return;
	}
	T_CHECK(mgb_kconfig_value(&kc, "CONFIG_HZ", hz, sizeof(hz)) && atoi(hz) >= 100,
		"every x86 config has CONFIG_HZ (%s)", kc.source);
	snprintf(option, sizeof(option), "CONFIG_HZ_%s", hz);
	T_CHECK(mgb_kconfig_enabled(&kc, option), "CONFIG_HZ=%s comes with %s=y (%s)", hz, option, kc.source);
	printf("# %s: CONFIG_HZ=%s\n", kc.source, hz);
	mgb_kconfig_free(&kc);
}

int main(void)
{
	T_RUN(parse_text());
	T_RUN(running_kernel());
	return t_result();
}
