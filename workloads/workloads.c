/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The workload table: every workload mgbench knows, in the order `mgbench list` shows them. */
#include "config.h"
#include "workload.h"

extern const struct mgb_workload mgb_workload_write;
extern const struct mgb_workload mgb_workload_stat;
extern const struct mgb_workload mgb_workload_rename;
extern const struct mgb_workload mgb_workload_setxattr;
extern const struct mgb_workload mgb_workload_meta;
extern const struct mgb_workload mgb_workload_statx06;
extern const struct mgb_workload mgb_workload_ordering;
extern const struct mgb_workload mgb_workload_revalidate;
extern const struct mgb_workload mgb_workload_cost;

const struct mgb_workload *const mgb_workloads[] = {
	&mgb_workload_write,      /* distinct ctimes after queries */
	&mgb_workload_stat,       /* the cost of queries */
	&mgb_workload_rename,     /* the other ctime-changing operations... */
	&mgb_workload_setxattr,
	&mgb_workload_meta,
	&mgb_workload_statx06,    /* the coarse-clock bracket */
	&mgb_workload_ordering,   /* ordering across inodes: the 6.6 revert */
	&mgb_workload_revalidate, /* what a caching client misses */
	&mgb_workload_cost,       /* what fine stamps cost a writer */
	NULL,
};
