/*
 * mgbench kernel build: a guest kernel from a source and a patch series.  The steps, in the
 * order that lets bad input fail before anything slow: tools, the user's fragment, the patches
 * (hashed), the source (a Debian package fetched into the cache once), the cache key; then a
 * private hard-link copy, the patches applied, tinyconfig + fragments + olddefconfig checked,
 * make bzImage.  The result (bzImage, vmlinux, .config, build.log, manifest.json) is kept in
 * the cache under the key, so the same request again returns at once.
 */
#include "config.h"
#include "kbuild.h"
#include "target.h"
#include "util.h"
#include "vm.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sendfile.h>
#include <time.h>
#include <unistd.h>

static const char *const outputs[] = { "bzImage", "vmlinux", ".config", "build.log", "manifest.json" };

/* The tools a kernel build needs, each with the Debian package that has it. */
static int check_tools(bool debian, char *err)
{
	static const struct { const char *name, *pkg; bool header; } tools[] = {
		{ "make", "make", false },   { "gcc", "gcc", false },     { "bc", "bc", false },
		{ "bison", "bison", false }, { "flex", "flex", false },   { "patch", "patch", false },
		{ "perl", "perl", false },   { "xz", "xz-utils", false }, { "tar", "tar", false },
		{ "/usr/include/gelf.h", "libelf-dev", true },
		{ "/usr/include/openssl/ssl.h", "libssl-dev", true },
	};
	char names[200] = "", pkgs[200] = "";
	const char *path = getenv("PATH");

	for (size_t i = 0; i < MGB_ARRAY_SIZE(tools); i++) {
		bool found = false;

		if (tools[i].header)
			found = access(tools[i].name, R_OK) == 0;
		else {
			char *dup = strdup(path ? path : "/usr/bin:/bin"), *save = NULL;

			for (char *d = dup ? strtok_r(dup, ":", &save) : NULL; d && !found;
			     d = strtok_r(NULL, ":", &save)) {
				char p[PATH_MAX];

				snprintf(p, sizeof(p), "%s/%s", d, tools[i].name);
				found = access(p, X_OK) == 0;
			}
			free(dup);
		}
		if (!found) {
			const char *base = strrchr(tools[i].name, '/');

			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", *names ? ", " : "",
				 base ? base + 1 : tools[i].name);
			snprintf(pkgs + strlen(pkgs), sizeof(pkgs) - strlen(pkgs), " %s", tools[i].pkg);
		}
	}
	(void)debian;
	if (*names)
		return mgb_err(err, "missing build tools: %s (install them: apt-get install%s)", names, pkgs);
	return 0;
}

static char *read_text(const char *path, char *err)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t cap = 0;

	if (!f) {
		mgb_err(err, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (getdelim(&s, &cap, '\0', f) < 0) {
		free(s);
		s = strdup("");
	}
	fclose(f);
	return s;
}

static int copy_file(const char *from, const char *to, char *err)
{
	char tmp[PATH_MAX + 8];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	struct stat st;

	snprintf(tmp, sizeof(tmp), "%s.tmp", to);
	if (in < 0 || fstat(in, &st) ||
	    (out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		mgb_err(err, "cannot copy %s to %s: %s", from, to, strerror(errno));
		goto out;
	}
	for (off_t done = 0; done < st.st_size;) {
		ssize_t n = sendfile(out, in, NULL, (size_t)(st.st_size - done));

		if (n <= 0) {
			mgb_err(err, "cannot copy %s to %s: %s", from, to, n ? strerror(errno) : "short file");
			goto out;
		}
		done += n;
	}
	if (close(out)) {
		out = -1;
		mgb_err(err, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	out = -1;
	if (rename(tmp, to)) {
		mgb_err(err, "cannot rename %s: %s", tmp, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (rc)
		unlink(tmp);
	return rc;
}

/* Copy the build in dir to the user's -o directory: made if missing; an existing one must be
 * empty or an earlier build directory (it is overwritten file by file). */
static int export_to(const char *dir, const char *output, char *err)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct stat st;

	if (!stat(output, &st)) {
		if (!S_ISDIR(st.st_mode))
			return mgb_err(err, "-o %s exists and is not a directory", output);
		snprintf(to, sizeof(to), "%s/manifest.json", output);
		if (access(to, F_OK) && rmdir(output) && errno == ENOTEMPTY)
			return mgb_err(err, "-o %s is not empty and not a kernel build directory", output);
	}
	if (mgb_mkdirs(output, err))
		return -1;
	for (size_t i = 0; i < MGB_ARRAY_SIZE(outputs); i++) {
		snprintf(from, sizeof(from), "%s/%s", dir, outputs[i]);
		snprintf(to, sizeof(to), "%s/%s", output, outputs[i]);
		if (copy_file(from, to, err))
			return -1;
	}
	return 0;
}

/* The log's last lines on stderr. */
static void show_tail(const char *log, int lines)
{
	char *text = read_text(log, (char[MGB_ERR_LEN]){ 0 });
	size_t n;
	const char *p;

	if (!text)
		return;
	n = strlen(text);
	p = text + n;
	while (p > text && lines >= 0)
		if (*--p == '\n')
			lines--;
	fprintf(stderr, "---- last lines of the build log ----\n%s%s", p == text ? "" : p + 1,
		n && text[n - 1] == '\n' ? "" : "\n");
	free(text);
}

static char *first_line_of(const char *const argv[])
{
	char *out = NULL, e[MGB_ERR_LEN];

	if (mgb_capture(argv, NULL, &out, e) || !out) {
		free(out);
		return NULL;
	}
	out[strcspn(out, "\n")] = '\0';
	return out;
}

static int write_manifest(const char *path, json_t *m, char *err)
{
	char tmp[PATH_MAX + 8];

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (json_dump_file(m, tmp, JSON_INDENT(2) | JSON_SORT_KEYS) || rename(tmp, path)) {
		unlink(tmp);
		return mgb_err(err, "cannot write %s: %s", path, strerror(errno));
	}
	return 0;
}

struct job {
	struct mgb_kbuild *b;
	struct mgb_kb_source src;
	struct mgb_kb_patch *patches;
	size_t npatches;
	char *user_frag, *cache, *key_dir, *work;
	char key[65], frag_sha[65];
	bool progress;
};

static void stage(const struct job *j, const char *fmt, const char *arg)
{
	if (!j->progress)
		return;
	fprintf(stderr, "mgbench kernel: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* Build into j->work, then move the outputs to j->key_dir.  The log is kept on failure. */
static int build(struct job *j, char *err)
{
	struct mgb_kbuild *b = j->b;
	char src[PATH_MAX / 2], obj[PATH_MAX / 2], log[PATH_MAX / 2], p[PATH_MAX], tmpdir[PATH_MAX], jobs[32], ostr[PATH_MAX + 2];
	int64_t start = mgb_clock_ns(CLOCK_MONOTONIC);
	int logfd = -1, rc = -1, st;
	FILE *logf = NULL;
	json_t *m = NULL, *pl;
	char *release = NULL, config_sha[65];

	tmpdir[0] = '\0';
	if (strlen(j->work) > PATH_MAX / 2 - 64)
		return mgb_err(err, "the cache's path is too long: %s", j->work);

	snprintf(src, sizeof(src), "%s/src", j->work);
	snprintf(obj, sizeof(obj), "%s/obj", j->work);
	snprintf(log, sizeof(log), "%s/build.log", j->work);
	snprintf(jobs, sizeof(jobs), "-j%u", b->jobs);
	snprintf(ostr, sizeof(ostr), "O=%s", obj);
	mgb_remove_tree(j->work); /* what an interrupted build left */
	if (mgb_mkdirs(obj, err))
		return -1;
	if ((logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0 ||
	    !(logf = fdopen(dup(logfd), "a")))
		return mgb_err(err, "cannot write %s: %s", log, strerror(errno));
	stage(j, "copying %s", j->src.tree);
	if (mgb_kb_copy_tree(j->src.tree, src, err))
		goto out;
	for (size_t i = 0; i < j->npatches; i++) {
		stage(j, "applying %s", j->patches[i].name);
		if (mgb_kb_patch_apply(src, &j->patches[i], logf, err))
			goto out;
	}
	fflush(logf);
	const char *mk[] = { "make", "-C", src, ostr, "ARCH=x86_64", "LOCALVERSION=", "KBUILD_BUILD_USER=mgbench",
			     "KBUILD_BUILD_HOST=mgbench", jobs, NULL, NULL };
	stage(j, "configuring (tinyconfig + %s)", b->config ? "mgbench's fragment + yours" : "mgbench's fragment");
	mk[9] = "tinyconfig";
	if ((st = mgb_kb_run_logged(mk, NULL, logfd, false, "", err))) {
		if (st > 0)
			mgb_err(err, "make tinyconfig failed (exit %d): see %s", st, log);
		goto out;
	}
	snprintf(p, sizeof(p), "%s/.config", obj);
	{
		FILE *c = fopen(p, "a");

		if (!c || fprintf(c, "\n%s\n%s\n", mgb_kbuild_fragment, j->user_frag ? j->user_frag : "") < 0 ||
		    fclose(c)) {
			mgb_err(err, "cannot append to %s", p);
			goto out;
		}
	}
	mk[9] = "olddefconfig";
	if ((st = mgb_kb_run_logged(mk, NULL, logfd, false, "", err))) {
		if (st > 0)
			mgb_err(err, "make olddefconfig failed (exit %d): see %s", st, log);
		goto out;
	}
	if (mgb_kb_config_verify(p, mgb_kbuild_fragment, "mgbench's kernel.config", j->user_frag, err) ||
	    (j->user_frag && mgb_kb_config_verify(p, j->user_frag, b->config, NULL, err)))
		goto out;
	stage(j, "compiling (make %s bzImage)", jobs);
	mk[9] = "bzImage";
	if ((st = mgb_kb_run_logged(mk, NULL, logfd, j->progress, "mgbench kernel: compiling", err))) {
		if (st < 0)
			goto out;
		snprintf(p, sizeof(p), "%s.failed.log", j->key_dir);
		if (rename(log, p))
			snprintf(p, sizeof(p), "%s", log);
		else if (b->output && !mgb_mkdirs(b->output, err)) {
			char to[PATH_MAX];

			snprintf(to, sizeof(to), "%s/build.log", b->output);
			if (!copy_file(p, to, err))
				snprintf(p, sizeof(p), "%s", to);
		}
		if (!b->quiet)
			show_tail(p, 25);
		mgb_err(err, "the kernel did not compile (make exit %d); full log: %s", st, p);
		goto out;
	}
	b->build_s = (double)(mgb_clock_ns(CLOCK_MONOTONIC) - start) / 1e9;
	snprintf(p, sizeof(p), "%s/include/config/kernel.release", obj);
	if (!(release = read_text(p, err)))
		goto out;
	release[strcspn(release, "\n")] = '\0';

	/* the outputs, gathered beside the work tree and renamed into place at once */
	snprintf(tmpdir, sizeof(tmpdir), "%s.new", j->key_dir);
	mgb_remove_tree(tmpdir);
	if (mgb_mkdirs(tmpdir, err))
		goto out;
	static const char *const from[] = { "arch/x86/boot/bzImage", "vmlinux", ".config" };
	for (size_t i = 0; i < MGB_ARRAY_SIZE(from); i++) {
		char f[PATH_MAX], t[PATH_MAX];

		snprintf(f, sizeof(f), "%s/%s", obj, from[i]);
		snprintf(t, sizeof(t), "%s/%s", tmpdir, outputs[i]);
		if (rename(f, t)) {
			mgb_err(err, "the build made no %s: %s", f, strerror(errno));
			goto out;
		}
	}
	snprintf(p, sizeof(p), "%s/.config", tmpdir);
	if (mgb_sha256_file(p, config_sha, err))
		goto out;
	const char *gccv[] = { "gcc", "--version", NULL };
	char *compiler = first_line_of(gccv), when[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	pl = json_array();
	for (size_t i = 0; i < j->npatches; i++)
		json_array_append_new(pl, json_pack("{s:s, s:s}", "name", j->patches[i].name, "sha256",
						    j->patches[i].sha256));
	m = json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:s?, s:s?, s:s?, s:s, s:f, s:i, s:s, s:s}",
		      "source", j->src.label, "version", j->src.version, "release", release, "patches", pl,
		      "config_sha256", config_sha, "fragment_sha256", j->frag_sha, "config_fragment", b->config,
		      "source_package", j->src.package, "source_package_version", j->src.pkg_version,
		      "built", when, "build_s", b->build_s, "jobs", (int)b->jobs, "compiler",
		      compiler ? compiler : "?", "mgbench_version", PACKAGE_VERSION);
	free(compiler);
	if (!m) {
		mgb_err(err, "cannot make the manifest");
		goto out;
	}
	snprintf(p, sizeof(p), "%s/manifest.json", tmpdir);
	if (write_manifest(p, m, err))
		goto out;
	close(logfd);
	logfd = -1;
	fclose(logf);
	logf = NULL;
	snprintf(p, sizeof(p), "%s/build.log", tmpdir);
	if (rename(log, p) || rename(tmpdir, j->key_dir)) {
		mgb_err(err, "cannot move the build into %s: %s", j->key_dir, strerror(errno));
		goto out;
	}
	b->release = release;
	release = NULL;
	rc = 0;
out:
	if (logfd >= 0)
		close(logfd);
	if (logf)
		fclose(logf);
	json_decref(m);
	free(release);
	if (rc && tmpdir[0])
		mgb_remove_tree(tmpdir);
	mgb_remove_tree(j->work);
	return rc;
}

static int from_cache(struct mgb_kbuild *b, const char *dir, char *err)
{
	char p[PATH_MAX];
	json_error_t je;
	json_t *m;

	snprintf(p, sizeof(p), "%s/manifest.json", dir);
	if (!(m = json_load_file(p, 0, &je)))
		return mgb_err(err, "%s: %s", p, je.text);
	b->release = strdup(json_string_value(json_object_get(m, "release")) ?: "?");
	b->build_s = json_real_value(json_object_get(m, "build_s"));
	b->cached = true;
	json_decref(m);
	return 0;
}

int mgb_kbuild_run(struct mgb_kbuild *b, char *err)
{
	struct job j = { .b = b };
	char keytext[8192], p[PATH_MAX], *keyname = NULL;
	int rc = -1, lockfd = -1;
	size_t kl;

	j.progress = !b->quiet && isatty(2);
	if (b->jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		b->jobs = n > 0 ? (unsigned)n : 1;
	}
	if (check_tools(!strncmp(b->source, "debian:", 7), err))
		return -1;
	if (b->config) {
		if (!(j.user_frag = read_text(b->config, err)))
			return -1;
		if (mgb_kb_config_parse(j.user_frag, b->config, err))
			goto out;
	}
	if (mgb_kb_patches(b->patches, &j.patches, &j.npatches, err))
		goto out;
	if (!(j.cache = mgb_cache_dir(err)) ||
	    mgb_kb_source_get(b->source, j.cache, b->quiet, &j.src, err))
		goto out;

	/* the key: what the source is, the fragments, the patches in order */
	snprintf(keytext, sizeof(keytext), "mgbench kernel build 1\narch x86_64\nsource %s\n", j.src.id);
	kl = strlen(keytext);
	mgb_sha256_buf(mgb_kbuild_fragment, strlen(mgb_kbuild_fragment), j.frag_sha);
	kl += (size_t)snprintf(keytext + kl, sizeof(keytext) - kl, "fragment %s\n", j.frag_sha);
	if (j.user_frag) {
		char h[65];

		mgb_sha256_buf(j.user_frag, strlen(j.user_frag), h);
		kl += (size_t)snprintf(keytext + kl, sizeof(keytext) - kl, "user-fragment %s\n", h);
	}
	for (size_t i = 0; i < j.npatches && kl < sizeof(keytext); i++)
		kl += (size_t)snprintf(keytext + kl, sizeof(keytext) - kl, "patch %s %s\n", j.patches[i].sha256,
				       j.patches[i].name);
	if (kl >= sizeof(keytext)) {
		mgb_err(err, "too many patches");
		goto out;
	}
	mgb_sha256_buf(keytext, kl, j.key);
	if (asprintf(&keyname, "%s/kbuild/%s-%.16s", j.cache, j.src.version, j.key) < 0 ||
	    asprintf(&j.key_dir, "%s", keyname) < 0 || asprintf(&j.work, "%s.work", keyname) < 0) {
		mgb_err(err, "out of memory");
		goto out;
	}
	snprintf(p, sizeof(p), "%s/kbuild", j.cache);
	if (mgb_mkdirs(p, err))
		goto out;
	/* one build per key at a time; a second asker waits and then finds it cached */
	snprintf(p, sizeof(p), "%s.lock", keyname);
	if ((lockfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0 || flock(lockfd, LOCK_EX)) {
		mgb_err(err, "cannot lock %s: %s", p, strerror(errno));
		goto out;
	}
	snprintf(p, sizeof(p), "%s/manifest.json", j.key_dir);
	if (!access(p, R_OK)) {
		if (from_cache(b, j.key_dir, err))
			goto out;
	} else {
		if (!b->quiet && !j.progress)
			fprintf(stderr, "mgbench kernel: building %s (%s%s) with -j%u\n", j.src.label, j.src.version,
				j.npatches ? " + patches" : "", b->jobs);
		if (build(&j, err))
			goto out;
	}
	if (b->output) {
		if (export_to(j.key_dir, b->output, err))
			goto out;
		b->dir = realpath(b->output, NULL);
	} else
		b->dir = strdup(j.key_dir);
	rc = b->dir ? 0 : mgb_err(err, "out of memory");
out:
	if (lockfd >= 0)
		close(lockfd);
	mgb_kb_source_free(&j.src);
	mgb_kb_patches_free(j.patches, j.npatches);
	free(j.user_frag);
	free(j.cache);
	free(j.key_dir);
	free(j.work);
	free(keyname);
	return rc;
}

void mgb_kbuild_free(struct mgb_kbuild *b)
{
	free(b->dir);
	free(b->release);
	b->dir = b->release = NULL;
}
