/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * make bench-nfs, its guest half: what NFS inside mgbench vm adds to a run before the first
 * round.  For each Debian kernel and each server (the embedded nfs-ganesha, the kernel's nfsd),
 * one boot runs write over nfs3, nfs4 and nfs3-mount on ext4, REPEATS times each; printed are
 * the boot, the module loads the NFS cells asked for (nfsd's chain for knfsd, the client's for
 * nfs3-mount), the server's start (median of the cells), a cell from start to end (median), and
 * the whole vm command on the host's clock.  TCG guests: these are emulation times, to set
 * beside each other, not beside the host's.  Reported, not judged: exits 1 only if a run fails.
 */
#include "config.h"
#include "bench.h"
#include "stats.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REPEATS "3"

static const char *const kernels[] = { "debian:6.12", "debian:unstable" };
static const char *const servers[] = { "ganesha", "knfsd" };
static const char *const backends[] = { "nfs3", "nfs4", "nfs3-mount" };
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The modules a cell of this server and client needs beyond the filesystem's. */
static bool nfs_module(const char *name)
{
	static const char *const nfs[] = { "nfsd", "sunrpc", "lockd", "grace", "nfs_acl", "auth_rpcgss", "oid_registry",
					   "nfs", "nfsv3", "nfsv4", "netfs", "fscache", "dns_resolver" };

	for (size_t i = 0; i < N(nfs); i++)
		if (!strcmp(name, nfs[i]))
			return true;
	return false;
}

/* The median of the cells' value at a dotted path, for one backend; NaN without any. */
static double cells_median(json_t *doc, const char *backend, const char *key, const char *sub)
{
	double v[64];
	size_t n = 0, i;
	json_t *c;

	json_array_foreach(json_object_get(doc, "cells"), i, c) {
		json_t *x = json_object_get(json_object_get(c, key), sub);

		if (n < N(v) && !strcmp(json_string_value(json_object_get(json_object_get(c, "backend"), "name")) ?: "",
					 backend) && json_is_number(x))
			v[n++] = json_number_value(x);
	}
	return mgb_median(v, n); /* NaN without any */
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int one_boot(const char *bin, const char *kernel, const char *server, const char *out)
{
	const char *argv[] = { "mgbench", "vm", "--quiet", "--kernel", kernel, "-o", out, "--", "run", "write",
			       "--backend", "nfs3,nfs4,nfs3-mount", "--nfs-server", server, "--fs", "ext4", "--rounds", "300",
			       "--repeat", REPEATS, "-q", NULL };
	double t0 = now_s(), wall, modules = 0;
	json_t *doc, *v;
	const char *name;
	int status = bench_mgbench(bin, argv, NULL, NULL);

	wall = now_s() - t0;
	if (status != 0 || !(doc = json_load_file(out, 0, NULL))) {
		fprintf(stderr, "bench-nfs-guest: %s with %s failed (status %d)\n", kernel, server, status);
		return -1;
	}
	json_object_foreach(json_object_get(json_object_get(doc, "vm"), "modules_s"), name, v)
		if (nfs_module(name))
			modules += json_number_value(v);
	for (size_t b = 0; b < N(backends); b++)
		printf("%-16s %-8s %-11s %6.1fs %8.2fs %9.0fms %8.2fs %7.1fs\n", kernel, server, backends[b],
		       json_number_value(json_object_get(json_object_get(doc, "vm"), "boot_s")), modules,
		       cells_median(doc, backends[b], "timings", "server_start_ns") / 1e6,
		       cells_median(doc, backends[b], "timings", "cell_ns") / 1e9, wall);
	json_decref(doc);
	unlink(out);
	return 0;
}

int main(void)
{
	const char *bin = getenv("MGBENCH") ?: "./mgbench";
	char dir[] = "/tmp/mgbench-bench-nfs-guest.XXXXXX", out[80];
	int failed = 0;

	if (access("/usr/bin/qemu-system-x86_64", X_OK)) {
		printf("NFS in guests: not measured, no qemu-system-x86_64\n");
		return 0;
	}
	if (!mkdtemp(dir)) {
		perror("bench-nfs-guest: mkdtemp");
		return 1;
	}
	snprintf(out, sizeof(out), "%s/vm.json", dir);
	printf("\nNFS inside mgbench vm (TCG): write on ext4, 300 rounds, %s repeats per backend,\n"
	       "one boot per kernel and server\n\n", REPEATS);
	printf("%-16s %-8s %-11s %7s %9s %11s %9s %8s\n", "kernel", "server", "backend", "boot", "modules", "server up",
	       "cell", "vm run");
	for (size_t k = 0; k < N(kernels); k++)
		for (size_t s = 0; s < N(servers); s++)
			failed |= one_boot(bin, kernels[k], servers[s], out) < 0;
	printf("\nboot: to the guest's init; modules: loading the NFS modules (client, and nfsd for knfsd),\n"
	       "part of boot; server up: launch until its NULL procedures answer (median of the cells);\n"
	       "cell: a cell from its start to its end, server and mount included; vm run: the whole\n"
	       "command, initramfs and boot included, on the host's clock.\n");
	rmdir(dir);
	return failed;
}
