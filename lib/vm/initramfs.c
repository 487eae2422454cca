/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest's initramfs: busybox (static) for /init and its tools, this mgbench binary, the
 * mkfs programs it runs, every shared library ldd lists for them, the modules to load
 * (decompressed: the guest has no modprobe and busybox insmod wants plain .ko), and an /init
 * that runs the command and sends the result document back over the serial console.  Packed
 * uncompressed with cpio (newc): the TCG guest unpacks it faster than it would gunzip it.
 */
#include "config.h"
#include "vm.h"
#include "proc.h"
#include "util.h"
#include "target.h"
#include "fio.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The guest's PID 1.  Lines starting MGBVM- are for the host (lib/vm/qemu.c). */
static const char init_script[] =
	"#!/bin/sh\n"
	"export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
	"mount -t proc proc /proc; mount -t sysfs sysfs /sys\n"
	"mount -t devtmpfs devtmpfs /dev; mount -t tmpfs tmpfs /tmp\n"
	"mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null\n"
	"mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null\n"
	"up() { cut -d' ' -f1 /proc/uptime; }\n"
	"echo \"MGBVM-INIT $(up) $(uname -r)\"\n"
	/* the loopback, for the NFS servers (knfsd, ganesha) and their clients on 127.0.0.1 */
	"ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up\n"
	/* and one more IPv4 address: getaddrinfo(AI_ADDRCONFIG), as ganesha resolves its Bind_addr,
	 * finds nothing ("No IP address found for 127.0.0.1") while 127.0.0.1 is the only one */
	"ip addr add 127.0.0.2/8 dev lo 2>/dev/null || ifconfig lo:1 127.0.0.2 up\n"
	"[ -f /etc/mgbench-test-init-exit ] && exit 1\n"
	"for m in /lib/mgbench-modules/*.ko; do\n"
	"  [ -f \"$m\" ] || continue\n"
	"  n=${m##*/}; n=${n#*-}; n=${n%.ko}; t=$(up)\n"
	"  if insmod \"$m\" 2>/tmp/insmod.err; then echo \"MGBVM-INSMOD $n $t $(up)\"\n"
	"  else echo \"MGBVM-INSMOD-FAILED $n: $(cat /tmp/insmod.err)\"; fi\n"
	"done\n"
	"for i in 1 2 3 4 5 6 7 8 9 10; do [ -e /dev/loop-control ] && break; sleep 0.1; done\n"
	". /etc/mgbench-run\n"
	"echo \"MGBVM-RUN $(up)\"\n"
	/* what the console shows when a vCPU meets a stale breakpoint, through the kernel's log (a
	 * tty write is lost in a panic); the exit makes the panic.  The pauses let the line above and
	 * the oops reach the console first, as they would in a real run. */
	"[ -f /etc/mgbench-test-stale-breakpoint ] && sleep 1 &&"
	" echo '<3>Oops: int3: 0000 [#1] SMP NOPTI (a test)' >/dev/kmsg && sleep 1 && exit 1\n"
	/* a sanitizer build's leak suppressions, as make check gives them on the host */
	"[ -f /etc/mgbench-lsan.supp ] && export LSAN_OPTIONS=suppressions=/etc/mgbench-lsan.supp:print_suppressions=0\n"
	/* the host passes a stop request on as a line on the console (lib/vm/qemu.c): mgbench gets
	 * SIGINT, stops as a run does and keeps the cells it finished, which go back below.  Its
	 * input not echoed, so the line does not come back as output. */
	"stty -F /dev/console -echo 2>/dev/null\n"
	"exec 3</dev/console\n"
	"mgbench \"$@\" 2>/tmp/mgbench.err &\n"
	"pid=$!\n"
	"(while read -r l <&3; do [ \"$l\" = MGBVM-STOP ] && kill -INT $pid && break; done) &\n"
	"watch=$!\n"
	"wait $pid\n"
	"rc=$?\n"
	"kill $watch 2>/dev/null; exec 3<&-\n"
	/* what a run must not leave behind: NFS daemons and nfsd's kernel threads */
	"left=$(ps -o comm | grep -E '^(nfsd|lockd|rpc.mountd|rpcbind|nfsdcld|ganesha.nfsd)$' | sort | uniq -c |"
	" tr -s ' \\n' ' ')\n"
	"echo \"MGBVM-LEFT ${left:-none}\"\n"
	"sed 's/^/MGBVM-STDERR /' /tmp/mgbench.err\n"
	"if [ -s /out/result.json ]; then\n"
	"  echo MGBVM-DOC-BEGIN; base64 /out/result.json; echo MGBVM-DOC-END\n"
	"fi\n"
	"echo \"MGBVM-EXIT $rc\"\n"
	"sync\n"
	/* isa-debug-exit (iobase 0xf4) ends qemu at once; poweroff if /dev/port is missing */
	"printf '\\001' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null\n"
	"poweroff -f\n";

static int copy_file(const char *src, const char *dst, mode_t mode, char *err)
{
	char buf[65536], *d = strdup(dst);
	int in, out, rc = 0;
	ssize_t n;

	if (!d)
		return mgb_err(err, "out of memory");
	rc = mgb_mkdirs(dirname(d), err);
	free(d);
	if (rc)
		return -1;
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) < 0)
		return mgb_err(err, "cannot read %s: %s", src, strerror(errno));
	if ((out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)) < 0) {
		close(in);
		return mgb_err(err, "cannot write %s: %s", dst, strerror(errno));
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = mgb_err(err, "cannot write %s: %s", dst, strerror(errno));
			break;
		}
	if (n < 0)
		rc = mgb_err(err, "cannot read %s: %s", src, strerror(errno));
	close(in);
	if (close(out) && !rc)
		rc = mgb_err(err, "cannot write %s: %s", dst, strerror(errno));
	return rc;
}

/* Copy a host file to the same path under root (following symlinks). */
static int copy_same(const char *root, const char *src, char *err)
{
	char *dst;
	struct stat st;
	int rc;

	if (stat(src, &st))
		return mgb_err(err, "cannot find %s: %s", src, strerror(errno));
	if (asprintf(&dst, "%s%s", root, src) < 0)
		return mgb_err(err, "out of memory");
	rc = access(dst, F_OK) ? copy_file(src, dst, st.st_mode & 0777, err) : 0;
	free(dst);
	return rc;
}

/* A program's shared libraries as ldd prints them ("=> /path (" and "/lib64/ld... ("). */
static int copy_libraries(const char *root, const char *prog, char *err)
{
	const char *argv[] = { "ldd", prog, NULL };
	char *out = NULL, *save = NULL;
	int st = mgb_capture(argv, NULL, &out, err), rc = 0;

	if (st < 0)
		return -1;
	if (st) { /* "not a dynamic executable": nothing to copy */
		free(out);
		return 0;
	}
	for (char *l = strtok_r(out, "\n", &save); l && !rc; l = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(l, "=> "), *e;

		p = p ? p + 3 : l;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '/')
			continue;
		if ((e = strstr(p, " (")))
			*e = '\0';
		rc = copy_same(root, p, err);
	}
	free(out);
	return rc;
}

/* The full path of a host program (malloc'd), or NULL: from a fixed list of the system's
 * directories, not the caller's PATH. */
static char *which(const char *prog)
{
	char path[PATH_MAX];

	if (mgb_find_program(prog, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", path, sizeof(path)))
		return NULL;
	return strdup(path);
}

static int add_program(const char *root, const char *host, const char *guest, char *err)
{
	char *dst;
	int rc;

	if (asprintf(&dst, "%s%s", root, guest) < 0)
		return mgb_err(err, "out of memory");
	rc = copy_file(host, dst, 0755, err);
	free(dst);
	return rc ? rc : copy_libraries(root, host, err);
}

/*
 * fio and cost's job files, at the paths this mgbench looks for them (its configured fio, its
 * installed job directory), so that `cost --load auto` runs the same load in a guest as on the
 * host.  Without fio on the host, none in the guest: cost falls back to its builtin load there
 * too, as its cells say.
 */
static int add_fio(const char *root, char *err)
{
	char job[PATH_MAX], e[MGB_ERR_LEN], *dir;
	struct dirent *ent;
	DIR *d;
	int rc = 0;

	if (!FIO_PATH[0] || access(FIO_PATH, X_OK))
		return 0;
	if (add_program(root, FIO_PATH, FIO_PATH, err))
		return -1;
	if (mgb_fio_job_path("overwrite.fio", job, sizeof(job), e))
		return 0; /* no job files to carry: the guest's cost says so, as the host's would */
	dir = dirname(job);
	if (!(d = opendir(dir)))
		return mgb_err(err, "cannot read %s: %s", dir, strerror(errno));
	while (!rc && (ent = readdir(d))) {
		size_t l = strlen(ent->d_name);
		char src[PATH_MAX + 256], *dst;

		if (l < 5 || strcmp(ent->d_name + l - 4, ".fio"))
			continue;
		snprintf(src, sizeof(src), "%s/%s", dir, ent->d_name);
		if (asprintf(&dst, "%s%s/%s", root, MGB_FIO_JOBDIR, ent->d_name) < 0) {
			rc = mgb_err(err, "out of memory");
			break;
		}
		rc = copy_file(src, dst, 0644, err);
		free(dst);
	}
	closedir(d);
	return rc;
}

/* Copy (and decompress) module i to /lib/mgbench-modules/NNN-name.ko, NNN the load order. */
static int add_module(const char *root, const char *src, unsigned i, char *err)
{
	char *base = strdup(strrchr(src, '/') ? strrchr(src, '/') + 1 : src), *dst = NULL, *dot;
	const char *tool = NULL;
	int rc;

	if (!base)
		return mgb_err(err, "out of memory");
	if ((dot = strstr(base, ".ko"))) {
		if (!strcmp(dot, ".ko.xz"))
			tool = "xz";
		else if (!strcmp(dot, ".ko.zst"))
			tool = "zstd";
		else if (!strcmp(dot, ".ko.gz"))
			tool = "gzip";
		*dot = '\0';
	}
	if (asprintf(&dst, "%s/lib/mgbench-modules/%03u-%s.ko", root, i, base) < 0) {
		free(base);
		return mgb_err(err, "out of memory");
	}
	free(base);
	if (!tool)
		rc = copy_file(src, dst, 0644, err);
	else {
		const char *argv[] = { "sh", "-c", "exec \"$0\" -dc -- \"$1\" > \"$2\"", tool, src, dst, NULL };
		char *out = NULL;
		int st;

		st = mgb_capture(argv, NULL, &out, err); /* lib/mgbench-modules exists already */
		if (st > 0)
			mgb_err(err, "%s -dc %s failed: %s", tool, src, out ? out : "");
		free(out);
		rc = st ? -1 : 0;
	}
	free(dst);
	return rc;
}

/* root/rel, made with its parents. */
static int make_dir(const char *root, const char *rel, char *err)
{
	char *p;
	int rc;

	if (asprintf(&p, "%s/%s", root, rel) < 0)
		return mgb_err(err, "out of memory");
	rc = mgb_mkdirs(p, err);
	free(p);
	return rc;
}

/* root/rel holding text. */
static int write_at(const char *root, const char *rel, const char *text, char *err)
{
	char *p;
	int rc;

	if (asprintf(&p, "%s/%s", root, rel) < 0)
		return mgb_err(err, "out of memory");
	rc = mgb_write_text(p, text, 0644, err);
	free(p);
	return rc;
}

/*
 * The portmapper both NFS servers register with (knfsd's, and ganesha's for v3): rpcbind with
 * its libraries; libtirpc's netconfig; /run and /var/run for its socket; and the accounts it
 * looks up (it switches to _rpc).
 */
static int add_rpcbind(const char *root, char *err)
{
	static const char *const etc[] = { "/etc/netconfig", "/etc/services", "/etc/protocols", "/etc/rpc" };
	char *p = NULL, line[512];
	struct passwd *pw;
	int rc = 0;

	if (!access("/usr/sbin/rpcbind", X_OK))
		rc = add_program(root, "/usr/sbin/rpcbind", "/usr/sbin/rpcbind", err);
	if (!rc)
		rc = make_dir(root, "run", err);
	if (!rc)
		rc = make_dir(root, "var", err);
	/* the kernel's rpcbind client and libntirpc's try /var/run/rpcbind.sock first */
	if (!rc && asprintf(&p, "%s/var/run", root) < 0)
		return mgb_err(err, "out of memory");
	if (!rc && symlink("../run", p) && errno != EEXIST)
		rc = mgb_err(err, "cannot link %s: %s", p, strerror(errno));
	free(p);
	/* netconfig: libtirpc's transports; services, protocols and rpc: names rpcbind and mountd
	 * look up (rpcbind fails without "sunrpc") */
	for (size_t i = 0; i < MGB_ARRAY_SIZE(etc) && !rc; i++)
		if (!access(etc[i], R_OK))
			rc = copy_same(root, etc[i], err);
	if (!rc)
		rc = write_at(root, "etc/hosts", "127.0.0.1\tlocalhost\n::1\tlocalhost\n", err);
	pw = getpwnam("_rpc");
	snprintf(line, sizeof(line), "root:x:0:0:root:/root:/bin/sh\n_rpc:x:%u:65534::/run/rpcbind:/bin/false\n",
		 pw ? (unsigned)pw->pw_uid : 103u);
	if (!rc)
		rc = write_at(root, "etc/passwd", line, err);
	if (!rc)
		rc = write_at(root, "etc/group", "root:x:0:\nnogroup:x:65534:\n", err);
	return rc;
}

/*
 * The kernel NFS server's user space (--nfs-server knfsd, lib/target/knfsd.c): nfs-kernel-server's
 * rpc.nfsd, exportfs, rpc.mountd and nfsdcld with their libraries, and rpcbind.  Missing on the
 * host: nothing is carried, and the guest's cells say what is missing.
 */
static int add_knfsd(const char *root, char *err)
{
	static const char *const progs[] = { "/usr/sbin/rpc.nfsd", "/usr/sbin/exportfs", "/usr/sbin/rpc.mountd",
					     "/usr/sbin/nfsdcld" };
	int rc = add_rpcbind(root, err);

	for (size_t i = 0; i < MGB_ARRAY_SIZE(progs) && !rc; i++)
		if (!access(progs[i], X_OK))
			rc = add_program(root, progs[i], progs[i], err);
	if (!rc)
		rc = make_dir(root, "var/lib/nfs", err);
	/* the nfs-utils the guest runs, for its cells (rpc.nfsd has no --version) */
	if (!rc) {
		const char *argv[] = { "dpkg-query", "-W", "-f", "${Version}\n", "nfs-kernel-server", NULL };
		char *out = NULL, e[MGB_ERR_LEN];

		if (mgb_capture(argv, NULL, &out, e) == 0 && out)
			rc = write_at(root, "etc/mgbench-nfs-utils", out, err);
		free(out);
	}
	if (!rc)
		rc = write_at(root, "etc/exports", "", err);
	return rc;
}

/* The modules a package's library dlopen()s, which ldd cannot see: the package's files under a
 * directory named dir, as dpkg lists them, with their own libraries.  None without dpkg. */
static int add_plugins(const char *root, const char *pkg, const char *dir, char *err)
{
	const char *argv[] = { "dpkg-query", "-L", pkg, NULL };
	char *out = NULL, *save = NULL, e[MGB_ERR_LEN];
	int rc = 0;

	if (mgb_capture(argv, NULL, &out, e)) {
		free(out);
		return 0;
	}
	for (char *l = strtok_r(out, "\n", &save); l && !rc; l = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(l);
		char *d = strstr(l, dir);

		if (n > 3 && !strcmp(l + n - 3, ".so") && d && d > l && d[-1] == '/' && d[strlen(dir)] == '/')
			rc = add_program(root, l, l, err);
	}
	free(out);
	return rc;
}

/*
 * The embedded nfs-ganesha (lib/target/ganesha.c, the default server): ganesha.nfsd with its
 * libraries, its VFS FSAL and libnfsidmap's plugins with idmapd.conf (both dlopen()ed: without
 * them ganesha fails to start, "Failed initializing ID Mapper"), and rpcbind for v3.  Its
 * config, log, pid file and recovery directory are in the run's scratch directory.  Missing on
 * the host: nothing is carried, and the guest's cells say what is missing, as the host's would.
 */
static int add_ganesha(const char *root, char *err)
{
	static const char ganesha[] = "/usr/bin/ganesha.nfsd";
	int rc;

	if (access(ganesha, X_OK))
		return 0;
	if ((rc = add_program(root, ganesha, ganesha, err)) || (rc = add_rpcbind(root, err)) ||
	    (rc = add_plugins(root, "nfs-ganesha-vfs", "ganesha", err)) ||
	    (rc = add_plugins(root, "libnfsidmap1", "libnfsidmap", err)))
		return rc;
	return access("/etc/idmapd.conf", R_OK) ? 0 : copy_same(root, "/etc/idmapd.conf", err);
}

/* "set -- 'a' 'b'" with each argument single-quoted for the guest's shell. */
static char *run_line(const char *const *argv)
{
	size_t cap = 16;
	char *s, *p;

	for (unsigned i = 0; argv[i]; i++)
		cap += 3 + 4 * strlen(argv[i]);
	if (!(s = malloc(cap)))
		return NULL;
	p = s + sprintf(s, "set --");
	for (unsigned i = 0; argv[i]; i++) {
		*p++ = ' ';
		*p++ = '\'';
		for (const char *c = argv[i]; *c; c++) {
			if (*c == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else
				*p++ = *c;
		}
		*p++ = '\'';
	}
	strcpy(p, "\n");
	return s;
}

/* LSAN_OPTIONS' suppressions file on the host (make check under --enable-sanitizers sets it),
 * carried into the guest, whose mgbench is the same sanitizer build and loses the same bytes
 * inside libnfs. */
static int add_lsan_suppressions(const char *root, char *err)
{
	const char *o = getenv("LSAN_OPTIONS"), *f = o ? strstr(o, "suppressions=") : NULL;
	char path[PATH_MAX], to[PATH_MAX + 32];

	if (!f)
		return 0;
	f += strlen("suppressions=");
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(f, ":"), f);
	if (access(path, R_OK))
		return 0; /* not ours to insist on */
	snprintf(to, sizeof(to), "%s/etc/mgbench-lsan.supp", root);
	return copy_file(path, to, 0644, err);
}

char *mgb_vm_initramfs(const char *workdir, const struct mgb_vm_guest *g, char *err)
{
	static const char *const dirs[] = { "proc", "sys", "dev", "tmp", "out", "mnt", "bin", "sbin",
					    "usr/bin", "usr/sbin", "usr/local/bin", "etc",
					    "lib/mgbench-modules" };
	char *root = NULL, *cpio = NULL, *p = NULL, *line = NULL, *list = NULL, *save = NULL;
	int rc = -1;

	if (asprintf(&root, "%s/guest-root", workdir) < 0 || asprintf(&cpio, "%s/initramfs.cpio", workdir) < 0)
		goto oom;
	for (size_t i = 0; i < MGB_ARRAY_SIZE(dirs); i++) {
		free(p);
		if (asprintf(&p, "%s/%s", root, dirs[i]) < 0)
			goto oom;
		if (mgb_mkdirs(p, err))
			goto out;
	}
	/* busybox and one link per applet */
	free(p);
	if (!(p = which("busybox")))
		goto nobusybox;
	if (add_program(root, p, "/bin/busybox", err))
		goto out;
	{
		const char *argv[] = { p, "--list", NULL };

		if (mgb_capture(argv, NULL, &list, err))
			goto nobusybox;
	}
	for (char *a = strtok_r(list, "\n", &save); a; a = strtok_r(NULL, "\n", &save)) {
		char *l;

		if (!strcmp(a, "busybox") || asprintf(&l, "%s/bin/%s", root, a) < 0)
			continue;
		if (symlink("busybox", l) && errno != EEXIST) {
			mgb_err(err, "cannot link %s: %s", l, strerror(errno));
			free(l);
			goto out;
		}
		free(l);
	}
	/* this very mgbench */
	free(p);
	if (!(p = realpath("/proc/self/exe", NULL))) {
		mgb_err(err, "cannot find this mgbench's own binary (/proc/self/exe): %s", strerror(errno));
		goto out;
	}
	if (add_program(root, p, "/usr/local/bin/mgbench", err))
		goto out;
	/* the mkfs tools of the loop filesystems, under their own names */
	for (unsigned i = 0; i < mgb_fs_type_count; i++) {
		const char *prog = mgb_fs_types[i].mkfs ? mgb_fs_types[i].mkfs[0] : NULL;
		char *host, *guest;

		if (!prog || !(host = which(prog)))
			continue; /* the guest's run will say mkfs is missing, as on a host */
		if (asprintf(&guest, "/usr/sbin/%s", prog) < 0) {
			free(host);
			goto oom;
		}
		rc = add_program(root, host, guest, err);
		free(host);
		free(guest);
		if (rc)
			goto out;
		rc = -1;
	}
	if (!access("/etc/mke2fs.conf", R_OK) && copy_same(root, "/etc/mke2fs.conf", err))
		goto out;
	if (add_fio(root, err))
		goto out;
	if (add_lsan_suppressions(root, err))
		goto out;
	if (g->knfsd && add_knfsd(root, err))
		goto out;
	if (g->ganesha && add_ganesha(root, err))
		goto out;
	/* what lib/target/knfsd.c looks for: this is a guest, whose NFS server is ours to run */
	if (write_at(root, "etc/mgbench-guest", "", err))
		goto out;
	free(p);
	if (asprintf(&p, "%s/etc/mtab", root) < 0)
		goto oom;
	if (symlink("/proc/self/mounts", p) && errno != EEXIST)
		goto oom;
	for (unsigned i = 0; g->modules && g->modules[i]; i++)
		if (add_module(root, g->modules[i], i, err))
			goto out;
	free(p);
	if (asprintf(&p, "%s/init", root) < 0)
		goto oom;
	if (mgb_write_text(p, init_script, 0755, err))
		goto out;
	if (!(line = run_line(g->run_argv)))
		goto oom;
	if (write_at(root, "etc/mgbench-run", line, err))
		goto out;
	/* the test knobs: files /init and the run look for */
	if (g->test_knfsd_stop && write_at(root, "etc/mgbench-test-knfsd-stop", g->test_knfsd_stop, err))
		goto out;
	if (g->test_init_exit && write_at(root, "etc/mgbench-test-init-exit", "", err))
		goto out;
	if (g->test_stale_breakpoint && write_at(root, "etc/mgbench-test-stale-breakpoint", "", err))
		goto out;
	{
		const char *argv[] = { "sh", "-c", "cd \"$0\" && find . | cpio -o -H newc --quiet > \"$1\"",
				       root, cpio, NULL };
		char *o = NULL;
		int st = mgb_capture(argv, NULL, &o, err);

		if (st > 0)
			mgb_err(err, "cpio failed (Debian package cpio): %s", o ? o : "");
		free(o);
		if (st)
			goto out;
	}
	mgb_remove_tree(root);
	rc = 0;
	goto out;
nobusybox:
	mgb_err(err, "no busybox (Debian package busybox-static)");
	goto out;
oom:
	mgb_err(err, "out of memory");
out:
	free(root);
	free(p);
	free(line);
	free(list);
	if (rc) {
		free(cpio);
		cpio = NULL;
	}
	return cpio;
}
