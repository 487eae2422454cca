/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: the plan of a run (lib/run/plan.h), built by hand, without root: its cells and their
 * order, and what it needs from the machine. */
#include "config.h"
#include "backend.h"
#include "helpers.h"
#include "plan.h"
#include "target.h"
#include "workload.h"

#include <string.h>

static void cells_and_order(void)
{
	struct mgb_plan p = { .repeat = 2, .rounds = 0 };
	struct mgb_plan_needs n;
	struct mgb_cell_spec c;

	p.workloads[p.nworkloads++] = mgb_workload_find("write");
	p.workloads[p.nworkloads++] = mgb_workload_find("stat");
	p.fs[p.nfs++] = mgb_fs_type_find("ext4");
	p.fs[p.nfs++] = mgb_fs_type_find("tmpfs");
	p.backends[p.nbackends++] = mgb_backend_find("sync");
	p.backends[p.nbackends++] = mgb_backend_find("uring") ?: mgb_backend_find("sync");
	T_CHECK(mgb_plan_count(&p) == 16, "2 repeats x 2 workloads x 2 filesystems x 2 backends: %zu",
		mgb_plan_count(&p));
	mgb_plan_cell(&p, 0, &c);
	T_CHECK(!strcmp(c.workload->name, "write") && !strcmp(c.fs->name, "ext4") && c.backend == p.backends[0] &&
			c.repeat == 0 && c.rounds == mgb_workload_default_rounds(c.workload),
		"the first cell: write on ext4, the first backend, repeat 0, the workload's rounds");
	mgb_plan_cell(&p, 1, &c);
	T_CHECK(c.backend == p.backends[1] && !strcmp(c.fs->name, "ext4"), "backends vary fastest");
	mgb_plan_cell(&p, 2, &c);
	T_CHECK(!strcmp(c.fs->name, "tmpfs") && !strcmp(c.workload->name, "write"), "then filesystems");
	mgb_plan_cell(&p, 4, &c);
	T_CHECK(!strcmp(c.workload->name, "stat") && c.repeat == 0, "then workloads");
	mgb_plan_cell(&p, 15, &c);
	T_CHECK(c.repeat == 1 && !strcmp(c.workload->name, "stat") && !strcmp(c.fs->name, "tmpfs"),
		"repeats outermost: the last cell is repeat 1's last");
	mgb_plan_needs(&p, &n);
	T_CHECK(!n.nfs && !n.knfsd && !n.ganesha && n.scratch, "local backends need no NFS server, and scratch space");
	p.rounds = 77;
	mgb_plan_cell(&p, 3, &c);
	T_CHECK(c.rounds == 77, "--rounds overrides the workload's default");
	/* --dir: one target, whatever --fs held */
	p.dir = "/somewhere";
	T_CHECK(mgb_plan_count(&p) == 8, "--dir: one target: %zu cells", mgb_plan_count(&p));
	mgb_plan_cell(&p, 0, &c);
	T_CHECK(!c.fs && c.dir && !strcmp(c.dir, "/somewhere"), "--dir cells have no scratch filesystem");
	mgb_plan_needs(&p, &n);
	T_CHECK(!n.scratch, "--dir needs no scratch filesystems");
}

static void nfs_needs(void)
{
#ifdef HAVE_LIBNFS
	struct mgb_plan p = { .repeat = 1 };
	struct mgb_plan_needs n;

	p.workloads[p.nworkloads++] = mgb_workload_find("write");
	p.fs[p.nfs++] = mgb_fs_type_find("ext4");
	p.backends[p.nbackends++] = mgb_backend_find("nfs3");
	mgb_plan_needs(&p, &n);
	T_CHECK(n.nfs && n.ganesha && !n.knfsd && !n.kernel_client && !n.nfs_url,
		"nfs3 with its defaults: the embedded ganesha");
	p.backends[p.nbackends++] = mgb_backend_find("nfs4-mount");
	mgb_plan_needs(&p, &n);
	T_CHECK(n.kernel_client, "nfs4-mount: the kernel's client");
#else
	fprintf(stderr, "SKIP built without libnfs: the NFS needs\n");
#endif
}

int main(void)
{
	T_RUN(cells_and_order());
	T_RUN(nfs_needs());
	return t_result();
}
