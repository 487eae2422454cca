/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Integration: bad input gets a clear message naming the problem, a non-zero exit, and leaves nothing. */
#include "config.h"
#include "helpers.h"

#include <sys/stat.h>
#include <unistd.h>

#include <string.h>

struct bad_case {
	const char *args[16];
	int status;        /* expected exit */
	const char *names; /* the message must contain this */
};

/* Not root: each way of asking names what needs root, and no hint points back at itself. */
static void not_root(void)
{
	char dir[] = "/tmp/mgbench-nobody.XXXXXX", out[64], out2[64];
	const char *const scratch[] = { "run", "write", "--fs", "tmpfs", "-o", out, NULL };
	const char *const nfs[] = { "run", "write", "--dir", dir, "--backend", "nfs4", "-o", out2, NULL };
	struct t_output o;

	/* a directory nobody can write in, so the run gets as far as asking for root */
	if (!mkdtemp(dir) || chmod(dir, 01777)) {
		T_CHECK(false, "a directory for uid 65534");
		return;
	}
	snprintf(out, sizeof(out), "%s/a.json", dir);
	snprintf(out2, sizeof(out2), "%s/b.json", dir);
	t_mgbench_as_nobody(&o, scratch);
	T_CHECK(o.status == 1 && strstr(o.err, "needs root") && strstr(o.err, "--dir"),
		"non-root scratch run: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	t_mgbench_as_nobody(&o, nfs);
	T_CHECK(o.status == 1 && strstr(o.err, "NFS server needs root") && !strstr(o.err, "use --dir"),
		"non-root --dir nfs4 run: exit %d: %s", o.status, o.err);
	t_output_free(&o);
	T_CHECK(t_count_files(dir, NULL) == 0, "the refused runs left nothing in %s", dir);
	rmdir(dir);
}

int main(void)
{
	const char *out = t_result_path("never.json");
	char outdir[512];
	const struct bad_case cases[] = {
		{ { "run", "nosuchload", NULL }, 2, "nosuchload" },
		{ { "run", "write", "--fs", "ext4,zfs", NULL }, 2, "zfs" },
		{ { "run", "write", "--rounds", "-5", NULL }, 2, "-5" },
		{ { "run", "write", "--rounds", "many", NULL }, 2, "many" },
		{ { "run", "write", "--rounds", "0", NULL }, 2, "--rounds" },
		{ { "run", "write", "--size", "-1", NULL }, 2, "--size" },
		{ { "run", "write", "--query", "sometimes", NULL }, 2, "sometimes" },
		{ { "run", "stat", "--threads", "x", NULL }, 2, "--threads" },
		{ { "run", "stat", "--mask", "everything", NULL }, 2, "everything" },
		{ { "run", "write", "--bogus", NULL }, 2, "--bogus" },
		{ { "run", "write", "--fs", NULL }, 2, "--fs" },
		{ { "run", "write", "--backend", "carrier-pigeon", NULL }, 2, "carrier-pigeon" },
		{ { "run", "write", "--fs", "ext4", "-o", "/nonexistent-dir/out.json", NULL }, 1, "/nonexistent-dir" },
		{ { "run", "write", "--dir", "/nonexistent-dir", "-o", out, NULL }, 1, "/nonexistent-dir" },
		{ { "run", "write", "--dir", "/tmp", "--fs", "ext4", "-o", out, NULL }, 2, "--dir" },
		{ { "nosuchcommand", NULL }, 2, "nosuchcommand" },
		{ { "info", "--fs", "zfs", NULL }, 2, "zfs" },
		{ { "list", "everything", NULL }, 2, "everything" },
		/* a count the document cannot record (it read back as -1) */
		{ { "run", "write", "--rounds", "9223372036854775808", NULL }, 2, "--rounds" },
		{ { "run", "write", "--query", "18446744073709551615", NULL }, 2, "--query" },
		/* cells that could not be told apart */
		{ { "run", "write", "--fs", "ext4,ext4", NULL }, 2, "given twice" },
		{ { "run", "write,write", NULL }, 2, "given twice" },
		/* a sweep list with one value twice, however spelled (its document would be refused),
		 * or two sweeps of one option */
		{ { "run", "cost", "--fs", "tmpfs", "--phase-ms", "50", "--cycles", "1", "--poll-rate", "10,max,10", "-o", out, NULL }, 2, "given twice" },
		{ { "run", "cost", "--fs", "tmpfs", "--phase-ms", "50", "--cycles", "1", "--poll-rate", "100,0100", "-o", out, NULL }, 2, "given twice" },
		{ { "run", "cost", "--fs", "tmpfs", "--phase-ms", "50", "--cycles", "1", "--poll-rate", "10,20", "--poll-rate",
		    "10,20", "-o", out, NULL },
		  2, "same parameters" },
		/* the messages name what was wrong: a backend option that four backends take, and
		 * a --good that is no count of patches */
		{ { "run", "write", "--backend", "sync", "--nfs-server", "knfsd", NULL },
		  2, "--nfs-server is an option of backends nfs3, nfs4, nfs3-mount, nfs4-mount, and --backend is sync" },
		{ { "kernel", "bisect", "--source", "debian:6.1", "--patches", "/nonexistent", "--good", "-1", "--metric",
		    "distinct", "--", "run", "write", NULL },
		  2, "--good '-1': with --patches, --good is how many" },
		/* each option valid, the pair is not: a usage error before anything runs */
		{ { "run", "statx06", "--change", "create", "--prequery", "yes", NULL }, 2, "--prequery" },
	};
	struct t_host before;

	t_require_root();
	snprintf(outdir, sizeof(outdir), "%s", out);
	*strrchr(outdir, '/') = '\0';
	t_host_snapshot(&before);
	t_case("each bad command line: its exit code and a message naming the problem");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct t_output o;

		t_mgbench(&o, cases[i].args);
		T_CHECK(o.status == cases[i].status, "%s %s: exit %d, want %d", cases[i].args[0], cases[i].args[1],
			o.status, cases[i].status);
		T_CHECK(strstr(o.err, cases[i].names) != NULL, "%s %s: message does not name '%s': %s",
			cases[i].args[0], cases[i].args[1], cases[i].names, o.err);
		T_CHECK(strlen(o.out) == 0 || cases[i].status == 0, "nothing on stdout: %s", o.out);
		t_output_free(&o);
	}
	t_case("not root: a clear refusal");
	not_root();
	t_case("nothing left behind");
	T_CHECK(t_count_files(outdir, NULL) == 0, "no result or temp file left in %s", outdir);
	T_CHECK(t_count_files(getenv("TMPDIR"), NULL) == 0, "nothing left in the scratch dir %s", getenv("TMPDIR"));
	t_host_check_clean(&before, "after bad input");
	t_cleanup();
	return t_result();
}
