/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The embedded NFS server: an nfs-ganesha (FSAL VFS) that mgbench starts for one target, on
 * 127.0.0.1 and free ports, exporting the target's directory with attribute caching off and no
 * grace period (see notes/nfs-loopback.md).  Config, log, pid file and recovery dir live in the
 * session's private temp dir.  Only root's client gets in (127.0.0.1, a reserved port).
 *
 * Leaks are impossible by construction: ganesha (and for v3 its own rpcbind) is our child, in
 * its own process group (a terminal's ^C reaches mgbench, which stops it in order) with a
 * parent-death signal (a killed mgbench takes it along), inside the run's private mount
 * namespace.  The rpcbind gets private mount and network namespaces with a tmpfs over /run, so
 * its lock, socket and warm-start files vanish with it, and a supervisor (see supervise()).
 */
#include "config.h"
#include "target.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>

#define NFS_PROGRAM 100003
#define MOUNT_PROGRAM 100005
#define READY_TIMEOUT_NS (15 * MGB_NSEC_PER_SEC)
#define STOP_TIMEOUT_NS (3 * MGB_NSEC_PER_SEC)
#define START_TRIES 3

/* A port nothing listens on right now (the kernel's pick); ganesha may still lose it to a race,
 * which the caller retries. */
static unsigned free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unsigned port = 0;

	if (fd < 0)
		return 0;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

struct rpc_wait {
	int done; /* 0 pending, 1 ok, -1 failed */
};

static void rpc_wait_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	((struct rpc_wait *)priv)->done = status == RPC_STATUS_SUCCESS ? 1 : -1;
}

static int rpc_pump(struct rpc_context *rpc, struct rpc_wait *w, int64_t deadline)
{
	while (!w->done && mgb_clock_ns(CLOCK_MONOTONIC) < deadline) {
		struct pollfd pfd = { .fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc) };

		if (pfd.fd < 0 || poll(&pfd, 1, 20) < 0 || rpc_service(rpc, pfd.revents) < 0)
			return -1;
	}
	return w->done == 1 ? 0 : -1;
}

bool mgb_rpc_answers(unsigned port, int prog, int vers)
{
	struct rpc_context *rpc = rpc_init_context();
	int64_t deadline = mgb_clock_ns(CLOCK_MONOTONIC) + MGB_NSEC_PER_SEC;
	struct rpc_wait w = { 0 };
	bool ok = false;

	if (!rpc)
		return false;
	if (rpc_connect_async(rpc, "127.0.0.1", (int)port, rpc_wait_cb, &w) == 0 && rpc_pump(rpc, &w, deadline) == 0) {
		w.done = 0;
		ok = rpc_null_async(rpc, prog, vers, rpc_wait_cb, &w) == 0 && rpc_pump(rpc, &w, deadline) == 0;
	}
	rpc_destroy_context(rpc);
	return ok;
}

/*
 * rpcbind switches to its own user, and a credential change clears the parent-death signal, so
 * it runs under a supervisor that keeps it: this child of ours (root, with the signal) starts
 * rpcbind and, on SIGTERM from mgbench or from mgbench's death, stops it and exits.
 */
static void supervise(const char *const argv[])
{
	sigset_t set;
	pid_t pid;
	int sig, status;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0)
		_exit(126);
	for (;;) {
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig == SIGCHLD) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 125);
			continue;
		}
		kill(pid, SIGTERM);
		for (int i = 0; i < 200 && waitpid(pid, &status, WNOHANG) == 0; i++)
			usleep(10000);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		_exit(0);
	}
}

struct namespaces {
	const char *const *argv;
	bool private_run;
	pid_t mnt_ns_of;
};

/* In the child, last before exec: join a mount namespace, or enter new ones under a supervisor. */
static void enter_namespaces(void *arg)
{
	const struct namespaces *n = arg;
	char ns[64];
	int fd;

	if (n->mnt_ns_of > 0) {
		snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)n->mnt_ns_of);
		fd = open(ns, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNS) < 0)
			_exit(126);
		close(fd);
	}
	if (!n->private_run)
		return;
	if (unshare(CLONE_NEWNS | CLONE_NEWNET) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("mgbench-rpcbind", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		_exit(126);
	supervise(n->argv);
	_exit(126);
}

/*
 * Start argv as our child, its output appended to out (or to /dev/null).  private_run (rpcbind):
 * in mount and network namespaces of its own, a tmpfs over /run, under a supervisor.  Its port
 * 111 is then nobody's but this server's, and nothing of it listens on the host.
 * mnt_ns_of (ganesha for v3): join that process's mount namespace, where /run/rpcbind.sock is our
 * rpcbind's, to register there.  SIGTERM as the parent-death signal: ganesha then still
 * unregisters from the portmapper, so a later server can register there.
 */
static pid_t spawn(const char *const argv[], const char *out, bool private_run, pid_t mnt_ns_of)
{
	struct namespaces n = { argv, private_run, mnt_ns_of };
	int fd = out ? open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1, saved;
	struct mgb_proc_spec spec = { .argv = argv, .out = fd >= 0 ? MGB_PROC_FD : MGB_PROC_NULL, .out_fd = fd,
				      .err = MGB_PROC_WITH_OUT, .death_signal = SIGTERM,
				      .setup = enter_namespaces, .setup_arg = &n };
	struct mgb_proc child;
	char err[MGB_ERR_LEN];
	int r = mgb_proc_start(&spec, &child, err);

	saved = errno;
	if (fd >= 0)
		close(fd);
	errno = saved;
	return r < 0 ? -1 : child.pid;
}

/* SIGTERM, wait up to STOP_TIMEOUT_NS, then SIGKILL; always reaped. */
static void stop_child(pid_t *pid)
{
	mgb_proc_stop(*pid, NULL, STOP_TIMEOUT_NS, false);
	*pid = 0;
}

/*
 * The portmapper v3 ganesha registers with: always our own, private to this server (see
 * spawn()), never one that happens to answer on the host's port 111, which another run may stop
 * under us.  Ready when its socket appears in its /run.
 */
static int ensure_rpcbind(struct mgb_nfs_server *srv, char *err)
{
	static const char *const argv[] = { "/usr/sbin/rpcbind", "-f", NULL };
	char sock[64];
	int64_t deadline;

	if (srv->rpcbind_pid > 0)
		return 0;
	if (access(argv[0], X_OK) < 0)
		return mgb_err(err, "NFSv3 needs rpcbind and %s is missing (run ./bootstrap)", argv[0]);
	srv->rpcbind_pid = spawn(argv, NULL, true, 0);
	if (srv->rpcbind_pid < 0) {
		srv->rpcbind_pid = 0;
		return mgb_err(err, "fork rpcbind: %s", strerror(errno));
	}
	snprintf(sock, sizeof(sock), "/proc/%d/root/run/rpcbind.sock", (int)srv->rpcbind_pid);
	for (deadline = mgb_clock_ns(CLOCK_MONOTONIC) + 5 * MGB_NSEC_PER_SEC; mgb_clock_ns(CLOCK_MONOTONIC) < deadline;) {
		if (waitpid(srv->rpcbind_pid, NULL, WNOHANG) == srv->rpcbind_pid) {
			srv->rpcbind_pid = 0;
			return mgb_err(err, "rpcbind exited at once");
		}
		if (access(sock, F_OK) == 0)
			return 0;
		usleep(10000);
	}
	stop_child(&srv->rpcbind_pid);
	return mgb_err(err, "rpcbind made no socket within 5 s");
}

/*
 * A path as a ganesha config string: double quotes, with " and \ escaped by a backslash (the
 * lexer's DQUOTE: "(\\.|[^"])*").  Control characters (a newline ends no string but reads
 * back as something else) are refused.  The one place a path enters the config.
 */
static char *config_string(const char *path, char *err)
{
	size_t n = 3;
	char *q, *o;

	for (const char *p = path; *p; p++) {
		if (mgb_is_control(*p))
			return mgb_err(err, "the embedded NFS server cannot export a path with control characters "
				       "(a newline or tab): %.200s; use another --dir or TMPDIR", path), NULL;
		n += 1 + (*p == '"' || *p == '\\');
	}
	q = o = malloc(n);
	if (!q)
		return mgb_err(err, "out of memory"), NULL;
	*o++ = '"';
	for (const char *p = path; *p; p++) {
		if (*p == '"' || *p == '\\')
			*o++ = '\\';
		*o++ = *p;
	}
	*o++ = '"';
	*o = '\0';
	return q;
}

static int write_config(const struct mgb_nfs_server *srv, const char *conf, char *err)
{
	const char *proto = srv->nfs_version == 3 ? "3" : "4";
	char *recov = NULL, *recov_q, *path_q;
	FILE *f;

	if (asprintf(&recov, "%s/recov", srv->dir) < 0)
		return mgb_err(err, "out of memory");
	recov_q = config_string(recov, err);
	path_q = recov_q ? config_string(srv->export_dir, err) : NULL;
	free(recov);
	if (!path_q) {
		free(recov_q);
		return -1;
	}
	f = fopen(conf, "we");
	if (!f) {
		free(recov_q);
		free(path_q);
		return mgb_err(err, "create %s: %s", conf, strerror(errno));
	}
	/* Attr_Expiration_Time = 0: every GETATTR asks the kernel, so what a client sees is the
	 * filesystem's stamp and not ganesha's cache of it.  Access: none, but for a client on
	 * 127.0.0.1 from a reserved port, i.e. root's (libnfs binds one when it can); AUTH_SYS
	 * from any local user could otherwise claim uid 0.  Squash stays
	 * None: the workload itself is root. */
	fprintf(f,
		"NFS_CORE_PARAM {\n"
		"\tBind_addr = 127.0.0.1;\n\tNFS_Port = %u;\n\tMNT_Port = %u;\n\tProtocols = %s;\n"
		"\tEnable_NLM = false;\n\tEnable_RQUOTA = false;\n\tEnable_UDP = false;\n"
		"\tmount_path_pseudo = true;\n}\n"
		"NFSv4 {\n\tGraceless = true;\n\tOnly_Numeric_Owners = true;\n\tLease_Lifetime = 120;\n"
		"\tRecoveryRoot = %s;\n}\n"
		"EXPORT {\n\tExport_Id = 1;\n\tPath = %s;\n\tPseudo = /export;\n\tProtocols = %s;\n"
		"\tTransports = TCP;\n\tAccess_Type = None;\n\tSquash = None;\n\tSecType = sys;\n"
		"\tPrivilegedPort = true;\n\tAttr_Expiration_Time = 0;\n"
		"\tCLIENT {\n\t\tClients = 127.0.0.1;\n\t\tAccess_Type = RW;\n\t\tPrivilegedPort = true;\n\t}\n"
		"\tFSAL { Name = VFS; }\n}\n",
		srv->nfs_port, srv->mnt_port, proto, recov_q, path_q, proto);
	free(recov_q);
	free(path_q);
	if (fclose(f) != 0)
		return mgb_err(err, "write %s: %s", conf, strerror(errno));
	return 0;
}

/* The last lines of the log, joined with " | ", for an error message. */
static void log_tail(const char *log, char *out, size_t len)
{
	char lines[3][160] = { "", "", "" }, line[1024];
	unsigned n = 0;
	FILE *f = fopen(log, "re");

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		/* "date : epoch ... : host : nfs-ganesha-PID[thread] function :COMPONENT :LEVEL :text" */
		char *text = strstr(line, "] ");

		line[strcspn(line, "\n")] = '\0';
		if (!strstr(line, ":MAJ :") && !strstr(line, ":FATAL :") && !strstr(line, ":CRIT :") &&
		    !strstr(line, "Error"))
			continue;
		if (strstr(line, ":DBUS :") || strstr(line, "krb5") || strstr(line, "credentials"))
			continue; /* always there without dbus or kerberos; never the reason */
		snprintf(lines[n % 3], sizeof(lines[0]), "%.150s", text ? text + 2 : line);
		n++;
	}
	fclose(f);
	for (unsigned i = n > 3 ? n - 3 : 0; i < n; i++) {
		size_t used = strlen(out);

		snprintf(out + used, len - used, "%s%s", used ? " | " : "", lines[i % 3]);
	}
}

static void read_version(struct mgb_nfs_server *srv)
{
	char line[1024];
	FILE *f = fopen(srv->log, "re");

	while (f && !srv->version && fgets(line, sizeof(line), f)) {
		char *v = strstr(line, "Ganesha Version ");

		if (v) {
			v += strlen("Ganesha Version ");
			v[strcspn(v, " \n")] = '\0';
			srv->version = strdup(v);
		}
	}
	if (f)
		fclose(f);
}

/* Ready when the NULL procedure answers (NFS, and MOUNT for v3); not ready when it exited. */
static int wait_ready(struct mgb_nfs_server *srv, int *status)
{
	int64_t deadline = mgb_clock_ns(CLOCK_MONOTONIC) + READY_TIMEOUT_NS;

	while (mgb_clock_ns(CLOCK_MONOTONIC) < deadline) {
		if (waitpid(srv->pid, status, WNOHANG) == srv->pid) {
			srv->pid = 0;
			return -1;
		}
		if (mgb_rpc_answers(srv->nfs_port, NFS_PROGRAM, srv->nfs_version) &&
		    (srv->nfs_version != 3 || mgb_rpc_answers(srv->mnt_port, MOUNT_PROGRAM, 3)))
			return 0;
		usleep(10000);
	}
	*status = -1;
	return -1;
}

static int start_once(struct mgb_nfs_server *srv, bool *retry, char *err)
{
	char conf[4096], pidfile[4096], recov[4096], tail[MGB_ERR_LEN];
	const char *argv[] = { "/usr/bin/ganesha.nfsd", "-F", "-L", srv->log, "-N", "NIV_EVENT", "-f", conf,
			       "-p", pidfile, NULL };
	int status = 0;

	*retry = false;
	snprintf(conf, sizeof(conf), "%s/ganesha.conf", srv->dir);
	snprintf(pidfile, sizeof(pidfile), "%s/ganesha.pid", srv->dir);
	snprintf(recov, sizeof(recov), "%s/recov", srv->dir);
	/* A fresh recovery dir every start: old v4 client records would hold a grace period. */
	mgb_remove_tree(recov);
	mkdir(recov, 0700);
	unlink(srv->log);
	srv->nfs_port = free_port();
	srv->mnt_port = free_port();
	if (!srv->nfs_port || !srv->mnt_port || srv->nfs_port == srv->mnt_port) {
		*retry = true;
		return mgb_err(err, "no free TCP port on 127.0.0.1");
	}
	if (write_config(srv, conf, err) < 0)
		return -1;
	srv->pid = spawn(argv, srv->log, false, srv->rpcbind_pid);
	if (srv->pid < 0) {
		srv->pid = 0;
		return mgb_err(err, "fork ganesha.nfsd: %s", strerror(errno));
	}
	if (wait_ready(srv, &status) == 0)
		return 0;
	log_tail(srv->log, tail, sizeof(tail));
	if (status == -1) {
		stop_child(&srv->pid);
		return mgb_err(err, "nfs-ganesha did not answer on 127.0.0.1:%u within %lld s: %s", srv->nfs_port,
			       (long long)(READY_TIMEOUT_NS / MGB_NSEC_PER_SEC), tail[0] ? tail : "(log empty)");
	}
	/* A port lost to a race, or a portmapper that went away: worth another try. */
	*retry = strstr(tail, "binding") || strstr(tail, "register");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return mgb_err(err, "%s not found (run ./bootstrap to install nfs-ganesha)", argv[0]);
	return mgb_err(err, "nfs-ganesha exited (status %d) while starting: %s", status,
		       tail[0] ? tail : "(log empty)");
}

/* FSAL VFS serves files by kernel file handles: a filesystem without them (ramfs) cannot be
 * exported.  With a zero-sized buffer, a filesystem that has them answers EOVERFLOW. */
static int check_exportable(const char *path, char *err)
{
	struct file_handle fh = { .handle_bytes = 0 };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &fh, &mount_id, 0) < 0 && errno != EOVERFLOW)
		return mgb_err(err, "nfs-ganesha cannot export %s: its VFS FSAL needs file handles, and "
			       "name_to_handle_at says: %s", path, strerror(errno));
	return 0;
}

/*
 * What ganesha exports: a new directory in the target's, both 0700 and root's.  Another user on
 * the host cannot reach it for the whole run, even if a client chmods the export's root (which
 * --dir leaves on a host filesystem); the target's own directory is removed with the target.
 */
static int make_export_dir(const char *target, struct mgb_nfs_server *srv, char *err)
{
	if (chmod(target, 0700) < 0)
		return mgb_err(err, "chmod %s: %s", target, strerror(errno));
	if (asprintf(&srv->export_dir, "%s/nfs-export", target) < 0) {
		srv->export_dir = NULL;
		return mgb_err(err, "out of memory");
	}
	if (mkdir(srv->export_dir, 0700) < 0 && errno != EEXIST)
		return mgb_err(err, "mkdir %s: %s", srv->export_dir, strerror(errno));
	return 0;
}

int mgb_nfs_server_start(struct mgb_session *s, const char *export_path, int nfs_version,
			 struct mgb_nfs_server *srv, char *err)
{
	int64_t t0 = mgb_clock_ns(CLOCK_MONOTONIC);
	bool retry = true;
	int r = -1;

	memset(srv, 0, sizeof(*srv));
	srv->nfs_version = nfs_version;
	if (check_exportable(export_path, err) < 0)
		return -EOPNOTSUPP;
	if (make_export_dir(export_path, srv, err) < 0) {
		mgb_nfs_server_stop(srv);
		return -1;
	}
	if (!s->tmpdir || access("/usr/bin/ganesha.nfsd", X_OK) < 0) {
		mgb_nfs_server_stop(srv);
		return !s->tmpdir ? mgb_err(err, "the embedded NFS server needs a scratch session")
				  : mgb_err(err, "/usr/bin/ganesha.nfsd is missing: install nfs-ganesha and "
					    "nfs-ganesha-vfs (run ./bootstrap), or give --nfs-url");
	}
	s->serial++;
	if (asprintf(&srv->log, "%s/ganesha-%u/ganesha.log", s->tmpdir, s->serial) < 0) {
		srv->log = NULL;
		mgb_nfs_server_stop(srv);
		return mgb_err(err, "out of memory");
	}
	/* srv->dir only once made: stop removes it */
	srv->log[strlen(srv->log) - strlen("/ganesha.log")] = '\0';
	if (mkdir(srv->log, 0700) < 0) {
		mgb_err(err, "mkdir %s: %s", srv->log, strerror(errno));
		mgb_nfs_server_stop(srv);
		return -1;
	}
	srv->dir = strdup(srv->log);
	srv->log[strlen(srv->log)] = '/';
	if (!srv->dir) {
		mgb_nfs_server_stop(srv);
		return mgb_err(err, "out of memory");
	}
	for (int i = 0; r < 0 && retry && i < START_TRIES; i++) {
		if (nfs_version == 3 && ensure_rpcbind(srv, err) < 0)
			return -1;
		r = start_once(srv, &retry, err);
	}
	if (r < 0) {
		mgb_nfs_server_stop(srv);
		return -1;
	}
	read_version(srv);
	if (nfs_version == 3)
		r = asprintf(&srv->url, "nfs://127.0.0.1/export?version=3&nfsport=%u&mountport=%u", srv->nfs_port,
			     srv->mnt_port);
	else
		r = asprintf(&srv->url, "nfs://127.0.0.1/export?version=4&nfsport=%u", srv->nfs_port);
	if (r < 0) {
		srv->url = NULL;
		mgb_nfs_server_stop(srv);
		return mgb_err(err, "out of memory");
	}
	srv->start_ns = mgb_clock_ns(CLOCK_MONOTONIC) - t0;
	return 0;
}

bool mgb_nfs_server_alive(const struct mgb_nfs_server *srv)
{
	siginfo_t si = { 0 };

	/* WNOWAIT: a dead server stays unreaped, so stop still owns its pid. */
	return srv->pid > 0 && waitid(P_PID, (id_t)srv->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
}

void mgb_nfs_server_stop(struct mgb_nfs_server *srv)
{
	stop_child(&srv->pid);
	stop_child(&srv->rpcbind_pid);
	if (srv->dir)
		mgb_remove_tree(srv->dir);
	free(srv->dir);
	free(srv->export_dir);
	free(srv->log);
	free(srv->url);
	free(srv->version);
	memset(srv, 0, sizeof(*srv));
}
