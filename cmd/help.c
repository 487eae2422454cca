/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mgbench help [<command>]: the command list, or one command's usage. */
#include "config.h"
#include "mgbench.h"

#include <string.h>

int cmd_help(int argc, char **argv)
{
	char *sub[] = { NULL, "--help", NULL };
	mgb_cmd_fn fn;

	if (argc < 2 || !strcmp(argv[1], "help")) {
		mgb_print_commands(stdout);
		return MGB_EXIT_OK;
	}
	fn = mgb_find_command(argv[1]);
	sub[0] = argv[1];
	if (fn)
		return fn(2, sub);
	return mgb_usage_error("help", "'%s' is not a command (see 'mgbench help')", argv[1]);
}
