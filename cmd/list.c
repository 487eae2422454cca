/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mgbench list: workloads with their summaries and options, filesystems, backends. */
#include "config.h"
#include "backend.h"
#include "mgbench.h"
#include "target.h"
#include "workload.h"

#include <string.h>

static void list_workloads(FILE *out, bool with_options)
{
	fprintf(out, "workloads:\n");
	for (size_t i = 0; mgb_workloads[i]; i++) {
		fprintf(out, "  %-10s %s\n", mgb_workloads[i]->name, mgb_workloads[i]->summary);
		if (with_options) {
			fprintf(out, "    %-18s rounds per cell (default %llu)\n", "--rounds N",
				(unsigned long long)mgb_workload_default_rounds(mgb_workloads[i]));
			mgb_options_print(out, mgb_workloads[i]);
		}
	}
}

static void list_targets(FILE *out)
{
	fprintf(out, "filesystems (--fs):\n");
	for (unsigned i = 0; i < mgb_fs_type_count; i++)
		if (mgb_fs_types[i].overlay_on)
			fprintf(out, "  %-14s overlayfs with its layers on a fresh %s\n", mgb_fs_types[i].name,
				mgb_fs_types[i].overlay_on);
		else
			fprintf(out, "  %-14s %s%s\n", mgb_fs_types[i].name,
				mgb_fs_types[i].loop ? "loop-mounted image" : "memory filesystem",
				mgb_fs_types[i].multigrain_expected ? "" : " (not multigrain: the control)");
	fprintf(out, "backends (--backend):\n");
	for (size_t i = 0; mgb_backends[i]; i++)
	{
		fprintf(out, "  %-11s %s\n", mgb_backends[i]->name, mgb_backends[i]->summary);
		mgb_option_table_print(out, mgb_backends[i]->options);
	}
}

int cmd_list(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: mgbench list [workloads|filesystems]\n\n"
		       "Lists the workloads with their options, the filesystems and the backends.\n");
		return MGB_EXIT_OK;
	}
	if (argc > 2)
		return mgb_usage_error("list", "unexpected argument '%s'", argv[2]);
	if (argc == 2 && !strcmp(argv[1], "workloads")) {
		list_workloads(stdout, true);
		return MGB_EXIT_OK;
	}
	if (argc == 2 && !strcmp(argv[1], "filesystems")) {
		list_targets(stdout);
		return MGB_EXIT_OK;
	}
	if (argc == 2)
		return mgb_usage_error("list", "'%s' is not something to list (workloads, filesystems)", argv[1]);
	list_workloads(stdout, true);
	list_targets(stdout);
	return MGB_EXIT_OK;
}
