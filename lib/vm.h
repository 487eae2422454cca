/*
 * VM machinery (used by cmd/vm.c, and by `mgbench kernel build` for the cache and apt): a
 * persistent download cache, apt-get download through the system's or a private apt
 * configuration, kernel unpacking, module resolution, the initramfs and the qemu launch.
 */
#ifndef MGB_VM_H
#define MGB_VM_H

#include <stdbool.h>
#include <stddef.h>

/* ---- cache + apt (lib/vm/apt.c) ---- */

/* The persistent cache (kept by `make distclean`, shared by runs): $MGBENCH_CACHE, else
 * /var/cache/mgbench as root, else $XDG_CACHE_HOME/mgbench (~/.cache/mgbench).  Created if
 * missing; malloc'd path, NULL with err set on failure. */
char *mgb_cache_dir(char *err);

/* An apt configuration: the system's (dir NULL) or a private one under the cache that reuses the
 * system's Debian mirror for another suite and never touches the system's apt state. */
struct mgb_apt {
	char *dir;        /* private root (sources, lists, cache), or NULL for the system's */
	char *opts[8];    /* "-o" settings passed to apt-get/apt-cache (NULL-terminated) */
};

/* The system configuration (nothing to set up). */
void mgb_apt_system(struct mgb_apt *a);
/* A private configuration for suite (e.g. "sid") under cache/apt/<suite>; runs `apt-get update`
 * into it when its lists are missing or older than a day. */
int mgb_apt_private(struct mgb_apt *a, const char *cache, const char *suite, bool quiet, char *err);
void mgb_apt_free(struct mgb_apt *a);

/* The first Debian mirror URI configured in /etc/apt (malloc'd), or NULL with err set. */
char *mgb_apt_mirror(char *err);
/* The candidate version of pkg (malloc'd), or NULL with err set (unknown package). */
char *mgb_apt_version(const struct mgb_apt *a, const char *pkg, char *err);
/* Names pkg depends on (first of each alternative), NULL-terminated malloc'd array. */
char **mgb_apt_depends(const struct mgb_apt *a, const char *pkg, char *err);
void mgb_strv_free(char **v);
/* `apt-get download pkg` into dir (made if missing); the .deb's path (malloc'd) or NULL. */
char *mgb_apt_download(const struct mgb_apt *a, const char *pkg, const char *dir, bool quiet, char *err);

/* Run argv (argv[0] looked up in PATH) in cwd (NULL: ours), stdout+stderr captured into *out
 * (malloc'd, NUL-terminated; may be NULL).  Returns the exit status, or -1 with err set. */
int mgb_capture(const char *const argv[], const char *cwd, char **out, char *err);
/* mkdir -p; 0 or -1 with err set. */
int mgb_mkdirs(const char *path, char *err);

#endif
