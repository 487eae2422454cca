/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the embedded NFS server is the run's own, and a server that dies takes only its
 * cell with it (issue 18).
 *   An unprivileged local client (uid 65534, AUTH_SYS uid 0, no reserved port) reaching the
 *     embedded server is refused, where root's client (mgbench's own kind) gets in.
 *   kill -9 of the server mid-cell, several times: a clean exit 1 (never a signal), the
 *     document kept with the finished cell and the failed one marked, the --dir run directory
 *     removed.  SIGINT mid-cell: exit 130, the same document.
 *   Hostile paths (space, #, ", ;, }, newline) in TMPDIR and --dir: every NFS cell works or the
 *     path is refused with a clear error, never a broken or injected config.
 *   Concurrent nfs3 runs do not break each other (each v3 server has an rpcbind of its own), and
 *     none of them listens on the host's port 111.
 *   A SIGSTOPped server fails the cell within about --nfs-timeout, as the man page says (a
 *     short v4 write used to leave its client usable, and the next call waited again).
 */
#include "config.h"
#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBNFS
#include <nfsc/libnfs.h>
#endif

/* ganesha.nfsd processes whose command line holds this test's TMPDIR. */
static bool our_server(const struct t_proc *p, const void *tmp)
{
	return !p->zombie && strstr(p->cmdline, "ganesha.nfsd") && tmp && strstr(p->cmdline, tmp);
}

/* The first such server's pid, or the first whose pid is not `other`; 0 if none. */
static pid_t find_server(pid_t other)
{
	pid_t first;

	t_find_procs(our_server, getenv("TMPDIR"), other, &first);
	return first;
}

static unsigned count_servers(void)
{
	return t_find_procs(our_server, getenv("TMPDIR"), 0, NULL);
}

/* The NFS and MOUNT ports of a running embedded server, from its config (in its namespace). */
static void server_ports(pid_t server, unsigned *nfs, unsigned *mnt)
{
	char path[700], line[1024], conf[512] = "";
	FILE *f;

	*nfs = *mnt = 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)server);
	if ((f = fopen(path, "re"))) {
		size_t n = fread(line, 1, sizeof(line) - 1, f);

		line[n] = '\0';
		for (size_t i = 0; i + 3 < n; i++)
			if (!strcmp(line + i, "-f")) {
				snprintf(conf, sizeof(conf), "%s", line + i + 3);
				break;
			}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)server, conf);
	if (!conf[0] || !(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, " NFS_Port = %u;", nfs);
		sscanf(line, " MNT_Port = %u;", mnt);
	}
	fclose(f);
}

#define VALGRIND "/usr/bin/valgrind"

/* Start `run write` in the background with extra arguments (under valgrind if asked); stdout to
 * /dev/null, stderr kept. */
static pid_t start_run_with(const char *const extra[], const char *doc, const char *errfile, bool valgrind)
{
	const char *bin = getenv("MGBENCH") ?: "./mgbench";
	const char *argv[32] = { VALGRIND, "-q", bin, "run", "write", "-q", "-o", doc };
	unsigned n = 8;
	pid_t pid;

	while (*extra && n < 30)
		argv[n++] = *extra++;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen(errfile, "w", stderr))
			_exit(127);
		execv(argv[valgrind ? 0 : 2], (char *const *)argv + (valgrind ? 0 : 2));
		_exit(127);
	}
	return pid;
}

static pid_t start_run(const char *const extra[], const char *doc, const char *errfile)
{
	return start_run_with(extra, doc, errfile, false);
}

static int wait_exit(pid_t pid, double *took)
{
	double t0 = t_now_s();
	int status;

	waitpid(pid, &status, 0);
	if (took)
		*took = t_now_s() - t0;
	/* a signal as 256 + it: told apart from an exit 130 after SIGINT */
	return WIFEXITED(status) ? WEXITSTATUS(status) : 256 + WTERMSIG(status);
}

static char *read_file(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/*
 * Wait until the run's cell has a server other than `other` and is in its workload.  The wait
 * for a second cell's server spans the whole first cell, whose length depends on the machine,
 * so it ends when the run does (or after 10 minutes), not after a fixed time.
 */
static pid_t wait_server(pid_t run, pid_t other)
{
	pid_t s = 0;

	for (int i = 0; i < 60000 && !s && !t_child_exited(run); i++) {
		if (t_in_workload(run, "write"))
			s = find_server(other);
		if (!s)
			usleep(10 * 1000);
	}
	return s;
}

static unsigned count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* ---- an unprivileged client is refused ---- */

#ifdef HAVE_LIBNFS
enum { GOT_IN = 0, MOUNT_REFUSED = 3, CREATE_REFUSED = 4, SETUP_FAILED = 5 };

/* In a child: as uid (65534: no reserved port), claim AUTH_SYS uid 0 and create a file. */
static int poke(const char *url, int version, uid_t uid)
{
	struct nfs_context *nfs;
	struct nfs_url *u;
	struct nfsfh *fh;

	if (uid && (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0))
		return SETUP_FAILED;
	nfs = nfs_init_context();
	if (!nfs || !(u = nfs_parse_url_dir(nfs, url)))
		return SETUP_FAILED;
	nfs_set_version(nfs, version);
	nfs_set_timeout(nfs, 3000);
	nfs_set_uid(nfs, 0);
	nfs_set_gid(nfs, 0);
	if (nfs_mount(nfs, u->server, u->path) != 0) {
		fprintf(stderr, "uid %d: mount refused: %s\n", (int)uid, nfs_get_error(nfs));
		return MOUNT_REFUSED;
	}
	if (nfs_creat(nfs, "/planted-by-poke", 04755, &fh) != 0) {
		fprintf(stderr, "uid %d: create refused: %s\n", (int)uid, nfs_get_error(nfs));
		return CREATE_REFUSED;
	}
	nfs_close(nfs, fh);
	nfs_unlink(nfs, "/planted-by-poke");
	fprintf(stderr, "uid %d: got in as AUTH_SYS uid 0\n", (int)uid);
	return GOT_IN;
}

static int poke_as(const char *url, int version, uid_t uid)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(poke(url, version, uid));
	return wait_exit(pid, NULL);
}

static void unprivileged_client(void)
{
	static const char *const backends[] = { "nfs3", "nfs4" };
	char dir[512], doc[512], errf[512];

	snprintf(dir, sizeof(dir), "%s", t_result_path("d1-dir"));
	mkdir(dir, 0755);
	snprintf(doc, sizeof(doc), "%s", t_result_path("d1.json"));
	snprintf(errf, sizeof(errf), "%s", t_result_path("d1.err"));
	for (size_t b = 0; b < 2; b++) {
		const char *extra[] = { "--dir", dir, "--backend", backends[b], "--rounds", "1000000000", NULL };
		pid_t run = start_run(extra, doc, errf), server = wait_server(run, 0);
		unsigned nfsport = 0, mntport = 0;
		char url[200];
		int root_rc, nobody_rc;

		T_CHECK(server > 0, "%s: the embedded server runs: %s", backends[b], read_file(errf));
		if (server > 0)
			server_ports(server, &nfsport, &mntport);
		if (b == 0)
			snprintf(url, sizeof(url), "nfs://127.0.0.1/export?version=3&nfsport=%u&mountport=%u", nfsport,
				 mntport);
		else
			snprintf(url, sizeof(url), "nfs://127.0.0.1/export?version=4&nfsport=%u", nfsport);
		nobody_rc = poke_as(url, b ? 4 : 3, 65534);
		root_rc = poke_as(url, b ? 4 : 3, 0);
		T_CHECK(nobody_rc == MOUNT_REFUSED || nobody_rc == CREATE_REFUSED,
			"%s: uid 65534 as AUTH_SYS uid 0 is refused (child exit %d)", backends[b], nobody_rc);
		T_CHECK(root_rc == GOT_IN, "%s: root's client (a reserved port) gets in (child exit %d)", backends[b],
			root_rc);
		kill(run, SIGINT);
		wait_exit(run, NULL);
	}
	T_CHECK(count_entries(dir) == 0, "the --dir run directories were removed");
}
#endif

/* ---- a killed server fails its cell, and only its cell ---- */

/* One trial: --repeat 2, kill -9 the second cell's server a little after it starts. */
static int killed_server_trial(const char *backend, const char *rounds, unsigned trial, bool sigint)
{
	char dir[512], doc[512], errf[512], name[64];
	const char *extra[] = { "--dir", dir, "--backend", backend, "--repeat", "2", "--rounds", rounds, NULL };
	pid_t run, first, second;
	json_t *d, *cells;
	int rc;

	snprintf(name, sizeof(name), "d2-%u", trial);
	snprintf(dir, sizeof(dir), "%s", t_result_path(name));
	mkdir(dir, 0755);
	snprintf(name, sizeof(name), "d2-%u.json", trial);
	snprintf(doc, sizeof(doc), "%s", t_result_path(name));
	snprintf(errf, sizeof(errf), "%s", t_result_path("d2.err"));
	run = start_run(extra, doc, errf);
	first = wait_server(run, 0);
	second = first > 0 ? wait_server(run, first) : 0;
	T_CHECK(second > 0, "%s trial %u: the second cell's server runs (%s): %s", backend, trial,
		first > 0 ? "the first's did" : "no first either", t_child_exited(run) ? read_file(errf) : "");
	usleep((useconds_t)(600 + 97 * trial % 400) * 1000); /* after its start; a different moment each trial */
	if (sigint)
		kill(run, SIGINT);
	else if (second > 0)
		kill(second, SIGKILL);
	rc = wait_exit(run, NULL);
	fprintf(stderr, "%s trial %u (%s): exit %d: %s", backend, trial, sigint ? "SIGINT" : "kill -9", rc,
		read_file(errf));
	T_CHECK(rc == (sigint ? 130 : 1), "%s trial %u: exit %d (want %d, no crash)", backend, trial, rc,
		sigint ? 130 : 1);
	d = t_load(doc);
	cells = json_object_get(d, "cells");
	T_CHECK(json_array_size(cells) >= 1, "%s trial %u: the document keeps the finished cell", backend, trial);
	if (json_array_size(cells) >= 1)
		T_CHECK(!strcmp(json_string_value(json_object_get(json_array_get(cells, 0), "status")) ?: "", "ok"),
			"%s trial %u: the first cell is ok", backend, trial);
	if (!sigint && json_array_size(cells) >= 2)
		T_CHECK(strcmp(json_string_value(json_object_get(json_array_get(cells, 1), "status")) ?: "ok", "ok"),
			"%s trial %u: the killed cell is marked failed", backend, trial);
	T_CHECK(!sigint ? json_array_size(cells) == 2 : 1, "%s trial %u: both cells in the document (%zu)", backend,
		trial, json_array_size(cells));
	T_CHECK(count_entries(dir) == 0, "%s trial %u: the --dir run directory was removed", backend, trial);
	json_decref(d);
	return rc >= 256;
}

/*
 * The same under valgrind, which sees what a crash depends on luck to show: libnfs writing into
 * a dead stack frame (a callback of a call cut short, run at the next call or at destroy), when
 * that frame lies below the stack pointer, which is most of the time.
 */
static void killed_server_valgrind(bool sigint, unsigned wait_s)
{
	char doc[512], errf[512];
	const char *extra[] = { "--fs", "tmpfs", "--backend", "nfs3", "--rounds", "1000000000", NULL };
	const char *text;
	pid_t run, server;
	int rc;

	if (access(VALGRIND, X_OK) < 0) {
		fprintf(stderr, "killed server under valgrind: not judged, %s is not installed\n", VALGRIND);
		return;
	}
#ifdef __SANITIZE_ADDRESS__
	/* the sanitizer pass builds mgbench with ASan, whose shadow memory valgrind cannot run */
	fprintf(stderr, "killed server under valgrind: not judged, this mgbench is built with AddressSanitizer\n");
	return;
#endif
	snprintf(doc, sizeof(doc), "%s", t_result_path("d2-vg.json"));
	snprintf(errf, sizeof(errf), "%s", t_result_path("d2-vg.err"));
	run = start_run_with(extra, doc, errf, true);
	server = wait_server(run, 0);
	T_CHECK(server > 0, "valgrind: the server runs");
	sleep(wait_s);
	kill(sigint ? run : server, sigint ? SIGINT : SIGKILL);
	rc = wait_exit(run, NULL);
	text = read_file(errf);
	fprintf(stderr, "valgrind, %s: exit %d: %s", sigint ? "SIGINT" : "kill -9", rc, text);
	T_CHECK(rc == (sigint ? 130 : 1), "valgrind, %s: exit %d", sigint ? "SIGINT" : "kill -9", rc);
	T_CHECK(!strstr(text, "Invalid write") && !strstr(text, "Invalid read"),
		"valgrind, %s: libnfs touched a dead stack frame", sigint ? "SIGINT" : "kill -9");
}

static void killed_server(void)
{
	struct t_host before;
	unsigned crashes = 0, trials = 0;

	t_host_snapshot(&before);
	/* a few moments each way: the crash that luck shows is valgrind's to see, below */
	for (unsigned i = 0; i < 4; i++, trials++)
		crashes += killed_server_trial(i % 2 ? "nfs4" : "nfs3", i % 2 ? "20000" : "40000", i, false);
	for (unsigned i = 4; i < 6; i++, trials++)
		crashes += killed_server_trial("nfs3", "40000", i, true);
	fprintf(stderr, "killed server: %u of %u trials crashed\n", crashes, trials);
	/* Before the fix, 2 of 3 such trials showed the invalid writes (5, 7, 9 s in). */
	for (unsigned i = 0; i < 3; i++)
		killed_server_valgrind(false, 3 + 2 * i);
	killed_server_valgrind(true, 4);
	for (int i = 0; i < 100 && count_servers(); i++)
		usleep(50 * 1000);
	T_CHECK(count_servers() == 0, "killed server: no server left");
	t_host_check_clean(&before, "after the killed servers");
}

/* ---- the rpcbind of a v3 server is its own, and not on the host's network ---- */

/* TCP sockets listening on port 111 in our network namespace (the host's). */
static unsigned portmap_listeners(void)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	unsigned n = 0;

	for (size_t i = 0; i < 2; i++) {
		char line[512], local[80], state[8];
		FILE *f = fopen(files[i], "re");

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, " %*s %79s %*s %7s", local, state) == 2 && strlen(local) > 5 &&
			    !strcmp(local + strlen(local) - 5, ":006F") && !strcmp(state, "0A"))
				n++;
		if (f)
			fclose(f);
	}
	return n;
}

static void concurrent_v3(void)
{
	char doc[3][512], errf[3][512], name[32];
	unsigned before = portmap_listeners(), during = 0, failed = 0, cells = 0;
	pid_t run[3];

	for (int i = 0; i < 3; i++) {
		const char *extra[] = { "--fs", "tmpfs", "--backend", "nfs3", "--repeat", "4", "--rounds", "3000", NULL };

		snprintf(name, sizeof(name), "d8-%d.json", i);
		snprintf(doc[i], sizeof(doc[i]), "%s", t_result_path(name));
		snprintf(name, sizeof(name), "d8-%d.err", i);
		snprintf(errf[i], sizeof(errf[i]), "%s", t_result_path(name));
		run[i] = start_run(extra, doc[i], errf[i]);
	}
	if (wait_server(run[0], 0) > 0)
		during = portmap_listeners();
	for (int i = 0; i < 3; i++) {
		json_t *d, *c;
		size_t k;

		wait_exit(run[i], NULL);
		d = t_load(doc[i]);
		json_array_foreach(json_object_get(d, "cells"), k, c) {
			bool ok = !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "ok");

			cells++;
			failed += !ok;
			if (!ok)
				fprintf(stderr, "concurrent nfs3: run %d cell %zu: %s\n", i, k,
					json_string_value(json_object_get(c, "error")) ?: "");
		}
		json_decref(d);
	}
	fprintf(stderr, "%u of %u cells of 3 concurrent nfs3 runs failed; port 111 listeners on the host: "
		"%u before, %u during\n", failed, cells, before, during);
	T_CHECK(cells == 12 && failed == 0, "concurrent nfs3 runs: %u of %u cells failed", failed, cells);
	T_CHECK(during <= before, "a run's rpcbind listens on the host's port 111 (%u, %u before)", during,
		before);
}

/* ---- a stopped server fails the cell within about --nfs-timeout ---- */

static void stopped_server(void)
{
	static const char *const backends[] = { "nfs3", "nfs4" };
	char doc[512], errf[512];

	snprintf(doc, sizeof(doc), "%s", t_result_path("d31.json"));
	snprintf(errf, sizeof(errf), "%s", t_result_path("d31.err"));
	/* three times each: before the fix, a stop inside a v4 write waited twice */
	for (size_t i = 0, b = 0; i < 6; i++, b = i % 2) {
		/* 64 KiB writes: 22 v4 WRITE calls each, so the stop lands inside one */
		const char *extra[] = { "--fs", "tmpfs", "--backend", backends[b], "--nfs-timeout", "5", "--size", "65536",
					"--rounds", "1000000000", NULL };
		pid_t run = start_run(extra, doc, errf), server = wait_server(run, 0);
		double t0, took;
		int rc;

		usleep(300 * 1000);
		t0 = t_now_s();
		if (server > 0)
			kill(server, SIGSTOP);
		rc = wait_exit(run, NULL);
		took = t_now_s() - t0;
		fprintf(stderr, "%s: SIGSTOP, --nfs-timeout 5: exit %d %.2f s after the stop: %s", backends[b], rc, took,
			read_file(errf));
		T_CHECK(rc == 1, "%s: stopped server: exit %d (want 1)", backends[b], rc);
		T_CHECK(strstr(read_file(errf), "timed out"), "%s: stopped server: says it timed out", backends[b]);
		/* the man page: within about --nfs-timeout (one call's wait, then a quick teardown) */
		T_CHECK(took <= 7.5, "%s: stopped server: failed %.2f s after the stop, not within about "
			"--nfs-timeout 5", backends[b], took);
	}
}

/* ---- hostile paths reach the ganesha config ---- */

static void hostile_paths(void)
{
	static const char *const names[] = { "we ird", "hash#dir", "q\"uote", "semi;}x", "new\nline", "back\\slash" };
	const char *saved = getenv("TMPDIR");
	char tmp[512], doc[512];

	snprintf(tmp, sizeof(tmp), "%s", saved ? saved : "/tmp");
	snprintf(doc, sizeof(doc), "%s", t_result_path("d7.json"));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char dir[600];
		struct t_output o;

		snprintf(dir, sizeof(dir), "%s/%s", tmp, names[i]);
		T_CHECK(mkdir(dir, 0755) == 0 || errno == EEXIST, "mkdir %s", dir);
		for (int as_tmpdir = 0; as_tmpdir < 2; as_tmpdir++) {
			const char *args[] = { "run", "write", "--backend", "nfs3,nfs4", "--rounds", "50", "-q", "-o", doc,
					       as_tmpdir ? "--fs" : "--dir", as_tmpdir ? "tmpfs" : dir, NULL };
			json_t *d, *c;
			size_t k;

			if (as_tmpdir)
				setenv("TMPDIR", dir, 1);
			unlink(doc);
			t_mgbench(&o, args);
			setenv("TMPDIR", tmp, 1);
			d = t_load(doc);
			if (strchr(names[i], '\n')) {
				/* no ganesha string can hold it: refused, saying why */
				T_CHECK(o.status == 1 && strstr(o.err, "control characters"), "%s %s: refused clearly: %s",
					as_tmpdir ? "TMPDIR" : "--dir", names[i], o.err);
			} else {
				T_CHECK(o.status == 0, "%s %s: exit %d: %s", as_tmpdir ? "TMPDIR" : "--dir", names[i],
					o.status, o.err);
				json_array_foreach(json_object_get(d, "cells"), k, c)
					T_CHECK(!strcmp(json_string_value(json_object_get(c, "status")) ?: "", "ok"),
						"%s %s: cell %zu: %s", as_tmpdir ? "TMPDIR" : "--dir", names[i], k,
						json_string_value(json_object_get(c, "error")) ?: "");
			}
			fprintf(stderr, "%s '%s': exit %d %s", as_tmpdir ? "TMPDIR" : "--dir", names[i], o.status, o.err);
			json_decref(d);
			t_output_free(&o);
		}
		T_CHECK(count_entries(dir) == 0, "%s: nothing left in it", names[i]);
		rmdir(dir);
	}
}

int main(void)
{
#ifndef HAVE_LIBNFS
	t_skip("built without libnfs (no NFS backends)");
#else
	static const char *const programs[] = { "/usr/bin/ganesha.nfsd", NULL };
	const char *only = getenv("IT_NFS_ONLY"); /* for a reproducer by hand: d1, d2, d7, d8, d31 */

	t_require(&(struct t_needs){ .root = true, .libnfs = true, .programs = programs, .slow = true });
	t_result_path("x"); /* the test's TMPDIR, before any run */
	t_case("d1: an unprivileged client");
	if (!only || strstr(only, "d1"))
		unprivileged_client();
	t_case("d2: a killed server");
	if (!only || strstr(only, "d2"))
		killed_server();
	t_case("d8: concurrent NFSv3 runs");
	if (!only || strstr(only, "d8"))
		concurrent_v3();
	t_case("d31: a stopped server");
	if (!only || strstr(only, "d31"))
		stopped_server();
	t_case("d7: hostile paths");
	if (!only || strstr(only, "d7"))
		hostile_paths();
	t_case("no server left at the end");
	T_CHECK(count_servers() == 0, "no server left at the end");
	return t_result();
#endif
}
