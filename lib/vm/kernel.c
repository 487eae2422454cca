/*
 * The guest kernel: a user's bzImage/vmlinux (with an optional modules tree), or a Debian kernel
 * fetched into the cache.  Debian splits its kernels differently per release: bookworm's
 * linux-image-* package holds /boot/vmlinuz-* and lib/modules; sid's linux-image-* is a meta
 * package over linux-binary-*, linux-modules-* and linux-base-* under usr/lib/modules.  Both
 * are unpacked into one root, depmod'ed once, and reused while the package version matches.
 */
#include "config.h"
#include "vm.h"
#include "util.h"
#include "target.h"

#include <dirent.h>
#include <jansson.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A `mgbench kernel build` directory: its vmlinux (PVH boot) and manifest. */
static bool is_build_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int build_dir_check(const char *dir, char *err)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/manifest.json", dir);
	if (access(p, R_OK))
		return mgb_err(err, "%s is not a kernel build directory (no manifest.json; see mgbench kernel build)",
			       dir);
	snprintf(p, sizeof(p), "%s/vmlinux", dir);
	return mgb_vm_kernel_check(p, err);
}

int mgb_vm_kernel_check(const char *path, char *err)
{
	unsigned char h[0x210];
	int fd;
	ssize_t n;

	if (is_build_dir(path))
		return build_dir_check(path, err);
	fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return mgb_err(err, "cannot open kernel %s: %s", path, strerror(errno));
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n >= 0x206 && !memcmp(h + 0x202, "HdrS", 4))
		return 0; /* x86 boot protocol header: a bzImage */
	if (n >= 20 && !memcmp(h, "\177ELF", 4) && h[4] == 2 && h[18] == 62)
		return 0; /* ELF64, EM_X86_64: a vmlinux */
	return mgb_err(err, "%s is not a kernel (neither a bzImage nor an x86-64 vmlinux)", path);
}

void mgb_vm_kernel_free(struct mgb_vm_kernel *k)
{
	free(k->image);
	free(k->modroot);
	free(k->release);
	free(k->package);
	free(k->version);
	free(k->manifest);
	memset(k, 0, sizeof(*k));
}

/* The only entry of root/lib/modules (malloc'd), or NULL. */
static char *single_release(const char *root)
{
	char *dir, *rel = NULL;
	DIR *d;
	struct dirent *e;
	int count = 0;

	if (asprintf(&dir, "%s/lib/modules", root) < 0)
		return NULL;
	d = opendir(dir);
	free(dir);
	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && count++ == 0)
			rel = strdup(e->d_name);
	closedir(d);
	if (count != 1) {
		free(rel);
		rel = NULL;
	}
	return rel;
}

/* depmod the tree unless modules.dep.bin is there already. */
static int ensure_depmod(const char *root, const char *rel, char *err)
{
	char *dep, *out = NULL;
	int st;

	if (asprintf(&dep, "%s/lib/modules/%s/modules.dep.bin", root, rel) < 0)
		return mgb_err(err, "out of memory");
	st = access(dep, R_OK);
	free(dep);
	if (st == 0)
		return 0;
	const char *argv[] = { "depmod", "-b", root, rel, NULL };
	st = mgb_capture(argv, NULL, &out, err);
	if (st > 0)
		mgb_err(err, "depmod -b %s %s failed: %s", root, rel, out ? out : "");
	free(out);
	return st ? -1 : 0;
}

/* A build directory boots its vmlinux; the manifest names source, version and patches. */
static int from_build(const char *dir, struct mgb_vm_kernel *k, char *err)
{
	char *real = realpath(dir, NULL), *p = NULL;
	json_error_t je;
	json_t *m = NULL;
	int rc = -1;

	k->kind = "build";
	if (!real)
		return mgb_err(err, "%s: %s", dir, strerror(errno));
	if (asprintf(&p, "%s/manifest.json", real) < 0 || !(m = json_load_file(p, 0, &je))) {
		mgb_err(err, "%s: %s", p ? p : dir, p ? je.text : "out of memory");
		goto out;
	}
	free(p);
	if (asprintf(&k->image, "%s/vmlinux", real) < 0 || !(k->manifest = json_dumps(m, JSON_COMPACT))) {
		k->image = NULL;
		mgb_err(err, "out of memory");
		p = NULL;
		goto out;
	}
	p = NULL;
	if (json_string_value(json_object_get(m, "release")))
		k->release = strdup(json_string_value(json_object_get(m, "release")));
	rc = 0;
out:
	json_decref(m);
	free(p);
	free(real);
	return rc;
}

static int from_path(const char *spec, const char *modules, struct mgb_vm_kernel *k, char *err)
{
	if (mgb_vm_kernel_check(spec, err))
		return -1;
	if (is_build_dir(spec)) {
		if (modules)
			return mgb_err(err, "--modules does not go with a build directory (its kernel has no modules)");
		return from_build(spec, k, err);
	}
	k->kind = "path";
	k->image = realpath(spec, NULL);
	if (!k->image)
		return mgb_err(err, "%s: %s", spec, strerror(errno));
	if (modules) {
		if (!(k->modroot = realpath(modules, NULL)))
			return mgb_err(err, "--modules %s: %s", modules, strerror(errno));
		if (!(k->release = single_release(k->modroot)))
			return mgb_err(err, "--modules %s: expected one lib/modules/<release> directory in it",
				       modules);
		return ensure_depmod(k->modroot, k->release, err);
	}
	return 0;
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* Find the image under an unpacked Debian root: boot/vmlinuz-* or lib/modules/REL/vmlinuz*. */
static char *find_image(const char *root, const char *rel)
{
	char *p = NULL;
	const char *cands[] = { "%s/boot/vmlinuz-%s", "%s/lib/modules/%s/vmlinuz.unsigned",
				"%s/lib/modules/%s/vmlinuz" };

	for (size_t i = 0; i < MGB_ARRAY_SIZE(cands); i++) {
		if (asprintf(&p, cands[i], root, rel) < 0)
			return NULL;
		if (!access(p, R_OK))
			return p;
		free(p);
	}
	return NULL;
}

/* The packages that make up a kernel: the image package, or for sid's meta package its
 * linux-binary (unsigned preferred), linux-modules and linux-base parts. */
static char **kernel_packages(const struct mgb_apt *a, const char *image_pkg, char *err)
{
	char **deps = mgb_apt_depends(a, image_pkg, err), **v;
	int n = 0;

	if (!deps)
		return NULL;
	v = calloc(8, sizeof(*v));
	for (char **d = deps; v && *d && n < 6; d++) {
		if (has_prefix(*d, "linux-binary-")) {
			char *u = NULL, e2[MGB_ERR_LEN], *ver;

			if (!has_prefix(*d, "linux-binary-unsigned-") &&
			    asprintf(&u, "linux-binary-unsigned-%s", *d + strlen("linux-binary-")) >= 0 &&
			    (ver = mgb_apt_version(a, u, e2))) {
				free(ver);
				v[n++] = u;
				continue;
			}
			free(u);
			v[n++] = strdup(*d);
		} else if (has_prefix(*d, "linux-modules-") || has_prefix(*d, "linux-base-"))
			v[n++] = strdup(*d);
	}
	if (v && n == 0)
		v[n++] = strdup(image_pkg); /* bookworm: one package holds it all */
	mgb_strv_free(deps);
	if (!v)
		mgb_err(err, "out of memory");
	return v;
}

/*
 * The uncompressed vmlinux inside a bzImage, for qemu's PVH entry (Debian's kernels have
 * CONFIG_PVH): decompressing the xz/zstd payload under TCG costs 1-5 s per boot, once on the
 * host it is free.  Like linux/scripts/extract-vmlinux: try each xz or zstd magic in the image
 * and keep the first output that is an ELF file.  Cached beside the image; NULL if none.
 */
static char *extract_vmlinux(const char *image, const char *root)
{
	static const struct { const char *magic; size_t len; const char *tool; } fmts[] = {
		{ "\xfd" "7zXZ\0", 6, "xz" }, { "\x28\xb5\x2f\xfd", 4, "zstd" } };
	char *out = NULL, *tmp = NULL, *buf = NULL, e2[MGB_ERR_LEN];
	FILE *f;
	long size;

	if (asprintf(&out, "%s/vmlinux", root) < 0 || asprintf(&tmp, "%s/vmlinux.tmp", root) < 0)
		goto fail;
	if (mgb_vm_kernel_check(out, e2) == 0) {
		free(tmp);
		return out;
	}
	if (!(f = fopen(image, "rb")))
		goto fail;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)size)) || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		goto fail;
	}
	fclose(f);
	for (size_t k = 0; k < MGB_ARRAY_SIZE(fmts); k++)
		for (long off = 0; off + (long)fmts[k].len <= size; off++) {
			char offs[32], head[4];
			int fd;

			if (memcmp(buf + off, fmts[k].magic, fmts[k].len))
				continue;
			snprintf(offs, sizeof(offs), "+%ld", off + 1);
			/* the payload is followed by more data: the tool's complaint about it is expected */
			const char *argv[] = { "sh", "-c", "tail -c \"$1\" \"$2\" | \"$0\" -dcq > \"$3\" 2>/dev/null",
					       fmts[k].tool, offs, image, tmp, NULL };
			mgb_capture(argv, NULL, NULL, e2);
			fd = open(tmp, O_RDONLY | O_CLOEXEC);
			if (fd >= 0 && read(fd, head, 4) == 4 && !memcmp(head, "\177ELF", 4) &&
			    !close(fd) && !rename(tmp, out)) {
				free(buf);
				free(tmp);
				return out;
			}
			if (fd >= 0)
				close(fd);
		}
fail:
	if (tmp)
		unlink(tmp);
	free(buf);
	free(tmp);
	free(out);
	return NULL;
}

static int from_debian(const char *which, bool quiet, struct mgb_vm_kernel *k, char *err)
{
	struct mgb_apt apt;
	char *cache = NULL, *meta_pkg = NULL, *pkg = NULL, *root = NULL, *done = NULL, *tmp = NULL;
	char **deps = NULL, **parts = NULL;
	int rc = -1;

	mgb_apt_system(&apt);
	k->kind = "debian";
	if (!(cache = mgb_cache_dir(err)))
		return -1;
	if (!strcmp(which, "6.1"))
		meta_pkg = strdup("linux-image-amd64");
	else if (!strcmp(which, "6.12"))
		meta_pkg = strdup("linux-image-6.12-amd64");
	else if (!strcmp(which, "unstable") || !strcmp(which, "sid")) {
		meta_pkg = strdup("linux-image-amd64");
		if (mgb_apt_private(&apt, cache, "sid", quiet, err))
			goto out;
	} else {
		mgb_err(err, "unknown kernel debian:%s (debian:6.1, debian:6.12 or debian:unstable)", which);
		goto out;
	}
	/* The meta package names the current ABI's image package. */
	if (!(deps = mgb_apt_depends(&apt, meta_pkg, err)))
		goto out;
	for (char **d = deps; *d && !pkg; d++)
		if (has_prefix(*d, "linux-image-"))
			pkg = strdup(*d);
	if (!pkg) {
		mgb_err(err, "%s depends on no linux-image package", meta_pkg);
		goto out;
	}
	/* bookworm: the unsigned image, if apt has it (same kernel, no shim signature) */
	if (!strstr(pkg, "-unsigned")) {
		char *u = NULL, e2[MGB_ERR_LEN], *ver;

		if (asprintf(&u, "%s-unsigned", pkg) >= 0 && (ver = mgb_apt_version(&apt, u, e2))) {
			free(ver);
			free(pkg);
			pkg = u;
		} else
			free(u);
	}
	if (!(k->version = mgb_apt_version(&apt, pkg, err)))
		goto out;
	k->package = strdup(pkg);
	if (asprintf(&root, "%s/debian/%s_%s", cache, pkg, k->version) < 0 ||
	    asprintf(&done, "%s/.complete", root) < 0)
		goto oom;
	if (access(done, F_OK)) {
		char *debs = NULL;

		if (asprintf(&debs, "%s/debs", root) < 0)
			goto oom;
		mgb_remove_tree(debs); /* an interrupted download may have left a partial .deb */
		if (!(parts = kernel_packages(&apt, pkg, err))) {
			free(debs);
			goto out;
		}
		for (char **p = parts; *p; p++) {
			char *deb = mgb_apt_download(&apt, *p, debs, quiet, err);

			if (!deb) {
				free(debs);
				goto out;
			}
			const char *argv[] = { "dpkg-deb", "-x", deb, root, NULL };
			char *o = NULL;
			int st = mgb_capture(argv, NULL, &o, err);

			if (st > 0)
				mgb_err(err, "dpkg-deb -x %s failed: %s", deb, o ? o : "");
			free(o);
			free(deb);
			if (st) {
				free(debs);
				goto out;
			}
		}
		mgb_remove_tree(debs); /* the unpacked root is what is kept */
		free(debs);
		/* sid keeps everything under usr/lib; depmod and libkmod look in ROOT/lib/modules */
		if (asprintf(&tmp, "%s/lib", root) < 0)
			goto oom;
		if (access(tmp, F_OK) && symlink("usr/lib", tmp)) {
			mgb_err(err, "cannot link %s: %s", tmp, strerror(errno));
			goto out;
		}
	}
	if (!(k->release = single_release(root))) {
		mgb_err(err, "%s: no single lib/modules/<release> in %s", pkg, root);
		goto out;
	}
	if (ensure_depmod(root, k->release, err))
		goto out;
	if (!(k->image = find_image(root, k->release))) {
		mgb_err(err, "%s: no kernel image found in %s", pkg, root);
		goto out;
	}
	if (mgb_vm_kernel_check(k->image, err))
		goto out;
	{
		char *vmlinux = extract_vmlinux(k->image, root);

		if (vmlinux) {
			free(k->image);
			k->image = vmlinux;
		}
	}
	if (access(done, F_OK)) {
		int fd = open(done, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0)
			close(fd);
	}
	k->modroot = root;
	root = NULL;
	rc = 0;
	goto out;
oom:
	mgb_err(err, "out of memory");
out:
	mgb_apt_free(&apt);
	mgb_strv_free(deps);
	mgb_strv_free(parts);
	free(cache);
	free(meta_pkg);
	free(pkg);
	free(root);
	free(done);
	free(tmp);
	return rc;
}

int mgb_vm_kernel_get(const char *spec, const char *modules, bool quiet, struct mgb_vm_kernel *k, char *err)
{
	int rc;

	memset(k, 0, sizeof(*k));
	if (has_prefix(spec, "debian:")) {
		if (modules)
			return mgb_err(err, "--modules goes with a kernel path, not %s", spec);
		rc = from_debian(spec + strlen("debian:"), quiet, k, err);
	} else
		rc = from_path(spec, modules, k, err);
	if (rc)
		mgb_vm_kernel_free(k);
	return rc;
}
