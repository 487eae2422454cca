/* mgbench help [<command>]: the command list, or one command's usage. */
#include "config.h"
#include "mgbench.h"

#include <string.h>

int cmd_help(int argc, char **argv)
{
	char *sub[] = { NULL, "--help", NULL };

	if (argc < 2 || !strcmp(argv[1], "help")) {
		mgb_print_commands(stdout);
		return MGB_EXIT_OK;
	}
	sub[0] = argv[1];
	if (!strcmp(argv[1], "run"))
		return cmd_run(2, sub);
	if (!strcmp(argv[1], "list"))
		return cmd_list(2, sub);
	if (!strcmp(argv[1], "info"))
		return cmd_info(2, sub);
	return mgb_usage_error("help", "'%s' is not a command (see 'mgbench help')", argv[1]);
}
