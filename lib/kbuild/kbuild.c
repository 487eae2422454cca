/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mgbench kernel build: a guest kernel from a source and a patch series.  The steps, in the
 * order that lets bad input fail before anything slow: tools, the user's fragment, the patches
 * (hashed), the source (a Debian package fetched into the cache once), the cache key; then a
 * private hard-link copy, the patches applied, tinyconfig + fragments + olddefconfig checked,
 * make bzImage.  The result (bzImage, vmlinux, .config, build.log, manifest.json) is kept in
 * the cache under the key, so the same request again returns at once.
 */
#include "config.h"
#include "kbuild_internal.h"
#include "stop.h"
#include "proc.h"
#include "util.h"

#include <dirent.h>
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

/* --config-only's private work directories in kbuild/: this, then random hex digits. */
#define CONFIG_ONLY_PREFIX "config-only."

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
	char names[200] = "", pkgs[200] = "", p[PATH_MAX];

	for (size_t i = 0; i < MGB_ARRAY_SIZE(tools); i++) {
		bool found = tools[i].header ? access(tools[i].name, R_OK) == 0
					     : mgb_find_program(tools[i].name, NULL, p, sizeof(p)) == 0;

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


/* An earlier `kernel build -o` directory: nothing but our outputs, and our manifest. */
static bool is_build_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool ok = d != NULL;
	char p[PATH_MAX];
	json_t *m;

	while (ok && (e = readdir(d))) {
		bool known = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");

		for (size_t i = 0; i < MGB_ARRAY_SIZE(outputs) && !known; i++)
			known = !strcmp(e->d_name, outputs[i]);
		ok = known;
	}
	if (d)
		closedir(d);
	snprintf(p, sizeof(p), "%s/manifest.json", dir);
	if (!ok || !(m = json_load_file(p, 0, NULL)))
		return false;
	ok = json_is_string(json_object_get(m, "mgbench_version")) &&
	     json_is_string(json_object_get(m, "release")) && json_is_string(json_object_get(m, "config_sha256"));
	json_decref(m);
	return ok;
}

static bool is_empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = d != NULL;

	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return empty;
}

/*
 * The -o directory, made or opened before anything is built and held open until the end: the
 * directories above it are checked on the way down (mgb_open_trusted_dir; missing ones are made,
 * as root's, now rather than minutes later), and an existing one must be ours to replace (nobody
 * else can write it, and it is empty or an earlier build directory).  Whatever happens to the
 * path during the build, the export goes into the directory held here, or nowhere.
 */
struct output {
	int parentfd, fd;  /* -1 when closed */
	char *name;        /* its name in parentfd */
	char self[64];     /* /proc/self/fd/N: the held directory, for helpers that take a path */
	struct stat st;    /* what fd is */
	bool made;         /* made by this build: removed again if the build fails while it is empty */
};

static void output_close(struct output *o, bool failed)
{
	if (o->fd >= 0 && failed && o->made && is_empty_dir(o->self))
		mgb_rmdir_if_same(o->parentfd, o->name, &o->st);
	if (o->fd >= 0)
		close(o->fd);
	if (o->parentfd >= 0)
		close(o->parentfd);
	free(o->name);
	o->fd = o->parentfd = -1;
	o->name = NULL;
}

static int output_open(const char *output, struct output *o, char *err)
{
	char *copy = strdup(output), *slash, *base;
	struct stat st;

	o->fd = o->parentfd = -1;
	o->made = false;
	if (!copy)
		return mgb_err(err, "out of memory");
	while ((slash = strrchr(copy, '/')) && slash != copy && !slash[1])
		*slash = '\0'; /* "kout/" */
	slash = strrchr(copy, '/');
	base = slash ? slash + 1 : copy;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		free(copy);
		return mgb_err(err, "-o %s: name a directory by its own name", output);
	}
	if (slash)
		*slash = '\0';
	o->parentfd = mgb_open_trusted_dir(!slash ? "." : slash == copy ? "/" : copy, true, true, err);
	o->name = strdup(base);
	free(copy);
	if (o->parentfd < 0)
		return -1;
	if (!o->name)
		return mgb_err(err, "out of memory");
	if (!mkdirat(o->parentfd, o->name, 0755))
		o->made = true;
	else if (errno != EEXIST)
		return mgb_err(err, "-o %s: cannot create it: %s", output, strerror(errno));
	if (fstatat(o->parentfd, o->name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
		return mgb_err(err, "-o %s exists and is not a directory", output);
	o->fd = openat(o->parentfd, o->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (o->fd < 0 || fstat(o->fd, &o->st) || o->st.st_ino != st.st_ino || o->st.st_dev != st.st_dev)
		return mgb_err(err, "-o %s changed as it was opened", output);
	snprintf(o->self, sizeof(o->self), "/proc/self/fd/%d", o->fd);
	if (o->st.st_uid != 0 && o->st.st_uid != geteuid())
		return mgb_err(err, "-o %s belongs to uid %u, another user: refusing it", output,
			       (unsigned)o->st.st_uid);
	if (o->st.st_mode & (S_IWGRP | S_IWOTH))
		return mgb_err(err, "-o %s is writable by other users: refusing it (chmod go-w)", output);
	if (!o->made && !is_empty_dir(o->self) && !is_build_dir(o->self))
		return mgb_err(err, "-o %s is not empty and not a kernel build directory", output);
	return 0;
}

/* Is the name still the directory held?  If not, someone moved it: nothing is written there. */
static int output_still_there(const struct output *o, const char *output, char *err)
{
	struct stat now;

	if (fstatat(o->parentfd, o->name, &now, AT_SYMLINK_NOFOLLOW) || now.st_dev != o->st.st_dev ||
	    now.st_ino != o->st.st_ino)
		return mgb_err(err, "-o %s was moved or replaced during the build: nothing written there", output);
	return 0;
}

/* Hold fd (the new directory) in place of the old one. */
static void output_hold(struct output *o, int fd)
{
	int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	if (mine < 0)
		return;
	close(o->fd);
	o->fd = mine;
	fstat(mine, &o->st);
	snprintf(o->self, sizeof(o->self), "/proc/self/fd/%d", o->fd);
}

/* Put the directory tmp (a name in o->parentfd, open as tmpfd) in place of o's, whole: exchanged
 * with it (then removed, through descriptors), or, on a filesystem without RENAME_EXCHANGE, the
 * old one aside first (the path is missing only between the two renames). */
static int swap_into_place(struct output *o, const char *tmp, int tmpfd, const char *output, char *err)
{
	char aside[NAME_MAX + 1];

	if (output_still_there(o, output, err))
		return -1;
	if (!renameat2(o->parentfd, tmp, o->parentfd, o->name, RENAME_EXCHANGE)) {
		mgb_remove_tree_at(o->parentfd, tmp); /* now the old directory */
		output_hold(o, tmpfd);
		return 0;
	}
	if (errno != EINVAL)
		return mgb_err(err, "cannot replace %s: %s", output, strerror(errno));
	snprintf(aside, sizeof(aside), "%.240s.old", tmp);
	if (renameat(o->parentfd, o->name, o->parentfd, aside))
		return mgb_err(err, "cannot replace %s: %s", output, strerror(errno));
	if (renameat(o->parentfd, tmp, o->parentfd, o->name)) {
		mgb_err(err, "cannot replace %s: %s", output, strerror(errno));
		renameat(o->parentfd, aside, o->parentfd, o->name); /* put back */
		return -1;
	}
	mgb_remove_tree_at(o->parentfd, aside);
	output_hold(o, tmpfd);
	return 0;
}

/* Copy the build in dir to the -o directory held in o: into a fresh directory beside it, each
 * file checked against the manifest's hashes, then put in place whole, so that the directory
 * holds one build or the other, never a mix. */
static int export_to(const char *dir, struct output *o, const char *output, const json_t *hashes, char *err)
{
	char from[PATH_MAX], to[PATH_MAX], tmp[NAME_MAX + 1] = "", prefix[NAME_MAX + 1];
	int tmpfd = -1, rc = -1;

	snprintf(prefix, sizeof(prefix), ".%.200s.", o->name);
	if (mgb_mkdir_random_at(o->parentfd, prefix, tmp, sizeof(tmp))) {
		if (errno != EEXIST)
			return mgb_err(err, "cannot create %s beside %s: %s", tmp, output, strerror(errno));
		return mgb_err(err, "cannot create a directory beside %s", output);
	}
	tmpfd = openat(o->parentfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tmpfd < 0) {
		mgb_err(err, "cannot open %s beside %s: %s", tmp, output, strerror(errno));
		goto fail;
	}
	for (size_t i = 0; i < MGB_ARRAY_SIZE(outputs); i++) {
		const char *want = json_string_value(json_object_get(hashes, outputs[i]));
		char hex[65];

		snprintf(from, sizeof(from), "%s/%s", dir, outputs[i]);
		snprintf(to, sizeof(to), "/proc/self/fd/%d/%s", tmpfd, outputs[i]);
		if (mgb_kb_copy_file(from, to, err) || (want && mgb_sha256_file(to, hex, err)))
			goto fail;
		if (want && strcmp(hex, want)) {
			mgb_err(err, "%s does not match its manifest's sha256: remove %s to rebuild it", from, dir);
			goto fail;
		}
	}
	if (fchmod(tmpfd, 0755)) {
		mgb_err(err, "cannot chmod %s: %s", tmp, strerror(errno));
		goto fail;
	}
	if (swap_into_place(o, tmp, tmpfd, output, err))
		goto fail;
	rc = 0;
	goto out;
fail:
	mgb_remove_tree_at(o->parentfd, tmp);
out:
	if (tmpfd >= 0)
		close(tmpfd);
	return rc;
}

/* The log's last lines on stderr. */
static void show_tail(const char *log, int lines)
{
	char *text = mgb_read_text(log, (char[MGB_ERR_LEN]){ 0 });
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
	struct mgb_kb_debian deb; /* --config debian: the base config */
	char key[65], frag_sha[65];
	char base[65]; /* the key but the patches: a work tree of the same base can be reused */
	char *compiler;   /* gcc --version's first line: in the key and the manifest */
	char *ccache_env; /* CCACHE_DIR=..., when ccache is installed: builds go through it */
	bool progress; /* stages and a redrawn line, on a terminal */
	enum mgb_kb_progress compile_progress;
	struct output *out; /* -o, held open from the start; NULL without -o */
};

static void stage(const struct job *j, const char *fmt, const char *arg)
{
	if (!j->progress)
		return;
	fprintf(stderr, "mgbench kernel: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* A SIGINT/SIGTERM came: err says so (the caller exits 128 + the signal). */
static bool stopped(char *err)
{
	if (!mgb_stop_requested())
		return false;
	mgb_err(err, "interrupted by signal %d", (int)mgb_stop_signal);
	return true;
}

/* The work tree goes on every exit: keep its log beside the key as KEY.failed.log, in path. */
static int keep_log(const struct job *j, const char *log, char *path, size_t len)
{
	snprintf(path, len, "%s.failed.log", j->key_dir);
	return rename(log, path) ? -1 : 0;
}

/* A configuration step failed: err points to the kept log. */
static void make_failed(const struct job *j, const char *target, int st, const char *log, char *err)
{
	char kept[PATH_MAX];

	if (keep_log(j, log, kept, sizeof(kept)))
		snprintf(kept, sizeof(kept), "%s", log);
	mgb_err(err, "make %s failed (exit %d): see %.150s", target, st, kept);
}

/* {"bzImage": hex, "vmlinux": hex, ".config": hex, "build.log": hex} of the files in dir: what
 * `vm` checks before it boots a build, and what an export is checked against. */
static json_t *outputs_sha256(const char *dir, char *err)
{
	json_t *h = json_object();
	char p[PATH_MAX], hex[65];

	for (size_t i = 0; h && i < MGB_ARRAY_SIZE(outputs); i++) {
		if (!strcmp(outputs[i], "manifest.json"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, outputs[i]);
		if (mgb_sha256_file(p, hex, err)) {
			json_decref(h);
			return NULL;
		}
		json_object_set_new(h, outputs[i], json_string(hex));
	}
	if (!h)
		mgb_err(err, "out of memory");
	return h;
}

/* One build's files in its work directory, and its log, open while it runs. */
struct build_files {
	char src[PATH_MAX / 2], obj[PATH_MAX / 2], log[PATH_MAX / 2], config[PATH_MAX];
	char jobs[32], ostr[PATH_MAX + 2];
	int logfd;
	FILE *logf;
};

static void close_log(struct build_files *f)
{
	if (f->logfd >= 0)
		close(f->logfd);
	if (f->logf)
		fclose(f->logf);
	f->logfd = -1;
	f->logf = NULL;
}

/* The work directory, made if missing, and its build.log started afresh. */
static int open_log(const struct job *j, struct build_files *f, char *err)
{
	f->logfd = -1;
	f->logf = NULL;
	if (strlen(j->work) > PATH_MAX / 2 - 64)
		return mgb_err(err, "the cache's path is too long: %s", j->work);
	snprintf(f->src, sizeof(f->src), "%s/src", j->work);
	snprintf(f->obj, sizeof(f->obj), "%s/obj", j->work);
	snprintf(f->log, sizeof(f->log), "%s/build.log", j->work);
	snprintf(f->config, sizeof(f->config), "%s/.config", f->obj);
	snprintf(f->jobs, sizeof(f->jobs), "-j%u", j->b->jobs);
	snprintf(f->ostr, sizeof(f->ostr), "O=%s", f->obj);
	if (mgb_mkdirs(j->work, err))
		return -1;
	if ((f->logfd = open(f->log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0 ||
	    !(f->logf = fdopen(dup(f->logfd), "a")))
		return mgb_err(err, "cannot write %s: %s", f->log, strerror(errno));
	return 0;
}

/* src/ holds the source with the series applied: the kept tree brought to the longest common
 * prefix of the patches, or a fresh copy, then the rest applied. */
static int prepare_tree(struct job *j, struct build_files *f, char *err)
{
	struct mgb_kbuild *b = j->b;
	size_t kept = 0;
	char p[PATH_MAX];

	stage(j, "preparing the work tree from %s", j->src.tree);
	if (mgb_kb_tree_prepare(j->work, j->base, j->src.tree, j->src.id, j->patches, j->npatches, b->fuzz, f->logfd,
				f->logf, &kept, &b->tree_kept, err)) {
		if (!mgb_stop_requested() && !keep_log(j, f->log, p, sizeof(p)))
			snprintf(err + strlen(err), MGB_ERR_LEN - strlen(err), ": see %s", p);
		return -1;
	}
	b->patches_kept = kept;
	for (size_t i = kept; i < j->npatches; i++) {
		stage(j, "applying %s", j->patches[i].name);
		if (stopped(err) || mgb_kb_patch_apply(f->src, &j->patches[i], b->fuzz, f->logf, err))
			return -1;
	}
	fflush(f->logf);
	return 0;
}

/* make TARGET in the work tree, its output in the log: make's exit status, or -1 (err set). */
static int run_make(const struct job *j, const struct build_files *f, const char *target,
		    enum mgb_kb_progress progress, const char *label, char *err)
{
	/* through ccache when it is there: a series' prefixes differ in a few files, so a rebuild after
	 * the first compiles those alone (every build runs in the same work directory, so the
	 * compiler sees the same paths) */
	/* the hard-link copy gives every source file a new ctime, and make writes the generated
	 * headers just before compiling: without this sloppiness ccache would refuse its direct
	 * mode for every file and run the preprocessor on each hit (it still hashes the contents) */
	const char *env[] = { j->ccache_env, "CCACHE_SLOPPINESS=include_file_ctime,include_file_mtime", NULL };
	/* KBUILD_BUILD_VERSION: uname -v's #N, 1 in a fresh tree, would count the builds a kept
	 * tree has seen */
	const char *mk[] = { "make", "-C", f->src, f->ostr, "ARCH=x86_64", "LOCALVERSION=", "KBUILD_BUILD_USER=mgbench",
			     "KBUILD_BUILD_HOST=mgbench", "KBUILD_BUILD_VERSION=1", f->jobs,
			     j->ccache_env ? "CC=ccache gcc" : "CC=gcc", target, NULL };

	return mgb_kb_run_logged(mk, NULL, env, f->logfd, progress, label, err);
}

/* A make target of the configuration failed, or was stopped: -1 with err. */
static int config_make(const struct job *j, const struct build_files *f, const char *target, char *err)
{
	int st = run_make(j, f, target, MGB_KB_PROGRESS_NONE, "", err);

	if (st > 0)
		make_failed(j, target, st, f->log, err);
	return st ? -1 : 0;
}

/* obj/.config: the base (tinyconfig, or Debian's reduced), mgbench's fragment and the user's,
 * olddefconfig; then every requested option checked to have stuck and to exist. */
static int configure(struct job *j, const struct build_files *f, char *err)
{
	struct mgb_kbuild *b = j->b;
	/* on Debian's config, the fragment without its timekeeping section (kbuild_debian.c) */
	const char *fragment = b->config_debian ? j->deb.fragment : mgb_kbuild_fragment;
	FILE *c;

	stage(j, b->config ? "configuring (%s + mgbench's fragment + yours)" : "configuring (%s + mgbench's fragment)",
	      b->config_debian ? "Debian's config, reduced" : "tinyconfig");
	if (b->config_debian) {
		/* the base is Debian's file: olddefconfig below fills what this tree has and it lacks */
		if (mgb_mkdirs(f->obj, err) || mgb_write_text(f->config, j->deb.config, 0644, err))
			return -1;
	} else if (config_make(j, f, "tinyconfig", err)) {
		return -1;
	}
	c = fopen(f->config, "a");
	if (!c || fprintf(c, "\n%s\n%s\n", fragment, j->user_frag ? j->user_frag : "") < 0 || fclose(c))
		return mgb_err(err, "cannot append to %s", f->config);
	if (config_make(j, f, "olddefconfig", err))
		return -1;
	if ((b->config_debian && mgb_kb_config_verify(f->config, mgb_kb_debian_reduction, "--config debian's reduction",
						      j->user_frag, err)) ||
	    mgb_kb_config_verify(f->config, fragment, "mgbench's kernel.config", j->user_frag, err) ||
	    (j->user_frag && mgb_kb_config_verify(f->config, j->user_frag, b->config, NULL, err)) ||
	    mgb_kb_config_known(f->src, f->config, fragment, "mgbench's kernel.config", err) ||
	    (j->user_frag && mgb_kb_config_known(f->src, f->config, j->user_frag, b->config, err)) || stopped(err))
		return -1;
	return 0;
}

/* make bzImage; on a compile error the log's tail is shown and the log kept (beside the key, and
 * in an -o directory that is still empty). */
static int compile(struct job *j, const struct build_files *f, char *err)
{
	struct mgb_kbuild *b = j->b;
	char p[PATH_MAX];
	int st;

	stage(j, "compiling (make %s bzImage)", f->jobs);
	st = run_make(j, f, "bzImage", j->compile_progress, "mgbench kernel: compiling", err);
	if (st <= 0)
		return st;
	if (keep_log(j, f->log, p, sizeof(p)))
		snprintf(p, sizeof(p), "%s", f->log);
	else if (j->out && j->out->fd >= 0 && is_empty_dir(j->out->self) &&
		 !output_still_there(j->out, b->output, err)) { /* never into an earlier build's directory */
		char to[PATH_MAX];

		snprintf(to, sizeof(to), "%s/build.log", j->out->self);
		if (!mgb_kb_copy_file(p, to, err)) {
			snprintf(p, sizeof(p), "%s/build.log", b->output);
			j->out->made = false; /* it holds the log now */
		}
	}
	if (!b->quiet)
		show_tail(p, 25);
	return mgb_err(err, "the kernel did not compile (make exit %d); full log: %s", st, p);
}

/* The outputs copied into tmpdir (obj/ stays whole for the next build) and the log moved there;
 * their hashes in *hashes. */
static int gather_outputs(struct build_files *f, const char *tmpdir, json_t **hashes, char *err)
{
	static const char *const from[] = { "arch/x86/boot/bzImage", "vmlinux", ".config" };
	char p[PATH_MAX];

	mgb_remove_tree(tmpdir);
	if (mgb_mkdirs(tmpdir, err))
		return -1;
	for (size_t i = 0; i < MGB_ARRAY_SIZE(from); i++) {
		char t[PATH_MAX];

		if (snprintf(p, sizeof(p), "%s/%s", f->obj, from[i]) >= (int)sizeof(p) ||
		    snprintf(t, sizeof(t), "%s/%s", tmpdir, outputs[i]) >= (int)sizeof(t))
			return mgb_err(err, "the cache's path is too long: %s", tmpdir);
		if (access(p, F_OK))
			return mgb_err(err, "the build made no %s: %s", p, strerror(errno));
		if (mgb_kb_copy_file(p, t, err))
			return -1;
	}
	close_log(f);
	if (snprintf(p, sizeof(p), "%s/build.log", tmpdir) >= (int)sizeof(p) || rename(f->log, p))
		return mgb_err(err, "cannot move %s: %s", f->log, strerror(errno));
	return (*hashes = outputs_sha256(tmpdir, err)) ? 0 : -1;
}

/* What the build is, from what and how it was made: manifest.json.  Takes hashes. */
static json_t *manifest_of(const struct job *j, const char *release, json_t *hashes)
{
	const struct mgb_kbuild *b = j->b;
	char when[32], config_sha[65];
	time_t now = time(NULL);
	struct tm tm;
	json_t *m, *pl = json_array();

	snprintf(config_sha, sizeof(config_sha), "%s", json_string_value(json_object_get(hashes, ".config")));
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (size_t i = 0; i < j->npatches; i++)
		json_array_append_new(pl, json_pack("{s:s, s:s, s:O?}", "name", j->patches[i].name, "sha256",
						    j->patches[i].sha256, "moved",
						    j->patches[i].moved && json_array_size(j->patches[i].moved)
							    ? j->patches[i].moved : NULL));
	m = json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:s, s:s?, s:s?, s:s?, s:s, s:f, s:i, s:s, s:s, s:b, s:i, s:i}",
		      "source", j->src.label, "version", j->src.version, "release", release, "patches", pl,
		      "config_sha256", config_sha, "sha256", hashes, "fragment_sha256", j->frag_sha,
		      "config_fragment", b->config,
		      "source_package", j->src.package, "source_package_version", j->src.pkg_version,
		      "built", when, "build_s", b->build_s, "jobs", (int)b->jobs, "compiler",
		      j->compiler, "mgbench_version", PACKAGE_VERSION, "ccache", j->ccache_env != NULL,
		      "build_procedure", MGB_KBUILD_PROCEDURE, "fuzz", (int)b->fuzz);
	if (m)
		json_object_set_new(m, "config_base", json_string(b->config_debian ? "debian" : "tinyconfig"));
	if (m && b->config_debian)
		json_object_set_new(m, "config_debian",
				    json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "package", j->deb.package, "version",
					      j->deb.version, "release", j->deb.release, "sha256", j->deb.debian_sha256,
					      "reduced_sha256", j->deb.sha256, "modules_off", (int)j->deb.modules_off));
	if (m)
		json_object_set_new(m, "work_tree", json_pack("{s:b, s:i}", "kept", b->tree_kept, "patches_kept",
							      (int)b->patches_kept));
	return m;
}

/* The built kernel's outputs and manifest, gathered beside the work tree in KEY.new and renamed
 * into place at once as the key's directory. */
static int store(struct job *j, struct build_files *f, char *err)
{
	char p[PATH_MAX], tmpdir[PATH_MAX];
	json_t *m = NULL, *hashes = NULL;
	char *release;
	int rc = -1;

	snprintf(p, sizeof(p), "%s/include/config/kernel.release", f->obj);
	if (!(release = mgb_read_text(p, err)))
		return -1;
	release[strcspn(release, "\n")] = '\0';
	snprintf(tmpdir, sizeof(tmpdir), "%s.new", j->key_dir);
	if (gather_outputs(f, tmpdir, &hashes, err))
		goto out;
	m = manifest_of(j, release, hashes);
	hashes = NULL; /* the manifest has it, or json_pack dropped it */
	if (!m) {
		mgb_err(err, "cannot make the manifest");
		goto out;
	}
	if (snprintf(p, sizeof(p), "%s/manifest.json", tmpdir) >= (int)sizeof(p)) {
		mgb_err(err, "the cache's path is too long: %s", tmpdir);
		goto out;
	}
	if (write_manifest(p, m, err))
		goto out;
	if (rename(tmpdir, j->key_dir)) {
		mgb_err(err, "cannot move the build into %s: %s", j->key_dir, strerror(errno));
		goto out;
	}
	j->b->release = release;
	release = NULL;
	rc = 0;
out:
	json_decref(m);
	json_decref(hashes);
	free(release);
	if (rc)
		mgb_remove_tree(tmpdir);
	return rc;
}

/* Build into j->work, then move the outputs to j->key_dir.  The log is kept on failure. */
static int build(struct job *j, char *err)
{
	struct build_files f;
	int64_t start = mgb_clock_ns(CLOCK_MONOTONIC);
	int rc = -1;

	if (open_log(j, &f, err) || prepare_tree(j, &f, err) || configure(j, &f, err) || compile(j, &f, err))
		goto out;
	j->b->build_s = (double)(mgb_clock_ns(CLOCK_MONOTONIC) - start) / 1e9;
	if (store(j, &f, err))
		goto out;
	rc = 0;
	if (mgb_kb_tree_save(j->work, j->base, j->src.id, j->patches, j->npatches, err)) {
		/* the build is in the cache; only the next one is slower */
		fprintf(stderr, "mgbench kernel: %s\n", err);
		*err = '\0';
	}
out:
	close_log(&f);
	if (rc) /* a tree a build left half-made is never used again */
		mgb_remove_tree(j->work);
	return rc;
}

/*
 * --config-only: the .config a build would use, made in a work directory of its own under the
 * cache's kbuild/ (a fresh copy of the source), so that it waits for no build: it compiles
 * nothing and shares nothing.  The directory is held locked while it lives, so that a SIGKILLed
 * one is collected (collect_stale), and removed through the kbuild/ descriptor at the end.
 */
/*
 * A new config-only.XXXXXXXX in kbuild/, held locked: its descriptor, or -1 with err.  Between
 * the mkdir and the lock another build's collect_stale may take it for a dead one and remove it:
 * then the name no longer means the directory held, and another is made.
 */
static int hold_private_dir(int kfd, char *name, size_t len, char *err)
{
	for (int tries = 0; tries < 10; tries++) {
		struct stat held, named;
		int dfd;

		if (mgb_mkdir_random_at(kfd, CONFIG_ONLY_PREFIX, name, len))
			return mgb_err(err, "cannot make a work directory in kbuild/: %s", strerror(errno));
		dfd = openat(kfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0 || flock(dfd, LOCK_EX)) {
			mgb_err(err, "cannot hold kbuild/%s: %s", name, strerror(errno));
			if (dfd >= 0)
				close(dfd);
			mgb_remove_tree_at(kfd, name);
			return -1;
		}
		if (!fstat(dfd, &held) && !fstatat(kfd, name, &named, AT_SYMLINK_NOFOLLOW) &&
		    held.st_ino == named.st_ino && held.st_dev == named.st_dev)
			return dfd;
		close(dfd);
	}
	return mgb_err(err, "cannot keep a work directory in kbuild/: each one was collected as it was made");
}

static int config_only(struct job *j, const char *kbuild, char *err)
{
	char name[64], *work = NULL;
	int kfd, dfd, rc = -1;
	struct build_files f = { .logfd = -1 };

	if ((kfd = open(kbuild, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return mgb_err(err, "cannot open %s: %s", kbuild, strerror(errno));
	if ((dfd = hold_private_dir(kfd, name, sizeof(name), err)) < 0) {
		close(kfd);
		return -1;
	}
	if (asprintf(&work, "%s/%s", kbuild, name) < 0) {
		mgb_err(err, "out of memory");
		goto out;
	}
	free(j->work); /* the shared work tree's name: not this build's */
	j->work = work;
	if (open_log(j, &f, err) || prepare_tree(j, &f, err) || configure(j, &f, err) ||
	    !(j->b->config_text = mgb_read_text(f.config, err)))
		goto out;
	rc = 0;
out:
	close_log(&f);
	mgb_remove_tree_at(kfd, name);
	close(dfd);
	close(kfd);
	return rc;
}

/* A cached build; one made before manifests carried hashes (or config_base) gets them (the
 * cache is trusted: root's, checked by mgb_kbuild_run).  Its hashes in *hashes. */
static int from_cache(struct mgb_kbuild *b, const char *dir, json_t **hashes, char *err)
{
	char p[PATH_MAX];
	json_error_t je;
	json_t *m;

	/* a cached build others could have written since is not exported or booted */
	if (mgb_check_trusted_dir(dir, false, err))
		return -1;
	snprintf(p, sizeof(p), "%s/manifest.json", dir);
	if (!(m = json_load_file(p, 0, &je)))
		return mgb_err(err, "%s: %s", p, je.text);
	if (!json_is_object(json_object_get(m, "sha256"))) {
		json_t *h = outputs_sha256(dir, err);

		if (!h || json_object_set_new(m, "sha256", h) || write_manifest(p, m, err)) {
			json_decref(m);
			return mgb_err(err, "cannot add hashes to %s", p);
		}
	}
	/* a build made before --config debian existed was made on tinyconfig */
	if (!json_object_get(m, "config_base") &&
	    (json_object_set_new(m, "config_base", json_string("tinyconfig")) || write_manifest(p, m, err))) {
		json_decref(m);
		return mgb_err(err, "cannot add config_base to %s", p);
	}
	if (!b->release) { /* not just built */
		b->release = strdup(json_string_value(json_object_get(m, "release")) ?: "?");
		b->build_s = json_real_value(json_object_get(m, "build_s"));
		b->cached = true;
	}
	*hashes = json_incref(json_object_get(m, "sha256"));
	json_decref(m);
	return 0;
}

/* A --config fragment: a regular file (a FIFO would block, a directory read as empty). */
static char *read_config(const char *path, char *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (fd < 0) {
		mgb_err(err, "cannot read --config %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		mgb_err(err, "--config %s is not a regular file", path);
		return NULL;
	}
	/* the file that was checked, read whole: a NUL byte would end the text early and hide
	 * whatever follows it from every check */
	if (!(f = open_memstream(&text, &len))) {
		close(fd);
		mgb_err(err, "out of memory");
		return NULL;
	}
	for (;;) {
		char buf[8192];
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				mgb_err(err, "cannot read --config %s: %s", path, strerror(errno));
			fclose(f);
			close(fd);
			if (n < 0) {
				free(text);
				return NULL;
			}
			break;
		}
		fwrite(buf, 1, (size_t)n, f);
	}
	if (!text || memchr(text, '\0', len)) {
		mgb_err(err, "--config %s holds a NUL byte: it is no text config fragment", path);
		free(text);
		return NULL;
	}
	return text;
}

/* cache/name, made 0755 if missing, refused if anyone but root (or us) can write it: builds run
 * make in what src/ holds, and kbuild/ holds what `vm` boots. */
static int cache_subdir(const char *cache, const char *name, char *err)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", cache, name);
	if (!mkdir(p, 0755) && chmod(p, 0755))
		return mgb_err(err, "cannot chmod %s: %s", p, strerror(errno));
	if (errno == EEXIST || !access(p, F_OK))
		return mgb_check_trusted_dir(p, false, err);
	return mgb_err(err, "cannot create %s: %s", p, strerror(errno));
}

/*
 * The key's lock, held for the whole build.  Its file goes when the build ends (unlinked while
 * still held), so the cache keeps no .lock files; a process that opened it before the unlink
 * finds, once it holds its lock, that the name now means another file or none, and opens again.
 */
static int lock_key(const char *path)
{
	for (int tries = 0; tries < 100; tries++) {
		struct stat held, named;
		int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);

		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX)) {
			close(fd);
			return -1;
		}
		if (fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_ino == named.st_ino &&
		    held.st_dev == named.st_dev)
			return fd;
		close(fd);
	}
	errno = EAGAIN;
	return -1;
}

/*
 * The shared work tree's lock, held for a compile.  Its holder writes in it whose build it is and
 * since when, so that a build that has to wait says so, once, instead of sitting silent.
 */
static int lock_build(const char *path, const struct job *j)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), saved;
	char who[512], when[32];
	time_t now;
	struct tm tm;

	if (fd >= 0) {
		if (flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK && !j->b->quiet) {
			ssize_t n = pread(fd, who, sizeof(who) - 1, 0);

			who[n > 0 ? n : 0] = '\0';
			who[strcspn(who, "\n")] = '\0';
			fprintf(stderr, "mgbench kernel: waiting for another kernel build, which holds the work tree (%s): %s\n",
				path, *who ? who : "it does not say whose");
		}
		close(fd); /* and with it a lock it may just have got: lock_key takes it for good */
	}
	if ((fd = lock_key(path)) < 0)
		return -1;
	now = time(NULL);
	if (!localtime_r(&now, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm))
		snprintf(when, sizeof(when), "%lld", (long long)now);
	saved = errno;
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "pid %d building %s (%s%s) since %s\n", (int)getpid(), j->src.label, j->src.version,
			j->npatches ? " + patches" : "", when);
	errno = saved;
	return fd;
}

static void unlock_key(const char *path, int fd)
{
	if (fd < 0)
		return;
	unlink(path);
	close(fd);
}

/* Work (.work) and output (.new) trees that builds killed by SIGKILL left, of any key whose lock
 * nobody holds (a running build of that key holds it), and the lock files they left; not the
 * work tree a build that succeeded kept. */
static void collect_stale(const char *kbuild)
{
	DIR *d = opendir(kbuild);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char p[PATH_MAX + 300], lock[PATH_MAX + 300];
		int fd;

		if (l > 5 && !strcmp(e->d_name + l - 5, ".lock")) {
			snprintf(lock, sizeof(lock), "%s/%s", kbuild, e->d_name);
			fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB))
				unlink(lock); /* nobody builds this key: lock_key's check covers a racing opener */
			if (fd >= 0)
				close(fd);
			continue;
		}

		if (!strncmp(e->d_name, CONFIG_ONLY_PREFIX, strlen(CONFIG_ONLY_PREFIX))) {
			/* a --config-only holds its directory locked while it lives */
			fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB))
				mgb_remove_tree_at(dirfd(d), e->d_name);
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (!((l > 5 && !strcmp(e->d_name + l - 5, ".work")) || (l > 4 && !strcmp(e->d_name + l - 4, ".new"))))
			continue;
		snprintf(p, sizeof(p), "%s/%s", kbuild, e->d_name);
		if (!strcmp(e->d_name, "build.work") && !faccessat(dirfd(d), "build.work/state.json", F_OK, 0))
			continue; /* the kept work tree of a build that succeeded (kbuild_tree.c) */
		snprintf(lock, sizeof(lock), "%s/%.*s.lock", kbuild, (int)(strrchr(e->d_name, '.') - e->d_name),
			 e->d_name);
		fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 ? errno == ENOENT : !flock(fd, LOCK_EX | LOCK_NB))
			mgb_remove_tree(p);
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
}

/* The compiler, for the key; ccache, when installed, with its cache beside mgbench's builds. */
static int compiler_and_ccache(struct job *j, char *err)
{
	static const char *const gccv[] = { "gcc", "--version", NULL };
	char path[PATH_MAX];

	if (!(j->compiler = first_line_of(gccv)))
		return mgb_err(err, "gcc --version gave nothing");
	if (mgb_find_program("ccache", NULL, path, sizeof(path)) == 0 &&
	    asprintf(&j->ccache_env, "CCACHE_DIR=%s/ccache", j->cache) < 0)
		return mgb_err(err, "out of memory");
	return 0;
}

/* The version as a file name: a Makefile's EXTRAVERSION can hold anything ("/../"). */
static void key_version(const char *v, char *out, size_t len)
{
	size_t i;

	for (i = 0; v[i] && i + 1 < len; i++)
		out[i] = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-", v[i]) ? v[i] : '_';
	out[i] = '\0';
	if (out[0] == '.')
		out[0] = '_';
}

int mgb_kbuild_config_arg(struct mgb_kbuild *b, const char *arg, char *err)
{
	if (!strcmp(arg, "debian")) {
		if (b->config_debian)
			return mgb_err(err, "--config debian given twice");
		b->config_debian = true;
		return 0;
	}
	if (b->config)
		return mgb_err(err, "--config takes one fragment file (and 'debian'), not both %s and %s", b->config, arg);
	b->config = arg;
	return 0;
}

/*
 * The cache key j->key: how mgbench builds, the compiler, what the source is, the fragments, the
 * patches in order; and j->base, which the kept work tree follows: the same with a directory
 * source's place for its contents (a Debian source's id is its place) and no patches.
 */
static int make_key(struct job *j, char *err)
{
	char keytext[8192], common[512];
	size_t kl, cl;

	mgb_sha256_buf(mgb_kbuild_fragment, strlen(mgb_kbuild_fragment), j->frag_sha);
	cl = (size_t)snprintf(common, sizeof(common), "fragment %s\n", j->frag_sha);
	if (j->user_frag) {
		char h[65];

		mgb_sha256_buf(j->user_frag, strlen(j->user_frag), h);
		cl += (size_t)snprintf(common + cl, sizeof(common) - cl, "user-fragment %s\n", h);
	}
	if (j->b->config_debian) /* tinyconfig's keys stay as they were */
		cl += (size_t)snprintf(common + cl, sizeof(common) - cl, "config-base debian %s\n", j->deb.sha256);
	if (j->b->fuzz) /* fuzz 0 keeps the keys builds had before --fuzz existed */
		cl += (size_t)snprintf(common + cl, sizeof(common) - cl, "fuzz %u\n", j->b->fuzz);
	kl = (size_t)snprintf(keytext, sizeof(keytext),
			      "mgbench kernel build %d\narch x86_64\ncompiler %s\nsource-place %s\n%s", MGB_KBUILD_PROCEDURE,
			      j->compiler, j->src.package ? j->src.id : j->src.tree, common);
	mgb_sha256_buf(keytext, kl < sizeof(keytext) ? kl : sizeof(keytext) - 1, j->base);
	kl = (size_t)snprintf(keytext, sizeof(keytext),
			      "mgbench kernel build %d\narch x86_64\ncompiler %s\nsource %s\n%s", MGB_KBUILD_PROCEDURE,
			      j->compiler, j->src.id, common);
	for (size_t i = 0; i < j->npatches && kl < sizeof(keytext); i++)
		kl += (size_t)snprintf(keytext + kl, sizeof(keytext) - kl, "patch %s %s\n", j->patches[i].sha256,
				       j->patches[i].name);
	if (kl >= sizeof(keytext))
		return mgb_err(err, "too many patches");
	mgb_sha256_buf(keytext, kl, j->key);
	return 0;
}

int mgb_kbuild_run(struct mgb_kbuild *b, char *err)
{
	struct job j = { .b = b };
	struct output out = { .parentfd = -1, .fd = -1 };
	char p[PATH_MAX], kver[128], lockpath[PATH_MAX + 8] = "", *keyname = NULL, *buildlock = NULL;
	json_t *hashes = NULL;
	int rc = -1, lockfd = -1, buildfd = -1;

	j.progress = !b->quiet && isatty(2);
	j.compile_progress = b->quiet ? MGB_KB_PROGRESS_NONE : j.progress ? MGB_KB_PROGRESS_TTY : MGB_KB_PROGRESS_LINES;
	if (b->jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		b->jobs = n > 0 ? (unsigned)n : 1;
	}
	if (check_tools(!strncmp(b->source, "debian:", 7), err))
		return -1;
	if (b->output) {
		j.out = &out;
		if (output_open(b->output, &out, err)) {
			output_close(&out, true);
			return -1;
		}
	}
	if (b->config) {
		if (!(j.user_frag = read_config(b->config, err)))
			goto out;
		if (mgb_kb_config_parse(j.user_frag, b->config, err))
			goto out;
	}
	if (mgb_kb_patches(b->patches, &j.patches, &j.npatches, err))
		goto out;
	if (!(j.cache = mgb_cache_dir(err)) || cache_subdir(j.cache, "src", err) ||
	    cache_subdir(j.cache, "kbuild", err) || cache_subdir(j.cache, "ccache", err) ||
	    compiler_and_ccache(&j, err) || mgb_kb_source_get(b->source, j.cache, b->quiet, &j.src, err) ||
	    (b->config_debian && mgb_kb_debian_config(&j.src, b->quiet, &j.deb, err)))
		goto out;

	if (make_key(&j, err))
		goto out;
	key_version(j.src.version, kver, sizeof(kver));
	if (asprintf(&keyname, "%s/kbuild/%s-%.16s", j.cache, kver, j.key) < 0 ||
	    asprintf(&j.key_dir, "%s", keyname) < 0 || asprintf(&j.work, "%s/kbuild/build.work", j.cache) < 0 ||
	    asprintf(&buildlock, "%s/kbuild/build.lock", j.cache) < 0) {
		mgb_err(err, "out of memory");
		goto out;
	}
	snprintf(p, sizeof(p), "%s/kbuild", j.cache);
	collect_stale(p);
	if (b->config_only) { /* never a cached build, never a wait */
		rc = config_only(&j, p, err);
		goto out;
	}
	/* one build per key at a time; a second asker waits and then finds it cached */
	snprintf(lockpath, sizeof(lockpath), "%s.lock", keyname);
	if ((lockfd = lock_key(lockpath)) < 0) {
		mgb_err(err, "cannot lock %s: %s", lockpath, strerror(errno));
		goto out;
	}
	snprintf(p, sizeof(p), "%s/manifest.json", j.key_dir);
	if (access(p, R_OK)) {
		if (!b->quiet && !j.progress)
			fprintf(stderr, "mgbench kernel: building %s (%s%s) with -j%u\n", j.src.label, j.src.version,
				j.npatches ? " + patches" : "", b->jobs);
		/* one compile at a time, whatever its key: it has every CPU, and the work directory is
		 * the same for all (ccache's hits need the same paths) */
		if ((buildfd = lock_build(buildlock, &j)) < 0) {
			if (!stopped(err))
				mgb_err(err, "cannot lock %s: %s", buildlock, strerror(errno));
			goto out;
		}
		rc = build(&j, err);
		unlock_key(buildlock, buildfd);
		buildfd = -1;
		if (rc)
			goto out;
		rc = -1;
	}
	if (from_cache(b, j.key_dir, &hashes, err) || stopped(err))
		goto out;
	if (b->output) {
		if (export_to(j.key_dir, &out, b->output, hashes, err))
			goto out;
		/* where the held directory is, by the descriptor: the path may have moved meanwhile */
		if (!(b->dir = realpath(out.self, NULL))) {
			mgb_err(err, "%.200s: %s", b->output, strerror(errno));
			goto out;
		}
	} else if (!(b->dir = strdup(j.key_dir))) {
		mgb_err(err, "out of memory");
		goto out;
	}
	rc = 0;
out:
	output_close(&out, rc != 0);
	unlock_key(lockpath, lockfd);
	json_decref(hashes);
	mgb_kb_source_free(&j.src);
	mgb_kb_patches_free(j.patches, j.npatches);
	free(j.user_frag);
	mgb_kb_debian_free(&j.deb);
	free(j.cache);
	free(j.key_dir);
	free(j.work);
	free(j.compiler);
	free(j.ccache_env);
	free(buildlock);
	free(keyname);
	return rc;
}

void mgb_kbuild_free(struct mgb_kbuild *b)
{
	free(b->dir);
	free(b->release);
	free(b->config_text);
	b->dir = b->release = b->config_text = NULL;
}
