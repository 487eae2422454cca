/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the nfs3 and nfs4 backends against the embedded nfs-ganesha, on ext4 and tmpfs
 * exports made by mgbench.
 *   write, rename: ctime distinct on every queried round, never backwards; on v4 the change
 *     attribute too; cell.server names the embedded ganesha, its version, the exported fs and
 *     the NFS version, with its start time in the timings.
 *   revalidate --sequenced misses nothing, for ctime and (v4) the change attribute, with two
 *     clients (the writer's and the poller's contexts); free-running reports misses by class.
 *   ramfs cannot be exported (no file handles): the cell is unsupported, saying why.  The
 *     non-multigrain control NFS can export is ext2: its clients see coarse ctimes (and, over
 *     v4, a coarse change attribute), where the ext4 export beside it gives distinct ones.
 *   A server killed mid-run fails the run within seconds (exit 1, naming the server); a
 *   stopped one within the timeout; SIGKILL of mgbench takes its server along; --nfs-url to a
 *   port where nothing listens is a clear error.  Nothing is left: no process, mount or loop.
 */
#include "config.h"
#include "helpers.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const backends[] = { "nfs3", "nfs4" };
static const char *const filesystems[] = { "ext4", "tmpfs" };

/* ganesha.nfsd processes whose config lies under this test's TMPDIR, or the rpcbinds mgbench
 * started (their /run is mgbench's private tmpfs); optionally the first pid. */
static bool our_server(const struct t_proc *p, const void *tmp)
{
	return !p->zombie && strstr(p->cmdline, "ganesha.nfsd") && tmp && strstr(p->cmdline, tmp);
}

static unsigned count_servers(pid_t *first)
{
	return t_find_procs(our_server, getenv("TMPDIR"), 0, first);
}

static void check_no_server(const char *when)
{
	unsigned n = 0;

	for (int i = 0; i < 100 && (n = count_servers(NULL)); i++)
		usleep(50 * 1000);
	T_CHECK(n == 0, "%s: %u ganesha.nfsd of this test still running", when, n);
}

static json_t *run(const char *name, const char *const *extra, const char *fs)
{
	const char *path = t_result_path(name);
	const char *args[24] = { "run", NULL };
	struct t_output o;
	unsigned n = 1;
	json_t *doc;

	while (*extra)
		args[n++] = *extra++;
	args[n++] = "--fs";
	args[n++] = fs;
	args[n++] = "--backend";
	args[n++] = "nfs3,nfs4";
	args[n++] = "-o";
	args[n++] = path;
	args[n] = NULL;
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "%s: exit %d: %s", name, o.status, o.err);
	fprintf(stderr, "%s:\n%s", name, o.out);
	t_output_free(&o);
	doc = t_load(path);
	T_CHECK(doc != NULL, "%s: result document", name);
	return doc;
}

static void check_server(json_t *cell, const char *label, const char *fs, int version)
{
	json_t *srv = json_object_get(cell, "server");

	T_CHECK(json_is_object(srv), "%s: cell.server", label);
	T_CHECK(!strcmp(t_str(cell, "server.kind"), "embedded"), "%s: server.kind", label);
	T_CHECK(!strcmp(t_str(cell, "server.software"), "nfs-ganesha"), "%s: server.software", label);
	T_CHECK(*t_str(cell, "server.version"), "%s: server.version", label);
	T_CHECK(!strcmp(t_str(cell, "server.export_fs"), fs), "%s: server.export_fs %s", label,
		t_str(cell, "server.export_fs"));
	T_CHECK(json_integer_value(json_object_get(srv, "nfs_version")) == version, "%s: server.nfs_version", label);
	T_CHECK(json_integer_value(json_object_get(srv, "start_ns")) > 0, "%s: server.start_ns", label);
	T_CHECK(json_integer_value(json_object_get(json_object_get(cell, "timings"), "server_start_ns")) > 0,
		"%s: timings.server_start_ns", label);
}

static void write_and_rename(void)
{
	static const char *const wargs[] = { "write", "--rounds", "300", NULL };
	static const char *const rargs[] = { "rename", "--rounds", "200", NULL };
	json_t *w = run("write.json", wargs, "ext4,tmpfs"), *r = run("rename.json", rargs, "ext4,tmpfs");

	for (size_t f = 0; f < 2; f++)
		for (size_t b = 0; b < 2; b++) {
			json_t *c = t_cell_backend(w, "write", filesystems[f], backends[b]);
			json_t *rc = t_cell_backend(r, "rename", filesystems[f], backends[b]);
			char label[64];

			snprintf(label, sizeof(label), "write %s %s", filesystems[f], backends[b]);
			T_CHECK(c && !strcmp(json_string_value(json_object_get(c, "status")), "ok"), "%s: ok", label);
			if (!c)
				continue;
			check_server(c, label, filesystems[f], b ? 4 : 3);
			T_CHECK(t_metric(c, "ctime.distinct") == 300, "%s: ctime distinct %g of 300", label,
				t_metric(c, "ctime.distinct"));
			T_CHECK(t_metric(c, "ctime.backwards") == 0, "%s: ctime backwards", label);
			T_CHECK(t_metric(c, "ctime.future") == 0, "%s: ctime future", label);
			if (b) {
				T_CHECK(t_metric(c, "change.distinct") == 300, "%s: change distinct %g of 300", label,
					t_metric(c, "change.distinct"));
				T_CHECK(t_metric(c, "change.backwards") == 0, "%s: change backwards", label);
			} else {
				T_CHECK(isnan(t_metric(c, "change.rounds")), "%s: no change attribute over v3", label);
			}
			snprintf(label, sizeof(label), "rename %s %s", filesystems[f], backends[b]);
			T_CHECK(rc && !strcmp(json_string_value(json_object_get(rc, "status")), "ok"), "%s: ok", label);
			if (rc) {
				T_CHECK(t_metric(rc, "ctime.distinct_ratio") == 1, "%s: file ctime distinct %g", label,
					t_metric(rc, "ctime.distinct_ratio"));
				T_CHECK(t_metric(rc, "ctime.backwards") == 0, "%s: backwards", label);
			}
		}
	json_decref(w);
	json_decref(r);
}

static void revalidate(void)
{
	static const char *const seq[] = { "revalidate", "--sequenced", "--rounds", "500", NULL };
	static const char *const free_run[] = { "revalidate", "--rounds", "1000", NULL };
	json_t *s = run("sequenced.json", seq, "ext4,tmpfs"), *fr = run("free.json", free_run, "tmpfs");
	static const char *const classes[] = { "misses_granularity", "misses_announced", "misses_inflight" };

	for (size_t f = 0; f < 2; f++)
		for (size_t b = 0; b < 2; b++) {
			json_t *c = t_cell_backend(s, "revalidate", filesystems[f], backends[b]);
			char label[64];

			snprintf(label, sizeof(label), "revalidate --sequenced %s %s", filesystems[f], backends[b]);
			T_CHECK(c && !strcmp(json_string_value(json_object_get(c, "status")), "ok"), "%s: ok", label);
			if (!c)
				continue;
			/* Two clients at least: the writer's and the poller's. */
			T_CHECK(t_metric(c, "versions_written") == 500, "%s: versions", label);
			T_CHECK(json_integer_value(json_object_get(json_object_get(c, "backend_metrics"), "clients")) >= 2,
				"%s: separate clients", label);
			/* The poller saw every version through its own connection: no client cache hid them. */
			T_CHECK(t_metric(c, "fresh_polls") == 500, "%s: fresh polls %g of 500", label, t_metric(c, "fresh_polls"));
			for (size_t k = 0; k < 3; k++) {
				char key[64];

				T_CHECK(t_metric(c, classes[k]) == 0, "%s: %s %g", label, classes[k], t_metric(c, classes[k]));
				snprintf(key, sizeof(key), "change.%s", classes[k]);
				if (b)
					T_CHECK(t_metric(c, key) == 0, "%s: %s %g", label, key, t_metric(c, key));
			}
		}
	for (size_t b = 0; b < 2; b++) {
		json_t *c = t_cell_backend(fr, "revalidate", "tmpfs", backends[b]);

		T_CHECK(c && !strcmp(json_string_value(json_object_get(c, "status")), "ok"), "free %s: ok", backends[b]);
		if (!c)
			continue;
		for (size_t k = 0; k < 3; k++)
			T_CHECK(!isnan(t_metric(c, classes[k])), "free %s: %s reported", backends[b], classes[k]);
		/* the client announced the write; the server may have served the GETATTR first */
		T_CHECK(json_is_false(json_object_get(json_object_get(c, "metrics"), "announced_implies_ordering")),
			"free %s: announced misses not called ordering misses over NFS", backends[b]);
		T_CHECK(t_metric(c, "polls") > 0, "free %s: polls", backends[b]);
		T_CHECK(json_is_boolean(json_object_get(json_object_get(c, "metrics"), "conclusive")), "free %s: judged",
			backends[b]);
		if (b)
			T_CHECK(!isnan(t_metric(c, "change.misses_granularity")), "free nfs4: change misses reported");
	}
	json_decref(s);
	json_decref(fr);
}

static void ramfs_unsupported(void)
{
	const char *path = t_result_path("ramfs.json");
	const char *const args[] = { "run", "write", "--fs", "ramfs", "--backend", "nfs4", "--rounds", "10", "-o", path,
				     "-q", NULL };
	struct t_output o;
	json_t *doc, *c;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "ramfs: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	c = doc ? t_cell_backend(doc, "write", "ramfs", "nfs4") : NULL;
	T_CHECK(c && !strcmp(json_string_value(json_object_get(c, "status")), "unsupported"), "ramfs: unsupported");
	T_CHECK(c && strstr(json_string_value(json_object_get(c, "error")) ?: "", "file handles"), "ramfs: says why");
	json_decref(doc);
}

/* ext2 (ext4's driver, without FS_MGTIME) exports fine, and stamps from the coarse clock: a
 * round of write+GETATTR takes ~0.1 ms against a 1-10 ms tick, so most rounds share a ctime. */
static void coarse_export(void)
{
	static const char *const args[] = { "write", "--rounds", "300", NULL };
	json_t *doc = run("ext2.json", args, "ext2");
	double floor_moves;

	for (size_t b = 0; b < 2; b++) {
		json_t *c = t_cell_backend(doc, "write", "ext2", backends[b]);
		char label[64];

		snprintf(label, sizeof(label), "write ext2 %s", backends[b]);
		T_CHECK(c && !strcmp(json_string_value(json_object_get(c, "status")), "ok"), "%s: ok", label);
		if (!c)
			continue;
		check_server(c, label, "ext2", b ? 4 : 3);
		/* No more distinct values than ticks and floor moves (other processes' fine stamps) allow. */
		floor_moves = t_check_coarse_bound(doc, c, label, t_metric(c, "ctime.distinct"), 300);
		if (floor_moves < 30)
			T_CHECK(t_metric(c, "ctime.distinct_ratio") < 0.5, "%s: ctime distinct %g, expected coarse",
				label, t_metric(c, "ctime.distinct_ratio"));
		T_CHECK(t_metric(c, "ctime.backwards") == 0, "%s: ctime backwards", label);
		if (b) /* ganesha builds the change attribute from the stamps: no finer than they are */
			t_check_coarse_bound(doc, c, "change attribute on ext2", t_metric(c, "change.distinct"), 300);
	}
	json_decref(doc);
}

/* Start a long write over backend, wait until it runs, and hand back mgbench's and ganesha's pids. */
static pid_t start_long_run(const char *backend, const char *timeout, pid_t *server)
{
	char path[512], err[512];
	pid_t pid;

	/* t_result_path's buffer is reused: copy both names before the fork */
	snprintf(path, sizeof(path), "%s", t_result_path("long.json"));
	snprintf(err, sizeof(err), "%s", t_result_path("long.err"));
	const char *args[] = { "run", "write", "--fs", "tmpfs", "--backend", backend, "--nfs-timeout", timeout,
			       "--rounds", "1000000000", "-o", path, "-q", NULL };

	pid = t_mgbench_start(args, NULL, err);
	T_CHECK(t_wait_workload(pid, "write"), "%s: the run reached the workload", backend);
	usleep(300 * 1000);
	*server = 0;
	count_servers(server);
	T_CHECK(*server > 0, "%s: the embedded server runs", backend);
	return pid;
}

static int wait_exit(pid_t pid, double *took)
{
	double t0 = t_now_s();
	int status;

	waitpid(pid, &status, 0);
	*took = t_now_s() - t0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *read_err(void)
{
	static char buf[2048];
	FILE *f = fopen(t_result_path("long.err"), "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static void server_dies(void)
{
	struct t_host before;

	t_host_snapshot(&before);
	for (size_t b = 0; b < 2; b++) {
		pid_t server, pid = start_long_run(backends[b], "5", &server);
		double took;
		int rc;

		if (server > 0)
			kill(server, SIGKILL);
		rc = wait_exit(pid, &took);
		fprintf(stderr, "%s: killed server: exit %d after %.2f s: %s", backends[b], rc, took, read_err());
		T_CHECK(rc == 1, "%s: killed server: exit %d (want 1)", backends[b], rc);
		T_CHECK(took < 5, "%s: killed server: failed within seconds (%.2f s)", backends[b], took);
		T_CHECK(strstr(read_err(), "NFS server exited"), "%s: the error names the server: %s", backends[b],
			read_err());

		/* A server that stops answering: the call times out (--nfs-timeout 1). */
		pid = start_long_run(backends[b], "1", &server);
		if (server > 0)
			kill(server, SIGSTOP);
		rc = wait_exit(pid, &took);
		fprintf(stderr, "%s: stopped server: exit %d after %.2f s: %s", backends[b], rc, took, read_err());
		T_CHECK(rc == 1, "%s: stopped server: exit %d (want 1)", backends[b], rc);
		T_CHECK(took < 10, "%s: stopped server: failed within seconds (%.2f s)", backends[b], took);
		T_CHECK(strstr(read_err(), "timed out"), "%s: says it timed out: %s", backends[b], read_err());
		check_no_server(backends[b]);
	}
	/* SIGKILL of mgbench: the parent-death signal takes the server along. */
	{
		pid_t server, pid = start_long_run("nfs3", "5", &server);
		double took;

		kill(pid, SIGKILL);
		wait_exit(pid, &took);
		check_no_server("after SIGKILL of mgbench");
	}
	/* SIGINT: an orderly stop, the server stopped with it. */
	{
		pid_t server, pid = start_long_run("nfs4", "5", &server);
		double took;
		int rc;

		kill(pid, SIGINT);
		rc = wait_exit(pid, &took);
		T_CHECK(rc == 130, "SIGINT: exit %d (want 130)", rc);
		check_no_server("after SIGINT");
	}
	t_host_check_clean(&before, "after the server tests");
}

/*
 * SIGINT while a call waits for the server's reply (the server stopped, so that the signal
 * lands in libnfs's poll, as it did once in 16 runs) gives an interrupted cell with the writes
 * so far, not an error: libnfs reported the cut-short poll as an I/O error.
 */
static void sigint_during_call(void)
{
	struct t_host before;

	t_host_snapshot(&before);
	for (size_t b = 0; b < 2; b++) {
		/* --nfs-timeout 8: past the 5.5 s the SIGINT is given below, and all that a SIGINT that
		 * interrupted nothing costs */
		pid_t server, pid = start_long_run(backends[b], "8", &server);
		json_t *doc, *cell;
		double took;
		bool in_wait;
		int rc;

		if (server > 0)
			kill(server, SIGSTOP);
		usleep(500 * 1000); /* the writer now waits in poll for a reply that does not come */
		kill(pid, SIGINT);
		/* The precondition: the writer waits in a poll the signal interrupts.  A signal that lands
		 * where libnfs does not return on EINTR (just before its poll, or in a call it retries)
		 * interrupts nothing, and the call waits out its --nfs-timeout (seen at 30: 26.8 and 29.8 s). */
		{
			double t0 = t_now_s();

			while (!t_child_exited(pid) && t_now_s() - t0 < 5)
				usleep(50 * 1000);
			in_wait = t_child_exited(pid);
		}
		rc = wait_exit(pid, &took);
		if (server > 0)
			kill(server, SIGCONT);
		T_CHECK(rc == 130, "%s: SIGINT during a call: exit %d (want 130): %s", backends[b], rc, read_err());
		doc = t_load(t_result_path("long.json"));
		cell = json_array_get(json_object_get(doc, "cells"), 0);
		T_CHECK(cell && !strcmp(t_str(cell, "status"), "interrupted"), "%s: the cell is interrupted, not '%s' (%s)",
			backends[b], t_str(cell, "status"), t_str(cell, "error"));
		if (in_wait)
			T_CHECK(t_metric(cell, "writes") > 0, "%s: with the writes so far (%g)", backends[b],
				t_metric(cell, "writes"));
		else
			T_NOT_JUDGED("%s: the SIGINT did not land in an interruptible wait (the run took %.1f s, its "
				     "--nfs-timeout): the writes so far are not judged", backends[b], took);
		json_decref(doc);
		check_no_server(backends[b]);
	}
	t_host_check_clean(&before, "after SIGINT during a call");
}

static unsigned dead_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	unsigned port = 0;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd); /* bound, never listening, now closed: nothing answers there */
	return port;
}

/* The NFS port of a running embedded server, from its config in that run's private namespace
 * (/proc/PID/root resolves paths in the server's own mounts); *export gets the exported dir. */
static unsigned server_port(pid_t server, char *export, size_t len)
{
	char path[700], line[1024], conf[512] = "";
	unsigned port = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)server);
	if ((f = fopen(path, "re"))) {
		size_t n = fread(line, 1, sizeof(line) - 1, f);

		line[n] = '\0';
		for (size_t i = 0; i < n; i++)
			if (!strcmp(line + i, "-f") && i + 3 < n) {
				snprintf(conf, sizeof(conf), "%s", line + i + 3);
				break;
			}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)server, conf);
	if (!conf[0] || !(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, " NFS_Port = %u;", &port);
		if (sscanf(line, " Path = \"%511[^\"]\";", conf) == 1) /* no quote or backslash in ours */
			snprintf(export, len, "/proc/%d/root%s", (int)server, conf);
	}
	fclose(f);
	return port;
}

static unsigned count_mgbench_dirs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, "mgbench.", 8);
	if (d)
		closedir(d);
	return n;
}

/* --nfs-url to a server someone else runs (here: another mgbench's embedded one). */
static void url_to_server(void)
{
	const char *path = t_result_path("url-ok.json");
	char url[128], export[700] = "", rounds[] = "200";
	const char *args[] = { "run", "write", "--backend", "nfs4", "--nfs-url", url, "--rounds", rounds, "-o", path, "-q",
			       NULL };
	pid_t server = 0, pid = start_long_run("nfs4", "5", &server);
	unsigned port = server > 0 ? server_port(server, export, sizeof(export)) : 0;
	struct t_output o;
	json_t *doc, *c;
	double took;

	T_CHECK(port > 0 && export[0], "the other run's server port and export (%u, %s)", port, export);
	snprintf(url, sizeof(url), "nfs://127.0.0.1/export?nfsport=%u", port);
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "--nfs-url %s: exit %d: %s", url, o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	c = doc ? t_cell_backend(doc, "write", "url", "nfs4") : NULL;
	T_CHECK(c && !strcmp(json_string_value(json_object_get(c, "status")), "ok"), "--nfs-url: ok");
	if (c) {
		T_CHECK(!strcmp(t_str(c, "server.kind"), "url") && !strcmp(t_str(c, "server.url"), url),
			"--nfs-url: server.kind url, with the URL");
		T_CHECK(t_metric(c, "ctime.distinct") == 200 && t_metric(c, "change.distinct") == 200,
			"--nfs-url: distinct ctime and change on every round");
	}
	T_CHECK(count_mgbench_dirs(export) == 0, "--nfs-url: its directory on the server was removed (%u left)",
		count_mgbench_dirs(export));
	json_decref(doc);
	kill(pid, SIGINT);
	wait_exit(pid, &took);
	check_no_server("after the --nfs-url server's run");
}

static void url_to_nothing(void)
{
	const char *path = t_result_path("url.json");
	char url[128];
	const char *args[] = { "run", "write", "--backend", "nfs4", "--nfs-url", url, "--rounds", "10", "-o", path, "-q",
			       NULL };
	const char *bad[] = { "run", "write", "--backend", "sync,nfs4", "--nfs-url", url, NULL };
	struct t_output o;
	struct t_host before;
	double t0 = t_now_s();

	snprintf(url, sizeof(url), "nfs://127.0.0.1/export?version=4&nfsport=%u", dead_port());
	t_host_snapshot(&before);
	t_mgbench(&o, args);
	T_CHECK(o.status == 1, "--nfs-url to nothing: exit %d (want 1)", o.status);
	T_CHECK(strstr(o.err, "mount nfs://127.0.0.1") && strchr(o.err, '\n') == strrchr(o.err, '\n'),
		"one clear line: %s", o.err);
	T_CHECK(t_now_s() - t0 < 10, "--nfs-url to nothing: quick (%.2f s)", t_now_s() - t0);
	fprintf(stderr, "--nfs-url %s: %s", url, o.err);
	t_output_free(&o);
	check_no_server("--nfs-url");
	t_host_check_clean(&before, "--nfs-url");

	t_mgbench(&o, bad);
	T_CHECK(o.status == 2 && strstr(o.err, "NFS backends only"), "--nfs-url with sync: exit %d: %s", o.status, o.err);
	t_output_free(&o);
}

int main(void)
{
	static const char *const programs[] = { "/usr/bin/ganesha.nfsd", NULL };

	t_require(&(struct t_needs){ .root = true, .libnfs = true, .programs = programs, .slow = true });
	T_RUN(write_and_rename());
	T_RUN(revalidate());
	T_RUN(ramfs_unsupported());
	T_RUN(coarse_export());
	T_RUN(server_dies());
	T_RUN(sigint_during_call());
	T_RUN(url_to_nothing());
	T_RUN(url_to_server());
	T_RUN(check_no_server("at the end"));
	return t_result();
}
