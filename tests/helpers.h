/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test helpers.  Every test is a C program that reports TAP on stdout (automake's tap-driver):
 * its named cases as "ok N - name" or "not ok N - name", then the plan; a skip is "1..0 # SKIP
 * why".  It also exits 0, or 1 on a failure, so it reads the same when run by hand.  Failure
 * details go to stderr, which the driver keeps in the test's log.  Integration tests run the
 * real mgbench binary ($MGBENCH) on real filesystems it makes itself, so they need root; they
 * check the host stays clean.
 */
#ifndef MGB_TEST_HELPERS_H
#define MGB_TEST_HELPERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

/* The filesystems mainline gives multigrain timestamps, and those with ramfs, the coarse control
 * that tells a measurement from an artefact of the harness. */
#define T_FS_MULTIGRAIN "ext4,xfs,btrfs,tmpfs"
#define T_FS_ALL T_FS_MULTIGRAIN ",ramfs"

#define T_PASS 0
#define T_FAIL 1

extern int t_failures;

/* Record a failure (with file:line and a message) and go on: one run reports every problem. */
#define T_CHECK(cond, ...)                                                          \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                               \
			fputc('\n', stderr);                                        \
			t_failures++;                                               \
		}                                                                   \
	} while (0)

/*
 * An assertion whose precondition is time or a CPU (a thread that ran, a rate reached, a runtime
 * met) that the machine's load took away: not judged, neither passed nor failed, and said on one
 * line ("NOT JUDGED file:line: why, with the figures") on stderr, in the test's log.  The test
 * checks the precondition from what the run recorded, then either T_CHECKs or T_NOT_JUDGEDs.
 * t_result() counts them in a TAP comment, and make check's summary lists them.
 */
#define T_NOT_JUDGED(...) t_not_judged(__FILE__, __LINE__, __VA_ARGS__)
void t_not_judged(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
extern unsigned t_unjudged;

/*
 * Start the case called name (a string that outlives it): the failures T_CHECK records from here
 * to t_case_end(), the next t_case() or t_result() make it "not ok".  Failures outside any case
 * are reported as a case of their own, named after the case they followed, so they are never
 * booked to a case that had ended.  A test without t_case() is one case named after the program.
 */
void t_case(const char *name);
void t_case_end(void);
/* A case named by its own call, ended when the call returns: T_RUN(write_every(false)) runs the
 * case "write_every(false)". */
#define T_RUN(call)             \
	do {                    \
		t_case(#call);  \
		call;           \
		t_case_end();   \
	} while (0)
/*
 * Whether to run a case that boots a guest or builds a kernel again along host-side C paths an
 * earlier case of the suite already ran (another kernel, another filesystem, the same code).
 * The suite's sanitizer pass ($MGB_CHECK_TIER=sanitizers, .ci/run's second pass, whose build has
 * ASan and UBSan) runs each such path once: there this reports the case "ok N - name # SKIP why"
 * and returns false; everywhere else it returns true.
 */
bool t_tier_runs_again(const char *name, const char *why);
/* T_RUN for a call in a loop: each case named by the function and what differs, "fn [label]". */
#define T_RUN_FOR(label, call)              \
	do {                                \
		t_case_for(#call, label);   \
		call;                       \
		t_case_end();               \
	} while (0)
void t_case_for(const char *call, const char *label);
/* End the last case, print the plan, and return main's exit code (T_PASS or T_FAIL). */
int t_result(void);
/* Skip the whole test, saying why on one line: for a precondition t_require() cannot name. */
_Noreturn void t_skip(const char *why);

/*
 * What a test needs before it starts, declared once at the top of main (LTP's struct tst_test):
 * t_require() ends the test with one line naming the first need that is missing.
 */
struct t_needs {
	bool root;   /* skip (77) unless root: scratch filesystems need it */
	bool libnfs; /* skip unless mgbench was built with libnfs (its NFS backends) */
	/* Programs the test drives, NULL-terminated (a path, or a name looked up in PATH).  ./bootstrap
	 * installs them all, so a missing one fails the test: skipping would test nothing. */
	const char *const *programs;
	/* Filesystems the test mounts, comma-separated (T_FS_ALL): skip if the kernel has one
	 * neither registered nor as a module. */
	const char *filesystems;
	/* Kernel options the test needs (NULL-terminated, "CONFIG_IO_URING"): skip if the running
	 * kernel's config says one is not set; run if the config cannot be read. */
	const char *const *kernel_config;
	/* Takes minutes (guests, kernel builds, servers, sweeps): make check runs it, make
	 * check-quick (MGB_CHECK_QUICK=1) skips it. */
	bool slow;
	/*
	 * The time limit in seconds (LTP's max_runtime): 0 is T_RUNTIME_S, or T_RUNTIME_SLOW_S for a
	 * slow test; $MGB_TIMEOUT_MUL scales it (a slower machine, sanitizers), 0 there lifts it.
	 * The test runs in a process group of its own under a watchdog (this process); past the
	 * limit the test fails ("Bail out! timed out"), its whole process group gets SIGTERM, then
	 * SIGKILL 10 s later, and its temp dir is removed.  Whatever the test left running in its
	 * group when it ended is killed as well.
	 */
	unsigned max_runtime_s;
};
#define T_RUNTIME_S 1200
#define T_RUNTIME_SLOW_S 3600
void t_require(const struct t_needs *needs);
/* t_require() of root alone. */
void t_require_root(void);

struct t_output {
	int status;  /* exit status, or 128+signal */
	char *out;   /* stdout */
	char *err;   /* stderr */
};

/* Run $MGBENCH with the given arguments (NULL-terminated) and capture everything. */
void t_mgbench(struct t_output *o, const char *const args[]);
/* The same, with child_setup(arg) run in the child just before the exec (limits, namespaces). */
void t_mgbench_with(struct t_output *o, const char *const args[], void (*child_setup)(void *), void *arg);
/* The same as uid/gid 65534 (nobody), the binary reached through a descriptor opened as root:
 * a tree cloned under a 0700 directory (mktemp -d) is not reachable by path for nobody. */
void t_mgbench_as_nobody(struct t_output *o, const char *const args[]);
/* Start $MGBENCH with args in the background, for a test that signals the run: stdout into the
 * file out (NULL: /dev/null), stderr into err (NULL: the test's own; out again if the same). */
pid_t t_mgbench_start(const char *const args[], const char *out, const char *err);
/* In a forked child: become nobody and exec argv[0] that way (126/127 if that fails). */
_Noreturn void t_exec_as_nobody(const char *const argv[]);
void t_output_free(struct t_output *o);

/* A fresh path for a result file in the test's own temp dir (removed by t_cleanup). */
const char *t_result_path(const char *name);
json_t *t_load(const char *path);
/* A whole file as a string (malloc'd), or NULL if it cannot be read. */
char *t_slurp(const char *path);
/* How many times needle occurs in text (overlapping ones counted). */
unsigned t_occurrences(const char *text, const char *needle);

/* The cell for (workload, fs) in a document, or NULL. */
json_t *t_cell(json_t *doc, const char *workload, const char *fs);
/* The same through one backend (backend.name); NULL backend: any. */
json_t *t_cell_backend(json_t *doc, const char *workload, const char *fs, const char *backend);
/* A cost cell's phase of a kind ("size", "ctime"...) in cycle, or in any cycle (-1): the first. */
json_t *t_cost_phase(json_t *cell, const char *kind, int cycle);
/* The string at a dotted path (mgb_json_path) of j, or "" if absent or not a string. */
const char *t_str(json_t *j, const char *path);
/* A number at a dotted path in a cell's metrics; NAN if absent or null. */
double t_metric(json_t *cell, const char *path);

/* What the host holds that this test's mgbench runs could have left behind. */
struct t_host {
	unsigned loop_mounts, loop_devices, tmp_dirs, tmp_mounts;
};
void t_host_snapshot(struct t_host *h);
/* Fail unless nothing was added since before (waits briefly: loop autoclear is asynchronous). */
void t_host_check_clean(const struct t_host *before, const char *when);

/*
 * The honest bound for coarse stamps on a multigrain kernel.  A coarse stamp is the later of the
 * coarse clock and the global floor, and other processes' fine stamps move the floor, so a
 * coarse-stamped inode can change once per coarse tick and once per floor move.  Checks that
 * `distinct` (stamp changes seen in the cell) is at most elapsed ticks + the cell's floor_swaps
 * + 3 (the tick the run starts in, one between baseline and start, one at the end), which holds
 * however busy the machine is.  When that bound reaches the rounds themselves (a floor moved by
 * a busy machine) it cannot fail, so it is not judged and the test says so on stderr.  Returns
 * the floor moves (NAN if the cell has no counters, and then checks only that distinct is below
 * half the rounds).
 */
double t_check_coarse_bound(json_t *doc, json_t *cell, const char *label, double distinct, double rounds);

/* Entries in dir, not counting dot files, the test's "scratch" dir and the name `keep` (or NULL). */
unsigned t_count_files(const char *dir, const char *keep);

/*
 * mgbench-scratch.* directories in $TMPDIR (what a SIGKILLed run leaves: at most one, empty,
 * removed by the next run); *all_empty says whether every one of them is empty.
 */
unsigned t_scratch_dirs(bool *all_empty);

/* A process as /proc shows it, for a test that looks for what a run started or left behind. */
struct t_proc {
	pid_t pid, ppid;
	bool zombie;        /* exited, not yet reaped */
	size_t argc;
	const char *argv[64];
	char cmdline[8192]; /* the arguments joined by spaces */
};

/* Every process for which match(p, arg) is true, but skip: how many (the first's pid in *first). */
unsigned t_find_procs(bool (*match)(const struct t_proc *p, const void *arg), const void *arg, pid_t skip,
		      pid_t *first);
/* For t_find_procs: a process whose command line holds the string arg. */
bool t_proc_cmdline_has(const struct t_proc *p, const void *arg);

/* Has the mgbench run with this pid reached the workload?  (It names its task mgb-<workload>.) */
bool t_in_workload(pid_t pid, const char *workload);
/* Seconds on the monotonic clock, for a test that times or bounds a wait. */
double t_now_s(void);
/* Has the child pid exited?  Asked without reaping it, so the test's waitpid still sees its status. */
bool t_child_exited(pid_t pid);
/*
 * Wait until the run reaches its workload: true if it did, false if it exited first or took over
 * 5 minutes.  Its setup's length depends on the machine's load, so there is no shorter limit.
 */
bool t_wait_workload(pid_t pid, const char *workload);

void t_cleanup(void);

#endif
