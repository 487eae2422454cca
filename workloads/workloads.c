/* The workload table: every workload mgbench knows, in the order `mgbench list` shows them. */
#include "config.h"
#include "workload.h"

extern const struct mgb_workload mgb_workload_write;
extern const struct mgb_workload mgb_workload_stat;
extern const struct mgb_workload mgb_workload_revalidate;
extern const struct mgb_workload mgb_workload_rename;
extern const struct mgb_workload mgb_workload_setxattr;
extern const struct mgb_workload mgb_workload_meta;
extern const struct mgb_workload mgb_workload_statx06;
extern const struct mgb_workload mgb_workload_ordering;

const struct mgb_workload *const mgb_workloads[] = {
	&mgb_workload_write,
	&mgb_workload_stat,
	&mgb_workload_revalidate,
	&mgb_workload_rename,
	&mgb_workload_setxattr,
	&mgb_workload_meta,
	&mgb_workload_statx06,
	&mgb_workload_ordering,
	NULL,
};
