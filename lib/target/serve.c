/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The target as a backend reaches it: see lib/serve.h. */
#include "config.h"
#include "json_text.h"
#include "serve.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int nfs_version(enum mgb_reach reach)
{
	return reach == MGB_REACH_NFS3 ? 3 : reach == MGB_REACH_NFS4 ? 4 : 0;
}

int mgb_serve_up(struct mgb_session *s, const struct mgb_fs_type *fs, const char *dir,
		 const struct mgb_serve_how *how, struct mgb_served *sv, char *err)
{
	enum mgb_reach reach = how->reach;
	const char *url = how->url;
	int r;

	memset(sv, 0, sizeof(*sv));
	sv->reach = reach;
	sv->knfsd = how->knfsd && !url && reach != MGB_REACH_LOCAL;
	sv->kernel_client = how->kernel_client && !url && reach != MGB_REACH_LOCAL;
	if (url) {
		/* Someone else's server: no local target, the backend makes its own directory. */
		sv->url = sv->root = url;
		sv->target.label = strdup("nfs-url");
		return 0;
	}
	r = fs ? mgb_target_scratch(s, fs, &sv->target, err) : mgb_target_dir(dir, &sv->target, err);
	sv->root = sv->target.path;
	sv->unsupported = r == -EOPNOTSUPP; /* a filesystem this kernel lacks (overlayfs) */
	if (r < 0 || reach == MGB_REACH_LOCAL)
		return r;
	if (sv->target.untrusted) /* a server would resolve the path again: see mgb_target_dir */
		return mgb_err(err, "--dir %s: another user can change a directory above it; an NFS server "
				    "needs a directory only root can change", dir);
#ifdef HAVE_LIBNFS
	/* No server for a client this kernel lacks. */
	r = sv->kernel_client ? mgb_nfs_mount_check(err) : 0;
	if (r == 0 && sv->knfsd)
		r = mgb_knfsd_start(s, sv->target.path, sv->target.fstype, nfs_version(reach), &sv->kn, err);
	else if (r == 0)
		r = mgb_nfs_server_start(s, sv->target.path, nfs_version(reach), &sv->nfs, err);
	sv->unsupported = r == -EOPNOTSUPP;
	if (r < 0)
		return -1;
	sv->root = sv->knfsd ? sv->kn.url : sv->nfs.url;
	if (!sv->kernel_client)
		return 0;
	r = mgb_nfs_mount(s, sv->root, nfs_version(reach), how->timeout_s, &sv->mnt, err);
	sv->unsupported = r == -EOPNOTSUPP;
	if (r < 0)
		return -1;
	sv->root = sv->mnt.path;
	return 0;
#else
	return mgb_err(err, "this mgbench was built without libnfs");
#endif
}

void mgb_serve_down(struct mgb_served *sv)
{
#ifdef HAVE_LIBNFS
	mgb_nfs_unmount(&sv->mnt); /* before its server stops: the client flushes to it */
	mgb_knfsd_stop(&sv->kn);
	mgb_nfs_server_stop(&sv->nfs);
#endif
	mgb_target_down(&sv->target);
}

/*
 * The kernel's nfsd: its version is the kernel's, with the protocol versions it had enabled;
 * the export's options; and what its v4 change attribute is built from on this filesystem.
 */
static json_t *knfsd_json(const struct mgb_served *sv)
{
	const struct mgb_knfsd *k = &sv->kn;
	const struct mgb_target *t = &sv->target;

	return MGB_JSON_PACK("{s:s, s:s, s:s?, s:o?, s:i, s:I, s:o, s:o, s:o}", "kind", "embedded", "software",
			     "knfsd", "version", k->release, "export_fs", t->fstype ? mgb_json_text(t->fstype) : NULL,
			     "nfs_version", nfs_version(sv->reach), "start_ns", (json_int_t)k->start_ns,
			     "knfsd", json_pack("{s:s?, s:o?, s:o?}", "grace", k->grace, "nfsd_versions",
						    k->versions ? mgb_json_text(k->versions) : NULL, "nfs_utils",
						    k->utils_version ? mgb_json_text(k->utils_version) : NULL),
			     "export", json_pack("{s:s, s:o?}", "client", "127.0.0.1", "options",
						     k->export_options ? mgb_json_text(k->export_options) : NULL),
			     "change_attribute", json_pack("{s:s?, s:o?}", "source", k->change_source,
							       "decided_by", k->change_reason ?
							       mgb_json_text(k->change_reason) : NULL));
}

/* Which client reached the server: libnfs in mgbench itself, or the kernel's, and its mount. */
static json_t *client_json(const struct mgb_served *sv)
{
	if (!sv->kernel_client)
		return json_pack("{s:s}", "kind", "libnfs");
	return MGB_JSON_PACK("{s:s, s:o?, s:o?}", "kind", "kernel", "source",
			     sv->mnt.source ? mgb_json_text(sv->mnt.source) : NULL, "mount_options",
			     sv->mnt.options ? mgb_json_text(sv->mnt.options) : NULL);
}

static json_t *server_json(const struct mgb_served *sv)
{
	const struct mgb_target *t = &sv->target;

	if (sv->url)
		return MGB_JSON_PACK("{s:s, s:n, s:n, s:n, s:i, s:n, s:o}", "kind", "url", "software", "version",
				     "export_fs", "nfs_version", nfs_version(sv->reach), "start_ns", "url",
				     mgb_json_text(sv->url));
	if (sv->knfsd)
		return knfsd_json(sv);
	return MGB_JSON_PACK("{s:s, s:s, s:s?, s:o?, s:i, s:I}", "kind", "embedded", "software", "nfs-ganesha",
			     "version", sv->nfs.version, "export_fs", t->fstype ? mgb_json_text(t->fstype) : NULL,
			     "nfs_version", nfs_version(sv->reach), "start_ns", (json_int_t)sv->nfs.start_ns);
}

json_t *mgb_served_server_json(const struct mgb_served *sv)
{
	json_t *j;

	if (sv->reach == MGB_REACH_LOCAL)
		return NULL;
	j = server_json(sv);
	if (j)
		json_object_set_new(j, "client", client_json(sv));
	return j;
}

/*
 * Over NFS the evidence is about the exported filesystem, probed with local syscalls, not about
 * the NFS path the cell measures (the server's own queries, such as a v3 WRITE reply's
 * attributes, arm the flag where the client's would not): it says so.
 */
const char *mgb_served_evidence_about(const struct mgb_served *sv)
{
	return sv->reach == MGB_REACH_LOCAL ? "the measured filesystem" : "the exported filesystem, probed locally";
}

const char *mgb_served_death(const struct mgb_served *sv)
{
#ifdef HAVE_LIBNFS
	if (sv->knfsd)
		return mgb_knfsd_death(&sv->kn);
	/* A killed server may take a moment to be seen dead after its socket closed. */
	for (int i = 0; sv->nfs.pid > 0 && i < 20; i++, usleep(10000))
		if (!mgb_nfs_server_alive(&sv->nfs))
			return "the NFS server exited";
#else
	(void)sv;
#endif
	return NULL;
}

int64_t mgb_served_start_ns(const struct mgb_served *sv)
{
	return sv->knfsd ? sv->kn.start_ns : sv->nfs.start_ns;
}

const char *mgb_served_local_dir(const struct mgb_served *sv)
{
	if (sv->url)
		return NULL;
	if (sv->reach == MGB_REACH_LOCAL)
		return sv->target.path;
#ifdef HAVE_LIBNFS
	return sv->knfsd ? sv->kn.export_dir : sv->nfs.export_dir;
#else
	return NULL;
#endif
}
