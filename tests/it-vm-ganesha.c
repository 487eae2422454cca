/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the embedded nfs-ganesha (the default --nfs-server) inside a debian:unstable
 * guest (TCG), so that ganesha on one kernel can be set beside ganesha on another, and beside
 * knfsd (it-knfsd).  One boot runs write over NFSv3 and NFSv4, through libnfs and through the
 * guest kernel's client (nfs3-mount, nfs4-mount), on ext4 and tmpfs exports: every
 * cell ok, served by nfs-ganesha with its version and start recorded, ctime distinct in every
 * round on that multigrain kernel, no nfsd module loaded for it, and nothing left running after
 * the run (the guest's init lists ganesha.nfsd and rpcbind too: "vm: LEFT none").
 */
#include "config.h"
#include "helpers.h"
#include "result.h"

#include <stdio.h>
#include <string.h>

#define ROUNDS 300

static void check_cell(json_t *c, const char *fs, int v, const char *client)
{
	json_t *srv = json_object_get(c, "server");
	double start = json_number_value(mgb_json_path(c, "timings.server_start_ns"));

	T_CHECK(c && !strcmp(t_str(c, "status"), "ok"), "%s nfs%d: ok, not %s (%s)", fs, v, t_str(c, "status"),
		t_str(c, "error"));
	if (!c || strcmp(t_str(c, "status"), "ok"))
		return;
	T_CHECK(!strcmp(t_str(srv, "software"), "nfs-ganesha") && t_str(srv, "version")[0],
		"%s nfs%d: served by nfs-ganesha, its version recorded: '%s' '%s'", fs, v, t_str(srv, "software"),
		t_str(srv, "version"));
	T_CHECK(!strcmp(t_str(srv, "export_fs"), fs) && json_integer_value(json_object_get(srv, "nfs_version")) == v,
		"%s nfs%d: export_fs %s, nfs_version %lld", fs, v, t_str(srv, "export_fs"),
		(long long)json_integer_value(json_object_get(srv, "nfs_version")));
	T_CHECK(start > 0 && start == json_number_value(json_object_get(srv, "start_ns")),
		"%s nfs%d: the server's start in timings (%.0f ns)", fs, v, start);
	T_CHECK(!strcmp(t_str(srv, "client.kind"), client), "%s nfs%d: client %s, not %s", fs, v, client,
		t_str(srv, "client.kind"));
	/* a multigrain kernel: every round's change is seen over the wire */
	T_CHECK(t_metric(c, "ctime.distinct") == ROUNDS, "%s nfs%d: ctime distinct %.0f of %d", fs, v,
		t_metric(c, "ctime.distinct"), ROUNDS);
	T_CHECK(t_metric(c, "ctime.backwards") == 0, "%s nfs%d: ctime never backwards", fs, v);
}

static void guest_write(void)
{
	const char *path = t_result_path("ganesha.json");
	const char *args[] = { "vm", "--kernel", "debian:unstable", "-o", path, "--", "run", "write", "--backend",
			       "nfs3,nfs4,nfs3-mount,nfs4-mount", "--fs", "ext4,tmpfs", "--rounds", "300", NULL };
	static const char *const fss[] = { "ext4", "tmpfs" };
	struct t_output o;
	json_t *doc;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "vm: exit %d: %s", o.status, o.err);
	T_CHECK(o.err && strstr(o.err, "vm: LEFT none"), "nothing left running in the guest: %s",
		o.err && strstr(o.err, "vm: LEFT") ? strstr(o.err, "vm: LEFT") : "(no LEFT line)");
	t_output_free(&o);
	doc = t_load(path);
	T_CHECK(doc != NULL, "a document");
	/* ganesha is user space: the guest loads no NFS server module for it */
	T_CHECK(doc && !mgb_json_path(doc, "vm.modules_s.nfsd"), "no nfsd module loaded");
	for (size_t f = 0; doc && f < 2; f++)
		for (int v = 3; v <= 4; v++) {
			check_cell(t_cell_backend(doc, "write", fss[f], v == 3 ? "nfs3" : "nfs4"), fss[f], v, "libnfs");
			check_cell(t_cell_backend(doc, "write", fss[f], v == 3 ? "nfs3-mount" : "nfs4-mount"), fss[f], v, "kernel");
		}
	json_decref(doc);
}

int main(void)
{
	struct t_host before;

	/* the time limit allows for guests booted under TCG where there is no KVM */
	t_require(&(struct t_needs){ .root = true, .libnfs = true, .slow = true,
				     .programs = (const char *const[]){ "qemu-system-x86_64", "/usr/bin/ganesha.nfsd",
									"/usr/sbin/rpcbind", NULL }, .max_runtime_s = 7200 });
	t_host_snapshot(&before);
	if (t_tier_runs_again("guest_write", "ganesha's paths ran on the host in it-nfs, the guest's kernel mounts in "
					     "it-knfsd"))
		T_RUN(guest_write());
	t_host_check_clean(&before, "after the guest's ganesha runs");
	return t_result();
}
