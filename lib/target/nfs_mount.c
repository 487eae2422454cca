/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's own NFS client on a cell's export (the nfs3-mount and nfs4-mount backends): the
 * URL of the server started for the cell, mounted with mount(2) on a new directory of the
 * session's scratch space, so the workload's plain system calls go through the client a `make`
 * or an `rsync` on an NFS mount would use.
 *
 * actimeo=0: every stat asks the server (GETATTR) instead of the attribute cache, as the issue of
 * revalidation needs; the client still flushes its dirty pages before that GETATTR, so a stat
 * after a write sees the server's stamp of it.  soft with timeo from --nfs-timeout and one
 * retransmission: a server that dies fails the cell's calls instead of hanging them forever.
 * nolock (v3): no rpc.statd runs, and no workload takes a lock.
 */
#include "config.h"
#include "target.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

int mgb_nfs_mount_check(char *err)
{
	struct utsname u;

	if (mgb_kernel_has_fs("nfs")) /* the client: built in, or its module loaded */
		return 0;
	uname(&u);
	mgb_err(err, "kernel %s has no NFS client (the kernel-client backends run in a guest of mgbench vm, "
		"whose kernel has one)", u.release);
	return -EOPNOTSUPP;
}

/* The unsigned value of key=N in url's query, or 0. */
static unsigned query_port(const char *url, const char *key)
{
	const char *q = strchr(url, '?');
	size_t n = strlen(key);

	while (q && *q) {
		q++;
		if (!strncmp(q, key, n) && q[n] == '=')
			return (unsigned)strtoul(q + n + 1, NULL, 10);
		q = strchr(q, '&');
	}
	return 0;
}

/* The server's export path from our own URL, nfs://127.0.0.1/PATH?..., malloc'd, or NULL. */
static char *export_path(const char *url)
{
	const char *host = "nfs://127.0.0.1", *p;
	size_t len;

	if (strncmp(url, host, strlen(host)) || url[strlen(host)] != '/')
		return NULL;
	p = url + strlen(host);
	len = strcspn(p, "?");
	return strndup(p, len);
}

int mgb_nfs_mount(struct mgb_session *s, const char *url, int nfs_version, unsigned timeout_s,
		  struct mgb_nfs_mount *m, char *err)
{
	unsigned port = query_port(url, "nfsport"), mport = query_port(url, "mountport");
	unsigned timeo = timeout_s * 10; /* deciseconds */
	char *path = export_path(url);
	int r;

	if (!s->tmpdir) {
		free(path);
		return mgb_err(err, "the kernel's NFS client needs the session's scratch directory for its mount");
	}
	if (!path || !port || (nfs_version == 3 && !mport)) {
		free(path);
		return mgb_err(err, "cannot mount %s: no path or port in it", url);
	}
	if (asprintf(&m->source, "127.0.0.1:%s", path) < 0)
		m->source = NULL;
	free(path);
	if (nfs_version == 3)
		r = asprintf(&m->options, "vers=3,proto=tcp,port=%u,mountproto=tcp,mountport=%u,addr=127.0.0.1,"
			     "mountaddr=127.0.0.1,actimeo=0,nolock,soft,timeo=%u,retrans=1", port, mport, timeo);
	else
		r = asprintf(&m->options, "vers=4.0,proto=tcp,port=%u,addr=127.0.0.1,clientaddr=127.0.0.1,"
			     "actimeo=0,soft,timeo=%u,retrans=1", port, timeo);
	if (r < 0)
		m->options = NULL;
	s->serial++;
	if (asprintf(&m->path, "%s/nfs-mount-%u", s->tmpdir, s->serial) < 0)
		m->path = NULL;
	if (!m->source || !m->options || !m->path)
		return mgb_err(err, "out of memory");
	if (mkdir(m->path, 0700) < 0)
		return mgb_err(err, "mkdir %s: %s", m->path, strerror(errno));
	m->made_dir = true;
	if (mount(m->source, m->path, "nfs", 0, m->options) < 0) {
		int e = errno;

		mgb_err(err, "mount -t nfs %s -o %s: %s", m->source, m->options, strerror(e));
		return e == ENODEV ? -EOPNOTSUPP : -1;
	}
	m->mounted = true;
	return 0;
}

void mgb_nfs_unmount(struct mgb_nfs_mount *m)
{
	/* Lazily where the plain unmount cannot: the session's namespace ends with the run anyway. */
	if (m->mounted && umount2(m->path, 0) < 0)
		umount2(m->path, MNT_DETACH);
	if (m->made_dir)
		rmdir(m->path);
	free(m->path);
	free(m->source);
	free(m->options);
	memset(m, 0, sizeof(*m));
}
