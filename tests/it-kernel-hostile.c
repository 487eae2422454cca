/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `mgbench kernel build` against hostile input and interruptions (issue 18).  A fake
 * kernel tree stands in for Linux: its Makefile's tinyconfig/olddefconfig/bzImage are a few shell
 * lines (a config that keeps what was appended, a bzImage and vmlinux of a few bytes), so every
 * case runs in well under a second, in a private MGBENCH_CACHE; no real kernel is compiled and the
 * shared cache is not touched.
 */
#include "config.h"
#include "helpers.h"
#include "target.h"
#include "proc.h"
#include "util.h"
#include "kbuild.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char base[512], cache[600];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		fprintf(stderr, "cannot write %s\n", path);
}

static const char *path_of(const char *name)
{
	static char p[64][700];
	static int n;
	char *s = p[n++ % 64];

	snprintf(s, 700, "%s/%s", base, name);
	return s;
}

/* Kconfig declaring every option of mgbench's fragment, and the extra names given. */
static void write_kconfig(const char *file, const char *extra)
{
	FILE *f = fopen(file, "w");

	for (const char *l = mgb_kbuild_fragment; f && l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *c = strstr(l, "CONFIG_"), *nl = strchr(l, '\n');
		size_t n;

		if (!c || (nl && c > nl))
			continue;
		c += 7;
		n = strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		fprintf(f, "config %.*s\n\tbool\n", (int)n, c);
	}
	if (f) {
		fprintf(f, "%s", extra);
		fclose(f);
	}
}

/*
 * A fake kernel tree at base/name.  tiny and bz replace the default recipes (NULL: defaults):
 * tinyconfig writes an empty .config, olddefconfig keeps it but drops what Kconfig does not
 * declare (here: TYPO), bzImage writes small files.
 */
static const char *fake_tree(const char *name, const char *extraversion, const char *tiny, const char *bz)
{
	static char dirs[16][700];
	static int k;
	char *dir = dirs[k++ % 16], p[800], mk[4096];

	snprintf(dir, 700, "%s", path_of(name));
	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/arch", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/arch/x86", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/scripts", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/scripts/kconfig", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/Kconfig", dir);
	write_file(p, "source \"arch/x86/Kconfig\"\n");
	snprintf(p, sizeof(p), "%s/arch/x86/Kconfig", dir);
	write_kconfig(p, "config DEFAULT_HOSTNAME\n\tstring\nconfig CMDLINE\n\tstring\n");
	snprintf(mk, sizeof(mk),
		 "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\nEXTRAVERSION = %s\n\n"
		 "tinyconfig:\n\t%s\n"
		 "olddefconfig:\n\tgrep -v TYPO $(O)/.config > $(O)/.c2; mv $(O)/.c2 $(O)/.config\n"
		 "bzImage:\n\t%s\n",
		 extraversion, tiny ? tiny : ": > $(O)/.config",
		 bz ? bz : "mkdir -p $(O)/arch/x86/boot $(O)/include/config; echo bz-$(EXTRAVERSION) > "
			   "$(O)/arch/x86/boot/bzImage; echo vmlinux-$(EXTRAVERSION) > $(O)/vmlinux; "
			   "echo 6.1.0$(EXTRAVERSION) > $(O)/include/config/kernel.release");
	snprintf(p, sizeof(p), "%s/Makefile", dir);
	write_file(p, mk);
	return dir;
}

/* Start mgbench with args (stdout and stderr to base/async.err); its pid. */
static pid_t start(const char *const args[], const char *path_prefix)
{
	const char *argv[32] = { getenv("MGBENCH") ?: "./mgbench" };
	size_t n = 1;
	pid_t pid;

	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if ((pid = fork()) == 0) {
		int fd = open(path_of("async.err"), O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		if (path_prefix) {
			char path[2048];

			snprintf(path, sizeof(path), "%s:%s", path_prefix, getenv("PATH") ?: "/usr/bin:/bin");
			setenv("PATH", path, 1);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Its exit status (128+N for a signal), or -1 if still running after timeout_s (then killed). */
static int wait_for(pid_t pid, double timeout_s)
{
	double t0 = t_now_s();
	int status;

	while (t_now_s() - t0 < timeout_s) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/* mgbench args, bounded by a timeout: the exit status (-1: hung) and its output in *out. */
static int run(const char *const args[], double timeout_s, char **out)
{
	int rc = wait_for(start(args, NULL), timeout_s);

	*out = t_slurp(path_of("async.err")) ?: strdup("");
	if (getenv("MGBENCH_TEST_VERBOSE"))
		fprintf(stderr, "-> %d: %s", rc, *out);
	return rc;
}

/* The pid a recipe or shim wrote to file, once it exists (0 if it never does). */
static pid_t pid_from(const char *file, double timeout_s)
{
	double t0 = t_now_s();
	long pid = 0;

	while (t_now_s() - t0 < timeout_s) {
		char *s = t_slurp(file);

		if (s && sscanf(s, "%ld", &pid) == 1 && pid > 0) {
			free(s);
			return (pid_t)pid;
		}
		free(s);
		usleep(20000);
	}
	return 0;
}

/* Is pid gone (within timeout_s)? */
static bool gone(pid_t pid, double timeout_s)
{
	double t0 = t_now_s();

	while (t_now_s() - t0 < timeout_s) {
		if (kill(pid, 0) && errno == ESRCH)
			return true;
		usleep(20000);
	}
	return false;
}

/* Entries in the private cache's kbuild/ whose names end in suffix. */
static unsigned kbuild_count(const char *suffix)
{
	char p[700];
	DIR *d;
	struct dirent *e;
	unsigned n = 0;

	snprintf(p, sizeof(p), "%s/kbuild", cache);
	if (!(d = opendir(p)))
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), s = strlen(suffix);

		if (l > s && !strcmp(e->d_name + l - s, suffix))
			n++;
	}
	closedir(d);
	return n;
}

/* SIGINT/SIGTERM while make runs stop it at once, leave no work tree and no failure log. */
static void signal_during_make(int sig)
{
	char tiny[800], name[32];
	const char *mark = path_of(sig == SIGINT ? "make-int.pid" : "make-term.pid");

	snprintf(name, sizeof(name), "slowtree-%d", sig);
	snprintf(tiny, sizeof(tiny), "echo $$$$ > %s; exec sleep 60", mark);
	const char *args[] = { "kernel", "build", "-q", "--source", fake_tree(name, "", tiny, NULL), NULL };
	pid_t pid = start(args, NULL), child = pid_from(mark, 10);
	int rc;
	double t0;

	T_CHECK(child > 0, "make's recipe started");
	t0 = t_now_s();
	kill(pid, sig);
	rc = wait_for(pid, 8);
	T_CHECK(rc == 128 + sig, "signal %d while make runs: exit %d, want %d", sig, rc, 128 + sig);
	fprintf(stderr, "stopped make: signal %d: exit %d after %.2f s\n", sig, rc, t_now_s() - t0);
	T_CHECK(child > 0 && gone(child, 3), "make's child (pid %d) was stopped", (int)child);
	T_CHECK(kbuild_count(".work") == 0, "no work tree left: %u", kbuild_count(".work"));
	T_CHECK(kbuild_count(".failed.log") == 0, "no failure log claiming a compile failure");
	char *err = t_slurp(path_of("async.err"));

	T_CHECK(err && !strstr(err, "did not compile"), "not called a compile failure: %s", err ?: "");
	free(err);
	if (child > 0)
		kill(child, SIGKILL);
}

/* SIGKILL during the copy leaves no cp behind; the next build collects the stale .work. */
static void sigkill_during_copy(void)
{
	const char *shim = path_of("shim"), *mark = path_of("cp.pid");
	char p[800], script[900];
	const char *args[] = { "kernel", "build", "-q", "--source", fake_tree("copytree", "", NULL, NULL), NULL };

	mkdir(shim, 0755);
	snprintf(p, sizeof(p), "%s/cp", shim);
	snprintf(script, sizeof(script), "#!/bin/sh\necho $$ > %s\nexec sleep 60\n", mark);
	write_file(p, script);
	chmod(p, 0755);
	pid_t pid = start(args, shim), cp = pid_from(mark, 10);

	T_CHECK(cp > 0, "the copy started");
	kill(pid, SIGKILL);
	wait_for(pid, 5);
	T_CHECK(cp > 0 && gone(cp, 3), "SIGKILL of mgbench during the copy: cp (pid %d) is gone", (int)cp);
	if (cp > 0)
		kill(cp, SIGKILL);
	T_CHECK(kbuild_count(".work") == 1, "the killed build left its work tree (%u)", kbuild_count(".work"));

	/* a work tree whose lock is held belongs to a running build: it stays */
	char held[800], lock[800];
	int fd;

	snprintf(held, sizeof(held), "%s/kbuild/6.1.0-0123456789abcdef.work", cache);
	snprintf(lock, sizeof(lock), "%s/kbuild/6.1.0-0123456789abcdef.lock", cache);
	mkdir(held, 0755);
	fd = open(lock, O_RDWR | O_CREAT, 0644);
	flock(fd, LOCK_EX);

	const char *other = fake_tree("othertree", "-other", NULL, NULL);
	const char *args2[] = { "kernel", "build", "-q", "--source", other, NULL };
	char *out;
	int rc = run(args2, 20, &out);

	T_CHECK(rc == 0, "another key builds: %d %s", rc, out);
	free(out);
	/* build.work is now the tree that build kept, with its record; the killed one's went */
	snprintf(lock, sizeof(lock), "%s/kbuild/build.work/state.json", cache);
	T_CHECK(kbuild_count(".work") == 2 && access(held, F_OK) == 0 && access(lock, F_OK) == 0,
		"the stale work tree was collected, the held one kept, the new build's tree kept with its "
		"record (%u .work)",
		kbuild_count(".work"));
	close(fd);
	rmdir(held);
}

/* A --source tree is keyed by its contents: built twice it comes from the cache (the first
 * build's hard-link copy changed every file's ctime), a new ctime alone keeps the key, a
 * changed file gets a new one. */
static void source_tree_key(void)
{
	char extra[32];

	snprintf(extra, sizeof(extra), "-key%d", (int)getpid()); /* a tree no earlier run built */
	const char *tree = fake_tree("keytree", extra, NULL, NULL);
	const char *args[] = { "kernel", "build", "--source", tree, NULL };
	const char *linked = path_of("keytree-link");
	char *out, p[800];
	int rc;

	rc = run(args, 20, &out);
	T_CHECK(rc == 0 && !strstr(out, "from the cache"), "the first build builds: %d %s", rc, out);
	free(out);
	rc = run(args, 20, &out);
	T_CHECK(rc == 0 && strstr(out, "from the cache"), "built again, the tree hits the cache: %d %s", rc, out);
	free(out);
	snprintf(p, sizeof(p), "%s/Kconfig", tree);
	T_CHECK(link(p, linked) == 0 && chmod(p, 0644) == 0, "a new ctime for %s", p);
	rc = run(args, 20, &out);
	T_CHECK(rc == 0 && strstr(out, "from the cache"), "a new ctime keeps the key: %d %s", rc, out);
	free(out);
	unlink(linked);
	write_file(p, "source \"arch/x86/Kconfig\"\n# changed\n");
	rc = run(args, 20, &out);
	T_CHECK(rc == 0 && !strstr(out, "from the cache"), "a changed file gets a new key: %d %s", rc, out);
	free(out);
}

/* --fuzz N lets a hunk whose last context line is wrong apply, and the manifest says where and
 * with what fuzz it went; without it the same patch fails naming its hunk. */
static void fuzz_recorded(void)
{
	char extra[32], patch[800], text[400], *out, *nl;
	const char *p = path_of("fuzzy.patch");

	snprintf(extra, sizeof(extra), "-fz%d", (int)getpid());
	const char *tree = fake_tree("fuzztree", extra, NULL, NULL);
	/* says line 2 (it is 1) and ends on a context line the Makefile does not have */
	snprintf(text, sizeof(text),
		 "--- a/Makefile\n+++ b/Makefile\n@@ -2,5 +2,5 @@\n VERSION = 6\n PATCHLEVEL = 1\n"
		 "-SUBLEVEL = 0\n+SUBLEVEL = 7\n EXTRAVERSION = %s\n not this line\n", extra);
	write_file(p, text);
	snprintf(patch, sizeof(patch), "%s", p);
	const char *strict[] = { "kernel", "build", "-q", "--source", tree, "--patches", patch, NULL };
	const char *fuzzy[] = { "kernel", "build", "-q", "--source", tree, "--patches", patch, "--fuzz", "1", NULL };
	int rc = run(strict, 20, &out);

	T_CHECK(rc == 1 && strstr(out, "hunk #1 of Makefile FAILED"), "fuzz 0 refuses it, naming the hunk: %d %s", rc,
		out);
	free(out);
	rc = run(fuzzy, 20, &out);
	T_CHECK(rc == 0, "--fuzz 1 applies it: %d %s", rc, out);
	if ((nl = strchr(out, '\n')))
		*nl = '\0';
	char manifest[900];

	snprintf(manifest, sizeof(manifest), "%s/manifest.json", out);
	json_t *m = t_load(manifest), *moved = json_object_get(json_array_get(json_object_get(m, "patches"), 0), "moved");
	json_t *h = json_array_get(moved, 0);

	T_CHECK(json_integer_value(json_object_get(m, "fuzz")) == 1, "the manifest has fuzz 1");
	T_CHECK(json_array_size(moved) == 1 && json_integer_value(json_object_get(h, "fuzz")) == 1 &&
			json_integer_value(json_object_get(h, "offset")) == -1 &&
			!strcmp(json_string_value(json_object_get(h, "file")) ?: "", "Makefile"),
		"the manifest records the hunk: fuzz 1, offset -1 in Makefile (%s)", manifest);
	json_decref(m);
	free(out);
}

/* The build directory a build printed (its first line), and its vmlinux. */
static char *built_vmlinux(const char *out, json_t **manifest)
{
	char dir[700], p[800];

	snprintf(dir, sizeof(dir), "%.*s", (int)strcspn(out, "\n"), out);
	snprintf(p, sizeof(p), "%s/manifest.json", dir);
	*manifest = t_load(p);
	snprintf(p, sizeof(p), "%s/vmlinux", dir);
	return t_slurp(p);
}

/* What a build said of the work tree in its manifest: -1 copied afresh, else the patches kept. */
static int kept_of(json_t *m)
{
	json_t *w = json_object_get(m, "work_tree");

	return json_is_true(json_object_get(w, "kept")) ? (int)json_integer_value(json_object_get(w, "patches_kept"))
							 : -1;
}

/* A fake tree (EXTRAVERSION -TAGpid, so no earlier run built it) whose vmlinux is its file data,
 * twelve lines a to l as the patches left them, then what the shell command also appends. */
static const char *data_tree(const char *name, const char *tag, const char *also)
{
	char extra[32], bz[600], path[800], lines[200] = "";
	const char *tree;

	snprintf(extra, sizeof(extra), "-%s%d", tag, (int)getpid());
	snprintf(bz, sizeof(bz),
		 "mkdir -p $(O)/arch/x86/boot $(O)/include/config; echo bz > $(O)/arch/x86/boot/bzImage; "
		 "cat data > $(O)/vmlinux; %s echo 6.1.0$(EXTRAVERSION) > $(O)/include/config/kernel.release",
		 also);
	tree = fake_tree(name, extra, NULL, bz);
	for (char c = 'a'; c <= 'l'; c++)
		snprintf(lines + strlen(lines), sizeof(lines) - strlen(lines), "%c\n", c);
	write_file((snprintf(path, sizeof(path), "%s/data", tree), path), lines);
	return tree;
}

/* One prefix after another in the kept work tree: each build undoes only what differs and makes
 * what a fresh copy would; a tree someone changed is copied afresh rather than trusted, and a
 * patch file changed under the same name is undone with the text that was applied. */
static void kept_work_tree(void)
{
	char text[800];
	const char *p1 = path_of("keep-1.patch"), *p2 = path_of("keep-2.patch");
	const char *tree = data_tree("kepttree", "kept", "");

	write_file(p1, "--- a/data\n+++ b/data\n@@ -1,4 +1,4 @@\n-a\n+A\n b\n c\n d\n");
	write_file(p2, "--- a/data\n+++ b/data\n@@ -9,4 +9,4 @@\n i\n j\n k\n-l\n+L\n");
	const char *both[] = { "kernel", "build", "-q", "--source", tree, "--patches", p1, "--patches", p2, NULL };
	const char *first[] = { "kernel", "build", "-q", "--source", tree, "--patches", p1, NULL };
	const char *second[] = { "kernel", "build", "-q", "--source", tree, "--patches", p2, NULL };
	char *out, *v;
	json_t *m;
	int rc;

	rc = run(both, 20, &out);
	v = rc ? NULL : built_vmlinux(out, &m);
	T_CHECK(v && v[0] == 'A' && strstr(v, "L\n") && kept_of(m) == -1, "both patches, a fresh copy: %d %s", rc, out);
	free(v), free(out), json_decref(m), m = NULL;

	rc = run(first, 20, &out);
	v = rc ? NULL : built_vmlinux(out, &m);
	T_CHECK(v && v[0] == 'A' && strstr(v, "l\n") && kept_of(m) == 1,
		"the first alone: the second undone in the kept tree, one patch kept (%d): %d %s", kept_of(m), rc, out);
	free(v), free(out), json_decref(m), m = NULL;

	rc = run(second, 20, &out);
	v = rc ? NULL : built_vmlinux(out, &m);
	T_CHECK(v && v[0] == 'a' && strstr(v, "L\n") && kept_of(m) == 0,
		"the second alone: the first undone, none kept (%d): %d %s", kept_of(m), rc, out);
	free(v), free(out), json_decref(m), m = NULL;

	/* someone edits the kept tree: undoing the second leaves a file that is not the source's */
	snprintf(text, sizeof(text), "%s/kbuild/build.work/src/data", cache);
	unlink(text);
	write_file(text, "a\nb\nc\nd\ne\nf\nSOMEONE\nh\ni\nj\nk\nL\n");
	rc = run(first, 20, &out); /* cached already: the tree is not touched */
	free(out);
	write_file(p1, "--- a/data\n+++ b/data\n@@ -1,4 +1,4 @@\n-a\n+Z\n b\n c\n d\n");
	rc = run(first, 20, &out);
	v = rc ? NULL : built_vmlinux(out, &m);
	T_CHECK(v && v[0] == 'Z' && !strstr(v, "SOMEONE") && strstr(v, "l\n") && kept_of(m) == -1,
		"an edited tree is copied afresh (%d): %d %s", kept_of(m), rc, out);
	free(v), free(out), json_decref(m), m = NULL;

	/* the kept tree has the new first patch; change it again under the same name: it is undone
	 * with the text that was applied (the tree keeps a copy), not the new one */
	write_file(p1, "--- a/data\n+++ b/data\n@@ -1,4 +1,4 @@\n-a\n+Y\n b\n c\n d\n");
	rc = run(first, 20, &out);
	v = rc ? NULL : built_vmlinux(out, &m);
	T_CHECK(v && v[0] == 'Y' && !strchr(v, 'Z') && kept_of(m) == 0,
		"a patch file changed under its name is undone from the kept copy (%d): %d %s", kept_of(m), rc, out);
	free(v), free(out), json_decref(m), m = NULL;

	/* the series copied elsewhere with a second patch: the first is kept by its contents */
	const char *e1 = path_of("elsewhere-1.patch"), *e2 = path_of("elsewhere-2.patch");

	write_file(e1, "--- a/data\n+++ b/data\n@@ -1,4 +1,4 @@\n-a\n+Y\n b\n c\n d\n");
	write_file(e2, "--- a/data\n+++ b/data\n@@ -9,4 +9,4 @@\n i\n j\n k\n-l\n+M\n");
	const char *moved[] = { "kernel", "build", "-q", "--source", tree, "--patches", e1, "--patches", e2, NULL };

	rc = run(moved, 20, &out);
	v = rc ? NULL : built_vmlinux(out, &m);
	T_CHECK(v && v[0] == 'Y' && strstr(v, "M\n") && kept_of(m) == 1,
		"a patch at another path with the same contents is kept (%d): %d %s", kept_of(m), rc, out);
	free(v), free(out), json_decref(m);
}

/* A --source directory that changes between builds (a git checkout, an edit): the kept tree
 * takes the new files, drops the removed ones and keeps its patches right. */
static void changed_source_tree(void)
{
	char path[800];
	const char *p2 = path_of("sync-2.patch");
	/* vmlinux: the data file, then the names of the extra files */
	const char *tree = data_tree("synctree", "sync", "ls extra >> $(O)/vmlinux;");

	mkdir((snprintf(path, sizeof(path), "%s/extra", tree), path), 0755);
	write_file((snprintf(path, sizeof(path), "%s/extra/old", tree), path), "old\n");
	write_file(p2, "--- a/data\n+++ b/data\n@@ -9,4 +9,4 @@\n i\n j\n k\n-l\n+L\n");
	const char *plain[] = { "kernel", "build", "-q", "--source", tree, NULL };
	const char *patched[] = { "kernel", "build", "-q", "--source", tree, "--patches", p2, NULL };
	char *out, *v;
	json_t *m = NULL;
	int rc;

	rc = run(plain, 20, &out);
	free(out);
	T_CHECK(rc == 0, "the tree builds: %d", rc);
	/* replaced (a new inode, as git checkout writes), one file added, one removed */
	snprintf(path, sizeof(path), "%s/data", tree);
	unlink(path);
	write_file(path, "A\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n");
	write_file((snprintf(path, sizeof(path), "%s/extra/new", tree), path), "new\n");
	unlink((snprintf(path, sizeof(path), "%s/extra/old", tree), path));
	rc = run(patched, 20, &out);
	v = rc ? NULL : built_vmlinux(out, &m);
	T_CHECK(v && v[0] == 'A' && strstr(v, "L\nnew\n") && !strstr(v, "old") && kept_of(m) == 0,
		"the changed tree, patched, in the kept tree (%d): %d %s / %s", kept_of(m), rc, out, v ?: "");
	free(v), free(out), json_decref(m), m = NULL;

	/* edited in place (the same inode) under the applied patch */
	snprintf(path, sizeof(path), "%s/data", tree);
	FILE *f = fopen(path, "r+");

	T_CHECK(f && fputs("B", f) >= 0 && fclose(f) == 0, "edited %s in place", path);
	rc = run(patched, 20, &out);
	v = rc ? NULL : built_vmlinux(out, &m);
	T_CHECK(v && v[0] == 'B' && strstr(v, "L\nnew\n") && kept_of(m) == 0,
		"an edit in place is built, the patch undone and applied again (%d): %d %s / %s", kept_of(m), rc, out,
		v ?: "");
	free(v), free(out), json_decref(m);
}

/* a failed make tinyconfig points to a log that exists and holds make's output. */
static void config_failure_keeps_log(void)
{
	const char *args[] = { "kernel", "build", "-q", "--source",
			       fake_tree("failtree", "-f", "echo boom-d16; exit 3", NULL), NULL };
	char *out, *see, *log = NULL;
	int rc = run(args, 20, &out);

	T_CHECK(rc == 1, "a failing tinyconfig exits 1: %d", rc);
	see = strstr(out, "see ");
	if (see) {
		see += 4;
		see[strcspn(see, " \n)")] = '\0';
		log = t_slurp(see);
	}
	T_CHECK(log && strstr(log, "boom-d16"), "the log it names (%s) holds make's output", see ?: "(none)");
	free(log);
	free(out);
}

/* One build expected to fail quickly; the message must contain want. */
static void refused(const char *what, const char *const args[], const char *want)
{
	char *out;
	double t0 = t_now_s();
	int rc = run(args, 15, &out);

	T_CHECK(rc == 1 && strstr(out, want), "%s: exit %d (want 1, saying '%s'): %s", what, rc, want, out);
	fprintf(stderr, "%s: exit %d in %.2f s: %s", what, rc, t_now_s() - t0, out);
	free(out);
}

/* Inputs once taken silently or hung on: an empty patch, a directory as --config, a FIFO named *.patch. */
static void bad_inputs(const char *tree)
{
	const char *empty = path_of("empty.patch"), *fifodir = path_of("fifopatches");
	char fifo[800];

	write_file(empty, "");
	const char *a1[] = { "kernel", "build", "-q", "--source", tree, "--patches", empty, NULL };
	refused("empty patch", a1, "empty");
	const char *a2[] = { "kernel", "build", "-q", "--source", tree, "--config", "/etc", NULL };
	refused("--config /etc", a2, "not a regular file");
	mkdir(fifodir, 0755);
	snprintf(fifo, sizeof(fifo), "%s/0001-x.patch", fifodir);
	mkfifo(fifo, 0644);
	const char *a3[] = { "kernel", "build", "-q", "--source", tree, "--patches", fifodir, NULL };
	refused("FIFO patch", a3, "not a regular file");

	/* what follows a NUL byte is checked too, so a NUL is refused */
	const char *nul = path_of("nul.config");
	FILE *f = fopen(nul, "w");

	if (f) {
		fwrite("CONFIG_SMP=y\0CONFIG_EVIL=y\n", 1, 27, f);
		fclose(f);
	}
	const char *a4[] = { "kernel", "build", "-q", "--source", tree, "--config", nul, NULL };
	refused("--config with a NUL byte", a4, "NUL byte");
	/* a file that is no config fragment is not echoed (it could be a link to /etc/shadow) */
	const char *secret = path_of("secret.txt");
	char *out;

	write_file(secret, "root:$6$notapassword:20228:0:99999:7:::\n");
	const char *a5[] = { "kernel", "build", "-q", "--source", tree, "--config", secret, NULL };
	int rc = run(a5, 15, &out);

	T_CHECK(rc == 1 && strstr(out, "no config fragment") && !strstr(out, "notapassword"),
		"a file that is no config is refused without quoting it: exit %d: %s", rc, out);
	free(out);
}

/* --config debian: usage errors, and a version Debian has no config for (refused before anything
 * is fetched or copied). */
static void config_debian_refused(const char *tree)
{
	const char *old_tree = fake_tree("tree-5.10", "", NULL, NULL);
	char mk[800], *out;
	int rc;

	const char *a1[] = { "kernel", "build", "--source", tree, "--config", "debian", "--config", "debian", NULL };
	rc = run(a1, 15, &out);
	T_CHECK(rc == 2 && strstr(out, "--config debian given twice"), "debian twice: exit %d (want 2): %s", rc, out);
	free(out);
	const char *a2[] = { "kernel", "build", "--source", tree, "--config-only", "-o", path_of("out"), NULL };
	rc = run(a2, 15, &out);
	T_CHECK(rc == 2 && strstr(out, "--config-only builds nothing"), "--config-only -o: exit %d (want 2): %s", rc,
		out);
	free(out);
	snprintf(mk, sizeof(mk), "%s/Makefile", old_tree);
	write_file(mk, "VERSION = 5\nPATCHLEVEL = 10\nSUBLEVEL = 0\nEXTRAVERSION =\n");
	const char *a3[] = { "kernel", "build", "--source", old_tree, "--config", "debian", "--config-only", NULL };
	refused("--config debian on a 5.10 tree", a3, "Debian ships no kernel config mgbench knows for 5.10");
}

/*
 * A patch that holds no diff, and a --metric no column has, are refused before anything is
 * built or booted: kernel build at once, and kernel bisect before it builds its good prefix
 * (it built and booted the prefixes before the bad patch, then failed once per filesystem).
 */
static void bisect_checks_first(const char *tree)
{
	const char *dir = path_of("m6-series"), *out = path_of("m6-bisect"), *out2 = path_of("m6-bisect-metric");
	char good[800], garbage[800], *o;
	struct stat st;
	int rc;

	mkdir(dir, 0755);
	snprintf(good, sizeof(good), "%s/0001-comment.patch", dir);
	snprintf(garbage, sizeof(garbage), "%s/0002-not-a-diff.patch", dir);
	write_file(good, "--- a/Kconfig\n+++ b/Kconfig\n@@ -1 +1,2 @@\n+# a comment\n source \"arch/x86/Kconfig\"\n");
	write_file(garbage, "Subject: a mail without its diff\n\nThe patch was not attached.\n");
	const char *a1[] = { "kernel", "build", "-q", "--source", tree, "--patches", dir, NULL };
	refused("kernel build: a patch without a diff", a1, "it holds no diff");
	const char *a2[] = { "kernel", "bisect", "-q", "--source", tree, "--patches", dir, "--good", "1", "--metric", "distinct",
			     "-o", out, "--", "run", "write", "--fs", "tmpfs", NULL };
	refused("kernel bisect: a patch without a diff", a2, "0002-not-a-diff.patch cannot be read: it holds no diff");
	T_CHECK(stat(out, &st) && errno == ENOENT, "the refused bisect made no %s", out);
	unlink(garbage);
	const char *a3[] = { "kernel", "bisect", "-q", "--source", tree, "--patches", dir, "--metric", "distinc", "-o",
			     out2, "--", "run", "write", "--fs", "tmpfs", NULL };
	rc = run(a3, 15, &o);
	T_CHECK(rc == 2 && strstr(o, "--metric 'distinc' is not a column of write") && strstr(o, "distinct"),
		"a mistyped --metric: exit %d (want 2, naming the columns): %s", rc, o);
	free(o);
	T_CHECK(stat(out2, &st) && errno == ENOENT, "the refused bisect made no %s", out2);
	unlink(good);
	rmdir(dir);
}

/* A git repository of a fake kernel tree: a first commit with the given subject (the good one a
 * bisect builds first), then another. */
static const char *git_tree(const char *name, const char *bz, const char *subject)
{
	const char *dir = fake_tree(name, "", NULL, bz);
	char kconfig[800], e[MGB_ERR_LEN];
	const char *init[] = { "git", "init", "-q", dir, NULL }, *add[] = { "git", "-C", dir, "add", "-A", NULL },
		   *c1[] = { "git", "-C", dir, "-c", "user.name=it", "-c", "user.email=it@mgbench", "commit", "-q", "-m",
			     subject, NULL },
		   *c2[] = { "git", "-C", dir, "-c", "user.name=it", "-c", "user.email=it@mgbench", "commit", "-q", "-m",
			     "second", NULL };
	int st;

	/* git keeps no empty directory, and a kernel tree has scripts/kconfig */
	snprintf(kconfig, sizeof(kconfig), "%s/scripts/kconfig/Makefile", dir);
	write_file(kconfig, "");
	st = mgb_capture(init, NULL, NULL, e) || mgb_capture(add, NULL, NULL, e) || mgb_capture(c1, NULL, NULL, e);
	snprintf(kconfig, sizeof(kconfig), "%s/Kconfig", dir);
	write_file(kconfig, "source \"arch/x86/Kconfig\"\n# the second commit\n");
	st = st || mgb_capture(add, NULL, NULL, e) || mgb_capture(c2, NULL, NULL, e);
	T_CHECK(!st, "a repository of %s: %s", name, e);
	return dir;
}

/* How many worktrees git lists for repo (its own included), and whether one is prunable. */
static unsigned worktrees(const char *repo, bool *prunable)
{
	const char *argv[] = { "git", "-C", repo, "worktree", "list", "--porcelain", NULL };
	char *out = NULL, e[MGB_ERR_LEN];
	unsigned n = 0;

	mgb_capture(argv, NULL, &out, e);
	for (const char *l = out; l && (l = strstr(l, "worktree ")); l++)
		n += l == out || l[-1] == '\n';
	*prunable = out && strstr(out, "prunable");
	free(out);
	return n;
}

/* a commit subject is printed without its escape sequences, C1 controls and bidi overrides. */
static void bisect_git_subject(void)
{
	const char *subject = "evil \033]0;title\007\033[2J \xc2\x9b" "31m red \xe2\x80\xae desrever \xe2\x81\xa6";
	const char *repo, *out = path_of("l2-bisect");
	char kb[800], *o;
	int rc;

	/* and on a fresh cache, without kbuild/ yet: bisect over git makes it for its worktree's lock
	 * (it failed with "kbuild/git-....lock: No such file or directory") */
	snprintf(kb, sizeof(kb), "%s", path_of("fresh-cache"));
	mkdir(kb, 0755);
	setenv("MGBENCH_CACHE", kb, 1);
	repo = git_tree("gitsubject", NULL, subject);
	/* the guest of the fake kernel fails, after the good commit's label was printed */
	const char *a1[] = { "kernel", "bisect", "--source", repo, "--good", "HEAD~1", "--metric", "distinct", "-o", out,
			     "--", "run", "write", "--fs", "tmpfs", NULL };
	rc = run(a1, 30, &o);
	T_CHECK(rc == 1, "the bisect of a fake kernel fails: exit %d: %s", rc, o);
	T_CHECK(strstr(o, "evil") && !strchr(o, '\033') && !strchr(o, '\007') && !strstr(o, "\xc2\x9b") &&
			!strstr(o, "\xe2\x80\xae") && !strstr(o, "\xe2\x81\xa6"),
		"the subject is printed, without ESC, BEL, U+009B, U+202E or U+2066: %s", o);
	T_CHECK(!strstr(o, "No such file"), "a fresh cache gets its kbuild/: %s", o);
	free(o);
	setenv("MGBENCH_CACHE", cache, 1);
}

/*
 * A failed bisect, and one stopped by SIGINT while make runs, leave no empty
 * mgbench-bisect directory (-o here) and no worktree entry in the user's repository.
 */
static void bisect_git_leftovers(void)
{
	const char *repo, *out = path_of("l3-failed"), *out2 = path_of("l3-int"), *mark = path_of("l3-make.pid");
	char slow[800], *o;
	struct stat st;
	bool prunable;
	int rc;

	snprintf(slow, sizeof(slow), "%s/kbuild", cache);
	mkdir(slow, 0755);
	repo = git_tree("gitfail", NULL, "a commit");
	/* the guest of the fake kernel fails */
	const char *a1[] = { "kernel", "bisect", "--source", repo, "--good", "HEAD~1", "--metric", "distinct", "-o", out,
			     "--", "run", "write", "--fs", "tmpfs", NULL };
	rc = run(a1, 30, &o);
	T_CHECK(rc == 1, "the bisect of a fake kernel fails: exit %d: %s", rc, o);
	free(o);
	T_CHECK(stat(out, &st) && errno == ENOENT, "the failed bisect left no empty %s", out);
	T_CHECK(worktrees(repo, &prunable) == 1 && !prunable, "the failed bisect left no worktree entry");

	/* stopped while make runs */
	snprintf(slow, sizeof(slow), "echo $$$$ > %s; exec sleep 60", mark);
	repo = git_tree("gitslow", slow, "slow");
	const char *a2[] = { "kernel", "bisect", "--source", repo, "--good", "HEAD~1", "--metric", "distinct", "-o", out2,
			     "--", "run", "write", "--fs", "tmpfs", NULL };
	pid_t pid = start(a2, NULL), child = pid_from(mark, 20);

	T_CHECK(child > 0, "make's recipe started");
	kill(pid, SIGINT);
	rc = wait_for(pid, 15);
	T_CHECK(rc == 130, "SIGINT during the bisect's make: exit %d", rc);
	T_CHECK(stat(out2, &st) && errno == ENOENT, "the stopped bisect left no empty %s", out2);
	T_CHECK(worktrees(repo, &prunable) == 1 && !prunable, "the stopped bisect left no worktree entry%s",
		prunable ? " (a prunable one)" : "");
	if (child > 0)
		kill(child, SIGKILL);
}

static void no_network(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWNET))
		_exit(125);
}

/*
 * Kernel build's downloads say they are kernel build's: offline (a network namespace of
 * its own), Debian's config for a 6.1 tree is fetched as linux-image, which fails after the
 * progress line; it read "mgbench vm: downloading".
 */
static void download_progress(const char *tree)
{
	const char *args[] = { "kernel", "build", "--source", tree, "--config", "debian", "--config-only", NULL };
	struct t_output o;

	t_mgbench_with(&o, args, no_network, NULL);
	if (o.status == 125) {
		t_output_free(&o);
		fprintf(stderr, "offline download: no network namespace here: not judged\n");
		return;
	}
	T_CHECK(o.status == 1 && strstr(o.err, "mgbench kernel: downloading linux-image-") && !strstr(o.err, "mgbench vm"),
		"offline --config debian: exit %d (want 1), progress as mgbench kernel: %s", o.status, o.err);
	t_output_free(&o);
}

/* kernel bisect over git, refused before a worktree is made or anything built: a directory
 * that is no repository, a revision it does not have, and a repository of something else. */
static void bisect_git_refused(void)
{
	const char *repo = path_of("notkernel"), *plain = path_of("plain"), *readme = path_of("notkernel/README");
	char kb[700], e[MGB_ERR_LEN];

	mkdir(plain, 0755);
	const char *init[] = { "git", "init", "-q", repo, NULL },
		   *add[] = { "git", "-C", repo, "add", "README", NULL },
		   *c[] = { "git", "-C", repo, "-c", "user.name=it", "-c", "user.email=it@mgbench", "commit", "-q",
			    "-m", "a commit", NULL };
	int st = mgb_capture(init, NULL, NULL, e);

	write_file(readme, "one\n");
	st = st || mgb_capture(add, NULL, NULL, e) || mgb_capture(c, NULL, NULL, e);
	write_file(readme, "two\n");
	st = st || mgb_capture(add, NULL, NULL, e) || mgb_capture(c, NULL, NULL, e);
	T_CHECK(!st, "a repository of two commits, no kernel in it");

	const char *a1[] = { "kernel", "bisect", "--source", plain, "--good", "HEAD", "--metric", "distinct", "--", "run",
			     "write", "--fs", "tmpfs", NULL };
	refused("bisect: no repository", a1, "--source is not a git work tree");
	const char *a2[] = { "kernel", "bisect", "--source", repo, "--good", "v9.9", "--metric", "distinct", "--", "run",
			     "write", "--fs", "tmpfs", NULL };
	refused("bisect: an unknown --good", a2, "--good v9.9 in ");
	const char *a3[] = { "kernel", "bisect", "--source", repo, "--good", "HEAD~1", "--metric", "distinct", "--",
			     "run", "write", "--fs", "tmpfs", NULL };
	refused("bisect: not a kernel", a3, "notkernel at --good HEAD~1 is not a Linux kernel tree (it has no Makefile)");
	snprintf(kb, sizeof(kb), "%s/kbuild", cache);
	DIR *d = opendir(kb);
	bool worktree = false;

	for (struct dirent *de; d && (de = readdir(d));)
		worktree |= !strncmp(de->d_name, "git-", 4);
	if (d)
		closedir(d);
	T_CHECK(!worktree, "no worktree (kbuild/git-*) was made in the cache");
}

/* string values with blanks and long values stick; parse errors are escaped; a
 * "# CONFIG_X is not set" for an option the kernel does not have is refused. */
static void config_fragments(const char *tree)
{
	const char *frag = path_of("frag.config"), *bin = path_of("bin.config"), *typo = path_of("typo.config");
	char text[1024], *out;
	int rc;

	snprintf(text, sizeof(text), "CONFIG_DEFAULT_HOSTNAME=\"my host\"\nCONFIG_CMDLINE=\"%0300d\"\n", 7);
	write_file(frag, text);
	const char *a1[] = { "kernel", "build", "-q", "--source", tree, "--config", frag, NULL };
	rc = run(a1, 20, &out);
	T_CHECK(rc == 0, "a string value with a blank, and one of 300 characters, stick: %d %s", rc, out);
	free(out);

	write_file(bin, "CONFIG_A=y\nCONFIG_B\033[31mred\001\n"); /* config-like, so its line may be quoted */
	const char *a2[] = { "kernel", "build", "-q", "--source", tree, "--config", bin, NULL };
	rc = run(a2, 15, &out);
	T_CHECK(rc == 1 && !strchr(out, '\033') && !strchr(out, '\001') && strstr(out, "\\x1b"),
		"a binary line is shown escaped: %d %s", rc, out);
	free(out);

	write_file(typo, "# CONFIG_TYPO is not set\n");
	const char *a3[] = { "kernel", "build", "-q", "--source", tree, "--config", typo, NULL };
	refused("# CONFIG_TYPO is not set", a3, "CONFIG_TYPO");
}

/* --config-only compiles nothing: it finishes while another build holds the shared work tree's
 * lock, in a work directory of its own that it removes; a SIGKILLed one's (nobody holds it) is
 * collected. */
static void config_only_does_not_wait(const char *tree)
{
	const char *args[] = { "kernel", "build", "-q", "--source", tree, "--config-only", NULL };
	char lock[800], pattern[800], dead[800], *out;
	glob_t g = { 0 };
	int fd, rc;

	snprintf(dead, sizeof(dead), "%s/kbuild/config-only.0badc0de", cache);
	mkdir(dead, 0700);
	snprintf(lock, sizeof(lock), "%s/kbuild/build.lock", cache);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	T_CHECK(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0, "the test holds %s", lock);
	rc = run(args, 60, &out);
	T_CHECK(rc == 0 && strstr(out, "CONFIG_"), "--config-only finishes while build.lock is held: exit %d: %.300s",
		rc, out);
	free(out);
	snprintf(pattern, sizeof(pattern), "%s/kbuild/config-only.*", cache);
	T_CHECK(glob(pattern, 0, NULL, &g) == GLOB_NOMATCH,
		"--config-only left no work directory, and the dead one's went (%zu left)", g.gl_pathc);
	globfree(&g);
	if (fd >= 0) {
		unlink(lock);
		close(fd);
	}
}

/* an EXTRAVERSION with ../ stays inside the cache. */
static void version_traversal(void)
{
	char p[800];
	const char *args[] = { "kernel", "build", "-q", "--source",
			       fake_tree("evil", "-x/../../../escaped", NULL, NULL), NULL };
	char *out;
	int rc;

	snprintf(p, sizeof(p), "%s/kbuild/6.1.0-x", cache);
	mkdir(p, 0755);
	rc = run(args, 20, &out);
	fprintf(stderr, "EXTRAVERSION with ../: exit %d: %s", rc, out);
	free(out);
	DIR *d = opendir(base);
	struct dirent *e;
	bool escaped = false;

	while (d && (e = readdir(d)))
		escaped |= !strncmp(e->d_name, "escaped", 7);
	if (d)
		closedir(d);
	T_CHECK(!escaped, "nothing named escaped* outside the cache");
	rmdir(p);
}

/* Entries in dir, dot files included. */
static unsigned count_all(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* The manifest's sha256 of each file matches the file. */
static void check_hashes(const char *dir)
{
	static const char *const files[] = { "bzImage", "vmlinux", ".config", "build.log" };
	char p[800], sha[65], err[256];
	json_t *m;

	snprintf(p, sizeof(p), "%s/manifest.json", dir);
	m = t_load(p);
	T_CHECK(m && json_is_object(json_object_get(m, "sha256")), "the manifest has sha256 {}");
	for (unsigned i = 0; m && i < MGB_ARRAY_SIZE(files); i++) {
		const char *want = json_string_value(json_object_get(json_object_get(m, "sha256"), files[i]));

		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		T_CHECK(want && !mgb_sha256_file(p, sha, err) && !strcmp(sha, want), "sha256 of %s: %s vs %s",
			files[i], want ?: "(none)", sha);
	}
	json_decref(m);
}

/* -o into directories others control, foreign directories, atomic replacement. */
static void output_dirs(const char *tree)
{
	const char *victim = path_of("victim"), *uout = path_of("userout"), *proj = path_of("proj");
	const char *okdir = path_of("ok"), *open_parent = path_of("open"), *sub = path_of("open/kout");
	char p[800], *s;

	/* another user's -o directory with a planted NAME.tmp symlink */
	write_file(victim, "root only\n");
	chmod(victim, 0600);
	mkdir(uout, 0755);
	snprintf(p, sizeof(p), "%s/bzImage.tmp", uout);
	symlink(victim, p);
	snprintf(p, sizeof(p), "%s/manifest.json", uout);
	write_file(p, "{}");
	if (chown(uout, 65534, 65534))
		fprintf(stderr, "chown: %s\n", strerror(errno));
	const char *a1[] = { "kernel", "build", "-q", "--source", tree, "-o", uout, NULL };
	refused("-o owned by another user", a1, "another user");
	s = t_slurp(victim);
	T_CHECK(s && !strcmp(s, "root only\n"), "the planted symlink's target is untouched");
	free(s);
	/* a new -o inside a directory every user can write (not sticky) */
	mkdir(open_parent, 0777);
	chmod(open_parent, 0777);
	const char *a2[] = { "kernel", "build", "-q", "--source", tree, "-o", sub, NULL };
	refused("-o in a world-writable directory", a2, "writable by every user");

	/* a directory that holds someone's manifest.json */
	mkdir(proj, 0755);
	snprintf(p, sizeof(p), "%s/manifest.json", proj);
	write_file(p, "{\"name\":\"my npm project\"}\n");
	const char *a3[] = { "kernel", "build", "-q", "--source", tree, "-o", proj, NULL };
	refused("-o with a foreign manifest.json", a3, "not a kernel build directory");
	s = t_slurp(p);
	T_CHECK(s && strstr(s, "npm"), "the foreign manifest is untouched");
	free(s);

	/* exported whole, with hashes; an earlier build directory is replaced whole */
	const char *a4[] = { "kernel", "build", "-q", "--source", tree, "-o", okdir, NULL };
	char *out;
	int rc = run(a4, 20, &out);

	T_CHECK(rc == 0, "-o into a new directory: %d %s", rc, out);
	free(out);
	check_hashes(okdir);
	const char *tree2 = fake_tree("tree2", "-two", NULL, NULL);
	const char *a5[] = { "kernel", "build", "-q", "--source", tree2, "-o", okdir, NULL };
	unsigned before = count_all(base);

	rc = run(a5, 20, &out);
	T_CHECK(rc == 0, "-o over an earlier build: %d %s", rc, out);
	free(out);
	check_hashes(okdir);
	snprintf(p, sizeof(p), "%s/vmlinux", okdir);
	s = t_slurp(p);
	T_CHECK(s && strstr(s, "-two"), "the new build replaced the old: %s", s ?: "");
	free(s);
	T_CHECK(count_all(base) == before, "nothing left beside -o: %u entries, want %u", count_all(base),
		before);
}

/*
 * -o is made, with its missing parents, and held open when the build starts.
 * Before, a missing parent under /tmp could be made by any user during the build, pointing at a
 * directory of root's, which root then replaced with the build, deleting what it held.  Here the
 * path is turned (by root, standing for whoever could) while make runs: the export refuses, and
 * the directory the path now leads to is not touched.
 */
static void output_held(bool replace_output)
{
	const char *a = path_of("c2/a"), *b = path_of("c2/a/b"), *kout = path_of("c2/a/b/kout");
	const char *victim = path_of("c2victim"), *vkout = path_of("c2victim/kout"), *mark = path_of("c2make.pid");
	const char *go = path_of("c2.go"), *moved = path_of("c2/a/b.moved"), *kmoved = path_of("c2/a/b/kout.moved");
	char tiny[1600], p[800], q[800], *out, *s;
	struct stat st;
	pid_t pid;
	int rc;

	unlink(mark);
	unlink(go);
	snprintf(tiny, sizeof(tiny), "echo $$$$ > %s; while [ ! -e %s ]; do sleep 0.1; done; : > $(O)/.config", mark,
		 go);
	const char *args[] = { "kernel", "build", "-q", "--source",
			       fake_tree(replace_output ? "c2tree2" : "c2tree", replace_output ? "-c2b" : "-c2", tiny, NULL), "-o", kout, NULL };

	mkdir(path_of("c2"), 0755);
	mkdir(victim, 0755);
	mkdir(vkout, 0755);
	snprintf(p, sizeof(p), "%s/important", vkout);
	write_file(p, "data\n");
	pid = start(args, NULL);
	T_CHECK(pid_from(mark, 120) > 0, "the build's make started");
	T_CHECK(!lstat(a, &st) && S_ISDIR(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022),
		"-o's missing parents are made, root's and 0755, when the build starts");
	T_CHECK(!lstat(kout, &st) && S_ISDIR(st.st_mode), "-o itself is made when the build starts");
	if (!replace_output) {
		/* what a user did before: a parent turned into a link to root's directory */
		T_CHECK(!rename(b, moved) && !symlink(victim, b), "turn %s: %s", b, strerror(errno));
	} else {
		/* -o itself moved away, and another directory with a file in its place */
		T_CHECK(!rename(kout, kmoved) && !mkdir(kout, 0755), "replace %s: %s", kout, strerror(errno));
		snprintf(q, sizeof(q), "%s/important", kout);
		write_file(q, "data\n");
	}
	write_file(go, "");
	rc = wait_for(pid, 300);
	out = t_slurp(path_of("async.err")) ?: strdup("");
	s = t_slurp(p);
	T_CHECK(s && !strcmp(s, "data\n"), "root's directory at the turned path keeps its file");
	free(s);
	T_CHECK(count_all(vkout) == 1, "nothing written there: %u entries", count_all(vkout));
	if (!replace_output) {
		/* the build goes into the directory held since the start, wherever it is now */
		T_CHECK(rc == 0 && strstr(out, "b.moved/kout"), "the build lands in the held -o: exit %d: %s", rc, out);
		snprintf(q, sizeof(q), "%s/kout", moved);
		check_hashes(q);
		unlink(b);
		snprintf(q, sizeof(q), "%s/kout", moved);
		mgb_remove_tree(moved);
	} else {
		T_CHECK(rc == 1 && strstr(out, "moved or replaced"), "the export refuses a replaced -o: exit %d: %s", rc,
			out);
		snprintf(q, sizeof(q), "%s/important", kout);
		s = t_slurp(q);
		T_CHECK(s && !strcmp(s, "data\n") && count_all(kout) == 1, "the directory put in its place is untouched");
		free(s);
		/* not removed: its name now holds another directory, and root does not go looking */
		T_CHECK(count_all(kmoved) == 0, "the -o this build made stays empty where it went: %u", count_all(kmoved));
		mgb_remove_tree(kmoved);
		mgb_remove_tree(b);
	}
	free(out);
}

/* kbuild's own cache directories are refused when others can write them. */
static void cache_dirs(const char *tree)
{
	static const char *const subs[] = { "kbuild", "src" };

	for (unsigned i = 0; i < 2; i++) {
		char c[800], p[900], name[32];
		const char *args[] = { "kernel", "build", "-q", "--source", tree, NULL };

		snprintf(name, sizeof(name), "cache-%s", subs[i]);
		snprintf(c, sizeof(c), "%s", path_of(name));
		mkdir(c, 0755);
		snprintf(p, sizeof(p), "%s/%s", c, subs[i]);
		mkdir(p, 0777);
		chmod(p, 0777);
		setenv("MGBENCH_CACHE", c, 1);
		snprintf(name, sizeof(name), "%s/ writable by all", subs[i]);
		refused(name, args, "writable by every user");
	}
	setenv("MGBENCH_CACHE", cache, 1);

	/* a build in the cache that others could write since is not exported */
	const char *t5 = fake_tree("l5tree", "-l5", NULL, NULL), *out5 = path_of("l5out");
	const char *args[] = { "kernel", "build", "-q", "--source", t5, NULL };
	const char *args_o[] = { "kernel", "build", "-q", "--source", t5, "-o", out5, NULL };
	char *out, key[900] = "";
	int rc = run(args, 60, &out);
	glob_t g = { 0 };

	T_CHECK(rc == 0, "the build to be cached: exit %d: %s", rc, out);
	free(out);
	snprintf(key, sizeof(key), "%s/kbuild/*-*", cache);
	glob(key, 0, NULL, &g);
	key[0] = '\0';
	for (size_t i = 0; i < g.gl_pathc; i++) { /* the key directory just made: the newest */
		struct stat st, best;

		char m[1000];

		snprintf(m, sizeof(m), "%s/manifest.json", g.gl_pathv[i]);
		if (!stat(g.gl_pathv[i], &st) && S_ISDIR(st.st_mode) && !access(m, F_OK) &&
		    (!key[0] || (!stat(key, &best) && (st.st_mtim.tv_sec > best.st_mtim.tv_sec ||
							     (st.st_mtim.tv_sec == best.st_mtim.tv_sec && st.st_mtim.tv_nsec >= best.st_mtim.tv_nsec)))))
			snprintf(key, sizeof(key), "%s", g.gl_pathv[i]);
	}
	globfree(&g);
	T_CHECK(key[0] && !chmod(key, 0777), "found the cached build: %s", key);
	refused("a cached build others can write", args_o, "writable by every user");
	if (key[0])
		chmod(key, 0755);
}

int main(void)
{
	const char *tree;

	/* the time limit allows for kernel builds, and the wait for another build holding the shared work tree */
	t_require(&(struct t_needs){ .root = true, .slow = true, .max_runtime_s = 14400 });
	snprintf(base, sizeof(base), "%s", t_result_path("kh"));
	mkdir(base, 0755);
	chmod(t_result_path(""), 0755);
	snprintf(cache, sizeof(cache), "%s/cache", base);
	mkdir(cache, 0755);
	setenv("MGBENCH_CACHE", cache, 1);
	tree = fake_tree("tree", "", NULL, NULL);

	T_RUN(signal_during_make(SIGINT));
	T_RUN(signal_during_make(SIGTERM));
	T_RUN(sigkill_during_copy());
	T_RUN(source_tree_key());
	T_RUN(fuzz_recorded());
	T_RUN(kept_work_tree());
	T_RUN(changed_source_tree());
	T_RUN(config_failure_keeps_log());
	T_RUN(bad_inputs(tree));
	T_RUN(config_fragments(tree));
	T_RUN(config_only_does_not_wait(tree));
	T_RUN(config_debian_refused(tree));
	T_RUN(bisect_git_refused());
	T_RUN(bisect_checks_first(tree));
	T_RUN(download_progress(tree));
	T_RUN(bisect_git_subject());
	T_RUN(bisect_git_leftovers());
	T_RUN(version_traversal());
	T_RUN(output_dirs(tree));
	T_RUN(output_held(false));
	T_RUN(output_held(true));
	T_RUN(cache_dirs(tree));
	return t_result();
}
