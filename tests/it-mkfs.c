/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integration: the scratch ext4 is made whole.  mke2fs's default lazy_itable_init leaves the
 * inode tables for the ext4lazyinit thread, whose journal handles and writes (about 32 handles
 * and 16 MiB per fresh 256 MiB image) then land in whatever phase is running and are counted as
 * the workload's cost.  mgbench makes images with lazy_itable_init=0,lazy_journal_init=0: every
 * block group's inode table is zeroed (ITABLE_ZEROED) before the first phase.  (On a loop device
 * whose discard zeroes, mke2fs marks the groups zeroed anyway; the option makes it so whatever
 * the device, and the document's mkfs line says so.)
 */
#include "config.h"
#include "helpers.h"
#include "target.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	struct mgb_session s;
	struct mgb_target t;
	char err[MGB_ERR_LEN], cmd[600], line[512];
	unsigned groups = 0, zeroed = 0;
	FILE *p;

	t_require_root();
	t_result_path("x"); /* the test's TMPDIR */
	if (mgb_session_begin(&s, true, err) < 0 || mgb_target_scratch(&s, mgb_fs_type_find("ext4"), &t, err) < 0) {
		fprintf(stderr, "scratch ext4: %s\n", err);
		return T_FAIL;
	}
	T_CHECK(strstr(t.mkfs_cmd, "lazy_itable_init=0") != NULL, "the document's mkfs records it: %s", t.mkfs_cmd);
	/* the loop device is ours, made just now; dumpe2fs only reads it */
	snprintf(cmd, sizeof(cmd), "dumpe2fs %s 2>/dev/null", t.loopdev);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		if (!strncmp(line, "Group ", 6) && line[6] >= '0' && line[6] <= '9') {
			groups++;
			zeroed += strstr(line, "ITABLE_ZEROED") != NULL;
		}
	}
	T_CHECK(p && pclose(p) == 0, "dumpe2fs %s ran", t.loopdev);
	T_CHECK(groups > 0 && zeroed == groups, "%u of %u block groups have their inode table zeroed", zeroed,
		groups);
	fprintf(stderr, "ext4: %u of %u groups ITABLE_ZEROED\n", zeroed, groups);
	mgb_target_down(&t);
	mgb_session_end(&s);
	return t_result();
}
