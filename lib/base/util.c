/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mgb_err(char *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, MGB_ERR_LEN, fmt, ap);
	va_end(ap);
	return -1;
}

int mgb_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	/* Bounded by what a JSON integer (int64) can record: a larger count would read as -1. */
	if (errno || *end || v > INT64_MAX)
		return -1;
	*out = v;
	return 0;
}

int mgb_parse_size(const char *s, uint64_t *out)
{
	char buf[64];
	size_t n;
	unsigned shift = 0;
	uint64_t v;

	if (!s || (n = strlen(s)) == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	}
	if (shift)
		buf[n - 1] = '\0';
	if (mgb_parse_u64(buf, &v) || v > ((uint64_t)INT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

void mgb_format_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

int mgb_find_program(const char *name, const char *dirs, char *path, size_t len)
{
	if (!dirs)
		dirs = getenv("PATH") ?: "/usr/bin:/bin";
	for (const char *d = dirs; *d;) {
		size_t n = strcspn(d, ":");

		snprintf(path, len, "%.*s/%s", (int)n, d, name);
		if (n && access(path, X_OK) == 0)
			return 0;
		d += n + (d[n] == ':');
	}
	return -1;
}

int mgb_find_system_program(const char *name, char *path, size_t len)
{
	return mgb_find_program(name, "/usr/sbin:/usr/bin:/sbin:/bin", path, len);
}

char *mgb_read_text(const char *path, char *err)
{
	FILE *f = fopen(path, "re");
	char *s = NULL;
	size_t cap = 0;

	if (!f) {
		mgb_err(err, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (getdelim(&s, &cap, '\0', f) < 0) {
		free(s);
		s = strdup("");
	}
	fclose(f);
	return s;
}

int mgb_write_text(const char *path, const char *text, mode_t mode, char *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
	size_t n = strlen(text);

	if (fd < 0)
		return mgb_err(err, "cannot write %s: %s", path, strerror(errno));
	if (write(fd, text, n) != (ssize_t)n) {
		close(fd);
		return mgb_err(err, "cannot write %s", path);
	}
	return close(fd) ? mgb_err(err, "cannot write %s: %s", path, strerror(errno)) : 0;
}

bool mgb_kernel_has_fs(const char *name)
{
	char line[128];
	FILE *f = fopen("/proc/filesystems", "re");
	bool found = false;

	/* "nodev\tnfs" or "\text4": the name follows the tab */
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = strchr(line, '\t') && !strcmp(strchr(line, '\t') + 1, name);
	}
	if (f)
		fclose(f);
	return found;
}
