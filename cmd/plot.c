#include "mgbench.h"
int cmd_plot(int argc, char **argv) { (void)argc; (void)argv; return 1; }
