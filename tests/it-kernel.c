/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: mgbench kernel build makes a real kernel (Debian's linux-source-6.1, tinyconfig
 * plus mgbench's fragment) with a patch this test writes: it sets EXTRAVERSION, so the release
 * the guest reports proves the patch went in.  The build is kept in mgbench's cache, so CI's
 * second (sanitizer) pass and every later run reuse it.  Then mgbench vm boots it and runs write
 * and ordering on ext4 and tmpfs: coarse stamps (about one distinct ctime per tick), no
 * inversion.  Bad input fails early: a patch that does not apply, naming it and its hunk,
 * before anything compiles; a directory that is not a kernel tree.  --config debian makes
 * Debian's own 6.1 config, reduced to a guest (checked up to the config: it-kernel-hostile has
 * its bad input).
 */
#include "config.h"
#include "helpers.h"
#include "result.h"
#include "target.h"
#include "kbuild.h"
#include "proc.h"
#include "util.h"

#include <dirent.h>
#include <glob.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *tmp_path(const char *name)
{
	static char p[8][512];
	static int n;
	char *s = p[n++ % 8];

	snprintf(s, 512, "%s/it-kernel-%d-%s", getenv("TMPDIR") ?: "/tmp", (int)getpid(), name);
	return s;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		fprintf(stderr, "cannot write %s\n", path);
}

/* A hunk without context: it applies to any 6.1.y Makefile (SUBLEVEL changes, line 5 does not). */
static const char extraversion_patch[] =
	"mgbench it-kernel: name the build, so the guest's uname -r shows the patch went in\n"
	"\n"
	"--- a/Makefile\n"
	"+++ b/Makefile\n"
	"@@ -5 +5 @@\n"
	"-EXTRAVERSION =\n"
	"+EXTRAVERSION = -mgbtest\n";

/* Context that no 6.1 Makefile has. */
static const char bad_patch[] =
	"--- a/Makefile\n"
	"+++ b/Makefile\n"
	"@@ -1,3 +1,3 @@\n"
	" # SPDX-License-Identifier: GPL-2.0\n"
	"-VERSION = 99\n"
	"+VERSION = 100\n"
	" PATCHLEVEL = 1\n";

/* Applies at GNU patch's default fuzz (its last context line is not the Makefile's), not at 0. */
static const char fuzzy_patch[] =
	"--- a/Makefile\n"
	"+++ b/Makefile\n"
	"@@ -3,4 +3,4 @@\n"
	" PATCHLEVEL = 1\n"
	" SUBLEVEL = 192\n"
	"-EXTRAVERSION =\n"
	"+EXTRAVERSION = -fuzzy\n"
	" NAME = Not The Name\n";

/* Two patches for kernel bisect, after the extraversion one: a comment, then current_time() from
 * the fine clock, the naive design multigrain replaces (every write a new ctime). */
static const char comment_patch[] =
	"mgbench it-kernel: a comment, which changes no stamp\n"
	"\n"
	"--- a/fs/inode.c\n"
	"+++ b/fs/inode.c\n"
	"@@ -2524,7 +2524,7 @@\n"
	"  * @inode: inode.\n"
	"  *\n"
	"  * Return the current time truncated to the time granularity supported by\n"
	"- * the fs.\n"
	"+ * the fs, from the coarse clock: one value per tick.\n"
	"  *\n"
	"  * Note that inode and inode->sb cannot be NULL.\n"
	"  * Otherwise, the function warns and returns time without truncation.\n";

static const char fine_patch[] =
	"mgbench it-kernel: every stamp from the fine clock\n"
	"\n"
	"--- a/fs/inode.c\n"
	"+++ b/fs/inode.c\n"
	"@@ -2533,7 +2533,7 @@\n"
	" {\n"
	" \tstruct timespec64 now;\n"
	" \n"
	"-\tktime_get_coarse_real_ts64(&now);\n"
	"+\tktime_get_real_ts64(&now);\n"
	" \n"
	" \tif (unlikely(!inode->i_sb)) {\n"
	" \t\tWARN(1, \"current_time() called with uninitialized super_block in the inode\");\n";

static void not_a_tree(void)
{
	const char *dir = tmp_path("notakernel");
	char file[600];
	struct t_output o;

	mkdir(dir, 0755);
	snprintf(file, sizeof(file), "%s/Makefile", dir);
	write_file(file, "all:\n\ttrue\n");
	const char *args[] = { "kernel", "build", "--source", dir, NULL };
	t_mgbench(&o, args);
	T_CHECK(o.status == 1, "a non-kernel --source exits 1, got %d", o.status);
	T_CHECK(strstr(o.err, "is not a Linux kernel tree") != NULL, "says why: %s", o.err);
	T_CHECK(strchr(o.err, '\n') == o.err + strlen(o.err) - 1, "one line: %s", o.err);
	t_output_free(&o);
	unlink(file);
	rmdir(dir);
}

static void bad_patch_fails_early(void)
{
	const char *dir = tmp_path("badpatches");
	char p1[600], p2[600];
	struct t_output o;

	mkdir(dir, 0755);
	snprintf(p1, sizeof(p1), "%s/0001-extraversion.patch", dir);
	snprintf(p2, sizeof(p2), "%s/0002-does-not-apply.patch", dir);
	write_file(p1, extraversion_patch);
	write_file(p2, bad_patch);
	const char *args[] = { "kernel", "build", "-q", "--source", "debian:6.1", "--patches", dir, NULL };
	t_mgbench(&o, args);
	T_CHECK(o.status == 1, "a failing patch exits 1, got %d (%s)", o.status, o.err);
	T_CHECK(strstr(o.err, "patch 0002-does-not-apply.patch does not apply") != NULL, "names the patch: %s",
		o.err);
	T_CHECK(strstr(o.err, "hunk #1 of Makefile FAILED") != NULL, "names the hunk: %s", o.err);
	T_CHECK(!strstr(o.err, "compile"), "stops before compiling: %s", o.err);
	fprintf(stderr, "bad patch: %s", o.err);
	t_output_free(&o);
	unlink(p2);

	/* a patch that GNU patch would apply with fuzz 2 fails at fuzz 0, naming its hunk */
	snprintf(p2, sizeof(p2), "%s/0002-fuzzy.patch", dir);
	write_file(p2, fuzzy_patch);
	t_mgbench(&o, args);
	T_CHECK(o.status == 1 && strstr(o.err, "patch 0002-fuzzy.patch does not apply") &&
			strstr(o.err, "hunk #1 of Makefile FAILED"),
		"a fuzzy patch is refused at fuzz 0, naming the hunk: %d %s", o.status, o.err);
	t_output_free(&o);
	unlink(p1);
	unlink(p2);
	rmdir(dir);
}

/* The build: outputs, manifest, config; returns the release. */
static char *check_build(const char *out, const char *patch)
{
	char p[700], sha[65], err[256];
	const char *files[] = { "bzImage", "vmlinux", ".config", "build.log", "manifest.json" };
	json_t *m;
	char *config, *release = NULL;

	for (unsigned i = 0; i < 5; i++) {
		snprintf(p, sizeof(p), "%s/%s", out, files[i]);
		T_CHECK(access(p, R_OK) == 0, "the build directory has %s", files[i]);
	}
	snprintf(p, sizeof(p), "%s/manifest.json", out);
	m = t_load(p);
	T_CHECK(m != NULL, "manifest.json loads");
	if (!m)
		return NULL;
	const char *version = json_string_value(json_object_get(m, "version")) ?: "";
	const char *rel = json_string_value(json_object_get(m, "release")) ?: "";
	json_t *patches = json_object_get(m, "patches");

	T_CHECK(!strcmp(json_string_value(json_object_get(m, "source")) ?: "", "debian:6.1"), "source debian:6.1");
	T_CHECK(!strcmp(json_string_value(json_object_get(m, "config_base")) ?: "", "tinyconfig"),
		"config_base tinyconfig");
	T_CHECK(!strncmp(version, "6.1.", 4), "version 6.1.y: %s", version);
	T_CHECK(strlen(rel) > 8 && !strcmp(rel + strlen(rel) - 8, "-mgbtest"), "release carries the patch: %s", rel);
	T_CHECK(json_array_size(patches) == 1, "one patch in the manifest");
	T_CHECK(!strcmp(json_string_value(mgb_json_path(json_array_get(patches, 0), "name")) ?: "",
			"extraversion.patch"), "the patch's name");
	T_CHECK(mgb_sha256_file(patch, sha, err) == 0 &&
			!strcmp(json_string_value(mgb_json_path(json_array_get(patches, 0), "sha256")) ?: "", sha),
		"the patch's sha256");
	snprintf(p, sizeof(p), "%s/.config", out);
	T_CHECK(mgb_sha256_file(p, sha, err) == 0 &&
			!strcmp(json_string_value(json_object_get(m, "config_sha256")) ?: "", sha),
		"config_sha256 is the .config's");
	for (unsigned i = 0; i < 4; i++) {
		const char *want = json_string_value(json_object_get(json_object_get(m, "sha256"), files[i]));
		char f[700];

		snprintf(f, sizeof(f), "%s/%s", out, files[i]);
		T_CHECK(want && mgb_sha256_file(f, sha, err) == 0 && !strcmp(sha, want),
			"the manifest's sha256 of %s is the file's", files[i]);
	}
	config = t_slurp(p);
	T_CHECK(config && strstr(config, "\nCONFIG_EXT4_FS=y\n") && strstr(config, "\nCONFIG_XFS_FS=y\n") &&
			strstr(config, "\nCONFIG_BTRFS_FS=y\n") && strstr(config, "\nCONFIG_PVH=y\n") &&
			strstr(config, "\nCONFIG_IO_URING=y\n") && strstr(config, "\n# CONFIG_MODULES is not set\n") &&
			strstr(config, "\nCONFIG_HZ_250=y\n") && strstr(config, "\nCONFIG_HIGH_RES_TIMERS=y\n") &&
			strstr(config, "\nCONFIG_KVM_GUEST=y\n") && strstr(config, "\nCONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y\n"),
		"the fragment's options are in the config");
	free(config);
	release = strdup(rel);
	json_decref(m);
	return release;
}

static void boot(const char *kdir, const char *release)
{
	const char *path = t_result_path("guest.json");
	const char *args[] = { "vm", "--quiet", "--kernel", kdir, "--", "run", "write,ordering", "--fs",
			       "ext4,tmpfs", "--rounds", "2000", "-o", path, NULL };
	static const char *const fs[] = { "ext4", "tmpfs" };
	struct t_output o;
	json_t *doc;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "vm --kernel %s: exit %d: %s", kdir, o.status, o.err);
	t_output_free(&o);
	doc = t_load(path);
	T_CHECK(doc != NULL, "a guest document");
	if (!doc)
		return;
	T_CHECK(!strcmp(json_string_value(mgb_json_path(doc, "kernel.release")) ?: "", release),
		"the guest ran the build: release %s, want %s",
		json_string_value(mgb_json_path(doc, "kernel.release")) ?: "?", release);
	T_CHECK(!strcmp(json_string_value(mgb_json_path(doc, "vm.kernel_source.kind")) ?: "", "build"),
		"kernel_source.kind build");
	/* timed like Debian's kernels: HZ 250 as built, high-resolution timers as measured */
	T_CHECK(!strcmp(json_string_value(mgb_json_path(doc, "vm.kernel_config.options.CONFIG_HZ")) ?: "", "250"),
		"the guest kernel is built with HZ 250");
	T_CHECK(!strcmp(json_string_value(mgb_json_path(doc, "vm.kernel_config.options.CONFIG_HIGH_RES_TIMERS")) ?: "",
			"y"),
		"the guest kernel is built with high-resolution timers");
	/* Whether they are active when the probe runs is the guest's: a TCG guest under load switches
	 * to high resolution only once its clocksource is trusted (1 ns seen in one run, 4 ms in
	 * another), so it is reported, not judged. */
	fprintf(stderr, "guest hrtimer resolution %lld ns\n",
		(long long)json_integer_value(mgb_json_path(doc, "kernel.clocks.resolution_ns.monotonic")));
	fprintf(stderr, "guest clocksource %s, measured tick %lld ns\n",
		json_string_value(mgb_json_path(doc, "kernel.clocks.clocksource")) ?: "?",
		(long long)json_integer_value(mgb_json_path(doc, "kernel.clocks.coarse_tick_ns")));
	T_CHECK(!strcmp(json_string_value(json_object_get(json_array_get(mgb_json_path(doc,
					"vm.kernel_source.manifest.patches"), 0), "name")) ?: "",
			"extraversion.patch"),
		"the document carries the manifest");
	for (unsigned i = 0; i < 2; i++) {
		json_t *w = t_cell(doc, "write", fs[i]), *ord = t_cell(doc, "ordering", fs[i]);
		double per_tick = t_metric(w, "ctime.distinct_per_tick"), ratio = t_metric(w, "ctime.distinct_ratio");
		double inv = t_metric(ord, "inversions");

		T_CHECK(w && ord, "write and ordering cells on %s", fs[i]);
		/* at most one new stamp per tick; fewer when TCG delivers a late tick (as in it-vm) */
		T_CHECK(per_tick > 0.2 && per_tick < 2.0 && ratio < 0.1,
			"%s: distinct per tick %g (ratio %g), want about 1 (coarse)", fs[i], per_tick, ratio);
		T_CHECK(t_metric(w, "ctime.backwards") == 0, "%s: backwards 0", fs[i]);
		T_CHECK(inv == 0, "%s: ordering inversions %g, want 0", fs[i], inv);
		fprintf(stderr, "guest %s: distinct_per_tick %.3f ratio %.4f inversions %g\n", fs[i], per_tick,
			ratio, inv);
	}
	/* compare names the column by the build */
	const char *cargs[] = { "compare", path, path, NULL };
	t_mgbench(&o, cargs);
	T_CHECK(o.status == 0 && strstr(o.out, "+ 1 patch") != NULL, "compare labels the build: %s%s", o.out,
		o.err);
	t_output_free(&o);
	json_decref(doc);
}

/* The last line of a command's stderr, for a failed check's own line (a CI log may show no more). */
static const char *err_tail(const char *err)
{
	static char line[400];
	size_t n = err ? strlen(err) : 0;

	while (n && err[n - 1] == '\n')
		n--;
	size_t start = n;

	while (start && err[start - 1] != '\n')
		start--;
	snprintf(line, sizeof(line), "%.*s", (int)(n - start), err ? err + start : "");
	return line;
}

/*
 * kernel bisect over extraversion (known good: the build above, from the cache), the comment and
 * the fine clock names the fine clock on both filesystems, having tried the comment's prefix; the
 * prefixes after the first come from ccache.
 */
static void bisect(const char *extraversion)
{
	/* stable names: a patch's name is in the build's key, so a second run finds its builds */
	const char *dir = tmp_path("series"), *out = tmp_path("bisect");
	char p2[600], p3[600], doc[700];
	struct t_output o;
	double t0 = t_now_s();

	mkdir(dir, 0755);
	snprintf(p2, sizeof(p2), "%s/0002-comment.patch", dir);
	snprintf(p3, sizeof(p3), "%s/0003-fine-clock.patch", dir);
	write_file(p2, comment_patch);
	write_file(p3, fine_patch);
	const char *args[] = { "kernel", "bisect", "--source", "debian:6.1", "--patches", extraversion, "--patches", p2,
			       "--patches", p3, "--good", "1", "--metric", "distinct", "-o", out, "--", "run", "write",
			       "--fs", "ext4,tmpfs", "--rounds", "2000", NULL };
	t_mgbench(&o, args);
	fprintf(stderr, "bisect: %.0f s\n%s%s", t_now_s() - t0, o.out, o.err);
	T_CHECK(o.status == 0, "kernel bisect exits 0, got %d: %s", o.status, err_tail(o.err));
	/* the good prefix, the whole series, then the comment's: each with its times */
	T_CHECK(strstr(o.out, "3 prefixes tried, ") && strstr(o.out, "build s  guest s"), "three prefixes, timed: %s",
		o.out);
	T_CHECK(strstr(o.out, "ext4: first changed by patch 3 of 3, 0003-fine-clock.patch") &&
			strstr(o.out, "tmpfs: first changed by patch 3 of 3, 0003-fine-clock.patch"),
		"names the fine clock's patch on ext4 and tmpfs: %s", o.out);
	T_CHECK(strstr(o.out, "0003-fine-clock.patch (better distinct") != NULL, "the change is better distinct: %s",
		o.out);
	for (int k = 1; k <= 3; k++) {
		snprintf(doc, sizeof(doc), "%s/prefix-%02d.json", out, k);
		T_CHECK(access(doc, R_OK) == 0, "prefix %d was run: %s", k, doc);
	}
	snprintf(doc, sizeof(doc), "%s/prefix-00.json", out);
	T_CHECK(access(doc, F_OK) != 0, "the prefix below --good was not built");
	t_output_free(&o);
	mgb_remove_tree(out);
	unlink(p2);
	unlink(p3);
	rmdir(dir);
}

/* git in repo (NULL: none) with args; its output's first line in out (if given); 0 on success. */
static int git(const char *repo, const char *const args[], char *out, size_t len)
{
	const char *argv[32] = { "git" };
	size_t n = 1;
	char *text = NULL, e[MGB_ERR_LEN];
	int st;

	if (repo)
		argv[n++] = "-C", argv[n++] = repo;
	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	st = mgb_capture(argv, NULL, &text, e);
	if (st)
		fprintf(stderr, "git %s: %d %s%s\n", args[0], st, text ? text : "", st < 0 ? e : "");
	if (out)
		snprintf(out, len, "%.*s", text ? (int)strcspn(text, "\n") : 0, text ? text : "");
	free(text);
	return st;
}

/*
 * Commit repo's index on HEAD (on nothing when first) with git's plumbing: `git commit` checks the
 * index against the repository's own work tree, which is empty here (the files are the cache's
 * tree), 5 s a commit.
 */
static bool commit_index(const char *repo, const char *msg, bool first)
{
	char tree[100], head[100] = "", commit[100];
	const char *wt[] = { "write-tree", NULL }, *rp[] = { "rev-parse", "HEAD", NULL };

	if (git(repo, wt, tree, sizeof(tree)) || (!first && git(repo, rp, head, sizeof(head))))
		return false;
	const char *ct[] = { "commit-tree", tree, "-m", msg, first ? NULL : "-p", head, NULL };
	const char *ur[] = { "update-ref", "HEAD", commit, NULL };

	return !git(repo, ct, commit, sizeof(commit)) && *commit && !git(repo, ur, NULL, 0);
}

/*
 * kernel bisect over a git source: a repository of Debian's 6.1 (its files added from the
 * cache's unpacked source, which git only reads) with the extraversion, comment and fine-clock patches
 * as three commits.  --good at the extraversion commit names the fine clock's commit on both
 * filesystems; the repository's HEAD and worktrees are as they were, and mgbench's worktree is
 * gone.  The builds after the first follow the checkouts in the kept work tree.
 */
static void bisect_git(const char *extraversion)
{
	const char *repo = tmp_path("gitrepo"), *out = tmp_path("bisect-git"), *cache = getenv("MGBENCH_CACHE");
	char pattern[700], p2[700], p3[700], head[100], after[100], list[300];
	glob_t g = { 0 };
	struct t_output o;
	double t0;

	snprintf(pattern, sizeof(pattern), "%s/src/linux-source-6.1_*/linux-source-6.1",
		 cache ? cache : "/var/cache/mgbench");
	if (glob(pattern, 0, NULL, &g) || g.gl_pathc < 1) {
		T_CHECK(0, "the Debian source the builds above unpacked is in the cache (%s)", pattern);
		return;
	}
	const char *tree = g.gl_pathv[g.gl_pathc - 1];
	char wt[800], gd[800];

	/* from inside the tree, whose files git only reads; -f: Debian's .gitignore ignores every top-level path */
	snprintf(wt, sizeof(wt), "--work-tree=%s", tree);
	snprintf(gd, sizeof(gd), "--git-dir=%s/.git", repo);
	snprintf(p2, sizeof(p2), "%s.comment.patch", repo);
	snprintf(p3, sizeof(p3), "%s.fine.patch", repo);
	write_file(p2, comment_patch);
	write_file(p3, fine_patch);
	mgb_remove_tree(repo);
	t0 = t_now_s();
	{
		const char *init[] = { "init", "-q", repo, NULL }, *add[] = { "-C", tree, gd, wt, "add", "-A", "-f", NULL },
			   *id[] = { "config", "user.email", "it@mgbench", NULL },
			   *name[] = { "config", "user.name", "it-kernel", NULL },
			   /* objects stored, not deflated: half the time of adding 1.5 GB of source */
			   *loose[] = { "config", "core.looseCompression", "0", NULL },
			   /* no `gc --auto`: 70,000 loose objects start a repack in the background, a
			    * minute of CPU taken from the tests beside this one, killed when the repository goes */
			   *nogc[] = { "config", "gc.auto", "0", NULL },
			   *nomaint[] = { "config", "maintenance.auto", "false", NULL },
			   *a1[] = { "apply", "--cached", "--unidiff-zero", extraversion, NULL },
			   *a2[] = { "apply", "--cached", p2, NULL }, *a3[] = { "apply", "--cached", p3, NULL };

		T_CHECK(!git(NULL, init, NULL, 0) && !git(repo, id, NULL, 0) && !git(repo, name, NULL, 0) &&
				!git(repo, loose, NULL, 0) && !git(repo, nogc, NULL, 0) && !git(repo, nomaint, NULL, 0) &&
				!git(NULL, add, NULL, 0) && commit_index(repo, "Debian's linux-source-6.1", true) &&
				!git(repo, a1, NULL, 0) && commit_index(repo, "extraversion", false) &&
				!git(repo, a2, NULL, 0) && commit_index(repo, "a comment", false) &&
				!git(repo, a3, NULL, 0) && commit_index(repo, "every stamp from the fine clock", false),
			"a repository of the source and three commits");
	}
	globfree(&g);
	fprintf(stderr, "git repository: %.0f s\n", t_now_s() - t0);
	const char *rp[] = { "rev-parse", "HEAD", NULL }, *wl[] = { "worktree", "list", "--porcelain", NULL };

	git(repo, rp, head, sizeof(head));
	const char *args[] = { "kernel", "bisect", "--source", repo, "--good", "HEAD~2", "--metric", "distinct", "-o", out,
			       "--", "run", "write", "--fs", "ext4,tmpfs", "--rounds", "2000", NULL };

	/* a decoy exported as GIT_DIR and GIT_WORK_TREE: --source, not the environment, names the
	 * repository (HEAD~2 does not even exist in the decoy) */
	const char *decoy = tmp_path("decoy"), *dinit[] = { "init", "-q", decoy, NULL },
		   *dc[] = { "-c", "user.name=it", "-c", "user.email=it@mgbench", "commit", "-q", "--allow-empty", "-m",
			     "decoy", NULL };
	char decoy_git[700], decoy_head[100], decoy_after[100];

	mgb_remove_tree(decoy);
	snprintf(decoy_git, sizeof(decoy_git), "%s/.git", decoy);
	T_CHECK(!git(NULL, dinit, NULL, 0) && !git(decoy, dc, NULL, 0), "a decoy repository");
	git(decoy, rp, decoy_head, sizeof(decoy_head));
	setenv("GIT_DIR", decoy_git, 1);
	setenv("GIT_WORK_TREE", decoy, 1);
	t0 = t_now_s();
	t_mgbench(&o, args);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	fprintf(stderr, "bisect over git: %.0f s\n%s%s", t_now_s() - t0, o.out, o.err);
	git(decoy, rp, decoy_after, sizeof(decoy_after));
	T_CHECK(*decoy_head && !strcmp(decoy_head, decoy_after), "the decoy's HEAD is untouched: %s, %s", decoy_head,
		decoy_after);
	T_CHECK(o.status == 0, "kernel bisect over git exits 0, got %d: %s", o.status, err_tail(o.err));
	T_CHECK(strstr(o.out, "ext4: first changed by commit 2 of 2, ") &&
			strstr(o.out, "tmpfs: first changed by commit 2 of 2, ") &&
			strstr(o.out, " every stamp from the fine clock (better distinct"),
		"names the fine clock's commit on ext4 and tmpfs: %s", o.out);
	T_CHECK(strstr(o.out, "3 prefixes tried, ") != NULL, "the good commit and both after it were tried: %s", o.out);
	git(repo, rp, after, sizeof(after));
	git(repo, wl, list, sizeof(list));
	T_CHECK(!strcmp(head, after) && *head, "the repository's HEAD is where it was: %s, %s", head, after);
	T_CHECK(!strncmp(list, "worktree ", 9), "its first worktree is its own: %s", list);
	{
		char *all = NULL, e[MGB_ERR_LEN];
		const char *argv[] = { "git", "-C", repo, "worktree", "list", NULL };

		mgb_capture(argv, NULL, &all, e);
		unsigned lines = 0;

		for (const char *c = all ? all : ""; *c; c++)
			lines += *c == '\n';
		T_CHECK(all && lines == 1, "mgbench's worktree is gone: %s", all ? all : "");
		free(all);
	}
	t_output_free(&o);
	mgb_remove_tree(out);
	mgb_remove_tree(repo);
	mgb_remove_tree(decoy);
	unlink(p2);
	unlink(p3);
}

/* Of text's "CONFIG_X=y" lines (Debian's built-in options): how many, how many the other text
 * has too, and the names of those it offers but has off ("# CONFIG_X is not set"; one it lacks
 * altogether is hidden, its dependency a module turned off), in off. */
static void builtins_kept(const char *text, const char *other, int *builtin, int *kept, char *off, size_t len)
{
	*builtin = *kept = 0;
	*off = '\0';
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");
		char line[300];

		if (n < 3 || n + 20 >= sizeof(line) || strncmp(l, "CONFIG_", 7) || strncmp(l + n - 2, "=y", 2))
			continue;
		snprintf(line, sizeof(line), "\n%.*s\n", (int)n, l);
		(*builtin)++;
		*kept += strstr(other, line) != NULL;
		snprintf(line, sizeof(line), "\n# %.*s is not set\n", (int)n - 2, l);
		if (strstr(other, line))
			snprintf(off + strlen(off), len - strlen(off), " %.*s", (int)n - 2, l);
	}
}

/* --config debian: Debian's config for 6.1, from the linux-image package `vm --kernel
 * debian:6.1` boots, reduced to a guest; checked with --config-only (the full build takes
 * over 20 minutes on two CPUs: results/debian-config has one). */
static void debian_config(void)
{
	const char *cache = getenv("MGBENCH_CACHE") ?: "/var/cache/mgbench";
	const char *args[] = { "kernel", "build", "-q", "--source", "debian:6.1", "--config", "debian", "--config-only",
			       NULL };
	struct t_output o;
	char pattern[600];
	glob_t g = { 0 };

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "--config debian --config-only exits 0, got %d: %s", o.status, o.err);
	const char *c = o.out ? o.out : "";
	/* Debian's timekeeping, preemption and -O choices: its own, not the fragment's NO_HZ_IDLE */
	T_CHECK(strstr(c, "\nCONFIG_HZ=250\n") && strstr(c, "\nCONFIG_HIGH_RES_TIMERS=y\n") &&
			strstr(c, "\nCONFIG_NO_HZ_FULL=y\n") && strstr(c, "\nCONFIG_PREEMPT_VOLUNTARY=y\n") &&
			strstr(c, "\nCONFIG_PREEMPT_DYNAMIC=y\n") && strstr(c, "\nCONFIG_KVM_GUEST=y\n") &&
			strstr(c, "\nCONFIG_PARAVIRT_CLOCK=y\n") &&
			strstr(c, "\nCONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y\n"),
		"Debian 6.1's HZ 250, high-resolution timers, NO_HZ_FULL, voluntary/dynamic preemption, kvmclock, -O2");
	T_CHECK(strstr(c, "\n# CONFIG_MODULES is not set\n") && !strstr(c, "=m\n") &&
			strstr(c, "\nCONFIG_DEBUG_INFO_NONE=y\n"),
		"reduced: no modules, no =m left, no debug info");
	T_CHECK(strstr(c, "\nCONFIG_EXT4_FS=y\n") && strstr(c, "\nCONFIG_XFS_FS=y\n") &&
			strstr(c, "\nCONFIG_BTRFS_FS=y\n") && strstr(c, "\nCONFIG_VIRTIO_BLK=y\n") &&
			strstr(c, "\nCONFIG_IO_URING=y\n") && strstr(c, "\nCONFIG_EVENT_TRACING=y\n"),
		"built in: what a guest run needs (Debian has the filesystems as modules)");
	/* the base is Debian's file: what tinyconfig never has, and nearly all Debian builds in */
	snprintf(pattern, sizeof(pattern), "%s/debian/linux-image-6.1.*/boot/config-*", cache);
	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc >= 1) {
		char *shipped = t_slurp(g.gl_pathv[g.gl_pathc - 1]), off[4096];
		int builtin = 0, kept = 0;

		if (shipped)
			builtins_kept(shipped, c, &builtin, &kept, off, sizeof(off));
		/* off on purpose: modules, debug info (DWARF_TOOLCHAIN_DEFAULT is its =y choice) and
		 * btrfs's raid6 benchmark at every boot */
		T_CHECK(builtin > 1000 && kept > builtin / 2 &&
				strlen(off) == strlen(" CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT CONFIG_MODULES CONFIG_RAID6_PQ_BENCHMARK") &&
				strstr(off, " CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT") && strstr(off, " CONFIG_MODULES") &&
				strstr(off, " CONFIG_RAID6_PQ_BENCHMARK"),
			"every built-in option of Debian's the guest's config offers is built in but the three "
			"turned off on purpose: off:%s (%d of %d kept; %s)", off, kept, builtin, g.gl_pathv[g.gl_pathc - 1]);
		fprintf(stderr, "--config debian: %d of Debian's %d built-in options kept; off:%s\n", kept, builtin, off);
		free(shipped);
	} else {
		T_CHECK(false, "the linux-image package's config is in the cache (%s)", pattern);
	}
	globfree(&g);
	t_output_free(&o);
}

/* A build's key lock goes with the build: the cache keeps no .lock nobody holds. */
static void no_lock_left_behind(void)
{
	char dir[600], p[900];
	const char *cache = getenv("MGBENCH_CACHE") ?: "/var/cache/mgbench";
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/kbuild", cache);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		int fd;

		if (l < 6 || strcmp(e->d_name + l - 5, ".lock"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		/* one that another build holds now is that build's */
		T_CHECK(fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0, "no lock file left behind: %s", p);
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
}

int main(void)
{
	/* copies: tmp_path's ring of buffers is reused by the cases' own names before the end */
	char dir[512], out[512], out2[512], patch[600];
	struct t_output o;
	double t0, t_built, t_cached;
	bool compiled;
	char *release = NULL;

	/* the time limit allows for kernel builds, and the wait for another build holding the shared work tree */
	t_require(&(struct t_needs){ .root = true, .slow = true, .max_runtime_s = 14400 });
	/* after t_require: under the test's $TMPDIR, which its watchdog removes even after a timeout */
	snprintf(dir, sizeof(dir), "%s", tmp_path("patches"));
	snprintf(out, sizeof(out), "%s", tmp_path("kdir"));
	snprintf(out2, sizeof(out2), "%s", tmp_path("kdir2"));
	T_RUN(not_a_tree());
	T_RUN(bad_patch_fails_early());

	mkdir(dir, 0755);
	snprintf(patch, sizeof(patch), "%s/extraversion.patch", dir);
	T_RUN(write_file(patch, extraversion_patch));
	{
		const char *args[] = { "kernel", "build", "--source", "debian:6.1", "--patches", patch, "-o", out, NULL };

		t0 = t_now_s();
		t_mgbench(&o, args);
		t_built = t_now_s() - t0;
		compiled = !strstr(o.err, "from the cache");
		T_CHECK(o.status == 0, "kernel build exits 0, got %d: %s", o.status, o.err);
		fprintf(stderr, "build: %.1f s: %s", t_built, o.err);
		t_output_free(&o);
	}
	release = check_build(out, patch);
	{
		const char *args[] = { "kernel", "build", "--source", "debian:6.1", "--patches", patch, "-o", out2, NULL };

		t0 = t_now_s();
		t_mgbench(&o, args);
		t_cached = t_now_s() - t0;
		T_CHECK(o.status == 0, "the repeat exits 0, got %d: %s", o.status, o.err);
		T_CHECK(strstr(o.err, "from the cache") != NULL, "the repeat is served from the cache: %s", o.err);
		/* judged against the compile measured just before, never against a fixed time */
		if (compiled)
			T_CHECK(t_cached < t_built / 20, "the repeat takes under 1/20 of the compile: %.2f s against %.1f s",
				t_cached, t_built);
		else
			fprintf(stderr, "the first build came from the cache too: the repeat's time is not judged\n");
		fprintf(stderr, "cached build: %.2f s\n", t_cached);
		t_output_free(&o);
	}
	T_RUN(no_lock_left_behind());
	if (release)
		T_RUN(boot(out, release));
	T_RUN(bisect(patch));
	T_RUN(bisect_git(patch));
	T_RUN(debian_config());
	T_RUN(no_lock_left_behind());
	free(release);
	mgb_remove_tree(out);
	mgb_remove_tree(out2);
	unlink(patch);
	rmdir(dir);
	return t_result();
}
