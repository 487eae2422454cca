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
#include <time.h>
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

/* The length (1-4) of the valid UTF-8 sequence at s, its code point in *cp; 0 if none starts
 * there (a stray continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut short). */
static size_t utf8_sequence(const unsigned char *s, uint32_t *cp)
{
	size_t n;
	uint32_t c = s[0], min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* the NUL at the end too */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static bool unsafe_code_point(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

char *mgb_printable(char *s)
{
	unsigned char *r = (unsigned char *)s, *w = r;

	while (*r) {
		uint32_t cp;
		size_t n = utf8_sequence(r, &cp);

		if (!n || unsafe_code_point(cp)) {
			*w++ = '?';
			r += n ? n : 1;
			continue;
		}
		memmove(w, r, n);
		w += n;
		r += n;
	}
	*w = '\0';
	return s;
}

char *mgb_printable_dup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		abort();
	return mgb_printable(d);
}

size_t mgb_utf8_cut(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	/* back over continuation bytes to the start of the character that does not fit */
	if (n == max && s[n])
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	return n;
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

void mgb_time_name(char *buf, size_t len, const char *prefix, bool utc)
{
	time_t now = time(NULL);
	struct tm tm;
	char when[32] = "";

	if (utc ? gmtime_r(&now, &tm) : localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s-%s", prefix, when);
}

const char *mgb_printable_into(char *buf, size_t len, const char *text)
{
	snprintf(buf, len, "%s", text ?: "");
	return mgb_printable(buf);
}
