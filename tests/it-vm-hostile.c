/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: `mgbench vm` against hostile or broken input.  Most checks must fail before
 * anything boots, in seconds; three boots remain (a damaged kernel waited out by --init-timeout, a
 * --modules tree under $TMPDIR with a broken index, and the runs stopped as qemu starts).  The
 * shared kernel cache (/var/cache/mgbench) is only read: entries are copied as hard links into a
 * cache of the test's own, and a file to be changed is replaced, never written through its link.
 */
#include "config.h"
#include "helpers.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#define SHARED "/var/cache/mgbench/debian"

struct run {
	int status;         /* exit status, 128+signal, or -1 when killed at the time limit */
	double secs, stop_secs; /* run time; from the stop signal to the exit (-1: none sent) */
	bool booting_at_signal; /* the boot had begun when the signal was sent */
	char err[16384];
};

static void read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : 0;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

struct how {
	double limit;          /* kill -9 after this many seconds */
	const char *stop_at;   /* send sig when stderr shows this (or after stop_after s) */
	double stop_after;
	int sig;
	bool group;            /* to the whole process group, as a terminal's ^C */
	bool offline;          /* a network namespace of its own */
	bool nobody;           /* as uid 65534 */
	const char *cache;     /* MGBENCH_CACHE */
};

/* Run mgbench in its own process group (stderr in a file), stopping or killing it as h says. */
static void run(struct run *r, const struct how *h, const char *const args[])
{
	const char *bin = getenv("MGBENCH") ?: "./mgbench";
	char errpath[512];
	const char *argv[40] = { bin };
	double t0 = t_now_s(), sent = 0;
	int status, n = 1;
	pid_t pid;

	static int count;

	snprintf(errpath, sizeof(errpath), "%s/stderr.%d.%d", t_result_path(""), (int)getpid(), count++);
	for (int i = 0; args[i] && n < 39; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644), null = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		dup2(null, 0);
		dup2(null, 1);
		dup2(fd, 2);
		if (h->cache)
			setenv("MGBENCH_CACHE", h->cache, 1);
		if (h->offline && unshare(CLONE_NEWNET))
			_exit(126);
		if (h->nobody) {
			setenv("HOME", "/nonexistent/home", 1);
			unsetenv("MGBENCH_CACHE");
			t_exec_as_nobody(argv);
		}
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	setpgid(pid, pid);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (!sent && h->sig) {
			read_file(errpath, r->err, sizeof(r->err));
			if ((h->stop_at && strstr(r->err, h->stop_at)) || (h->stop_after && t_now_s() - t0 > h->stop_after)) {
				kill(h->group ? -pid : pid, h->sig);
				sent = t_now_s();
				r->booting_at_signal = strstr(r->err, "booting") != NULL;
			}
		}
		if (t_now_s() - t0 > h->limit) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			status = -1;
			break;
		}
		usleep(20 * 1000);
	}
	r->secs = t_now_s() - t0;
	r->stop_secs = sent ? t_now_s() - sent : -1;
	if (!sent)
		r->booting_at_signal = false;
	r->status = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	read_file(errpath, r->err, sizeof(r->err));
	if (getenv("MGBENCH_TEST_VERBOSE"))
		fprintf(stderr, "$ mgbench %s %s ... -> %d in %.1f s\n%s", args[0], args[1], r->status, r->secs, r->err);
}

/* The shared cache's entry whose name starts with prefix (static buffer), or NULL. */
static const char *shared_entry(const char *prefix)
{
	static char path[2][512];
	static int k;
	DIR *d = opendir(SHARED);
	struct dirent *e;
	const char *found = NULL;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			k ^= 1;
			snprintf(path[k], sizeof(path[k]), SHARED "/%s", e->d_name);
			found = path[k];
		}
	if (d)
		closedir(d);
	return found;
}

static int sh(const char *fmt, const char *a, const char *b)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	return system(cmd);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Children of ours (the test is a subreaper) still alive: a helper mgbench left behind. */
static bool child_of(const struct t_proc *p, const void *parent)
{
	return p->ppid == *(const pid_t *)parent;
}

static unsigned orphans(void)
{
	pid_t self = getpid();

	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return t_find_procs(child_of, &self, 0, NULL);
}

/* a cache another user can write (or owns) is refused before anything is made in it. */
static void untrusted_cache(void)
{
	char open_dir[512], cache[600], owned[512];
	struct how h = { .limit = 20 };
	struct run r;
	const char *args[] = { "vm", "--kernel", "debian:6.12", "--", "run", "write", "--fs", "tmpfs", NULL };

	snprintf(open_dir, sizeof(open_dir), "%s", t_result_path("world-writable"));
	mkdir(open_dir, 0777);
	chmod(open_dir, 0777);
	snprintf(cache, sizeof(cache), "%s/cache", open_dir);
	h.cache = cache;
	run(&r, &h, args);
	T_CHECK(r.status == 1 && strstr(r.err, "cache") && strstr(r.err, "writable by every user"),
		"a cache under a world-writable directory is refused (exit %d): %s", r.status, r.err);
	T_CHECK(access(cache, F_OK) != 0, "untrusted cache: nothing was created in it");
	T_CHECK(r.secs < 5, "untrusted cache: refused at once (%.1f s)", r.secs);

	snprintf(owned, sizeof(owned), "%s", t_result_path("nobody-cache"));
	mkdir(owned, 0755);
	T_CHECK(chown(owned, 65534, 65534) == 0, "chown");
	h.cache = owned;
	run(&r, &h, args);
	T_CHECK(r.status == 1 && strstr(r.err, "belongs to uid 65534"),
		"a cache another user owns is refused (exit %d): %s", r.status, r.err);
}

/* a FIFO as --kernel fails at once instead of blocking in open(). */
static void fifo_kernel(void)
{
	char fifo[512];
	struct how h = { .limit = 10 };
	struct run r;

	snprintf(fifo, sizeof(fifo), "%s", t_result_path("kernel.fifo"));
	mkfifo(fifo, 0600);
	const char *args[] = { "vm", "--kernel", fifo, "--", "run", "write", NULL };
	run(&r, &h, args);
	T_CHECK(r.status == 1 && strstr(r.err, "not a regular file"), "FIFO kernel: exit %d in %.1f s: %s",
		r.status, r.secs, r.err);
}

/* as non-root, the error comes first (no download), and suggests no --dir vm lacks. */
static void non_root(void)
{
	struct how h = { .limit = 20, .nobody = true };
	struct run r;
	const char *args[] = { "vm", "--kernel", "debian:6.12", "--", "run", "write", "--fs", "tmpfs", NULL };

	run(&r, &h, args);
	T_CHECK(r.status == 1 && strstr(r.err, "needs root") && !strstr(r.err, "--dir") && r.secs < 5,
		"non-root: exit %d in %.1f s: %s", r.status, r.secs, r.err);
	T_CHECK(access("/nonexistent/home", F_OK) != 0, "nothing made for the non-root user");
}

/* the guest's command is judged on the host: exit 2 at once, the run's own message. */
static void guest_usage(void)
{
	static const struct {
		const char *a[12], *says;
	} cases[] = {
		{ { "--", "run", "nosuchworkload", NULL }, "unknown workload 'nosuchworkload'" },
		{ { "--", "run", "write", "--output", NULL }, "needs a value" },
		{ { "--", "run", "write", "--fs", "nosuchfs", NULL }, "unknown filesystem 'nosuchfs'" },
		{ { "--", "run", "write", "--backend", "nfs3", "--nfs-url", "nfs://127.0.0.1/x", NULL },
		  "--nfs-url does not go under vm" },
		{ { "--", "run", "write", "--backend", "nfs4", "--nfs-server", "nosuch", NULL },
		  "not one of the allowed values" },
		{ { "-o", "a.json", "--", "run", "write", "-o", "b.json", NULL }, "two outputs" },
		{ { "--", "run", "write", "--json", NULL }, "--json does not go under vm" },
	};
	struct how h = { .limit = 15 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[20] = { "vm", "--kernel", "debian:6.12" };
		struct run r;
		int n = 3;

		for (int k = 0; cases[i].a[k]; k++)
			args[n++] = cases[i].a[k];
		run(&r, &h, args);
		T_CHECK(r.status == 2 && strstr(r.err, cases[i].says) && r.secs < 5,
			"guest usage case %zu: exit %d in %.1f s, want 2 at once saying \"%s\": %s", i, r.status,
			r.secs, cases[i].says, r.err);
	}
}

/* a build directory whose vmlinux is not its manifest's is refused before the boot. */
static void stale_manifest(const char *vmlinux, const char *release)
{
	char dir[512], p[700], m[512];
	struct how h = { .limit = 15 };
	struct run r;

	snprintf(dir, sizeof(dir), "%s", t_result_path("kout"));
	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/vmlinux", dir);
	T_CHECK(symlink(vmlinux, p) == 0, "symlink %s", p);
	snprintf(p, sizeof(p), "%s/manifest.json", dir);
	const char *args[] = { "vm", "--kernel", dir, "--", "run", "write", "--fs", "tmpfs", NULL };

	write_text(p, "{\"release\": \"9.9.9-OLD\"}\n");
	run(&r, &h, args);
	T_CHECK(r.status == 1 && strstr(r.err, "stale manifest") && r.secs < 5,
		"a manifest of another release: exit %d in %.1f s: %s", r.status, r.secs, r.err);
	snprintf(m, sizeof(m), "{\"release\": \"%s\", \"sha256\": {\"vmlinux\": \"%064d\"}}\n", release, 0);
	write_text(p, m);
	run(&r, &h, args);
	T_CHECK(r.status == 1 && strstr(r.err, "does not match its manifest") && r.secs < 5,
		"a vmlinux that does not match the manifest's sha256: exit %d in %.1f s: %s", r.status, r.secs,
		r.err);
}

/* a modules tree of another release is refused, naming both. */
static void modules_mismatch(const char *vmlinux)
{
	char mods[512], p[700];
	struct how h = { .limit = 15 };
	struct run r;

	snprintf(mods, sizeof(mods), "%s", t_result_path("othermods"));
	snprintf(p, sizeof(p), "%s/lib/modules/9.9.9-other/kernel", mods);
	sh("mkdir -p '%s'%s", p, "");
	const char *args[] = { "vm", "--kernel", vmlinux, "--modules", mods, "--", "run", "write", "--fs", "ext4",
			       NULL };
	run(&r, &h, args);
	T_CHECK(r.status == 1 && strstr(r.err, "is for release 9.9.9-other") && r.secs < 5,
		"modules of another release: exit %d in %.1f s: %s", r.status, r.secs, r.err);
}

/* SIGINT/SIGTERM during the apt steps (before any boot) end vm at once, helpers included. */
static void stop_before_boot(void)
{
	static const struct { int sig; bool group; int want; } cases[] = {
		{ SIGINT, false, 130 }, { SIGTERM, false, 143 }, { SIGINT, true, 130 } };
	const char *args[] = { "vm", "--kernel", "debian:6.12", "--", "run", "write", "--fs", "tmpfs", NULL };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct how h = { .limit = 60, .sig = cases[i].sig, .group = cases[i].group, .stop_after = 1.0 };
		struct run r;

		run(&r, &h, args);
		if (r.booting_at_signal) {
			fprintf(stderr, "signal case %zu: the boot began before the signal; not judged\n", i);
			continue;
		}
		T_CHECK(r.status == cases[i].want && r.stop_secs >= 0 && r.stop_secs < 2 && !strstr(r.err, "no output"),
			"signal case %zu: signal %d%s before the boot: exit %d %.1f s later (want %d at once): %s", i,
			cases[i].sig, cases[i].group ? " to the group" : "", r.status, r.stop_secs, cases[i].want, r.err);
		usleep(200 * 1000);
		T_CHECK(orphans() == 0, "signal case %zu: no apt or other helper left running", i);
	}
}

/* Damage a vmlinux so that it is silent forever: its PVH entry (the ELF note qemu boots it
 * through) becomes `jmp .`.  Random damage may as well crash qemu at once, which is no test. */
static bool spin_at_entry(const char *path)
{
	int fd = open(path, O_RDWR);
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t entry = 0;
	bool done = false;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (int pass = 0; pass < 2 && !done; pass++)
		for (unsigned i = 0; i < eh.e_phnum && !done; i++) {
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != sizeof(ph))
				goto out;
			if (pass == 0 && ph.p_type == PT_NOTE) {
				for (uint64_t off = 0; off + 12 <= ph.p_filesz;) {
					Elf64_Nhdr nh;
					uint32_t v = 0;

					pread(fd, &nh, sizeof(nh), (off_t)(ph.p_offset + off));
					uint64_t desc = off + 12 + ((nh.n_namesz + 3) & ~3u);

					if (nh.n_type == 18 /* XEN_ELFNOTE_PHYS32_ENTRY */) {
						pread(fd, &v, 4, (off_t)(ph.p_offset + desc));
						entry = v;
					}
					off = desc + ((nh.n_descsz + 3) & ~3u);
				}
			} else if (pass == 1 && entry && ph.p_type == PT_LOAD && entry >= ph.p_paddr &&
				   entry < ph.p_paddr + ph.p_filesz) {
				done = pwrite(fd, "\xeb\xfe", 2, (off_t)(ph.p_offset + entry - ph.p_paddr)) == 2;
			}
		}
out:
	if (fd >= 0)
		close(fd);
	return done;
}

/* a damaged kernel (silent from the start) is given up after --init-timeout, not --timeout;
 * and a build without a sha256 is booted but called unverified. */
static void damaged_kernel(const char *vmlinux, const char *release)
{
	char dir[512], p[700], m[512];
	struct how h = { .limit = 90 };
	struct run r;

	snprintf(dir, sizeof(dir), "%s", t_result_path("damaged"));
	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/vmlinux", dir);
	sh("cp '%s' '%s'", vmlinux, p);
	T_CHECK(spin_at_entry(p), "found the PVH entry of %s", p);
	snprintf(p, sizeof(p), "%s/manifest.json", dir);
	snprintf(m, sizeof(m), "{\"release\": \"%s\"}\n", release);
	write_text(p, m);
	const char *args[] = { "vm", "--kernel", dir, "--init-timeout", "20", "--", "run", "write", "--fs", "tmpfs",
			       NULL };
	run(&r, &h, args);
	T_CHECK(strstr(r.err, "unverified") != NULL, "a build without a sha256 is said to be unverified: %s", r.err);
	T_CHECK(r.status == 1 && strstr(r.err, "did not reach its init within 20 s") && r.secs < 50,
		"a damaged kernel: exit %d after %.1f s: %s", r.status, r.secs, r.err);
}

/* a --mem too small for the initramfs says so, and what to give, rather than "No working init
 * found", which points at the kernel.  256 MiB, the smallest --mem takes, fits no initramfs vm
 * makes (a 91 MiB one needs 328). */
static void mem_too_small(void)
{
	struct how h = { .limit = 120 };
	struct run r;
	unsigned want_mem = 0;
	const char *give;
	const char *args[] = { "vm", "--kernel", "debian:6.12", "--mem", "256", "--", "run", "write", "--fs", "tmpfs",
			       "--rounds", "1000", NULL };

	run(&r, &h, args);
	T_CHECK(r.status == 1 && strstr(r.err, "did not fit in the guest's 256 MiB") &&
			strstr(r.err, "Initramfs unpacking failed"),
		"--mem 256: exit %d: %s", r.status, r.err);
	give = strstr(r.err, "give --mem ");
	T_CHECK(give && sscanf(give, "give --mem %u", &want_mem) == 1 && want_mem > 256,
		"a --mem to give instead: %s", r.err);
	if (want_mem > 256 && want_mem <= 65536) {
		char mem[16];

		snprintf(mem, sizeof(mem), "%u", want_mem);
		args[4] = mem;
		run(&r, &h, args);
		T_CHECK(r.status == 0, "the --mem it says (%s) boots: exit %d: %s", mem, r.status, r.err);
	}
}

/* a truncated cached vmlinux (a full disk during extraction) is extracted again, whole, under
 * a temporary name, with its sha256 beside it.  A damaged index in a cached tree is rebuilt
 * (on a mirror in the scratch) rather than reported as a missing module. */
static void truncated_cache(const char *cache, const char *entry, const char *release)
{
	char root[700], p[800], s[800];
	struct how h = { .limit = 120, .stop_at = "booting", .sig = SIGINT, .cache = cache };
	struct run r;
	struct stat st_shared, st;
	const char *args[] = { "vm", "--kernel", "debian:6.12", "--", "run", "write", "--fs", "ext4", NULL };

	snprintf(root, sizeof(root), "%s/debian/%s", cache, strrchr(entry, '/') + 1);
	snprintf(p, sizeof(p), "%s/vmlinux", root);
	snprintf(s, sizeof(s), "%s/vmlinux", entry);
	unlink(p); /* a hard link to the shared file: replaced, not written through */
	sh("head -c 9728000 '%s' > '%s'", s, p);
	for (int i = 0; i < 4; i++) { /* libkmod falls back from a damaged .bin to the text */
		static const char *const index[] = { "modules.dep.bin", "modules.dep", "modules.alias.bin",
						     "modules.alias" };

		snprintf(p, sizeof(p), "%s/lib/modules/%s/%s", root, release, index[i]);
		unlink(p); /* hard links: replaced, the shared files untouched */
		write_text(p, "not an index\n");
	}
	snprintf(p, sizeof(p), "%s/vmlinux", root);
	run(&r, &h, args);
	T_CHECK(strstr(r.err, "booting") != NULL, "the repaired entry boots: %s", r.err);
	T_CHECK(!stat(s, &st_shared) && !stat(p, &st) && st.st_size == st_shared.st_size,
		"the truncated vmlinux was extracted again (%lld bytes, want %lld): %s", (long long)st.st_size,
		(long long)st_shared.st_size, r.err);
	snprintf(p, sizeof(p), "%s/vmlinux.sha256", root);
	T_CHECK(access(p, F_OK) == 0, "its sha256 is kept beside it");
	T_CHECK(sh("ls '%s' | grep -q tmp%s", root, "") != 0, "no temporary file left in %s", root);
}

/* concurrent debian:unstable runs with stale private lists take turns on the update (offline:
 * apt keeps its old lists), and once updated the lists are fresh for the next run. */
static void sid_lists(const char *cache)
{
	char lists[700];
	struct how h = { .limit = 120, .stop_at = "booting", .sig = SIGINT, .offline = true, .cache = cache };
	const char *args[] = { "vm", "--kernel", "debian:unstable", "--", "run", "write", "--fs", "tmpfs", NULL };
	struct run r;
	pid_t kids[2];

	snprintf(lists, sizeof(lists), "%s/apt/sid/lists", cache);
	sh("touch -d '3 days ago' '%s'/*Packages*; rm -f '%s'/mgbench-updated", lists, lists);
	for (int i = 0; i < 2; i++) {
		if ((kids[i] = fork()) == 0) {
			run(&r, &h, args);
			if (!strstr(r.err, "booting"))
				fprintf(stderr, "concurrent run %d did not reach the boot: %s", i, r.err);
			_exit(strstr(r.err, "booting") ? 0 : 1);
		}
		usleep(300 * 1000);
	}
	for (int i = 0; i < 2; i++) {
		int st;

		waitpid(kids[i], &st, 0);
		T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "concurrent debian:unstable run %d reached the boot", i);
	}
	run(&r, &h, args);
	T_CHECK(strstr(r.err, "booting") && !strstr(r.err, "apt-get update"),
		"after an update the lists are fresh (no second update): %s", r.err);
}

/* --modules under $TMPDIR (the man page's own example) with a broken index: indexed in
 * the scratch, the user's tree unchanged; the guest boots (and panics on the test knob). */
static void modules_in_tmpdir(const char *entry, const char *vmlinux, const char *release)
{
	char mods[600], rel[800], dep[900], before[4096], after[4096], cmd[4096];
	struct how h = { .limit = 150 };
	struct run r;

	snprintf(mods, sizeof(mods), "%s/mods", getenv("TMPDIR"));
	snprintf(rel, sizeof(rel), "%s/lib/modules", mods);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp -al '%s'/lib/modules/* '%s'/", rel, entry, rel);
	T_CHECK(system(cmd) == 0, "copy the modules tree");
	snprintf(dep, sizeof(dep), "%s/%s/modules.dep.bin", rel, release);
	unlink(dep); /* a hard link: replaced by garbage, the shared file untouched */
	write_text(dep, "not an index\n");
	snprintf(cmd, sizeof(cmd), "ls -la '%s/%s' | md5sum > '%s/../listing'", rel, release, getenv("TMPDIR"));
	system(cmd);
	snprintf(cmd, sizeof(cmd), "%s/../listing", getenv("TMPDIR"));
	read_file(cmd, before, sizeof(before));
	const char *args[] = { "vm", "--test-init-exit", "--kernel", vmlinux, "--modules", mods, "--", "run", "write",
			       "--fs", "ext4", NULL };
	run(&r, &h, args);
	T_CHECK(r.status == 1 && strstr(r.err, "panicked"),
		"--modules under $TMPDIR with a broken index boots (to the test panic): exit %d: %s", r.status,
		r.err);
	snprintf(cmd, sizeof(cmd), "ls -la '%s/%s' | md5sum > '%s/../listing'", rel, release, getenv("TMPDIR"));
	system(cmd);
	snprintf(cmd, sizeof(cmd), "%s/../listing", getenv("TMPDIR"));
	read_file(cmd, after, sizeof(after));
	read_file(dep, cmd, sizeof(cmd));
	T_CHECK(!strcmp(before, after) && !strcmp(cmd, "not an index\n"), "the user's modules tree is unchanged");
}

/* HOSTILE_ONLY=name,name runs only those parts (to show one defect before and after a fix). */
static bool want(const char *part)
{
	const char *only = getenv("HOSTILE_ONLY");

	return !only || strstr(only, part);
}

int main(void)
{
	const char *e612, *esid;
	char vmlinux[600], cache[512], release[256] = "";
	struct t_host before;
	DIR *d;
	struct dirent *e;

	/* the time limit allows for guests booted under TCG where there is no KVM */
	t_require(&(struct t_needs){ .root = true, .slow = true, .max_runtime_s = 7200 });
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	e612 = shared_entry("linux-image-6.12");
	esid = shared_entry("linux-image-7");
	if (!e612 || !esid || access("/var/cache/mgbench/apt/sid/lists", F_OK)) {
		t_skip("no Debian 6.12 and unstable kernels in " SHARED " (run it-vm first)");
	}
	e612 = strdup(e612);
	esid = strdup(esid);
	snprintf(vmlinux, sizeof(vmlinux), "%s/vmlinux", e612);
	snprintf(cache, sizeof(cache), "%s/lib/modules", e612);
	if ((d = opendir(cache))) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				snprintf(release, sizeof(release), "%s", e->d_name);
		closedir(d);
	}
	t_host_snapshot(&before);

	/* before any boot */
	if (want("untrusted_cache"))
		T_RUN(untrusted_cache());
	if (want("fifo_kernel"))
		T_RUN(fifo_kernel());
	if (want("non_root"))
		T_RUN(non_root());
	if (want("guest_usage"))
		T_RUN(guest_usage());
	if (want("stale_manifest"))
		T_RUN(stale_manifest(vmlinux, release));
	if (want("modules_mismatch"))
		T_RUN(modules_mismatch(vmlinux));
	if (want("stop_before_boot"))
		T_RUN(stop_before_boot());

	/* a cache of the test's own: the shared entries as hard links, sid's lists copied */
	snprintf(cache, sizeof(cache), "%s", t_result_path("cache"));
	{
		char cmd[2048];

		snprintf(cmd, sizeof(cmd), "mkdir -p '%s/debian' && cp -al '%s' '%s' '%s/debian/' && "
			 "cp -a /var/cache/mgbench/apt '%s/'", cache, e612, esid, cache, cache);
		T_CHECK(system(cmd) == 0, "a private cache: %s", cmd);
	}
	if (want("truncated_cache"))
		T_RUN(truncated_cache(cache, e612, release));
	if (want("sid_lists"))
		T_RUN(sid_lists(cache));
	if (want("damaged_kernel"))
		T_RUN(damaged_kernel(vmlinux, release));
	if (want("mem_too_small"))
		T_RUN(mem_too_small());
	if (want("modules_in_tmpdir"))
		T_RUN(modules_in_tmpdir(e612, vmlinux, release));
	T_CHECK(orphans() == 0, "no process left behind");
	t_case("nothing left on the host");
	t_host_check_clean(&before, "after the hostile vm runs");
	free((char *)e612);
	free((char *)esid);
	return t_result();
}
