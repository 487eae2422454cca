/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: overlayfs, the seeds' sixth filesystem.  The overlay targets mgbench makes (layers
 * on a fresh ext4 or tmpfs) and a --dir on an overlay someone mounted: the stamps are the upper
 * layer's inodes', so the multigrain evidence and the tracepoint counts must watch the upper
 * layer's device, and the document says which device that was.  Before, the probe filtered on
 * the overlay's own device and saw "fill_mg_cmtime fired 0 times" beside 199 distinct ctimes.
 * The workloads' files start in the lower layer (their first change is a copy-up, counted);
 * ordering's f2 can live on the upper filesystem itself; read --reread asks whether a re-read
 * with nothing changed moves a relatime atime, which the 2023 series' flag in tv_nsec did.
 */
#include "config.h"
#include "helpers.h"
#include "util.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static void check_cell(json_t *cell, const char *what)
{
	json_t *target = json_object_get(cell, "target");
	const char *watched = t_str(target, "watched_device"), *own = t_str(target, "overlay.device");
	json_t *ev = json_object_get(json_object_get(cell, "multigrain"), "evidence");
	double fired = json_number_value(json_object_get(ev, "fill_mg_cmtime_events"));

	T_CHECK(!strcmp(t_str(cell, "status") ?: "", "ok"), "%s: status %s: %s", what, t_str(cell, "status") ?: "?",
		t_str(cell, "error") ?: "");
	T_CHECK(!strcmp(t_str(target, "fstype") ?: "", "overlay"), "%s: the target is an overlay", what);
	T_CHECK(watched && own && strcmp(watched, own), "%s: the device watched (%s) is not the overlay's own (%s)",
		what, watched ?: "none", own ?: "none");
	T_CHECK(fired > 0, "%s: the evidence counts fill_mg_cmtime on the upper inode: %g", what, fired);
	T_CHECK(json_is_true(json_object_get(json_object_get(cell, "multigrain"), "in_effect")),
		"%s: multigrain in effect", what);
	T_CHECK(t_metric(cell, "ctime.distinct_ratio") > 0.99, "%s: every write+query distinct: %g", what,
		t_metric(cell, "ctime.distinct_ratio"));
}

static void scratch_overlays(void)
{
	const char *path = t_result_path("overlay.json");
	const char *args[] = { "run", "write", "--fs", "overlay-tmpfs,overlay-ext4", "--rounds", "2000", "-q", "-o",
			       path, NULL };
	struct t_output o;
	json_t *doc;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "run on overlay-tmpfs,overlay-ext4: exit %d: %s", o.status, o.err);
	doc = t_load(path);
	check_cell(t_cell(doc, "write", "overlay-tmpfs"), "overlay-tmpfs");
	check_cell(t_cell(doc, "write", "overlay-ext4"), "overlay-ext4");
	T_CHECK(!strcmp(t_str(t_cell(doc, "write", "overlay-ext4"), "target.overlay.upper_fstype") ?: "", "ext4"),
		"overlay-ext4's upper layer is ext4");
	/* mainline (this host): a copy-up keeps the lower mtime, and the overlay shows the upper
	 * inode's stamps as they are, every tv_nsec below 1e9 */
	for (int i = 0; i < 2; i++) {
		json_t *c = json_object_get(json_object_get(json_object_get(t_cell(doc, "write", i ? "overlay-ext4" : "overlay-tmpfs"),
									    "target"), "overlay"), "copy_up");
		static const char *const keys[] = { "lower_shown", "copied_up", "mtime_kept", "ctime_moved", "written",
						    "matches_upper", "nsec_below_1e9" };

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			T_CHECK(json_is_true(json_object_get(c, keys[k])), "copy-up probe: %s on %s", keys[k],
				i ? "overlay-ext4" : "overlay-tmpfs");
	}
	/* the workload's own file started in the lower layer and was copied up by its first open */
	for (int i = 0; i < 2; i++) {
		json_t *cell = t_cell(doc, "write", i ? "overlay-ext4" : "overlay-tmpfs");
		static const char *const keys[] = { "copy_up.files", "copy_up.shown", "copy_up.copied_up",
						    "copy_up.mtime_kept", "copy_up.atime_kept", "copy_up.ctime_new" };

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			T_CHECK(t_metric(cell, keys[k]) == 1, "write.dat: %s = %g on %s (1 expected)", keys[k],
				t_metric(cell, keys[k]), i ? "overlay-ext4" : "overlay-tmpfs");
	}
	json_decref(doc);
	t_output_free(&o);
}

/* f1 through the overlay, f2 on its upper filesystem directly: the floor holds across them; on
 * a target that is no overlay there is no upper filesystem to use. */
static void ordering_beside_upper(void)
{
	const char *path = t_result_path("ordering-upper.json");
	const char *args[] = { "run", "ordering", "--variant", "crossfs", "--second-fs", "upper", "--fs",
			       "overlay-tmpfs,tmpfs", "--rounds", "2000", "-q", "-o", path, NULL };
	struct t_output o;
	json_t *doc, *cell;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "ordering crossfs upper: exit %d: %s", o.status, o.err);
	doc = t_load(path);
	cell = t_cell(doc, "ordering", "overlay-tmpfs");
	T_CHECK(!strcmp(t_str(cell, "status") ?: "", "ok"), "overlay-tmpfs: status %s: %s", t_str(cell, "status") ?: "?",
		t_str(cell, "error") ?: "");
	T_CHECK(!strcmp(t_str(cell, "metrics.second_fs") ?: "", "tmpfs"), "f2 on the upper tmpfs: %s",
		t_str(cell, "metrics.second_fs") ?: "none");
	T_CHECK(t_metric(cell, "rounds") == 2000 && t_metric(cell, "inversions") == 0,
		"2000 rounds, no inversion across overlay and upper: %g rounds, %g inversions",
		t_metric(cell, "rounds"), t_metric(cell, "inversions"));
	T_CHECK(t_metric(cell, "copy_up.copied_up") == 1, "f1 copied up, f2 not: %g", t_metric(cell, "copy_up.copied_up"));
	T_CHECK(!strcmp(t_str(t_cell(doc, "ordering", "tmpfs"), "status") ?: "", "unsupported"),
		"--second-fs upper on plain tmpfs is unsupported: %s", t_str(t_cell(doc, "ordering", "tmpfs"), "status") ?: "?");
	json_decref(doc);
	t_output_free(&o);
}

/* Mainline keeps no flag in tv_nsec: a re-read with nothing changed leaves the relatime atime. */
static void reread_keeps_atime(void)
{
	const char *path = t_result_path("reread.json");
	const char *args[] = { "run", "read", "--reread", "--fs", "overlay-tmpfs", "--rounds", "100", "-q", "-o", path,
			       NULL };
	struct t_output o;
	json_t *doc, *cell;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "read --reread: exit %d: %s", o.status, o.err);
	doc = t_load(path);
	cell = t_cell(doc, "read", "overlay-tmpfs");
	if (t_metric(cell, "reread.rounds") < 1)
		T_NOT_JUDGED("no re-read found the atime newer than mtime and ctime (%g of 100)",
			     t_metric(cell, "reread.rounds"));
	else
		T_CHECK(t_metric(cell, "reread.atime_moved") == 0, "re-reads that moved the atime: %g of %g",
			t_metric(cell, "reread.atime_moved"), t_metric(cell, "reread.rounds"));
	json_decref(doc);
	t_output_free(&o);
}

/* An overlay mounted by hand (in this test's own mount namespace, which mgbench inherits). */
static void dir_on_overlay(void)
{
	char base[600], p[700], data[2200], path[600];
	const char *args[] = { "run", "write", "--dir", p, "--rounds", "2000", "-q", "-o", path, NULL };
	struct t_output o;
	json_t *doc;

	snprintf(path, sizeof(path), "%s", t_result_path("overlay-dir.json")); /* t_result_path's buffer is reused */
	snprintf(base, sizeof(base), "%s", t_result_path("ovl"));
	mkdir(base, 0700);
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("mgbench-test", base, "tmpfs", 0, "size=64m")) {
		T_CHECK(false, "a tmpfs in a namespace of our own: %s", strerror(errno));
		return;
	}
	for (const char *d = "l\0u\0w\0m\0"; *d; d += 2) {
		snprintf(p, sizeof(p), "%s/%s", base, d);
		mkdir(p, 0755);
	}
	snprintf(data, sizeof(data), "lowerdir=%s/l,upperdir=%s/u,workdir=%s/w", base, base, base);
	snprintf(p, sizeof(p), "%s/m", base);
	T_CHECK(mount("overlay", p, "overlay", 0, data) == 0, "mount the overlay: %s", strerror(errno));
	t_mgbench(&o, args);
	T_CHECK(o.status == 0, "run --dir on an overlay: exit %d: %s", o.status, o.err);
	doc = t_load(path);
	check_cell(t_cell(doc, "write", "dir"), "--dir on an overlay");
	json_decref(doc);
	t_output_free(&o);
	umount2(p, MNT_DETACH);
	umount2(base, MNT_DETACH);
	rmdir(base);
}

static void listed(void)
{
	const char *args[] = { "list", NULL };
	struct t_output o;

	t_mgbench(&o, args);
	T_CHECK(o.status == 0 && strstr(o.out, "overlay-ext4") && strstr(o.out, "overlay-btrfs"),
		"mgbench list names the overlay targets: %s", o.out);
	t_output_free(&o);
}

int main(void)
{
	t_require(&(struct t_needs){ .root = true, .filesystems = "overlay,ext4,tmpfs" });
	T_RUN(listed());
	T_RUN(scratch_overlays());
	T_RUN(ordering_beside_upper());
	T_RUN(reread_keeps_atime());
	T_RUN(dir_on_overlay());
	t_cleanup();
	return t_result();
}
