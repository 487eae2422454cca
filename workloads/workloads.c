/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The workload table: every workload mgbench knows, in the order `mgbench list` shows them; and
 * the lookups by name over it. */
#include "config.h"
#include "workload.h"

#include <string.h>

extern const struct mgb_workload mgb_workload_write;
extern const struct mgb_workload mgb_workload_stat;
extern const struct mgb_workload mgb_workload_rename;
extern const struct mgb_workload mgb_workload_setxattr;
extern const struct mgb_workload mgb_workload_meta;
extern const struct mgb_workload mgb_workload_statx06;
extern const struct mgb_workload mgb_workload_ordering;
extern const struct mgb_workload mgb_workload_revalidate;
extern const struct mgb_workload mgb_workload_cost;
extern const struct mgb_workload mgb_workload_read;
extern const struct mgb_workload mgb_workload_crash;

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
	&mgb_workload_read,       /* what reads (atime updates) move */
	&mgb_workload_crash,      /* what a crash does to a stamp handed out */
	NULL,
};

const struct mgb_workload *mgb_workload_find(const char *name)
{
	for (size_t i = 0; mgb_workloads[i]; i++)
		if (!strcmp(mgb_workloads[i]->name, name))
			return mgb_workloads[i];
	return NULL;
}

/* A workload's option table through the table functions of lib/base/options.h. */
const struct mgb_option *mgb_option_find(const struct mgb_workload *w, const char *name)
{
	return mgb_option_table_find(w->options, name);
}

int mgb_params_defaults(const struct mgb_workload *w, void *params, char *err)
{
	return mgb_option_table_defaults(w->options, params, w->params_size, err);
}

json_t *mgb_params_to_json(const struct mgb_workload *w, const void *params)
{
	return mgb_option_table_to_json(w->options, params);
}

void mgb_options_print(FILE *out, const struct mgb_workload *w)
{
	mgb_option_table_print(out, w->options);
}
