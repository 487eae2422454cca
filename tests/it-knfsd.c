/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: --nfs-server knfsd, the kernel's own NFS server inside a debian:unstable guest
 * (TCG).  One boot runs write over NFSv3 and NFSv4 on ext4 and tmpfs exports: every cell ok,
 * served by knfsd with its versions, export options, grace outcome and change-attribute source
 * recorded, its start in timings, ctime (and on v4 the change attribute) distinct in every round
 * on that multigrain kernel, and nothing left running after the run (the guest's init lists
 * nfsd/lockd threads and NFS daemons: "vm: LEFT none").  Two more boots stop rpc.mountd or
 * nfsd right after each start (vm --test-knfsd-stop): the cells fail within a few NFS timeouts,
 * their error naming what stopped first.  The write boot also runs nfs3-mount and nfs4-mount:
 * the guest kernel's client mounted on knfsd.  On this host (no nfsd, no NFS client, not a
 * guest) a knfsd cell and an nfs3-mount cell are "unsupported" with their reasons, without a boot,
 * and so is a knfsd cell in a guest whose kernel cannot load nfsd (booted without its modules).
 */
#include "config.h"
#include "helpers.h"
#include "result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 300
#define NFS_TIMEOUT_S 2

static char unstable_vmlinux[1024];

static void host_unsupported(void)
{
	const char *path = t_result_path("host.json");
	const char *args[] = { "run", "write", "--backend", "nfs3,nfs4", "--nfs-server", "knfsd", "--fs", "tmpfs",
			       "--rounds", "10", "-o", path, NULL };
	struct t_output o;
	json_t *doc, *c;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "host: exit %d (unsupported cells are not a failure): %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	for (int v = 3; doc && v <= 4; v++) {
		c = t_cell_backend(doc, "write", "tmpfs", v == 3 ? "nfs3" : "nfs4");
		T_CHECK(c && !strcmp(t_str(c, "status"), "unsupported"), "host nfs%d: unsupported, not %s", v,
			c ? t_str(c, "status") : "(no cell)");
		/* this host's kernel has no nfsd; one that had would be refused as not a guest */
		T_CHECK(c && (strstr(t_str(c, "error"), "has no nfsd") ||
			      strstr(t_str(c, "error"), "only inside a guest")),
			"host nfs%d: the reason: %s", v, c ? t_str(c, "error") : "");
		T_CHECK(c && !strcmp(t_str(c, "server.software"), "knfsd"), "host nfs%d: server.software knfsd", v);
	}
	json_decref(doc);
}

/* The kernel's client on a kernel without one: unsupported, with its reason, and no server. */
static void host_no_client(void)
{
	const char *path = t_result_path("host-mount.json");
	const char *args[] = { "run", "write", "--backend", "nfs3-mount", "--fs", "tmpfs", "--rounds", "10", "-o",
			       path, NULL };
	struct t_output o;
	json_t *doc, *c;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "host nfs3-mount: exit %d (unsupported cells are not a failure): %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	c = doc ? t_cell_backend(doc, "write", "tmpfs", "nfs3-mount") : NULL;
	T_CHECK(c && !strcmp(t_str(c, "status"), "unsupported") && strstr(t_str(c, "error"), "has no NFS client"),
		"host nfs3-mount: unsupported for want of a client: %s %s", t_str(c, "status"), t_str(c, "error"));
	json_decref(doc);
}

/*
 * The same server through the guest kernel's client: mounted with the attribute cache off, so
 * each stat is a GETATTR, and on that multigrain kernel every round's change is seen.
 */
static void guest_mount_cell(json_t *c, const char *fs, int v)
{
	const char *opts = t_str(c, "server.client.mount_options");
	char vers[16];

	snprintf(vers, sizeof(vers), v == 3 ? "vers=3" : "vers=4.0");
	T_CHECK(c && !strcmp(t_str(c, "status"), "ok"), "%s nfs%d-mount: ok, not %s (%s)", fs, v, t_str(c, "status"),
		t_str(c, "error"));
	if (!c || strcmp(t_str(c, "status"), "ok"))
		return;
	T_CHECK(!strcmp(t_str(c, "server.software"), "knfsd") && !strcmp(t_str(c, "server.client.kind"), "kernel"),
		"%s nfs%d-mount: knfsd through the kernel client, not %s through %s", fs, v, t_str(c, "server.software"),
		t_str(c, "server.client.kind"));
	T_CHECK(strstr(opts, "actimeo=0") && strstr(opts, vers) && strstr(opts, "soft"),
		"%s nfs%d-mount: mounted %s, actimeo=0, soft: '%s'", fs, v, vers, opts);
	T_CHECK(t_str(c, "server.client.source")[0] == '1', "%s nfs%d-mount: the source, %s", fs, v,
		t_str(c, "server.client.source"));
	T_CHECK(t_metric(c, "ctime.distinct") == ROUNDS, "%s nfs%d-mount: ctime distinct %.0f of %d", fs, v,
		t_metric(c, "ctime.distinct"), ROUNDS);
	T_CHECK(t_metric(c, "ctime.backwards") == 0, "%s nfs%d-mount: ctime never backwards", fs, v);
}

static void guest_write(void)
{
	const char *path = t_result_path("knfsd.json");
	const char *args[] = { "vm", "--kernel", "debian:unstable", "-o", path, "--", "run", "write", "--backend",
			       "nfs3,nfs4,nfs3-mount,nfs4-mount", "--nfs-server", "knfsd", "--fs", "ext4,tmpfs",
			       "--rounds", "300", NULL };
	static const char *const fss[] = { "ext4", "tmpfs" };
	struct t_output o;
	json_t *doc;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "vm: exit %d: %s", o.status, o.err);
	/* the guest's init, after the run: no nfsd or lockd thread, no rpc.mountd, rpcbind or nfsdcld */
	T_CHECK(o.err && strstr(o.err, "vm: LEFT none"), "nothing left running in the guest: %s",
		o.err && strstr(o.err, "vm: LEFT") ? strstr(o.err, "vm: LEFT") : "(no LEFT line)");
	t_output_free(&o);
	doc = t_load(path);
	T_CHECK(doc != NULL, "a document");
	/* the guest's extra start-up for knfsd: loading nfsd and sunrpc, recorded */
	T_CHECK(json_number_value(mgb_json_path(doc, "vm.modules_s.nfsd")) > 0 &&
			json_number_value(mgb_json_path(doc, "vm.modules_s.sunrpc")) > 0,
		"vm.modules_s has nfsd and sunrpc");
	/* the cached kernel the boot used, for guest_no_nfsd */
	snprintf(unstable_vmlinux, sizeof(unstable_vmlinux), "%s/debian/%s_%s/vmlinux",
		 getenv("MGBENCH_CACHE") ?: "/var/cache/mgbench", t_str(doc, "vm.kernel_source.package"),
		 t_str(doc, "vm.kernel_source.version"));
	T_CHECK(json_number_value(mgb_json_path(doc, "vm.modules_s.nfsv3")) > 0 &&
			json_number_value(mgb_json_path(doc, "vm.modules_s.nfsv4")) > 0,
		"vm.modules_s has the kernel client's nfsv3 and nfsv4");
	for (size_t f = 0; doc && f < 2; f++)
		for (int v = 3; v <= 4; v++)
			guest_mount_cell(t_cell_backend(doc, "write", fss[f], v == 3 ? "nfs3-mount" : "nfs4-mount"), fss[f], v);
	for (size_t f = 0; doc && f < 2; f++)
		for (int v = 3; v <= 4; v++) {
			json_t *c = t_cell_backend(doc, "write", fss[f], v == 3 ? "nfs3" : "nfs4");
			json_t *srv = json_object_get(c, "server");
			double start = json_number_value(mgb_json_path(c, "timings.server_start_ns"));

			T_CHECK(c && !strcmp(t_str(c, "status"), "ok"), "%s nfs%d: ok, not %s (%s)", fss[f], v,
				t_str(c, "status"), t_str(c, "error"));
			if (!c || strcmp(t_str(c, "status"), "ok"))
				continue;
			T_CHECK(!strcmp(t_str(srv, "software"), "knfsd"), "%s nfs%d: server knfsd", fss[f], v);
			T_CHECK(!strcmp(t_str(srv, "export_fs"), fss[f]), "%s nfs%d: export_fs %s", fss[f], v,
				t_str(srv, "export_fs"));
			T_CHECK(json_integer_value(json_object_get(srv, "nfs_version")) == v, "%s nfs%d: nfs_version",
				fss[f], v);
			T_CHECK(strstr(t_str(srv, "knfsd.nfsd_versions"), "+3") &&
					strstr(t_str(srv, "knfsd.nfsd_versions"), "+4"),
				"%s nfs%d: nfsd versions +3 +4: '%s'", fss[f], v, t_str(srv, "knfsd.nfsd_versions"));
			T_CHECK(t_str(srv, "version")[0] && t_str(srv, "knfsd.nfs_utils")[0] &&
					t_str(srv, "knfsd.grace")[0],
				"%s nfs%d: kernel release, nfs-utils and grace recorded", fss[f], v);
			T_CHECK(strstr(t_str(srv, "export.options"), "rw") &&
					strstr(t_str(srv, "export.options"), "fsid="),
				"%s nfs%d: export options '%s'", fss[f], v, t_str(srv, "export.options"));
			/* 7.2: ext4 (since 6.2) and tmpfs (since 6.6) have SB_I_VERSION */
			T_CHECK(!strcmp(t_str(srv, "change_attribute.source"), "i_version") &&
					strstr(t_str(srv, "change_attribute.decided_by"), "SB_I_VERSION"),
				"%s nfs%d: change attribute from i_version, and why: %s / %s", fss[f], v,
				t_str(srv, "change_attribute.source"), t_str(srv, "change_attribute.decided_by"));
			T_CHECK(start > 0 && start == json_number_value(json_object_get(srv, "start_ns")),
				"%s nfs%d: the server's start in timings (%.0f ns)", fss[f], v, start);
			/* a multigrain kernel: every round's change is seen over the wire */
			T_CHECK(t_metric(c, "ctime.distinct") == ROUNDS, "%s nfs%d: ctime distinct %.0f of %d", fss[f],
				v, t_metric(c, "ctime.distinct"), ROUNDS);
			T_CHECK(t_metric(c, "ctime.backwards") == 0, "%s nfs%d: ctime never backwards", fss[f], v);
			if (v == 4) {
				T_CHECK(t_metric(c, "change.distinct") == ROUNDS, "%s nfs4: change distinct %.0f of %d",
					fss[f], t_metric(c, "change.distinct"), ROUNDS);
				/* the wire agrees with the rule: i_version added to the ctime (<< 30) */
				T_CHECK(!strcmp(t_str(c, "backend_metrics.change_sample.looks_like"),
						"i_version + ctime (sec << 30 + nsec)"),
					"%s nfs4: the change attribute sent looks like i_version + ctime, not '%s'",
					fss[f], t_str(c, "backend_metrics.change_sample.looks_like"));
			}
		}
	json_decref(doc);
}

/*
 * A guest kernel without nfsd: the same unstable kernel booted by path without its modules, so
 * nfsd cannot load.  The cell is unsupported and says why; the run is not a failure.
 */
static void guest_no_nfsd(void)
{
	const char *path = t_result_path("no-nfsd.json");
	const char *args[] = { "vm", "--quiet", "--kernel", unstable_vmlinux, "-o", path, "--", "run", "write",
			       "--backend", "nfs3", "--nfs-server", "knfsd", "--fs", "tmpfs", "--rounds", "50", NULL };
	struct t_output o;
	json_t *doc, *c;

	T_CHECK(!access(unstable_vmlinux, R_OK), "the write boot's kernel in the cache: %s", unstable_vmlinux);
	if (access(unstable_vmlinux, R_OK))
		return;
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "no nfsd: exit %d (an unsupported cell is not a failure): %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	c = doc ? t_cell_backend(doc, "write", "tmpfs", "nfs3") : NULL;
	T_CHECK(c && !strcmp(t_str(c, "status"), "unsupported") && strstr(t_str(c, "error"), "has no nfsd"),
		"a guest without nfsd: unsupported, saying so: %s %s", t_str(c, "status"), t_str(c, "error"));
	json_decref(doc);
}

/* A server that stops under the cell fails it soon, saying what stopped first. */
static void guest_stopped(const char *what, const char *says)
{
	const char *path = t_result_path(what);
	char timeout[16];
	const char *args[] = { "vm", "--quiet", "--kernel", "debian:unstable", "--test-knfsd-stop", what, "-o", path,
			       "--", "run", "write", "--backend", "nfs3,nfs4", "--nfs-server", "knfsd",
			       "--nfs-timeout", timeout, "--fs", "tmpfs", "--rounds", "100", NULL };
	struct t_output o;
	json_t *doc;

	snprintf(timeout, sizeof(timeout), "%d", NFS_TIMEOUT_S);
	t_mgbench(&o, args);
	T_CHECK(o.status == 1, "%s stopped: the run fails (exit %d): %s", what, o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	T_CHECK(doc != NULL, "%s stopped: a document", what);
	for (int v = 3; doc && v <= 4; v++) {
		json_t *c = t_cell_backend(doc, "write", "tmpfs", v == 3 ? "nfs3" : "nfs4");
		const char *e = t_str(c, "error");
		double t = json_number_value(mgb_json_path(c, "timings.cell_ns")) -
			   json_number_value(mgb_json_path(c, "timings.server_start_ns"));

		T_CHECK(c && !strcmp(t_str(c, "status"), "error"), "%s stopped, nfs%d: error, not %s", what, v,
			t_str(c, "status"));
		T_CHECK(!strncmp(e, says, strlen(says)) && !strchr(e, '\n'),
			"%s stopped, nfs%d: one line starting '%s': %s", what, v, says, e);
		/* no hang: at most a few NFS timeouts after the server was up */
		T_CHECK(t < 4.0 * NFS_TIMEOUT_S * 1e9, "%s stopped, nfs%d: failed %.2f s after the start (timeout %d s)",
			what, v, t / 1e9, NFS_TIMEOUT_S);
	}
	json_decref(doc);
}

int main(void)
{
	struct t_host before;

	/* the time limit allows for guests booted under TCG where there is no KVM */
	t_require(&(struct t_needs){ .root = true, .libnfs = true, .slow = true,
				     .programs = (const char *const[]){ "qemu-system-x86_64", "/usr/sbin/rpc.nfsd",
									"/usr/sbin/rpc.mountd", "/usr/sbin/nfsdcld",
									"/usr/sbin/rpcbind", NULL }, .max_runtime_s = 7200 });
	t_host_snapshot(&before);
	T_RUN(host_unsupported());
	T_RUN(host_no_client());
	T_RUN(guest_write());
	T_RUN(guest_no_nfsd());
	T_RUN(guest_stopped("mountd", "rpc.mountd exited"));
	T_RUN(guest_stopped("nfsd", "the kernel's nfsd has no threads"));
	t_host_check_clean(&before, "after the knfsd runs");
	return t_result();
}
