/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "json_text.h"
#include "result.h"
#include "util.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

json_t *mgb_kernel_json(const struct mgb_clockinfo *ci)
{
	struct utsname u;
	struct mgb_mg_counters c;
	json_t *tps = json_object();
	static const char *const events[] = { "fill_mg_cmtime", "ctime_ns_xchg", "ctime_xchg_skip",
					      "inode_set_ctime_to_ts" };

	uname(&u);
	mgb_mg_counters_read(&c);
	for (size_t i = 0; i < MGB_ARRAY_SIZE(events); i++)
		json_object_set_new(tps, events[i], json_boolean(mgb_tracepoint_exists("timestamp", events[i])));
	return MGB_JSON_PACK("{s:o, s:o, s:s, s:o, s:o, s:b, s:o}",
			 "release", mgb_json_text(u.release), "version", mgb_json_text(u.version), "machine", u.machine,
			 "clocks", mgb_clock_to_json(ci), "config", mgb_kconfig_json(),
			 "multigrain_debugfs", c.valid,
			 "timestamp_tracepoints", tps);
}

/* The CPU's model name (/proc/cpuinfo), part of a document's machine identity: a host name such
 * as "vm" names nothing in many clouds.  null where the kernel does not say. */
static json_t *cpu_model(void)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");
	json_t *model = NULL;

	while (f && !model && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		model = mgb_json_text(colon);
	}
	if (f)
		fclose(f);
	return model ? model : json_null();
}

json_t *mgb_result_new(int argc, char **argv, const struct mgb_clockinfo *ci)
{
	char host[256] = "", when[64];
	time_t now = time(NULL);
	json_t *cmd = json_array();

	gethostname(host, sizeof(host) - 1);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	/* The hostname and arguments are anybody's bytes: encoded, never dropped. */
	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, mgb_json_text(argv[i]));
	return MGB_JSON_PACK("{s:s, s:{s:s, s:s}, s:s, s:{s:o, s:I, s:o}, s:o, s:o, s:b, s:[]}",
			 "schema", MGB_SCHEMA,
			 "tool", "name", PACKAGE_NAME, "version", PACKAGE_VERSION,
			 "created", when,
			 "host", "name", mgb_json_text(host), "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
			 "cpu_model", cpu_model(),
			 "kernel", mgb_kernel_json(ci),
			 "command", cmd,
			 "interrupted", 0,
			 "cells");
}

/*
 * The result file is reserved before the run: an unnamed O_TMPFILE inode in the destination's
 * directory (a killed run leaves nothing), named at commit by linking it to a temporary name and
 * renaming that over the destination, so a reader sees the old file or the whole new one.  The
 * directory is held open, so the commit works whatever the run mounted meanwhile.
 * Where O_TMPFILE is not supported, a named temporary file is used instead.
 */
/* The destination may exist only as a regular file: a device node, FIFO or directory there is
 * refused before any work (as root, -o /dev/null would otherwise be replaced by a JSON file). */
static int refuse_non_regular(const struct mgb_output *out, char *err)
{
	struct stat st;

	if (fstatat(out->dirfd, out->base, &st, 0) < 0)
		return errno == ENOENT ? 0 : mgb_err(err, "result file %.200s: %s", out->path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return mgb_err(err, "result file %.200s exists and is not a regular file: refusing to replace it",
			       out->path);
	return 0;
}

int mgb_output_open(struct mgb_output *out, const char *path, char *err)
{
	char *slash, *dir;

	memset(out, 0, sizeof(*out));
	out->fd = out->dirfd = -1;
	out->path = strdup(path);
	slash = strrchr(out->path, '/');
	dir = slash ? strndup(out->path, (size_t)(slash - out->path) + (slash == out->path)) : strdup(".");
	out->base = strdup(slash ? slash + 1 : out->path);
	if (!out->path || !dir || !out->base || !*out->base || !strcmp(out->base, ".") || !strcmp(out->base, "..")) {
		free(dir);
		mgb_output_abort(out);
		return mgb_err(err, "result file '%.200s': not a file name", path);
	}
	/* Room for the temporary name made beside it at commit (base.tmp.PID.N). */
	if (strlen(out->base) > NAME_MAX - 24) {
		free(dir);
		mgb_output_abort(out);
		return mgb_err(err, "result file name too long (%zu bytes; at most %d)", strlen(path), NAME_MAX - 24);
	}
	out->dirfd = open(dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (out->dirfd >= 0 && refuse_non_regular(out, err) < 0) {
		free(dir);
		mgb_output_abort(out);
		return -1;
	}
	if (out->dirfd >= 0)
		out->fd = openat(out->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (out->dirfd >= 0 && out->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
		int tfd;

		if (asprintf(&out->tmp, "%s.tmp.XXXXXX", out->path) >= 0 && (tfd = mkstemp(out->tmp)) >= 0) {
			out->fd = tfd;
			fchmod(out->fd, 0644);
		}
	}
	free(dir);
	if (out->fd < 0) {
		mgb_err(err, "cannot write result file %.200s: %s", path, strerror(errno));
		free(out->tmp);
		out->tmp = NULL;
		mgb_output_abort(out);
		return -1;
	}
	/* Reserve room now, so a full filesystem fails before the run rather than after it. */
	if (posix_fallocate(out->fd, 0, MGB_OUTPUT_RESERVE) == ENOSPC) {
		mgb_err(err, "result file %.200s: no space left for the document", path);
		mgb_output_abort(out);
		return -1;
	}
	return 0;
}

void mgb_output_abort(struct mgb_output *out)
{
	if (out->fd >= 0)
		close(out->fd);
	if (out->dirfd >= 0)
		close(out->dirfd);
	if (out->tmp)
		unlink(out->tmp);
	free(out->tmp);
	free(out->path);
	free(out->base);
	memset(out, 0, sizeof(*out));
	out->fd = out->dirfd = -1;
}

/* Give the O_TMPFILE inode a temporary name beside the destination. */
static int name_tmpfile(struct mgb_output *out)
{
	char proc[64], name[4096];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", out->fd);
	for (int attempt = 0; attempt < 100; attempt++) {
		snprintf(name, sizeof(name), "%s.tmp.%d.%d", out->base, (int)getpid(), attempt);
		if (linkat(AT_FDCWD, proc, out->dirfd, name, AT_SYMLINK_FOLLOW) == 0) {
			out->tmp = strdup(name);
			return 0;
		}
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* Give the file its name; with no_replace, never over an existing one (link fails on EEXIST). */
static int name_final(struct mgb_output *out, bool named)
{
	int from = named ? AT_FDCWD : out->dirfd;

	if (!out->no_replace)
		return renameat(from, out->tmp, out->dirfd, out->base);
	if (linkat(from, out->tmp, out->dirfd, out->base, 0) < 0)
		return -1;
	unlinkat(from, out->tmp, 0);
	return 0;
}

char *mgb_output_unused_name(const char *stem)
{
	char *name = NULL;

	for (unsigned n = 1; n < 1000; n++) {
		free(name);
		if ((n == 1 ? asprintf(&name, "%s.json", stem) : asprintf(&name, "%s-%u.json", stem, n)) < 0)
			return NULL;
		if (faccessat(AT_FDCWD, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			return name;
	}
	return name; /* the commit refuses it, and the document is rescued */
}

/* The written file (its end at the current offset) is cut there, synced and named. */
static int commit_written(struct mgb_output *out, char *err)
{
	bool named = out->tmp != NULL; /* the mkstemp fallback has a name (a path) already */
	off_t end;

	if ((end = lseek(out->fd, 0, SEEK_CUR)) < 0 || ftruncate(out->fd, end) < 0 ||
	    fsync(out->fd) < 0 || (!named && name_tmpfile(out) < 0) || name_final(out, named) < 0) {
		mgb_err(err, "writing %s: %s", out->path, strerror(errno));
		if (out->tmp && !named) {
			unlinkat(out->dirfd, out->tmp, 0);
			free(out->tmp);
			out->tmp = NULL;
		}
		mgb_output_abort(out);
		return -1;
	}
	free(out->tmp);
	out->tmp = NULL;
	mgb_output_abort(out);
	return 0;
}

/* json_dump_callback's sink: keeps the write's errno, which jansson's own clean-up may change
 * (ENOSPC used to read "Invalid argument"). */
struct fd_sink {
	int fd, error;
};

static int write_to_fd(const char *buf, size_t size, void *data)
{
	struct fd_sink *sink = data;

	while (size) {
		ssize_t n = write(sink->fd, buf, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sink->error = n < 0 ? errno : ENOSPC;
			return -1;
		}
		buf += n;
		size -= (size_t)n;
	}
	return 0;
}

int mgb_output_commit(struct mgb_output *out, json_t *doc, char *err)
{
	struct fd_sink sink = { out->fd, 0 };

	/* The document overwrites the reserved room from the start; what is left is cut off. */
	if (json_dump_callback(doc, write_to_fd, &sink, JSON_INDENT(2) | JSON_SORT_KEYS) < 0 ||
	    write_to_fd("\n", 1, &sink) < 0) {
		mgb_err(err, "writing %s: %s", out->path, strerror(sink.error ? sink.error : errno));
		mgb_output_abort(out);
		return -1;
	}
	return commit_written(out, err);
}

int mgb_output_commit_bytes(struct mgb_output *out, const void *buf, size_t len, char *err)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = write(out->fd, (const char *)buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			mgb_err(err, "writing %s: %s", out->path, n < 0 ? strerror(errno) : "short write");
			mgb_output_abort(out);
			return -1;
		}
		off += (size_t)n;
	}
	return commit_written(out, err);
}

int mgb_output_rescue(json_t *doc, char *where, size_t len)
{
	char cwd[PATH_MAX], err[MGB_ERR_LEN];
	const char *dirs[] = { getcwd(cwd, sizeof(cwd)), getenv("HOME") };

	for (size_t i = 0; i < MGB_ARRAY_SIZE(dirs); i++) {
		struct mgb_output out;

		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(where, len, "%s/mgbench-unsaved-%d.json", dirs[i], (int)getpid());
		if (mgb_output_open(&out, where, err) == 0 && mgb_output_commit(&out, doc, err) == 0)
			return 0;
	}
	return -1;
}

json_t *mgb_metric_path(const struct mgb_workload *w, json_t *metrics, const char *path)
{
	json_t *v = mgb_json_path(metrics, path);

	for (const char *const *r = w ? w->renamed : NULL; !v && r && r[0]; r += 2)
		if (!strcmp(r[0], path))
			v = mgb_json_path(metrics, r[1]);
	return v;
}

json_t *mgb_json_path(json_t *obj, const char *path)
{
	char key[128];

	while (obj && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		obj = json_object_get(obj, key);
		path += n + (path[n] == '.');
	}
	return obj;
}
