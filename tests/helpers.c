/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "helpers.h"
#include "probe.h"
#include "result.h"
#include "proc.h"
#include "target.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int t_failures;
unsigned t_unjudged;
static char t_tmpdir[256];

/* TAP: the case being run, the last one ended, how many were printed, and the failures counted
 * when the open case started (or, between cases, when the last one ended). */
static const char *case_name, *last_case;
static unsigned cases, failures_mark;
static double case_start_s;
static char outside_name[256];

static void print_case(bool ok, const char *name)
{
	printf("%sok %u - %s\n", ok ? "" : "not ", ++cases, name);
	fflush(stdout);
}

/* Failures recorded outside any case become a case of their own, named by where they happened. */
static void flush_outside(void)
{
	if (case_name || t_failures <= (int)failures_mark)
		return;
	snprintf(outside_name, sizeof(outside_name), "%s: checks %s%s", program_invocation_short_name,
		 last_case ? "after " : "before the first case", last_case ? last_case : "");
	print_case(false, outside_name);
	failures_mark = (unsigned)t_failures;
}

void t_case_end(void)
{
	if (!case_name)
		return;
	print_case(t_failures <= (int)failures_mark, case_name);
	/* what was slow, in the test's log: a TAP comment after the case */
	if (t_now_s() - case_start_s >= 1) {
		printf("# %s took %.1f s\n", case_name, t_now_s() - case_start_s);
		fflush(stdout); /* or a child forked later prints it again at its exit */
	}
	last_case = case_name;
	case_name = NULL;
	failures_mark = (unsigned)t_failures;
}

void t_case(const char *name)
{
	t_case_end();
	flush_outside();
	case_name = name;
	case_start_s = t_now_s();
	failures_mark = (unsigned)t_failures;
}

void t_case_for(const char *call, const char *label)
{
	/* two names: the one ending is still needed as the last case's while the next starts */
	static char names[2][400];
	static unsigned n;
	char *name = names[n++ % 2];

	/* the function's name, not its arguments: they are the same text every time round */
	snprintf(name, sizeof(names[0]), "%.*s [%s]", (int)strcspn(call, "("), call, label);
	t_case(name);
}

/* The sanitizer pass ($MGB_CHECK_TIER=sanitizers). */
static bool t_tier_sanitizers(void)
{
	const char *tier = getenv("MGB_CHECK_TIER");

	return tier && !strcmp(tier, "sanitizers");
}

bool t_tier_runs_again(const char *name, const char *why)
{
	if (!t_tier_sanitizers())
		return true;
	t_case_end();
	flush_outside();
	printf("ok %u - %s # SKIP in the sanitizer pass: %s\n", ++cases, name, why);
	fflush(stdout);
	return false;
}

void t_not_judged(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "NOT JUDGED %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	t_unjudged++;
}

int t_result(void)
{
	t_case_end();
	if (!cases) /* a test without cases is one, named after the program */
		print_case(!t_failures, program_invocation_short_name);
	else
		flush_outside();
	if (t_unjudged)
		printf("# %u assertion%s not judged: the load took away %s precondition (NOT JUDGED in the log)\n",
		       t_unjudged, t_unjudged == 1 ? "" : "s", t_unjudged == 1 ? "its" : "their");
	printf("1..%u\n", cases);
	fflush(stdout);
	return t_failures ? T_FAIL : T_PASS;
}

_Noreturn void t_skip(const char *why)
{
	fprintf(stderr, "SKIP: %s\n", why);
	printf("1..0 # SKIP %s\n", why);
	fflush(stdout);
	exit(T_PASS); /* the driver reads the skip from the plan; a non-zero exit is an error to it */
}

/* Is name (a path, or a name to look up in PATH) an executable program? */
static bool have_program(const char *name)
{
	char path[4096];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	return mgb_find_program(name, NULL, path, sizeof(path)) == 0;
}

/* Registered (/proc/filesystems), or a module the first mount will load. */
static bool have_filesystem(const char *fs)
{
	static const char *const suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
	char line[128], path[512];
	struct utsname u;
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "re");

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *name = strrchr(line, '\t');

		name = name ? name + 1 : line;
		name[strcspn(name, "\n")] = '\0';
		found = !strcmp(name, fs);
	}
	if (f)
		fclose(f);
	for (size_t i = 0; !found && uname(&u) == 0 && i < MGB_ARRAY_SIZE(suffixes); i++) {
		snprintf(path, sizeof(path), "/lib/modules/%s/kernel/fs/%s/%s%s", u.release, fs, fs, suffixes[i]);
		found = access(path, R_OK) == 0;
	}
	return found;
}

static void require_filesystems(const char *list)
{
	char *copy = strdup(list), *save = NULL, why[160];

	for (char *fs = strtok_r(copy, ",", &save); fs; fs = strtok_r(NULL, ",", &save))
		if (!have_filesystem(fs)) {
			snprintf(why, sizeof(why), "the kernel has no %s (not registered, no module)", fs);
			t_skip(why);
		}
	free(copy);
}

static void require_kernel_config(const char *const *options)
{
	struct mgb_kconfig kc;
	char why[160];

	if (!options || !*options || mgb_kconfig_load(&kc))
		return;
	for (const char *const *o = options; *o; o++)
		if (!mgb_kconfig_enabled(&kc, *o)) {
			snprintf(why, sizeof(why), "the kernel was built without %s (%s)", *o, kc.source);
			t_skip(why);
		}
	mgb_kconfig_free(&kc);
}

/*
 * The watchdog: the test goes on in a child of its own process group; this process waits for it
 * and never returns.  Signals that would stop the test (a terminal's ^C reaches this process,
 * in make's process group) are passed on to its group.
 */
static pid_t watched;
static const char *test_tmpdir(void);
static volatile sig_atomic_t timed_out;

static void pass_on(int sig)
{
	if (watched > 0)
		kill(-watched, sig);
}

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

/* Reap the test if it has ended; true once its process group is empty. */
static bool group_gone(pid_t pid, bool *reaped, int *status)
{
	if (!*reaped && waitpid(pid, status, WNOHANG) == pid)
		*reaped = true;
	return *reaped && kill(-pid, 0) < 0 && errno == ESRCH;
}

/* SIGTERM to the group, up to grace_s for it to go, then SIGKILL.  True if anything was left. */
static bool stop_group(pid_t pid, bool *reaped, int *status, double grace_s)
{
	double t0 = t_now_s();

	if (group_gone(pid, reaped, status))
		return false;
	kill(-pid, SIGTERM);
	kill(-pid, SIGCONT);
	while (!group_gone(pid, reaped, status) && t_now_s() - t0 < grace_s)
		usleep(100 * 1000);
	kill(-pid, SIGKILL);
	if (!*reaped)
		waitpid(pid, status, 0);
	*reaped = true;
	/* killed processes of the group that the test had not reaped go to init: a moment */
	while (!group_gone(pid, reaped, status) && t_now_s() - t0 < grace_s + 5)
		usleep(50 * 1000);
	return true;
}

static void watch_runtime(unsigned secs)
{
	struct sigaction pass = { .sa_handler = pass_on }, alarm_sa = { .sa_handler = on_alarm };
	pid_t parent = getpid(), pid, w;
	bool reaped = false;
	int status = 0;

	test_tmpdir(); /* made here, so the watchdog knows it and removes it after a timeout */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "cannot fork the watchdog (%s): running without a time limit\n", strerror(errno));
		return;
	}
	if (pid == 0) {
		setpgid(0, 0);
		mgb_proc_die_with(parent, SIGTERM);
		return; /* the test goes on */
	}
	setpgid(pid, pid);
	watched = pid;
	sigaction(SIGINT, &pass, NULL);
	sigaction(SIGTERM, &pass, NULL);
	sigaction(SIGHUP, &pass, NULL);
	sigaction(SIGQUIT, &pass, NULL);
	sigaction(SIGALRM, &alarm_sa, NULL); /* no SA_RESTART: waitpid returns EINTR */
	alarm(secs);
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR && !timed_out)
		;
	reaped = w == pid;
	alarm(0);
	if (!reaped) {
		printf("Bail out! timed out after %u s (its time limit); its processes were stopped\n", secs);
		fflush(stdout);
		fprintf(stderr, "TIMEOUT: %s ran past its time limit of %u s (struct t_needs.max_runtime_s, "
			"$MGB_TIMEOUT_MUL): SIGTERM to its process group, SIGKILL 10 s later\n",
			program_invocation_short_name, secs);
		stop_group(pid, &reaped, &status, 10);
		t_cleanup();
		_exit(T_FAIL);
	}
	if (stop_group(pid, &reaped, &status, 10))
		fprintf(stderr, "%s: processes of the test were still running after it ended: stopped\n",
			program_invocation_short_name);
	if (access(t_tmpdir, F_OK) == 0) /* a test killed by a signal (a crash) did not remove it */
		t_cleanup();
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* The limit a test gets, in seconds; 0: none. */
static unsigned runtime_limit(const struct t_needs *needs)
{
	const char *mul = getenv("MGB_TIMEOUT_MUL");
	double m = mul && *mul ? strtod(mul, NULL) : 1, secs;

	secs = needs->max_runtime_s ? needs->max_runtime_s : needs->slow ? T_RUNTIME_SLOW_S : T_RUNTIME_S;
	return m > 0 ? (unsigned)fmin(secs * m, 30 * 24 * 3600) : 0;
}

void t_require(const struct t_needs *needs)
{
	const char *quick = getenv("MGB_CHECK_QUICK");

	if (needs->slow && quick && *quick && strcmp(quick, "0"))
		t_skip("slow: make check runs it, make check-quick does not");
	if (needs->root && geteuid() != 0)
		t_skip("needs root (scratch filesystems)");
	if (needs->filesystems)
		require_filesystems(needs->filesystems);
	require_kernel_config(needs->kernel_config);
#ifndef HAVE_LIBNFS
	if (needs->libnfs)
		t_skip("built without libnfs (no NFS backends)");
#endif
	for (const char *const *p = needs->programs; p && *p; p++)
		if (!**p || !have_program(*p)) {
			fprintf(stderr, "FAIL: %s missing (./bootstrap installs it)\n", **p ? *p : "a program configure did not find");
			printf("Bail out! %s missing (./bootstrap installs it)\n", **p ? *p : "a program");
			exit(T_FAIL);
		}
	if (runtime_limit(needs))
		watch_runtime(runtime_limit(needs));
}

void t_require_root(void)
{
	t_require(&(struct t_needs){ .root = true });
}

static char *slurp_fd(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;

	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 2)
			buf = realloc(buf, cap *= 2);
	}
	buf[len] = '\0';
	return buf;
}

char *t_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t cap = 0;

	if (f && getdelim(&s, &cap, '\0', f) < 0) {
		free(s);
		s = NULL;
	}
	if (f)
		fclose(f);
	return s;
}

void t_mgbench(struct t_output *o, const char *const args[])
{
	t_mgbench_with(o, args, NULL, NULL);
}

_Noreturn void t_exec_as_nobody(const char *const argv[])
{
	int fd = open(argv[0], O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		fprintf(stderr, "cannot become nobody to run %s: %s\n", argv[0], strerror(errno));
		_exit(126);
	}
	fexecve(fd, (char *const *)argv, environ);
	fprintf(stderr, "cannot run %s as nobody: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* argv for $MGBENCH (./mgbench by default) with args after it; at most 62 of them. */
static void mgbench_argv(const char *argv[64], const char *const args[])
{
	size_t n = 0;

	argv[n++] = getenv("MGBENCH") ?: "./mgbench";
	for (size_t i = 0; args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
}

struct child_setup {
	void (*fn)(void *);
	void *arg;
	bool nobody;
	const char *const *argv;
};

/* In the child, last before exec: the test's own setup, and for a user's run, nobody. */
static void mgbench_child(void *arg)
{
	const struct child_setup *c = arg;

	if (c->fn)
		c->fn(c->arg);
	if (c->nobody)
		t_exec_as_nobody(c->argv);
}

static void run_mgbench(struct t_output *o, const char *const args[], void (*child_setup)(void *), void *arg,
			bool nobody)
{
	char outtmp[] = "/tmp/mgbench-test-out.XXXXXX", errtmp[] = "/tmp/mgbench-test-err.XXXXXX";
	int ofd = mkstemp(outtmp), efd = mkstemp(errtmp), status = 0;
	const char *argv[64];
	struct child_setup setup = { child_setup, arg, nobody, argv };
	/* stdin stays the test's, as it always was: an interactive check may need it */
	struct mgb_proc_spec spec = { .argv = argv, .in = MGB_PROC_INHERIT, .out = MGB_PROC_FD, .out_fd = ofd,
				      .err = MGB_PROC_FD, .err_fd = efd, .setup = mgbench_child, .setup_arg = &setup };
	struct mgb_proc child;
	char err[MGB_ERR_LEN];

	unlink(outtmp);
	unlink(errtmp);
	mgbench_argv(argv, args);
	if (mgb_proc_start(&spec, &child, err) < 0 || mgb_proc_wait(child.pid, &status, err) < 0) {
		fprintf(stderr, "cannot run %s: %s\n", argv[0], err);
		status = 127 << 8;
	}
	o->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	lseek(ofd, 0, SEEK_SET);
	lseek(efd, 0, SEEK_SET);
	o->out = slurp_fd(ofd);
	o->err = slurp_fd(efd);
	close(ofd);
	close(efd);
	if (getenv("MGBENCH_TEST_VERBOSE"))
		fprintf(stderr, "$ %s ... -> %d\n%s%s", argv[1], o->status, o->out, o->err);
}

pid_t t_mgbench_start(const char *const args[], const char *out, const char *err)
{
	const char *argv[64];
	int ofd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	int efd = err && out && !strcmp(err, out) ? ofd : err ? open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	struct mgb_proc_spec spec = { .argv = argv, .in = MGB_PROC_INHERIT, .out = ofd >= 0 ? MGB_PROC_FD : MGB_PROC_NULL,
				      .out_fd = ofd, .err = efd >= 0 ? MGB_PROC_FD : MGB_PROC_INHERIT, .err_fd = efd };
	struct mgb_proc child;
	char why[MGB_ERR_LEN];

	mgbench_argv(argv, args);
	if (mgb_proc_start(&spec, &child, why) < 0)
		fprintf(stderr, "cannot start %s: %s\n", argv[0], why);
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0 && efd != ofd)
		close(efd);
	return child.pid;
}

void t_mgbench_with(struct t_output *o, const char *const args[], void (*child_setup)(void *), void *arg)
{
	run_mgbench(o, args, child_setup, arg, false);
}

void t_mgbench_as_nobody(struct t_output *o, const char *const args[])
{
	run_mgbench(o, args, NULL, NULL, true);
}

void t_output_free(struct t_output *o)
{
	free(o->out);
	free(o->err);
}

/*
 * Each test has its own temp dir, and the mgbench it runs gets TMPDIR=<it>/scratch, so the leak
 * checks look only at what this test's runs made, even with other tests running in parallel.
 */
static const char *test_tmpdir(void)
{
	char scratch[300];

	if (!t_tmpdir[0]) {
		snprintf(t_tmpdir, sizeof(t_tmpdir), "/tmp/mgbench-test.XXXXXX");
		if (!mkdtemp(t_tmpdir)) {
			perror("mkdtemp");
			exit(T_FAIL);
		}
		snprintf(scratch, sizeof(scratch), "%s/scratch", t_tmpdir);
		mkdir(scratch, 0700);
		/* make check's list of the suite's temp dirs: what tests/check-report looks under after it */
		if (getenv("MGB_SUITE_TMPDIRS") && *getenv("MGB_SUITE_TMPDIRS")) {
			int fd = open(getenv("MGB_SUITE_TMPDIRS"), O_WRONLY | O_APPEND | O_CLOEXEC);

			if (fd >= 0) {
				dprintf(fd, "%s\n", t_tmpdir);
				close(fd);
			}
		}
		setenv("TMPDIR", scratch, 1);
		atexit(t_cleanup); /* every test removes its temp dir, however it returns */
	}
	return t_tmpdir;
}

const char *t_result_path(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
	return path;
}

json_t *t_load(const char *path)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);

	if (!doc)
		fprintf(stderr, "cannot load %s: %s\n", path, je.text);
	return doc;
}

json_t *t_cell(json_t *doc, const char *workload, const char *fs)
{
	return t_cell_backend(doc, workload, fs, NULL);
}

json_t *t_cell_backend(json_t *doc, const char *workload, const char *fs, const char *backend)
{
	size_t i;
	json_t *cell;

	json_array_foreach(json_object_get(doc, "cells"), i, cell)
		if (!strcmp(t_str(cell, "workload"), workload) && !strcmp(t_str(cell, "fs"), fs) &&
		    (!backend || !strcmp(t_str(cell, "backend.name"), backend)))
			return cell;
	return NULL;
}

const char *t_str(json_t *j, const char *path)
{
	return json_string_value(mgb_json_path(j, path)) ?: "";
}

double t_metric(json_t *cell, const char *path)
{
	json_t *v = json_object_get(cell, "metrics");
	char key[128];

	while (v && *path) {
		size_t n = strcspn(path, ".");

		memcpy(key, path, n);
		key[n] = '\0';
		v = json_object_get(v, key);
		path += n + (path[n] == '.');
	}
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Lines of file holding needle, but not unless (when given). */
static unsigned count_lines_matching(const char *file, const char *needle, const char *unless)
{
	char line[4096];
	unsigned n = 0;
	FILE *f = fopen(file, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL && !(unless && strstr(line, unless));
	fclose(f);
	return n;
}

/* Loop devices whose backing file lies under this test's scratch dir. */
static unsigned count_bound_loops(const char *prefix)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[512];

		if (strncmp(e->d_name, "loop", 4))
			continue;
		char backing[4096] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(backing, sizeof(backing), f) && !strncmp(backing, prefix, strlen(prefix)))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

static unsigned count_tmp_dirs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "mgbench.", 8) || !strncmp(e->d_name, "mgbench-scratch.", 16);
	closedir(d);
	return n;
}

void t_host_snapshot(struct t_host *h)
{
	const char *scratch;

	test_tmpdir();
	scratch = getenv("TMPDIR");
	h->loop_mounts = count_lines_matching("/proc/self/mounts", scratch, NULL);
	/* mgbench's mounts outside any test's $TMPDIR: those under one are that test's (make -j
	 * check runs tests side by side), and this test's own are loop_mounts */
	h->tmp_mounts = count_lines_matching("/proc/self/mounts", "/mgbench.", "/mgbench-test.") +
			count_lines_matching("/proc/self/mounts", "/mgbench-scratch.", "/mgbench-test.");
	h->loop_devices = count_bound_loops(scratch);
	h->tmp_dirs = count_tmp_dirs(scratch);
}

void t_host_check_clean(const struct t_host *before, const char *when)
{
	struct t_host now;

	/* A loop device with autoclear detaches when its last user goes: allow it a moment. */
	for (int i = 0; i < 50; i++) {
		t_host_snapshot(&now);
		if (now.loop_devices <= before->loop_devices)
			break;
		usleep(100 * 1000);
	}
	T_CHECK(now.loop_mounts <= before->loop_mounts, "%s: mounts under $TMPDIR left: %u -> %u", when,
		before->loop_mounts, now.loop_mounts);
	T_CHECK(now.tmp_mounts <= before->tmp_mounts, "%s: mgbench mounts left: %u -> %u", when,
		before->tmp_mounts, now.tmp_mounts);
	T_CHECK(now.loop_devices <= before->loop_devices, "%s: loop devices left: %u -> %u", when,
		before->loop_devices, now.loop_devices);
	T_CHECK(now.tmp_dirs <= before->tmp_dirs, "%s: $TMPDIR/mgbench-scratch.* left: %u -> %u", when,
		before->tmp_dirs, now.tmp_dirs);
}

double t_check_coarse_bound(json_t *doc, json_t *cell, const char *label, double distinct, double rounds)
{
	json_t *clocks = json_object_get(json_object_get(doc, "kernel"), "clocks");
	json_t *floor_swaps = json_object_get(json_object_get(json_object_get(cell, "counters"), "multigrain"),
					      "floor_swaps");
	double tick = (double)json_integer_value(json_object_get(clocks, "coarse_tick_ns"));
	double res = (double)json_integer_value(json_object_get(json_object_get(clocks, "resolution_ns"),
								  "realtime_coarse"));
	double ticks;

	/*
	 * coarse_tick_ns is the kernel's coarse resolution, its tick; an older document recorded the
	 * smallest step its probe saw, which a busy machine doubles, never shortens.  The shorter of
	 * the two bounds the ticks honestly either way.
	 */
	if (res > 0 && (tick <= 0 || res < tick))
		tick = res;
	ticks = t_metric(cell, "elapsed_ns") / tick;
	double floor_moves = json_is_integer(floor_swaps) ? (double)json_integer_value(floor_swaps) : NAN;

	if (isnan(floor_moves)) {
		T_CHECK(distinct < rounds / 2, "%s: %g distinct of %g rounds should be far fewer (no counters to "
			"account for other processes' fine stamps)", label, distinct, rounds);
		return NAN;
	}
	/* A floor that moved more often than there were rounds allows anything: say so, judge nothing. */
	if (ticks + floor_moves + 3 >= rounds) {
		T_NOT_JUDGED("%s: the coarse bound: %.1f ticks + %g floor moves (a busy machine) allow all %g rounds "
			     "to be distinct", label, ticks, floor_moves, rounds);
		return floor_moves;
	}
	T_CHECK(distinct <= ticks + floor_moves + 3, "%s: %g distinct, more than %.1f ticks + %g floor moves allow",
		label, distinct, ticks, floor_moves);
	fprintf(stderr, "%s: %g distinct of %g rounds over %.1f ticks, %g floor moves\n", label, distinct, rounds,
		ticks, floor_moves);
	return floor_moves;
}

unsigned t_count_files(const char *dir, const char *keep)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.' && strcmp(e->d_name, "scratch") && (!keep || strcmp(e->d_name, keep));
	if (d)
		closedir(d);
	return n;
}

unsigned t_scratch_dirs(bool *all_empty)
{
	const char *tmp = getenv("TMPDIR") ?: "/tmp";
	DIR *d = opendir(tmp);
	struct dirent *e;
	unsigned n = 0;

	*all_empty = true;
	while (d && (e = readdir(d))) {
		char path[1024];

		if (strncmp(e->d_name, "mgbench-scratch.", 16))
			continue;
		n++;
		snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name);
		*all_empty = *all_empty && t_count_files(path, NULL) == 0;
	}
	if (d)
		closedir(d);
	return n;
}

/* One process's arguments, parent and state; false if it is gone. */
static bool read_proc(pid_t pid, struct t_proc *p, char *args, size_t cap)
{
	char path[64], stat[512] = "", *close_paren;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	len = fread(args, 1, cap - 1, f);
	fclose(f);
	args[len] = '\0';
	p->pid = pid;
	p->argc = 0;
	for (size_t i = 0; i < len && p->argc < 63; i += strlen(args + i) + 1)
		p->argv[p->argc++] = args + i;
	p->argv[p->argc] = NULL;
	memcpy(p->cmdline, args, len + 1);
	for (size_t i = 0; i + 1 < len; i++)
		p->cmdline[i] = p->cmdline[i] ? p->cmdline[i] : ' ';
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re"))) {
		if (!fgets(stat, sizeof(stat), f))
			stat[0] = '\0';
		fclose(f);
	}
	/* "pid (comm) S ppid ...": comm may hold anything, so read after its last parenthesis */
	close_paren = strrchr(stat, ')');
	p->zombie = close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
	p->ppid = close_paren ? (pid_t)atoi(close_paren + 4) : 0;
	return true;
}

unsigned t_find_procs(bool (*match)(const struct t_proc *p, const void *arg), const void *arg, pid_t skip,
		      pid_t *first)
{
	static struct t_proc p;
	static char args[sizeof(p.cmdline)];
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned n = 0;

	if (first)
		*first = 0;
	while (d && (e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid <= 0 || pid == skip || !read_proc(pid, &p, args, sizeof(args)) || !match(&p, arg))
			continue;
		if (first && !n)
			*first = pid;
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

bool t_proc_cmdline_has(const struct t_proc *p, const void *arg)
{
	return strstr(p->cmdline, arg) != NULL;
}

bool t_in_workload(pid_t pid, const char *workload)
{
	char path[64], comm[32] = "", want[32];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	snprintf(want, sizeof(want), "mgb-%s", workload);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	/* comm holds at most 15 characters */
	return !strncmp(comm, want, strlen(want) < 15 ? strlen(want) : 15);
}

double t_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

bool t_child_exited(pid_t pid)
{
	siginfo_t info = { 0 };

	return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid == pid;
}

bool t_wait_workload(pid_t pid, const char *workload)
{
	double t0 = t_now_s();

	while (!t_in_workload(pid, workload) && !t_child_exited(pid) && t_now_s() - t0 < 300)
		usleep(20 * 1000);
	return t_in_workload(pid, workload);
}

unsigned t_occurrences(const char *text, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

void t_cleanup(void)
{
	if (t_tmpdir[0])
		mgb_remove_tree(t_tmpdir);
	t_tmpdir[0] = '\0';
}

json_t *t_cost_phase(json_t *cell, const char *kind, int cycle)
{
	json_t *ph;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(cell, "metrics"), "phases"), i, ph)
		if (!strcmp(json_string_value(json_object_get(ph, "kind")) ?: "", kind) &&
		    (cycle < 0 || json_integer_value(json_object_get(ph, "cycle")) == cycle))
			return ph;
	return NULL;
}
