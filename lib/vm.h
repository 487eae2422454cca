/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * VM machinery (used by cmd/vm.c, and by `mgbench kernel build` for the cache and apt): a
 * persistent download cache, apt-get download through the system's or a private apt
 * configuration, kernel unpacking, module resolution, the initramfs and the qemu launch.
 */
#ifndef MGB_VM_H
#define MGB_VM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- cache + apt (lib/vm/apt.c) ---- */


/* "-o" settings of an apt configuration, with room for the NULL after them */
#define MGB_APT_OPTS 8

/* An apt configuration: the system's (dir NULL) or a private one under the cache that reuses the
 * system's Debian mirror for another suite and never touches the system's apt state. */
struct mgb_apt {
	char *dir;        /* private root (sources, lists, cache), or NULL for the system's */
	char *opts[MGB_APT_OPTS]; /* "-o" settings passed to apt-get/apt-cache (NULL-terminated) */
};

/* The system configuration, with apt's package cache kept under cache/apt/system (cache may
 * be NULL: none kept). */
void mgb_apt_system(struct mgb_apt *a, const char *cache);
/* A private configuration for suite (e.g. "sid") under cache/apt/<suite>; runs `apt-get update`
 * into it when its lists are missing or older than a day.  who: the progress lines' prefix, the
 * command's ("mgbench vm", "mgbench kernel"), or NULL for none (as for every who below). */
int mgb_apt_private(struct mgb_apt *a, const char *cache, const char *suite, const char *who, char *err);
void mgb_apt_free(struct mgb_apt *a);

/* The first Debian mirror URI configured in /etc/apt (malloc'd), or NULL with err set. */
char *mgb_apt_mirror(char *err);
/* The candidate version of pkg (malloc'd), or NULL with err set (unknown package). */
char *mgb_apt_version(const struct mgb_apt *a, const char *pkg, char *err);
/* Names pkg depends on (first of each alternative), NULL-terminated malloc'd array. */
char **mgb_apt_depends(const struct mgb_apt *a, const char *pkg, char *err);
void mgb_strv_free(char **v);
/* `apt-get download pkg` into dir (made if missing); the .deb's path (malloc'd) or NULL. */
char *mgb_apt_download(const struct mgb_apt *a, const char *pkg, const char *dir, const char *who, char *err);


/* ---- the Debian kernels known by name (lib/vm/debian.c) ---- */

/* debian:NAME, for `vm --kernel` (an image package) and `kernel build --source` (a source). */
struct mgb_debian_kernel {
	const char *name;        /* "6.12" */
	const char *alias;       /* another name for it ("sid"), or NULL */
	const char *image_meta;  /* the meta package that names the current image package */
	const char *suite;       /* NULL: the machine's own apt; else a private apt of that suite */
	const char *source_pkg;  /* linux-source-X for kernel build, or NULL when there is none */
};

extern const struct mgb_debian_kernel mgb_debian_kernels[]; /* ends with a NULL name */
const struct mgb_debian_kernel *mgb_debian_kernel_find(const char *name);
/* "debian:6.1, debian:6.12 or debian:unstable": every one, or those with a source package. */
const char *mgb_debian_kernel_names(bool with_source);

/* ---- the guest kernel (lib/vm/kernel.c) ---- */

struct mgb_vm_kernel {
	char *image;     /* bzImage or vmlinux to boot */
	char *modroot;   /* holds lib/modules/<release>/ (INSTALL_MOD_PATH), or NULL */
	char *release;   /* uname -r of the image, when known */
	const char *kind; /* "path", "build" (a `mgbench kernel build` directory) or "debian" */
	char *package;   /* Debian: the image package */
	char *version;   /* Debian: its version */
	char *manifest;  /* "build": the build directory's manifest.json (JSON text) */
	bool verified;   /* "build": vmlinux matched the manifest's sha256 */
};

/* The config options of the kernel k boots that change what mgbench measures (HZ, timers,
 * kvmclock, preemption, -O2 or -Os), read from the .config beside a build's image or a Debian
 * package's config-*: {"file", "options": {name: value or null when not set}}, or {"file": null,
 * "reason"}. */
json_t *mgb_vm_kernel_config_json(const struct mgb_vm_kernel *k);
/* Add the outer host's name ("host") and CPU model ("host_cpu") to the vm object; returns it. */
json_t *mgb_vm_outer_host_json(json_t *vm);

/* Resolve --kernel spec (a path, a `mgbench kernel build` directory, or debian:6.1 / debian:6.12 / debian:unstable) and --modules
 * (NULL if not given), fetching and unpacking Debian packages into the cache when needed.  A
 * --modules tree must be the image's release; it is indexed (depmod) in a mirror under scratch,
 * never written to.  A build directory's vmlinux is checked against its manifest's sha256.  who:
 * the progress lines' prefix (the command's: "mgbench vm", "mgbench kernel"), NULL for none. */
int mgb_vm_kernel_get(const char *spec, const char *modules, const char *scratch, const char *who,
		      struct mgb_vm_kernel *k, char *err);
void mgb_vm_kernel_free(struct mgb_vm_kernel *k);
/* A cached Debian tree whose index failed a lookup (damaged, or stale): index a mirror of it
 * under scratch instead (the cache may be read-only) and use that; -1 if there is nothing to redo. */
int mgb_vm_reindex(struct mgb_vm_kernel *k, const char *scratch, char *err);
/* 0 if path is a bzImage, an x86-64 ELF vmlinux or a build directory holding one; -1 with err
 * naming what it is not. */
int mgb_vm_kernel_check(const char *path, char *err);
/* The release (uname -r) built into a bzImage or vmlinux (malloc'd), or NULL if not found. */
char *mgb_vm_image_release(const char *path);

/* ---- modules (lib/vm/modules.c) ---- */

/* The modules to load, in order, for the named filesystems plus loop: dependencies and pre
 * softdeps resolved with libkmod, built-in ones left out.  *paths is a NULL-terminated array of
 * module files (.ko, .ko.xz, .ko.zst).  Fails naming a filesystem whose module is missing. */
int mgb_vm_modules(const struct mgb_vm_kernel *k, const char *const *fs, char ***paths, char *err);

/* ---- initramfs (lib/vm/initramfs.c) ---- */

struct mgb_vm_guest {
	const char *const *run_argv; /* the run command's arguments (after "run") */
	char **modules;              /* from mgb_vm_modules, may be NULL */
	bool test_init_exit;         /* test knob: /init exits at once (the kernel panics) */
	bool knfsd;                  /* carry the kernel NFS server's programs (--nfs-server knfsd) */
	bool ganesha;                /* carry nfs-ganesha, its VFS FSAL and rpcbind (NFS, the default server) */
	const char *test_knfsd_stop; /* test knob: "mountd" or "nfsd", stopped after each knfsd start */
	bool test_stale_breakpoint;  /* test knob: /init prints an int3 oops as the run starts, and exits */
};

/* Build workdir/initramfs.cpio (mgbench, busybox, mkfs tools, their libraries, modules, /init);
 * its path (malloc'd) or NULL. */
char *mgb_vm_initramfs(const char *workdir, const struct mgb_vm_guest *g, char *err);

/* ---- qemu (lib/vm/qemu.c) ---- */

/* Under TCG a stock Debian kernel (6.12, 7.2; 1 CPU) reached its init 3-5 s after qemu started
 * on a quiet 2-core host, 12 s on a busy one; a guest silent ten times that long is not booting
 * (a damaged kernel prints nothing at all). */
#define MGB_VM_INIT_TIMEOUT_S 120

struct mgb_vm_boot {
	const char *image, *initrd;
	const char *accel;  /* "tcg" or "kvm" (kvm falls back to tcg after a probe) */
	unsigned cpus, mem_mib, timeout_s;
	unsigned init_timeout_s; /* give up when the guest's init has not spoken by then */
	unsigned initrd_mib;     /* the initramfs's size, rounded up: for the message when it did not fit */
	bool quiet;
	/* results */
	char *accel_used;
	char *document;     /* the guest's result document (JSON text), or NULL */
	int guest_status;   /* the guest mgbench's exit status, -1 if it never ran */
	double boot_s;      /* qemu start to the first workload (the run command starting) */
	json_t *modules;    /* {module: seconds its insmod took in the guest}, or NULL */
	char *boot_retried; /* the panics of the boots given up on ("P1; then P2"; below), or NULL */
};

/* "QEMU emulator version ..." of qemu-system-x86_64 (malloc'd), NULL with err if it is missing. */
char *mgb_vm_qemu_version(char *err);
/* Boot, stream the console, collect the document; -1 with a one-line err on failure (panic,
 * timeout, no document).  A guest mgbench failure returns 0 with guest_status set. */
int mgb_vm_boot(struct mgb_vm_boot *b, char *err);
/* The --mem to suggest when an initramfs of initrd_mib did not fit in the guest's memory. */
unsigned mgb_vm_mem_needed(unsigned initrd_mib);
/*
 * Whether a panic is likely the emulator's and not the kernel's, so that one more boot is fair:
 * under TCG (multi-threaded, as Debian 12's qemu 7.2 runs it) a vCPU can go on running a stale
 * translation of code another vCPU is patching.  The kernel's text_poke puts an int3 in and
 * takes it out again; a vCPU that meets it afterwards traps on nobody's behalf ("Oops: int3").
 * CI has seen it in early boot, at a static key turned on (sched_clock_cpu), and during a run,
 * at a tracepoint that perf had just turned on (fill_mg_cmtime).  CI has also seen the boot CPU
 * fault inside text_poke_early itself, patching the kernel's text in place before any other
 * CPU runs ("general protection fault" at text_poke_early+0x68, in the idle task): a stock
 * Debian kernel that boots hundreds of times under TCG in the suite, so the emulator's.  The
 * retried boot runs the whole command again from the initramfs and only its document is kept,
 * so nothing of the first mixes in.  Up to MGB_VM_TCG_BOOTS boots in all: CI has seen two in a
 * row (at sched_clock_cpu in early boot, beside the suite's other guests); a kernel that really
 * faults so panics every time, and the last panic is reported.  Returns what happened, for the
 * message ("at a stale breakpoint"), or NULL: the kernel's own panic, not retried.  rip is the
 * oops's "RIP: ..." line, or "".
 */
const char *mgb_vm_tcg_artefact(const char *accel, const char *oops, const char *rip);
#define MGB_VM_TCG_BOOTS 3
void mgb_vm_boot_free(struct mgb_vm_boot *b);

/*
 * The guest's side of a vm run, seen from the host (guest.c).  The guest command with its
 * -o/--output taken out (the host writes the document) and the guest's own output path added;
 * *output gets the host's -o, *fs the --fs list (or the default).
 */
char **mgb_vm_guest_argv(int argc, char **argv, const char **output, const char **fs);
/* The modules the guest needs for the --fs list (loop for image-backed ones, overlay and its
 * layers' filesystem for overlay-*), nfsd for knfsd, the NFS client for nfs3/4-mount. */
const char **mgb_vm_module_targets(const char *list, bool knfsd, bool kernel_client, char **copy);
/* The guest's initramfs in scratch for kernel k: the modules the --fs list (fs) and its NFS
 * need (the kernel's module index rebuilt once when it lacks one) into g->modules and *mods,
 * then mgb_vm_initramfs.  Its path (malloc'd), or NULL with err. */
char *mgb_vm_guest_initramfs(struct mgb_vm_kernel *k, const char *scratch, const char *fs, bool kernel_client,
			     struct mgb_vm_guest *g, char ***mods, char *err);
/* The document that came back gets its "vm" object: qemu, the kernel and its source, the boot;
 * a guest that lost ticks is flagged (vm.tick_matches_config) and said, unless quiet. */
void mgb_vm_doc_annotate(json_t *doc, const struct mgb_vm_kernel *k, const struct mgb_vm_boot *b, const char *qver,
			 unsigned cpus, unsigned mem, bool quiet);

#endif
