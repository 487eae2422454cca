/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: every path a user names, and every file mgbench finds beside itself, works when it
 * lives under $TMPDIR, where people clone a tool to try it and keep patch series and kernel
 * builds.  The binary itself, a fio job directory (MGBENCH_FIO_DIR), -o, a `kernel build
 * --config` fragment and --patches directory, and a `vm --kernel` image all sit in the very
 * $TMPDIR the run makes its scratch directory in.  Then the scratch directory's own hygiene: gone
 * after a run, at most one empty one left by SIGKILL, and that one removed by the next run.
 */
#include "config.h"
#include "helpers.h"
#include "result.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[400]; /* $TMPDIR/inputs */

/* root/name, in one of 16 rotating buffers: enough for the argument lists below */
static const char *in_root(const char *name)
{
	static char p[16][600];
	static int n;
	char *s = p[n++ % 16];

	snprintf(s, 600, "%s/%s", root, name);
	return s;
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[1 << 16];
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	size_t n;
	int rc = 0;

	while (out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	if (!in || !out || ferror(in))
		rc = -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	if (!rc)
		rc = chmod(to, mode);
	if (rc)
		fprintf(stderr, "cannot copy %s to %s\n", from, to);
	return rc;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		fprintf(stderr, "cannot write %s\n", path);
}

static void set_fio_dir(void *dir)
{
	setenv("MGBENCH_FIO_DIR", dir, 1);
}

/* cost with fio, its job file in a directory under $TMPDIR, its document too. */
static void fio_jobs_under_tmpdir(void)
{
	char job[700];
	const char *src = getenv("srcdir") ?: ".", *out = in_root("out/cost.json");
	const char *args[] = { "run", "cost", "--load", "fio", "--fs", "tmpfs", "--cycles", "1", "--rounds", "5000",
			       "--phase-ms", "rounds", "--poll-rate", "1000", "-q", "-o", out, NULL };
	struct t_output o;
	json_t *doc;

	if (!*FIO_PATH) {
		fprintf(stderr, "no fio at configure time: the fio job directory is not tried\n");
		return;
	}
	mkdir(in_root("fio"), 0755);
	snprintf(job, sizeof(job), "%s/workloads/cost/fio/overwrite.fio", src);
	copy_file(job, in_root("fio/overwrite.fio"), 0644);
	t_mgbench_with(&o, args, set_fio_dir, (void *)in_root("fio"));
	T_CHECK(o.status == 0, "cost with MGBENCH_FIO_DIR under $TMPDIR: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(out);
	{
		json_t *cell = doc ? t_cell(doc, "cost", "tmpfs") : NULL;
		const char *jobpath = json_string_value(mgb_json_path(cell, "metrics.load.job")) ?: "";

		T_CHECK(!strncmp(jobpath, root, strlen(root)), "the cell ran the job under $TMPDIR: %s", jobpath);
	}
	json_decref(doc);
}

/* kernel build reads a --config fragment and a --patches directory under $TMPDIR (fails before make). */
static void kernel_inputs_under_tmpdir(void)
{
	char bad[600], good[600], patches[600], patch[700];
	const char *bad_args[] = { "kernel", "build", "-q", "--source", "debian:6.1", "--config", bad, NULL };
	const char *patch_args[] = { "kernel", "build", "-q", "--source", "debian:6.1", "--config", good,
				     "--patches", patches, NULL };
	struct t_output o;

	snprintf(bad, sizeof(bad), "%s/bad.config", root);
	snprintf(good, sizeof(good), "%s/good.config", root);
	snprintf(patches, sizeof(patches), "%s/patches", root);
	snprintf(patch, sizeof(patch), "%s/0001-it-tmpdir.patch", patches);
	write_text(bad, "not a config line\n");
	write_text(good, "CONFIG_PRINTK=y\n");
	mkdir(patches, 0755);
	/* VERSION = 99 is in no kernel's Makefile: the patch is read, then fails to apply */
	write_text(patch, "--- a/Makefile\n+++ b/Makefile\n@@ -1,3 +1,3 @@\n # SPDX-License-Identifier: GPL-2.0\n"
			  "-VERSION = 99\n+VERSION = 100\n PATCHLEVEL = 1\n");
	t_mgbench(&o, bad_args);
	T_CHECK(o.status == 1 && strstr(o.err, "line 1") && strstr(o.err, "bad.config"),
		"--config under $TMPDIR is read: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	t_mgbench(&o, patch_args);
	T_CHECK(o.status == 1 && strstr(o.err, "0001-it-tmpdir.patch does not apply"),
		"--patches under $TMPDIR is read: exit %d: %s", o.status, o.err);
	t_output_free(&o);
}

/* A cached Debian 6.12 vmlinux (fetched by a first vm run if need be), or NULL. */
static char *cached_vmlinux(void)
{
	const char *cache = getenv("MGBENCH_CACHE") ?: "/var/cache/mgbench";
	char pattern[600];
	glob_t g;
	char *found = NULL;

	snprintf(pattern, sizeof(pattern), "%s/debian/linux-image-6.12.*/vmlinux", cache);
	for (int attempt = 0; attempt < 2 && !found; attempt++) {
		if (glob(pattern, 0, NULL, &g) == 0) {
			found = strdup(g.gl_pathv[g.gl_pathc - 1]);
			globfree(&g);
		} else if (attempt == 0) {
			const char *args[] = { "vm", "--kernel", "debian:6.12", "-q", "-o", in_root("out/fetch.json"), "--",
					       "run", "write", "--fs", "tmpfs", "--rounds", "10", NULL };
			struct t_output o;

			t_mgbench(&o, args);
			t_output_free(&o);
		}
	}
	return found;
}

/* This mgbench, copied under $TMPDIR, boots a kernel image under $TMPDIR and writes there. */
static void vm_under_tmpdir(const char *self)
{
	const char *out = in_root("out/vm.json");
	const char *args[] = { "vm", "--kernel", in_root("kernel/vmlinux"), "-q", "-o", out, "--", "run", "write",
			       "--fs", "tmpfs", "--rounds", "300", NULL };
	char *image = cached_vmlinux();
	struct t_output o;
	json_t *doc;

	T_CHECK(image != NULL, "a Debian 6.12 kernel in the cache");
	if (!image)
		return;
	mkdir(in_root("kernel"), 0755);
	copy_file(image, in_root("kernel/vmlinux"), 0644);
	free(image);
	setenv("MGBENCH", self, 1);
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "vm from a binary and a kernel under $TMPDIR: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	doc = t_load(out);
	T_CHECK(doc && t_cell(doc, "write", "tmpfs") && !strcmp(json_string_value(mgb_json_path(doc,
		"vm.kernel_source.kind")) ?: "", "path"), "the guest's document, its kernel the path given");
	json_decref(doc);
}

/* A dead process's pid, for a stale scratch directory's name. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void scratch_hygiene(void)
{
	const char *args[] = { "run", "write", "--fs", "tmpfs", "--rounds", "100", "-q", "-o", in_root("out/w.json"),
			       NULL };
	char stale[600], live[600], foreign[600];
	struct t_output o;
	bool empty;
	int status;
	pid_t pid;

	T_CHECK(t_scratch_dirs(&empty) == 0, "no scratch directory left by the runs so far");
	/* SIGKILL mid-run leaves at most one empty directory: its tmpfs was in the run's namespace */
	{
		const char *long_run[] = { "run", "write", "--fs", "tmpfs", "--rounds", "1000000000", "-q", "-o",
					   in_root("out/killed.json"), NULL };

		pid = t_mgbench_start(long_run, NULL, NULL);
	}
	T_CHECK(t_wait_workload(pid, "write"), "the run to be killed reached its workload");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	T_CHECK(t_scratch_dirs(&empty) <= 1 && empty, "SIGKILL left %u scratch directories%s",
		t_scratch_dirs(&empty), empty ? "" : ", not empty");
	/* the next run removes it, and an older stale one; a live process's is left alone */
	{
		struct stat ns;
		pid_t dead = dead_pid();

		stat("/proc/self/ns/pid", &ns);
		snprintf(stale, sizeof(stale), "%s/mgbench-scratch.%d.%lu.AbCdEf", getenv("TMPDIR"), (int)dead,
			 (unsigned long)ns.st_ino);
		snprintf(live, sizeof(live), "%s/mgbench-scratch.%d.%lu.AbCdEf", getenv("TMPDIR"), (int)getpid(),
			 (unsigned long)ns.st_ino);
		/* a dead pid of another pid namespace (a container sharing $TMPDIR) may be alive there */
		snprintf(foreign, sizeof(foreign), "%s/mgbench-scratch.%d.%lu.AbCdEf", getenv("TMPDIR"), (int)dead,
			 (unsigned long)ns.st_ino + 1);
	}
	mkdir(stale, 0700);
	mkdir(live, 0700);
	mkdir(foreign, 0700);
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "the run after: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	T_CHECK(access(stale, F_OK) != 0, "a dead run's scratch directory was removed");
	T_CHECK(access(live, F_OK) == 0, "a live process's scratch directory was left alone");
	T_CHECK(access(foreign, F_OK) == 0, "another pid namespace's scratch directory was left alone");
	rmdir(live);
	rmdir(foreign);
	T_CHECK(t_scratch_dirs(&empty) == 0, "no scratch directory left after the next run (%u)", t_scratch_dirs(&empty));
}

int main(void)
{
	const char *bin = getenv("MGBENCH") ?: "./mgbench";
	char self[600];
	struct t_host before;

	t_require(&(struct t_needs){ .root = true, .slow = true });
	t_result_path("x"); /* makes the test's $TMPDIR */
	snprintf(root, sizeof(root), "%s/inputs", getenv("TMPDIR"));
	mkdir(root, 0755);
	mkdir(in_root("out"), 0755);
	mkdir(in_root("bin"), 0755);
	snprintf(self, sizeof(self), "%s", in_root("bin/mgbench"));
	if (copy_file(bin, self, 0755))
		return T_FAIL;
	setenv("MGBENCH", self, 1); /* every run below is this copy, under $TMPDIR */
	t_host_snapshot(&before);
	T_RUN(fio_jobs_under_tmpdir());
	T_RUN(kernel_inputs_under_tmpdir());
	T_RUN(vm_under_tmpdir(self));
	T_RUN(scratch_hygiene());
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after the runs under $TMPDIR");
	return t_result();
}
