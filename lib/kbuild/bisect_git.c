/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel bisect over a git source: the commits from --good to --bad on the first-parent line
 * (what `git bisect start --first-parent` walks) stand where a series' prefixes do.  Each is
 * checked out in a worktree of mgbench's own beside its builds, never in the user's: their
 * checkout, index and branches stay as they are, and the worktree is removed at the end.  The
 * worktree's path is the same for every bisect of a repository, so the build's kept tree
 * follows it from commit to commit, copying in the files a checkout changed.
 */
#include "config.h"
#include "kbuild.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* git's output, its first line trimmed, or NULL with err naming the command and git's words. */
static char *git_line(const char *const argv[], const char *what, char *err)
{
	char *out = NULL, e[MGB_ERR_LEN];
	int st = mgb_capture(argv, NULL, &out, e);

	if (st) {
		if (out)
			out[strcspn(out, "\n")] = '\0';
		mgb_err(err, "%s: %s", what, st < 0 ? e : out && *out ? out : "git failed");
		free(out);
		return NULL;
	}
	if (!out)
		out = strdup("");
	else
		out[strcspn(out, "\n")] = '\0';
	return out;
}

/* REV as a full commit id in repo; a REV like an option is refused (git would read it as one). */
static char *resolve(const char *repo, const char *rev, const char *opt, char *err)
{
	char spec[300], what[400];

	if (!*rev || rev[0] == '-' || strlen(rev) > 256) {
		mgb_err(err, "%s '%.100s' is not a revision", opt, rev);
		return NULL;
	}
	snprintf(spec, sizeof(spec), "%s^{commit}", rev);
	snprintf(what, sizeof(what), "%s %.100s in %.200s", opt, rev, repo);
	const char *argv[] = { "git", "-C", repo, "rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL };
	char *id = git_line(argv, what, err);

	if (!id)
		mgb_err(err, "%s: no such commit", what);
	else if (strlen(id) < 40) {
		mgb_err(err, "%s: not a commit", what);
		free(id);
		id = NULL;
	}
	return id;
}

static int git_quiet(const char *const argv[], const char *what, char *err)
{
	char *s = git_line(argv, what, err);

	free(s);
	return s ? 0 : -1;
}

/*
 * --source names the repository: an exported GIT_DIR (or GIT_WORK_TREE, GIT_INDEX_FILE, ...)
 * would make every `git -C SOURCE` below read another one's commits.  git lists the variables
 * that locate a repository; drop them, as git's own scripts do before entering another one.
 */
static void drop_repository_env(void)
{
	const char *argv[] = { "git", "rev-parse", "--local-env-vars", NULL };
	char *out = NULL, e[MGB_ERR_LEN], *save = NULL;

	if (mgb_capture(argv, NULL, &out, e) == 0 && out)
		for (char *v = strtok_r(out, "\n", &save); v; v = strtok_r(NULL, "\n", &save))
			if (!strncmp(v, "GIT_", 4))
				unsetenv(v);
	free(out);
}

int mgb_bisect_git_open(const char *source, const char *good, const char *bad, struct mgb_bisect_git *g, char *err)
{
	char *cache = NULL, *out = NULL, hex[65], e[MGB_ERR_LEN];
	int rc = -1;

	memset(g, 0, sizeof(*g));
	g->lockfd = -1;
	drop_repository_env();
	{
		const char *argv[] = { "git", "-C", source, "rev-parse", "--show-toplevel", NULL };

		if (!(g->repo = git_line(argv, "--source is not a git work tree", err)))
			goto out;
	}
	if (!(g->commits = calloc(1, sizeof(*g->commits))) || !(g->commits[0] = resolve(g->repo, good, "--good", err)) ||
	    !(g->bad = resolve(g->repo, bad ? bad : "HEAD", "--bad", err)))
		goto out;
	/* what a kernel build looks for, asked of the commit itself: a repository of something else
	 * is refused naming it, before a worktree is made or the cache is touched */
	for (size_t i = 0; mgb_kb_tree_files[i]; i++) {
		char obj[200];

		snprintf(obj, sizeof(obj), "%s:%s", g->commits[0], mgb_kb_tree_files[i]);
		const char *argv[] = { "git", "-C", g->repo, "cat-file", "-e", obj, NULL };

		if (mgb_capture(argv, NULL, &out, e)) {
			mgb_err(err, "--source %.200s at --good %.60s is not a Linux kernel tree (it has no %s)", g->repo,
				good, mgb_kb_tree_files[i]);
			goto out;
		}
		free(out);
		out = NULL;
	}
	{
		const char *argv[] = { "git", "-C", g->repo, "merge-base", "--is-ancestor", g->commits[0], g->bad, NULL };

		if (mgb_capture(argv, NULL, &out, e)) {
			mgb_err(err, "--good %.60s is not an ancestor of --bad %.60s", good, bad ? bad : "HEAD");
			goto out;
		}
		free(out);
		out = NULL;
	}
	{
		char range[200];

		snprintf(range, sizeof(range), "%s..%s", g->commits[0], g->bad);
		const char *argv[] = { "git", "-C", g->repo, "rev-list", "--first-parent", "--reverse", range, NULL };

		if (mgb_capture(argv, NULL, &out, e)) {
			mgb_err(err, "git rev-list %s: %s", range, out ? out : e);
			goto out;
		}
	}
	for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char **nc = realloc(g->commits, (g->n + 2) * sizeof(*nc));

		if (!nc || !(nc[g->n + 1] = strdup(l))) {
			if (nc)
				g->commits = nc;
			mgb_err(err, "out of memory");
			goto out;
		}
		g->commits = nc;
		g->n++;
	}
	if (!g->n) {
		mgb_err(err, "--good and --bad are the same commit: nothing to bisect");
		goto out;
	}
	if (!(g->labels = calloc(g->n + 1, sizeof(*g->labels))))
		goto oom;

	/* the worktree: one per repository, beside the builds; one bisect of it at a time */
	if (!(cache = mgb_cache_dir(err)))
		goto out;
	mgb_sha256_buf(g->repo, strlen(g->repo), hex);
	if (asprintf(&g->worktree, "%s/kbuild/git-%.16s", cache, hex) < 0) {
		g->worktree = NULL;
		goto oom;
	}
	char lock[PATH_MAX + 8];

	/* a fresh cache has no kbuild/ yet: made as kernel build makes it, and checked */
	snprintf(lock, sizeof(lock), "%s/kbuild", cache);
	if (mkdir(lock, 0755) && errno != EEXIST) {
		mgb_err(err, "cannot create %s: %s", lock, strerror(errno));
		goto out;
	}
	if (mgb_check_trusted_dir(lock, false, err))
		goto out;
	snprintf(lock, sizeof(lock), "%s.lock", g->worktree);
	if ((g->lockfd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0 ||
	    flock(g->lockfd, LOCK_EX | LOCK_NB)) {
		mgb_err(err, "%s: %s", lock, errno == EWOULDBLOCK ? "another bisect of this repository is running"
								  : strerror(errno));
		goto out;
	}
	mgb_bisect_git_remove_worktree(g); /* what a killed bisect left */
	{
		const char *argv[] = { "git", "-C", g->repo, "worktree", "add", "--detach", "--force", g->worktree,
				       g->commits[0], NULL };

		if (git_quiet(argv, "git worktree add", err))
			goto out;
	}
	g->added = true;
	rc = 0;
	goto out;
oom:
	mgb_err(err, "out of memory");
out:
	free(cache);
	free(out);
	return rc;
}

int mgb_bisect_git_checkout(struct mgb_bisect_git *g, size_t k, char *err)
{
	const char *argv[] = { "git", "-C", g->worktree, "checkout", "--quiet", "--detach", "--force", g->commits[k],
			       NULL };

	return git_quiet(argv, "git checkout", err);
}

const char *mgb_bisect_git_label(struct mgb_bisect_git *g, size_t k)
{
	if (!g->labels[k]) {
		const char *argv[] = { "git", "-C", g->repo, "log", "-1", "--format=%h %s", g->commits[k], NULL };
		char e[MGB_ERR_LEN];

		g->labels[k] = git_line(argv, "git log", e);
		if (!g->labels[k])
			g->labels[k] = strndup(g->commits[k], 12);
		/* a subject is anyone's text: no escape sequence, C1 control or bidi override from it
		 * reaches the terminal */
		if (g->labels[k])
			mgb_printable(g->labels[k]);
	}
	return g->labels[k] ? g->labels[k] : "?";
}

/*
 * Not through mgb_capture, which stops its child at once when a stop has been requested: after
 * SIGINT this is the cleanup itself, and the user's repository kept a stale, prunable worktree
 * entry.  git's output goes to /dev/null; a failure is no one's to report.
 */
void mgb_bisect_git_remove_worktree(struct mgb_bisect_git *g)
{
	char e[MGB_ERR_LEN];
	const char *rm[] = { "git", "-C", g->repo, "worktree", "remove", "--force", g->worktree, NULL };
	const char *prune[] = { "git", "-C", g->repo, "worktree", "prune", NULL };

	if (!g->worktree || !g->repo)
		return;
	mgb_run_program(rm, e);
	mgb_remove_tree(g->worktree);
	mgb_run_program(prune, e);
}

void mgb_bisect_git_close(struct mgb_bisect_git *g)
{
	if (g->added)
		mgb_bisect_git_remove_worktree(g);
	if (g->lockfd >= 0) {
		char lock[PATH_MAX + 8];

		snprintf(lock, sizeof(lock), "%s.lock", g->worktree);
		unlink(lock);
		close(g->lockfd);
	}
	for (size_t k = 0; g->commits && k <= g->n; k++)
		free(g->commits[k]);
	for (size_t k = 0; g->labels && k <= g->n; k++)
		free(g->labels[k]);
	free(g->commits);
	free(g->labels);
	free(g->repo);
	free(g->bad);
	free(g->worktree);
	memset(g, 0, sizeof(*g));
	g->lockfd = -1;
}
