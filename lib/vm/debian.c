/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Debian kernels mgbench knows by name: see lib/vm.h. */
#include "config.h"
#include "vm.h"

#include <stdio.h>
#include <string.h>

const struct mgb_debian_kernel mgb_debian_kernels[] = {
	/* bookworm's own kernel, and the 6.12 it carries beside it (bookworm-backports' ABI) */
	{ "6.1", NULL, "linux-image-amd64", NULL, "linux-source-6.1" },
	{ "6.12", NULL, "linux-image-6.12-amd64", NULL, "linux-source-6.12" },
	/* sid's current kernel, through a private apt configuration of that suite */
	{ "unstable", "sid", "linux-image-amd64", "sid", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

const struct mgb_debian_kernel *mgb_debian_kernel_find(const char *name)
{
	for (const struct mgb_debian_kernel *k = mgb_debian_kernels; k->name; k++)
		if (!strcmp(name, k->name) || (k->alias && !strcmp(name, k->alias)))
			return k;
	return NULL;
}

const char *mgb_debian_kernel_names(bool with_source)
{
	static char buf[2][200];
	char *out = buf[with_source];
	size_t n = 0, count = 0, i = 0;

	for (const struct mgb_debian_kernel *k = mgb_debian_kernels; k->name; k++)
		count += !with_source || k->source_pkg;
	out[0] = '\0';
	for (const struct mgb_debian_kernel *k = mgb_debian_kernels; k->name; k++) {
		if (with_source && !k->source_pkg)
			continue;
		i++;
		n += (size_t)snprintf(out + n, sizeof(buf[0]) - n, "%sdebian:%s",
				      i == 1 ? "" : i == count ? " or " : ", ", k->name);
	}
	return out;
}
