/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mgbench vm: the same command inside another kernel under qemu.  The guest runs this mgbench
 * from an initramfs; its result document comes back over the serial console and is written
 * here, as `run -o` would, with a top-level "vm" object saying how it was run.
 */
#include "config.h"
#include "mgbench.h"
#include "cmdline.h"
#include "result.h"
#include "run_args.h"
#include "stop.h"
#include "target.h"
#include "util.h"
#include "vm.h"

#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_KERNEL = 256, OPT_MODULES, OPT_ACCEL, OPT_CPUS, OPT_MEM, OPT_TIMEOUT, OPT_INIT_TIMEOUT, OPT_TEST_INIT_EXIT,
       OPT_TEST_KNFSD_STOP, OPT_TEST_STALE_BREAKPOINT };

static const struct mgb_cmd_option options[] = {
	{ "kernel", 0, "K", "a bzImage/vmlinux path, a `mgbench kernel build`\ndirectory, or a Debian kernel (below,\n"
	  "downloaded into the cache)", OPT_KERNEL },
	{ "modules", 0, "DIR", "modules tree of a kernel path (INSTALL_MOD_PATH)", OPT_MODULES },
	{ "accel", 0, "A", "tcg (default) or kvm (probed, falls back to tcg)", OPT_ACCEL },
	{ "cpus", 0, "N", "virtual CPUs (default 2: some workloads need two)", OPT_CPUS },
	{ "mem", 0, "MIB", "guest memory in MiB (default 1024)", OPT_MEM },
	{ "timeout", 0, "S", "give up on the guest after S seconds (default 600)", OPT_TIMEOUT },
	{ "init-timeout", 0, "S",
	  "give up when the guest has not reached its init\nS seconds after qemu started (default 120, at\n"
	  "most --timeout): a damaged kernel prints nothing", OPT_INIT_TIMEOUT },
	{ "output", 'o', "F", "result document (default mgbench-vm-DATE.json); or\nrun's -o, not both", 'o' },
	{ "quiet", 'q', NULL, "no console output, errors only", 'q' },
	/* tests only: the guest's /init exits at once, so the kernel panics */
	{ "test-init-exit", 0, NULL, NULL, OPT_TEST_INIT_EXIT },
	/* tests only: each knfsd cell stops rpc.mountd or nfsd right after starting it */
	{ "test-knfsd-stop", 0, "W", NULL, OPT_TEST_KNFSD_STOP },
	/* tests only: as the run starts, the guest prints an int3 oops and /init exits (a panic) */
	{ "test-stale-breakpoint", 0, NULL, NULL, OPT_TEST_STALE_BREAKPOINT },
	{ 0 },
};

/* Options end at the guest's command, whose own options pass through untouched. */
static const struct mgb_cmdline cmdline = { .verb = "vm", .opts = options, .stop_at_operand = true };

static void usage(FILE *f)
{
	fprintf(f, "usage: mgbench vm --kernel K [options] -- run WORKLOAD [run options]\n\n"
		   "Run an mgbench command inside kernel K under qemu (TCG).\n\n");
	mgb_cmd_options_print(f, options);
	fprintf(f, "\nDebian kernels: %s.\n", mgb_debian_kernel_names(false));
}

static int parse_uint(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *v)
{
	uint64_t x;

	if (mgb_parse_u64(s, &x) || x < lo || x > hi)
		return mgb_usage_error("vm", "%s wants a number from %u to %u, not '%s'", opt, lo, hi, s);
	*v = (unsigned)x;
	return 0;
}

/*
 * The guest's command is checked here, before anything is downloaded or booted: a usage error
 * (an unknown workload or filesystem, an option without its value) is the run's own message and
 * exit 2, at once.  The document comes back to the host, which writes it: so one -o, and no
 * --json; and the guest has no network, so NFS there is a server on its loopback: the embedded
 * nfs-ganesha (the default) or the guest kernel's nfsd, whose programs go into the initramfs.
 */
static int check_guest_run(int argc, char **argv, const char *vm_output, struct mgb_plan_needs *needs)
{
	struct mgb_run_args ra;
	int rc = mgb_run_args_check(argc, argv, &ra);

	mgb_plan_needs(&ra.plan, needs);
	if (rc == 0 && ra.output && vm_output)
		rc = mgb_usage_error("vm", "two outputs (vm -o %s and the run's -o): give one", vm_output);
	else if (rc == 0 && ra.json)
		rc = mgb_usage_error("vm",
				     "run --json does not go under vm: the host writes the document (vm -o FILE)");
	else if (rc == 0 && needs->nfs_url)
		rc = mgb_usage_error("vm", "--nfs-url does not go under vm: the guest has no network");
	mgb_run_args_free(&ra);
	return rc;
}

static char *default_output(void)
{
	char name[64];

	mgb_time_name(name, sizeof(name), "mgbench-vm", true);
	return mgb_output_unused_name(name);
}

/* What the command line asks for. */
struct vm_opts {
	const char *kernel, *modules, *accel, *output, *fs, *knfsd_stop;
	unsigned cpus, mem, timeout, init_timeout;
	bool quiet, test_init_exit, test_stale_breakpoint;
	bool knfsd, ganesha, kernel_client; /* the guest's run serves NFS so */
};

/* vm's own options, up to the guest's command at optind: 0, a usage error, or -1 after --help. */
static int parse_options(int argc, char **argv, struct vm_opts *o)
{
	int c;

	optind = 1;
	while ((c = mgb_getopt(&cmdline, argc, argv)) != MGB_GETOPT_END) {
		switch (c) {
		case OPT_KERNEL: o->kernel = optarg; break;
		case OPT_MODULES: o->modules = optarg; break;
		case OPT_ACCEL:
			if (strcmp(optarg, "tcg") && strcmp(optarg, "kvm"))
				return mgb_usage_error("vm", "--accel is tcg or kvm, not '%s'", optarg);
			o->accel = optarg;
			break;
		case OPT_CPUS: if (parse_uint("--cpus", optarg, 1, 64, &o->cpus)) return MGB_EXIT_USAGE; break;
		case OPT_MEM: if (parse_uint("--mem", optarg, 256, 65536, &o->mem)) return MGB_EXIT_USAGE; break;
		case OPT_TIMEOUT:
			if (parse_uint("--timeout", optarg, 5, 86400, &o->timeout))
				return MGB_EXIT_USAGE;
			break;
		case OPT_INIT_TIMEOUT:
			if (parse_uint("--init-timeout", optarg, 5, 86400, &o->init_timeout))
				return MGB_EXIT_USAGE;
			break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = true; break;
		case OPT_TEST_INIT_EXIT: o->test_init_exit = true; break;
		case OPT_TEST_STALE_BREAKPOINT: o->test_stale_breakpoint = true; break;
		case OPT_TEST_KNFSD_STOP:
			if (strcmp(optarg, "mountd") && strcmp(optarg, "nfsd"))
				return mgb_usage_error("vm", "--test-knfsd-stop is mountd or nfsd, not '%s'", optarg);
			o->knfsd_stop = optarg;
			break;
		case MGB_GETOPT_HELP: usage(stdout); return -1;
		default: return MGB_EXIT_USAGE;
		}
	}
	if (!o->kernel)
		return mgb_usage_error("vm", "--kernel is required (a path, or %s)", mgb_debian_kernel_names(false));
	if (optind >= argc)
		return mgb_usage_error("vm", "no command: mgbench vm --kernel K -- run WORKLOAD ...");
	if (strcmp(argv[optind], "run") && strcmp(argv[optind], "info") && strcmp(argv[optind], "list"))
		return mgb_usage_error("vm", "the guest runs run, info or list, not '%s'", argv[optind]);
	if (!strcmp(argv[optind], "run")) {
		int first = optind;
		struct mgb_plan_needs want;

		if ((c = check_guest_run(argc - first, argv + first, o->output, &want)))
			return c;
		o->knfsd = want.knfsd;
		o->ganesha = want.ganesha && !want.nfs_url;
		o->kernel_client = want.kernel_client;
		optind = first;
	}
	return 0;
}

/* Everything that can fail fast, before any download or boot. */
static int check_host(const struct vm_opts *o, char **qver, char *err)
{
	if (geteuid() != 0)
		return mgb_err(err, "needs root (the guest's files are assembled in a private scratch tmpfs)");
	if (!(*qver = mgb_vm_qemu_version(err)))
		return -1;
	if (strncmp(o->kernel, "debian:", 7) && mgb_vm_kernel_check(o->kernel, err))
		return -1;
	return 0;
}

/* The document's file, reserved before the boot: -o, or a new name of our own. */
static int reserve_output(const struct vm_opts *o, struct mgb_output *out, char **outname, char *err)
{
	*outname = o->output ? strdup(o->output) : default_output();
	if (!*outname)
		return mgb_err(err, "out of memory");
	if (mgb_output_open(out, *outname, err) < 0)
		return -1;
	out->no_replace = !o->output; /* -o FILE replaces FILE; a name we chose replaces nothing */
	return 0;
}

/* How qemu runs the guest. */
static void boot_settings(const struct vm_opts *o, const struct mgb_vm_kernel *k, const char *initrd,
			  struct mgb_vm_boot *b)
{
	struct stat st;

	b->image = k->image;
	b->initrd = initrd;
	b->initrd_mib = stat(initrd, &st) ? 0 : (unsigned)((st.st_size + (1 << 20) - 1) >> 20);
	b->accel = o->accel;
	b->cpus = o->cpus;
	b->mem_mib = o->mem;
	b->timeout_s = o->timeout;
	b->init_timeout_s = o->init_timeout ? o->init_timeout : MGB_VM_INIT_TIMEOUT_S;
	if (b->init_timeout_s > o->timeout)
		b->init_timeout_s = o->timeout;
	b->quiet = o->quiet;
}

/* The guest's exit, said on stderr: MGB_EXIT_OK, or MGB_EXIT_FAIL when its command failed. */
static int guest_outcome(const struct vm_opts *o, const struct mgb_vm_boot *b, const char *command)
{
	if (b->guest_status == 0)
		return MGB_EXIT_OK;
	if (mgb_stop_requested() && b->document)
		/* the stop was passed on to the guest's run, which kept what it had finished */
		fprintf(stderr, "mgbench vm: interrupted; the guest's %s stopped and sent back its document\n",
			command);
	else
		fprintf(stderr, "mgbench vm: the guest's mgbench %s failed (exit %d)%s\n", command, b->guest_status,
			o->quiet ? "" : "; its errors are above");
	return MGB_EXIT_FAIL;
}

/* The guest's document with its "vm" object, written where out was reserved. */
static int write_document(const struct vm_opts *o, const struct mgb_vm_kernel *k, const struct mgb_vm_boot *b,
			  const char *qver, struct mgb_output *out, char *err)
{
	json_error_t je;
	json_t *doc = b->document ? json_loads(b->document, 0, &je) : NULL;
	int rc;

	if (!doc)
		return mgb_err(err, "the guest sent no readable result document");
	mgb_vm_doc_annotate(doc, k, b, qver, o->cpus, o->mem, o->quiet);
	rc = mgb_output_commit(out, doc, err);
	json_decref(doc);
	return rc < 0 ? -1 : 0;
}

int cmd_vm(int argc, char **argv)
{
	struct vm_opts o = { .accel = "tcg", .cpus = 2, .mem = 1024, .timeout = 600 };
	struct mgb_vm_kernel k = { 0 };
	struct mgb_vm_boot b = { 0 };
	struct mgb_output out;
	struct mgb_session session;
	char err[MGB_ERR_LEN] = "", **gargv = NULL, **mods = NULL, *qver = NULL, *initrd = NULL, *outname = NULL;
	bool have_out = false, session_up = false;
	int c, rc = MGB_EXIT_FAIL;

	if ((c = parse_options(argc, argv, &o)))
		return c < 0 ? MGB_EXIT_OK : c;
	if (!(gargv = mgb_vm_guest_argv(argc - optind, argv + optind, &o.output, &o.fs)))
		goto out;
	if (check_host(&o, &qver, err))
		goto fail;
	if (!strcmp(gargv[0], "run") && argc - optind > 1) {
		if (reserve_output(&o, &out, &outname, err))
			goto fail;
		have_out = true;
	}
	/* the initramfs and a --modules index live in the session's private temp dir, gone however
	 * we exit */
	if (mgb_session_begin(&session, true, err) < 0) {
		mgb_session_end(&session);
		goto fail;
	}
	session_up = true;
	if (mgb_vm_kernel_get(o.kernel, o.modules, session.tmpdir, o.quiet ? NULL : "mgbench vm", &k, err))
		goto fail;
	{
		struct mgb_vm_guest g = { .run_argv = (const char *const *)gargv, .test_init_exit = o.test_init_exit,
					  .knfsd = o.knfsd, .ganesha = o.ganesha, .test_knfsd_stop = o.knfsd_stop,
					  .test_stale_breakpoint = o.test_stale_breakpoint };

		if (!(initrd = mgb_vm_guest_initramfs(&k, session.tmpdir, o.fs, o.kernel_client, &g, &mods, err)))
			goto fail;
	}
	if (mgb_stop_requested()) {
		mgb_err(err, "interrupted (signal %d) before the boot", (int)mgb_stop_signal);
		goto fail;
	}
	boot_settings(&o, &k, initrd, &b);
	if (!o.quiet)
		fprintf(stderr, "mgbench vm: booting %s (%s) under %s, %u CPU, %u MiB, initramfs %u MiB\n",
			k.release ? k.release : k.image, o.kernel, o.accel, o.cpus, o.mem, b.initrd_mib);
	if (mgb_vm_boot(&b, err))
		goto fail;
	rc = guest_outcome(&o, &b, gargv[0]);
	if (rc && !b.document)
		goto out;
	if (have_out) {
		have_out = false;
		if (write_document(&o, &k, &b, qver, &out, err))
			goto fail;
		if (!o.quiet)
			printf("results: %s\n", outname);
	}
	goto out;
fail:
	fprintf(stderr, "mgbench vm: %s\n", err);
	rc = MGB_EXIT_FAIL; /* dispatch makes a stop 128 + the signal */
out:
	if (have_out)
		mgb_output_abort(&out);
	if (session_up)
		mgb_session_end(&session);
	mgb_vm_boot_free(&b);
	mgb_vm_kernel_free(&k);
	mgb_strv_free(mods);
	free(gargv);
	free(qver);
	free(initrd);
	free(outname);
	return rc;
}
