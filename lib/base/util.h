/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by every part of mgbench: number parsing, clocks, errors. */
#ifndef MGB_UTIL_H
#define MGB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#define MGB_ERR_LEN 256
#define MGB_NSEC_PER_SEC 1000000000LL
#define MGB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline int64_t mgb_timespec_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * MGB_NSEC_PER_SEC + t->tv_nsec;
}

static inline int64_t mgb_clock_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return mgb_timespec_ns(&t);
}

/* A control character (a newline, the start of an escape sequence): never printed raw from a
 * document, and never passed on in a path another program parses. */
static inline bool mgb_is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

/* c, or '?' for a control character: for one byte of ASCII only; text from a document, a commit
 * or a file goes through mgb_printable, which knows UTF-8. */
static inline char mgb_printable_char(char c)
{
	return mgb_is_control(c) ? '?' : c;
}

/*
 * Text from a document, a commit or a file, made safe for a terminal in place: a C0 control or
 * DEL (a newline, the start of an escape sequence), a C1 control in UTF-8 (U+0080-U+009F, U+009B
 * the 8-bit CSI), a bidirectional embedding, override or isolate (U+202A-U+202E, U+2066-U+2069:
 * text displayed in another order than it is), and a byte that is no part of valid UTF-8 (a C1
 * control to a terminal in another charset) each become one '?'.  Returns s.  The one filter
 * every such text goes through before it is printed.
 */
char *mgb_printable(char *s);
/* The same into a new string (malloc'd, never NULL: aborts without memory); NULL reads as "". */
char *mgb_printable_dup(const char *s);
/* text (NULL reads as "") copied into buf, cut to len, and made printable there: buf. */
const char *mgb_printable_into(char *buf, size_t len, const char *text);
/* How many bytes of s, at most max, end on a character boundary of UTF-8: where s can be cut. */
size_t mgb_utf8_cut(const char *s, size_t max);

/* n events over elapsed_ns, per second (0 for an empty interval). */
static inline double mgb_per_s(uint64_t n, int64_t elapsed_ns)
{
	return elapsed_ns > 0 ? (double)n * 1e9 / (double)elapsed_ns : 0.0;
}

/* n events per coarse tick of elapsed time: the one definition every *_per_tick key uses.  A run
 * shorter than one tick still spans at least one coarse value, so it counts as one tick. */
static inline double mgb_per_tick(uint64_t n, int64_t elapsed_ns, int64_t tick_ns)
{
	double ticks;

	if (tick_ns <= 0 || elapsed_ns <= 0)
		return 0.0;
	ticks = (double)elapsed_ns / (double)tick_ns;
	return (double)n / (ticks < 1.0 ? 1.0 : ticks);
}

/* Write a formatted message into err (MGB_ERR_LEN bytes); returns -1 so callers can `return mgb_err(...)`. */
int mgb_err(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Strict unsigned parse: digits only, no sign, no junk, at most INT64_MAX (what the document can
 * record). 0 on success, -1 otherwise. */
int mgb_parse_u64(const char *s, uint64_t *out);
/* Like mgb_parse_u64 but accepts a k/K, m/M, g/G suffix (powers of 1024). */
int mgb_parse_size(const char *s, uint64_t *out);

/* Format a duration in ns as a short human string ("812ns", "3.4us", "4.0ms", "1.20s"). */
void mgb_format_ns(char *buf, size_t len, double ns);

/* The first executable name in the ':'-separated directories dirs (NULL: $PATH, or /usr/bin:/bin
 * when it is unset), its full path in path: 0, or -1 when none holds one. */
int mgb_find_program(const char *name, const char *dirs, char *path, size_t len);
/* The system's own copy of a tool (mkfs.*), from the distribution's directories rather than the
 * caller's PATH: as root, mgbench must not run whatever a PATH entry offers under that name. */
int mgb_find_system_program(const char *name, char *path, size_t len);

/*
 * A directory root may write to or read code from: it and every directory above it are owned by
 * root or the caller and not writable by others (above it, a sticky directory such as /tmp is
 * fine; at the path itself only if sticky_ok).  0, or -1 with err naming the culprit.
 */
int mgb_check_trusted_dir(const char *path, bool sticky_ok, char *err);
/*
 * The same question asked on the way down: path opened one directory at a time from /, each
 * checked before the next is opened below it, no symbolic link followed after the part that
 * existed was resolved once; with create, missing directories are made (0755).  The directory's
 * descriptor (O_CLOEXEC), to write in relative to it; or -1 with err.
 */
int mgb_open_trusted_dir(const char *path, bool create, bool sticky_ok, char *err);

/*
 * Removal through directory descriptors (tree.c): never a path resolved twice, never through a
 * symbolic link, never into another filesystem.  mgb_remove_tree resolves path's parent once.
 * The _at forms return 0, or -1 when something was left (errors are otherwise ignored).
 */
void mgb_remove_tree(const char *path);
int mgb_remove_tree_at(int dirfd, const char *name);
/* Everything inside the open directory, which stays. */
int mgb_remove_contents(int dirfd);
/* rmdir name in dirfd only if it is still the directory want describes (dev and inode). */
int mgb_rmdir_if_same(int dirfd, const char *name, const struct stat *want);

/* A new directory (0700) in dirfd named prefix and 8 random hex digits, its name in name: 0, or
 * -1 with errno (EEXIST: no free name after 100 tries).  A name nobody can guess or squat on. */
int mgb_mkdir_random_at(int dirfd, const char *prefix, char *name, size_t len);

/* "prefix-YYYYmmdd-HHMMSS" for now, in UTC or local time: the default name of what a command
 * writes (a document, a directory of them). */
void mgb_time_name(char *buf, size_t len, const char *prefix, bool utc);

/* mkdir -p; 0 or -1 with err set. */
int mgb_mkdirs(const char *path, char *err);
/* The persistent cache (kept by `make distclean`, shared by runs): $MGBENCH_CACHE, else
 * /var/cache/mgbench as root, else $XDG_CACHE_HOME/mgbench (~/.cache/mgbench).  Created if
 * missing; malloc'd path, NULL with err set on failure. */
char *mgb_cache_dir(char *err);

/* A whole file as text (malloc'd; "" for an empty one), or NULL with err. */
char *mgb_read_text(const char *path, char *err);
/* text as the whole of path, created with mode if missing, never through a symbolic link. */
int mgb_write_text(const char *path, const char *text, mode_t mode, char *err);
/* Does the running kernel know the filesystem type name (/proc/filesystems: built in, or its
 * module loaded)? */
bool mgb_kernel_has_fs(const char *name);

/* sha256 (64 hex digits) of a buffer, or of a regular file (a FIFO or device is refused, not
 * read): 0, or -1 with err (sha256.c). */
void mgb_sha256_buf(const void *buf, size_t len, char hex[65]);
int mgb_sha256_file(const char *path, char hex[65], char *err);

#endif
