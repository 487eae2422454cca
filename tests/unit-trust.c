/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit: which directories root may trust (mgb_check_trusted_dir), on real directories. */
#include "config.h"
#include "helpers.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[] = "/tmp/mgbench-unit-trust.XXXXXX";

static void mkdir_mode(const char *path, mode_t mode, uid_t owner)
{
	mkdir(path, 0700);
	chmod(path, mode);
	if (owner != (uid_t)-1 && chown(path, owner, owner) < 0)
		perror(path);
}

int main(void)
{
	char err[MGB_ERR_LEN], p[512];

	if (!mkdtemp(top))
		return perror("mkdtemp"), 1;
	chmod(top, 0755);
	snprintf(p, sizeof(p), "%s/ok", top);
	T_RUN(mkdir_mode(p, 0755, (uid_t)-1));
	T_CHECK(mgb_check_trusted_dir(p, false, err) == 0, "a 0755 directory of ours under /tmp: %s", err);

	snprintf(p, sizeof(p), "%s/world", top);
	T_RUN(mkdir_mode(p, 0777, (uid_t)-1));
	T_CHECK(mgb_check_trusted_dir(p, false, err) < 0 && strstr(err, "writable by every user"),
		"a world-writable directory is refused: %s", err);

	snprintf(p, sizeof(p), "%s/sticky", top);
	T_RUN(mkdir_mode(p, 01777, (uid_t)-1));
	T_CHECK(mgb_check_trusted_dir(p, false, err) < 0, "a sticky one is refused when sticky_ok is false");
	T_CHECK(mgb_check_trusted_dir(p, true, err) == 0, "and taken when it is: %s", err);
	snprintf(p, sizeof(p), "%s/sticky/below", top);
	T_RUN(mkdir_mode(p, 0755, (uid_t)-1));
	T_CHECK(mgb_check_trusted_dir(p, false, err) == 0, "a sticky parent is fine: %s", err);

	snprintf(p, sizeof(p), "%s/group", top);
	T_RUN(mkdir_mode(p, 0775, (uid_t)-1));
	snprintf(p, sizeof(p), "%s/group/below", top);
	T_RUN(mkdir_mode(p, 0755, (uid_t)-1));
	T_CHECK(mgb_check_trusted_dir(p, false, err) < 0 && strstr(err, "its parent") && strstr(err, "group"),
		"a group-writable parent is refused: %s", err);

	if (geteuid() == 0) {
		snprintf(p, sizeof(p), "%s/nobody", top);
		T_RUN(mkdir_mode(p, 0755, 65534));
		T_CHECK(mgb_check_trusted_dir(p, false, err) < 0 && strstr(err, "uid 65534"),
			"a directory of another user is refused: %s", err);
		snprintf(p, sizeof(p), "%s/nobody/below", top);
		T_RUN(mkdir_mode(p, 0755, (uid_t)-1));
		T_CHECK(mgb_check_trusted_dir(p, false, err) < 0, "so is one below it");
	}
	snprintf(p, sizeof(p), "%s/missing", top);
	T_CHECK(mgb_check_trusted_dir(p, false, err) < 0 && strstr(err, "No such file"), "a missing one: %s", err);

	snprintf(p, sizeof(p), "rm -rf '%s'", top);
	if (system(p) != 0)
		fprintf(stderr, "could not remove %s\n", top);
	return t_result();
}
