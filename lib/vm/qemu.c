/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qemu: boot the guest, stream its serial console, pick out the host's lines (MGBVM-*, see
 * lib/vm/initramfs.c) and the result document.  qemu runs in its own process group with a
 * parent-death signal, so however mgbench ends (SIGKILL included) no qemu survives it.  A
 * SIGINT/SIGTERM once the guest's run has begun is passed on to it (a MGBVM-STOP line on its
 * console), so that it stops as a run does and sends back the cells it finished; before that, or
 * if it has not answered within STOP_GRACE_S, the guest is stopped at once.  A kernel panic is
 * recognised on the console rather than waited out.
 */
#include "config.h"
#include "vm.h"
#include "proc.h"
#include "util.h"
#include "stop.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QEMU "qemu-system-x86_64"
#define KVM_PROBE_S 20 /* a stock kernel under a broken KVM hangs: give up on it after this */
/* A stopped guest run tears down (unmounts, stops its NFS server) and sends its document: some
 * seconds under TCG.  Longer than this and it is stopped as it is. */
#define STOP_GRACE_S 60

char *mgb_vm_qemu_version(char *err)
{
	const char *argv[] = { QEMU, "--version", NULL };
	char *out = NULL;
	int st = mgb_capture(argv, NULL, &out, err);

	if (st || !out) {
		free(out);
		mgb_err(err, "cannot run %s (Debian package qemu-system-x86)", QEMU);
		return NULL;
	}
	out[strcspn(out, "\n")] = '\0';
	return out;
}

void mgb_vm_boot_free(struct mgb_vm_boot *b)
{
	free(b->accel_used);
	free(b->boot_retried);
	free(b->document);
	json_decref(b->modules);
	b->modules = NULL;
	b->accel_used = b->document = b->boot_retried = NULL;
}

static pid_t launch(const struct mgb_vm_boot *b, const char *accel, int *fd, int *in, char *err)
{
	char mem[32], cpus[16];
	struct mgb_proc child;
	const char *argv[] = { QEMU, "-nodefaults", "-no-user-config", "-display", "none",
			       "-no-reboot", "-monitor", "none", "-serial", "stdio",
			       "-accel", accel, "-cpu", "max", "-m", mem, "-smp", cpus,
			       "-kernel", b->image, "-initrd", b->initrd,
			       "-append", "console=ttyS0 quiet panic=-1 rdinit=/init",
			       "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", NULL };
	/* stdin a pipe: the serial console's input, for the stop request */
	struct mgb_proc_spec spec = { .argv = argv, .path_search = true, .in = MGB_PROC_PIPE, .out = MGB_PROC_PIPE,
				      .err = MGB_PROC_WITH_OUT, .death_signal = SIGKILL };

	snprintf(mem, sizeof(mem), "%u", b->mem_mib);
	snprintf(cpus, sizeof(cpus), "%u", b->cpus);
	/* our own group: a terminal's ^C reaches mgbench, which stops us */
	if (mgb_proc_start(&spec, &child, err) < 0)
		return -1;
	*fd = child.out;
	*in = child.in;
	return child.pid;
}

static void stop_qemu(pid_t pid)
{
	mgb_proc_stop(pid, NULL, 0, true);
}

static double now_s(void)
{
	return (double)mgb_clock_ns(CLOCK_MONOTONIC) / 1e9;
}

struct console {
	char line[4096];
	size_t len;
	bool in_doc, saw_init, saw_exit, timed_out;
	char *doc;
	size_t doc_len, doc_cap;
	char panic[256];
	char *stderr_text;  /* the guest mgbench's stderr, for --quiet failures */
	size_t stderr_len, stderr_cap;
	int status;
	double t0, run_s;
	char last[256];     /* the last console line, for a "no document" message */
	char oops[100], rip[80]; /* what a panic follows: the oops's first line and where */
	char unpack[100];   /* "Initramfs unpacking failed: ...": the initramfs did not fit */
	bool stop_passed;   /* a stop request was passed on to the guest's run */
	json_t *modules;    /* module name -> seconds its insmod took (guest uptime) */
};

static void append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t nc = (*cap ? *cap * 2 : 4096) + n;
		char *nb = realloc(*buf, nc);

		if (!nb)
			return;
		*buf = nb;
		*cap = nc;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* A kernel line without its "[    1.234567] " time stamp. */
static const char *console_text(const char *l)
{
	const char *e = l[0] == '[' ? strstr(l, "] ") : NULL;

	return e ? e + 2 : l;
}

static void console_line(struct console *c, char *l, bool quiet)
{
	size_t n = strlen(l);

	while (n && (l[n - 1] == '\r' || l[n - 1] == '\n'))
		l[--n] = '\0';
	if (c->in_doc) {
		if (!strcmp(l, "MGBVM-DOC-END"))
			c->in_doc = false;
		else
			append(&c->doc, &c->doc_len, &c->doc_cap, l, n);
		return;
	}
	if (!strcmp(l, "MGBVM-DOC-BEGIN")) {
		c->in_doc = true;
		return;
	}
	if (n)
		snprintf(c->last, sizeof(c->last), "%s", l);
	if (!strncmp(l, "MGBVM-INSMOD ", 13)) {
		char name[64];
		double a, b;

		/* "MGBVM-INSMOD name start end" (guest uptime, seconds) */
		if (sscanf(l + 13, "%63s %lf %lf", name, &a, &b) == 3 && b >= a) {
			if (!c->modules)
				c->modules = json_object();
			json_object_set_new(c->modules, name, json_real(b - a));
		}
	}
	if (!strncmp(l, "MGBVM-INIT ", 11))
		c->saw_init = true;
	else if (!strncmp(l, "MGBVM-RUN ", 10))
		c->run_s = now_s() - c->t0;
	else if (!strncmp(l, "MGBVM-EXIT ", 11)) {
		c->saw_exit = true;
		c->status = atoi(l + 11);
	} else if (!strncmp(l, "MGBVM-STDERR ", 13)) {
		append(&c->stderr_text, &c->stderr_len, &c->stderr_cap, l + 13, n - 13);
		append(&c->stderr_text, &c->stderr_len, &c->stderr_cap, "\n", 1);
	} else if (strstr(l, "Initramfs unpacking failed") && !c->unpack[0])
		snprintf(c->unpack, sizeof(c->unpack), "%s", console_text(strstr(l, "Initramfs unpacking failed")));
	else if (strstr(l, "Kernel panic - not syncing") && !c->panic[0])
		snprintf(c->panic, sizeof(c->panic), "%s", strstr(l, "Kernel panic"));
	else if (!c->oops[0] && (strstr(l, "BUG: ") || strstr(l, "Oops: ") || strstr(l, "general protection fault")))
		snprintf(c->oops, sizeof(c->oops), "%s", console_text(l));
	else if (c->oops[0] && !c->rip[0] && strstr(l, "RIP: "))
		snprintf(c->rip, sizeof(c->rip), "%s", strstr(l, "RIP: "));
	if (quiet)
		return;
	/* the guest's own output as it is; our markers as short notes */
	if (!strncmp(l, "MGBVM-STDERR ", 13))
		fprintf(stderr, "%s\n", l + 13);
	else if (!strcmp(l, "results: /out/result.json"))
		; /* the guest's own path; the host says where the document went */
	else if (strncmp(l, "MGBVM-", 6))
		fprintf(stderr, "%s\n", l);
	else if (!strncmp(l, "MGBVM-INSMOD", 12) || !strncmp(l, "MGBVM-INIT", 10) ||
		 !strncmp(l, "MGBVM-RUN", 9) || !strncmp(l, "MGBVM-LEFT", 10))
		fprintf(stderr, "vm: %s\n", l + 6);
}

/* Decode base64 in place (whitespace ignored); the decoded length, or -1. */
static long base64_decode(char *s)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned acc = 0, bits = 0;
	long out = 0;

	for (const char *p = s; *p; p++) {
		const char *k;

		if (*p == '=' || *p == ' ' || *p == '\t')
			continue;
		if (!(k = strchr(tbl, *p)))
			return -1;
		acc = (acc << 6) | (unsigned)(k - tbl);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			s[out++] = (char)((acc >> bits) & 0xff);
		}
	}
	s[out] = '\0';
	return out;
}

enum outcome { BOOT_DONE, BOOT_PANIC, BOOT_TIMEOUT, BOOT_NO_INIT, BOOT_PROBE_FAILED, BOOT_STOPPED, BOOT_ERROR };

/* The next deadline and what passing it means: the KVM probe, the guest's init, the timeout. */
static double next_deadline(const struct console *c, double probe, double init, double end, enum outcome *oc)
{
	*oc = BOOT_TIMEOUT;
	if (c->saw_init)
		return end;
	if (probe && probe <= init && probe < end) {
		*oc = BOOT_PROBE_FAILED;
		return probe;
	}
	if (init < end) {
		*oc = BOOT_NO_INIT;
		return init;
	}
	return end;
}

/* Write all of buf to a pipe whose reader may have gone (qemu exiting): EPIPE, not SIGPIPE.
 * 0 when written. */
static int write_no_sigpipe(int fd, const char *buf, size_t len)
{
	sigset_t pipe_set, old;
	struct timespec zero = { 0, 0 };
	ssize_t n;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	n = write(fd, buf, len);
	if (n < 0 && errno == EPIPE)
		sigtimedwait(&pipe_set, NULL, &zero); /* the SIGPIPE it raised, taken before unblocking */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return n == (ssize_t)len ? 0 : -1;
}

/*
 * A stop request while the guest's run runs: ask the guest (a line on its console, which its
 * init passes on to mgbench as SIGINT) and give it STOP_GRACE_S to send what it has.  True while
 * that grace lasts; false when the guest is to be stopped now.
 */
static bool pass_stop_on(struct console *c, int in, double *grace_until)
{
	static const char line[] = "MGBVM-STOP\n";

	if (*grace_until)
		return now_s() < *grace_until;
	/* a guest whose run has ended is sending its document already: let it */
	if (c->run_s <= 0 || in < 0 || (!c->saw_exit && write_no_sigpipe(in, line, sizeof(line) - 1)))
		return false;
	*grace_until = now_s() + STOP_GRACE_S;
	c->stop_passed = true;
	return true;
}

static enum outcome boot_once(struct mgb_vm_boot *b, const char *accel, struct console *c, char *err)
{
	int fd = -1, in = -1, status;
	pid_t pid;
	double deadline, probe_deadline, init_deadline, grace_until = 0;
	enum outcome oc = BOOT_DONE, late;

	memset(c, 0, sizeof(*c));
	c->status = -1;
	c->t0 = now_s();
	deadline = c->t0 + b->timeout_s;
	probe_deadline = strcmp(accel, "kvm") ? 0 : c->t0 + KVM_PROBE_S;
	init_deadline = c->t0 + (b->init_timeout_s ? b->init_timeout_s : b->timeout_s);
	if ((pid = launch(b, accel, &fd, &in, err)) < 0)
		return BOOT_ERROR;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double t = now_s(), until = next_deadline(c, probe_deadline, init_deadline, deadline, &late);
		int r;
		ssize_t n;

		if (mgb_stop_requested() && !pass_stop_on(c, in, &grace_until)) {
			oc = BOOT_STOPPED;
			break;
		}
		if (grace_until && grace_until < until)
			until = grace_until;
		if (t >= until) {
			oc = late;
			c->timed_out = true;
			break;
		}
		r = poll(&p, 1, (int)((until - t) * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		if (c->len == sizeof(c->line) - 1) { /* an over-long line: pass it on in pieces */
			c->line[c->len] = '\0';
			console_line(c, c->line, b->quiet);
			c->len = 0;
		}
		n = read(fd, c->line + c->len, sizeof(c->line) - 1 - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* qemu exited */
		c->len += (size_t)n;
		for (char *nl; (nl = memchr(c->line, '\n', c->len));) {
			size_t k = (size_t)(nl - c->line) + 1;
			char l[sizeof(c->line)];

			memcpy(l, c->line, k);
			l[k] = '\0';
			memmove(c->line, c->line + k, c->len - k);
			c->len -= k;
			console_line(c, l, b->quiet);
		}
		if (c->panic[0]) {
			oc = BOOT_PANIC;
			break;
		}
	}
	close(fd);
	if (in >= 0)
		close(in);
	if (oc != BOOT_DONE) {
		stop_qemu(pid);
		return oc;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			break;
	if (c->panic[0])
		return BOOT_PANIC;
	if (!c->saw_init && !strcmp(accel, "kvm"))
		return BOOT_PROBE_FAILED;
	if (!c->saw_exit) {
		mgb_err(err, "the guest stopped before its command finished; last console line: %s",
			c->last[0] ? c->last : "(none)");
		return BOOT_ERROR;
	}
	return BOOT_DONE;
}

const char *mgb_vm_tcg_artefact(const char *accel, const char *oops, const char *rip)
{
	if (strcmp(accel, "tcg") || !*oops)
		return NULL;
	if (!strncmp(oops, "Oops: int3", 10))
		return "at a stale breakpoint";
	if (strstr(rip, ":text_poke_early+"))
		return "while patching its own text";
	return NULL;
}

/* "Kernel panic - ... (after Oops: ...; RIP: ...)": the panic with the oops that led to it, if any. */
static void panic_text(const struct console *c, char *buf, size_t len)
{
	if (c->oops[0])
		snprintf(buf, len, "%s (after %s%s%s)", c->panic, c->oops, c->rip[0] ? "; " : "", c->rip);
	else
		snprintf(buf, len, "%s", c->panic);
}

static void console_free(struct console *c)
{
	free(c->doc);
	free(c->stderr_text);
	json_decref(c->modules);
	c->doc = c->stderr_text = NULL;
	c->modules = NULL;
}

int mgb_vm_boot(struct mgb_vm_boot *b, char *err)
{
	struct console c;
	char panic[sizeof(c.panic) + sizeof(c.oops) + sizeof(c.rip) + 16];
	const char *accel = b->accel && !strcmp(b->accel, "kvm") ? "kvm" : "tcg";
	enum outcome oc;
	int rc = -1;

	b->guest_status = -1;
	oc = boot_once(b, accel, &c, err);
	if (oc == BOOT_PROBE_FAILED) {
		if (c.timed_out)
			fprintf(stderr, "mgbench vm: KVM did not reach /init within %d s; falling back to TCG\n",
				KVM_PROBE_S);
		else
			fprintf(stderr, "mgbench vm: KVM failed (%.100s); falling back to TCG\n",
				c.last[0] ? c.last : "qemu exited");
		console_free(&c);
		accel = "tcg";
		oc = boot_once(b, accel, &c, err);
	}
	/* the whole run starts over from the initramfs each time; the document says it happened */
	for (unsigned boot = 1; boot < MGB_VM_TCG_BOOTS && !mgb_stop_requested(); boot++) {
		const char *artefact = oc == BOOT_PANIC ? mgb_vm_tcg_artefact(accel, c.oops, c.rip) : NULL;
		char *retried;

		if (!artefact)
			break;
		panic_text(&c, panic, sizeof(panic));
		if (asprintf(&retried, "%s%s%s", b->boot_retried ?: "", b->boot_retried ? "; then " : "", panic) >= 0) {
			free(b->boot_retried);
			b->boot_retried = retried;
		}
		fprintf(stderr, "mgbench vm: the guest kernel panicked %s %s (%s%s%s): "
			"under TCG a vCPU can run a stale copy of code the kernel has just patched; booting once "
			"more (boot %u of at most %u), and the run starts over\n",
			c.run_s > 0 ? "during its run" : c.saw_init ? "in its init" : "before its init", artefact, c.oops,
			c.rip[0] ? "; " : "", c.rip, boot + 1, MGB_VM_TCG_BOOTS);
		console_free(&c);
		oc = boot_once(b, accel, &c, err);
	}
	switch (oc) {
	case BOOT_DONE:
		b->accel_used = strdup(accel);
		b->guest_status = c.status;
		b->boot_s = c.run_s;
		b->modules = c.modules;
		c.modules = NULL;
		if (c.doc && base64_decode(c.doc) >= 0) {
			b->document = c.doc;
			c.doc = NULL;
		}
		/* a stopped run's own lines name the guest's paths: the host says what happened */
		if (c.status != 0 && b->quiet && c.stderr_text && !c.stop_passed)
			fputs(c.stderr_text, stderr);
		rc = 0;
		break;
	case BOOT_PANIC:
		/* one line, with the oops that led to it: under --quiet nothing else of the console shows */
		panic_text(&c, panic, sizeof(panic));
		if (c.unpack[0]) /* "No working init found" would point at the kernel: it is the memory */
			mgb_err(err, "the initramfs (%u MiB) did not fit in the guest's %u MiB (%.60s): give --mem %u or "
				"more", b->initrd_mib, b->mem_mib, c.unpack, mgb_vm_mem_needed(b->initrd_mib));
		else
			mgb_err(err, "the guest kernel panicked: %s", panic);
		break;
	case BOOT_TIMEOUT:
		mgb_err(err, "the guest did not finish within %u s (--timeout); last console line: %.120s",
			b->timeout_s, c.last[0] ? c.last : "(none)");
		break;
	case BOOT_NO_INIT:
		mgb_err(err, "the guest did not reach its init within %u s (--init-timeout): the kernel is damaged or "
			"does not boot here; last console line: %.100s", b->init_timeout_s, c.last[0] ? c.last : "(none)");
		break;
	case BOOT_STOPPED:
		mgb_err(err, "interrupted; the guest was stopped");
		break;
	case BOOT_PROBE_FAILED:
		mgb_err(err, "the guest did not boot under TCG either");
		break;
	case BOOT_ERROR:
		break;
	}
	console_free(&c);
	return rc;
}

/*
 * What the guest needs to unpack an initramfs of initrd_mib, generously: measured under TCG with
 * 2 CPUs, a write run on tmpfs, the smallest --mem that booted was 328 MiB for Debian 6.12 with a
 * 91 MiB initramfs (320 failed), 352 for Debian 7.2.13 with 91 MiB (320 failed), 368 for 6.12
 * with knfsd's 100 MiB (336 failed); a kernel build's own kernel booted at 300 MiB and not at
 * 256.  Four times the initramfs and 32 MiB, to a multiple of 64.
 */
unsigned mgb_vm_mem_needed(unsigned initrd_mib)
{
	return (4 * initrd_mib + 32 + 63) / 64 * 64;
}
