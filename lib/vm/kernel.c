/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest kernel: a user's bzImage/vmlinux (with an optional modules tree), or a Debian kernel
 * fetched into the cache.  Debian splits its kernels differently per release: bookworm's
 * linux-image-* package holds /boot/vmlinuz-* and lib/modules; sid's linux-image-* is a meta
 * package over linux-binary-*, linux-modules-* and linux-base-* under usr/lib/modules.  Both
 * are unpacked into one root, depmod'ed once, and reused while the package version matches.
 */
#include "config.h"
#include "vm.h"
#include "result.h"
#include "stop.h"
#include "proc.h"
#include "util.h"

#include <dirent.h>
#include <elf.h>
#include <jansson.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
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

/* Open a kernel file for reading: a regular file only (a FIFO would block open() and read()). */
static int open_regular(const char *path, char *err)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0)
		return mgb_err(err, "cannot open kernel %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return mgb_err(err, "kernel %s is not a regular file", path);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return mgb_err(err, "cannot open kernel %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) { /* replaced between stat and open */
		close(fd);
		return mgb_err(err, "kernel %s is not a regular file", path);
	}
	return fd;
}

/* Every segment and the section table lie inside the file: a vmlinux cut short (a full disk
 * during extraction) is not whole, though it starts like one. */
static bool elf_complete(int fd)
{
	struct stat st;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint64_t size;

	if (fstat(fd, &st) < 0 || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum == 0)
		return false;
	size = (uint64_t)st.st_size;
	if (eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > size ||
	    eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(ph) > size)
		return false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph))
			return false;
		if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > size)
			return false;
	}
	return true;
}

int mgb_vm_kernel_check(const char *path, char *err)
{
	unsigned char h[0x210];
	int fd;
	ssize_t n;

	if (is_build_dir(path))
		return build_dir_check(path, err);
	if ((fd = open_regular(path, err)) < 0)
		return -1;
	n = read(fd, h, sizeof(h));
	if (n >= 0x206 && !memcmp(h + 0x202, "HdrS", 4)) {
		close(fd);
		return 0; /* x86 boot protocol header: a bzImage */
	}
	if (n >= 20 && !memcmp(h, "\177ELF", 4) && h[4] == 2 && h[18] == 62) {
		bool whole = elf_complete(fd);

		close(fd);
		return whole ? 0 : mgb_err(err, "%s is a truncated or damaged vmlinux (its ELF segments run past its end)",
					   path);
	}
	close(fd);
	return mgb_err(err, "%s is not a kernel (neither a bzImage nor an x86-64 vmlinux)", path);
}

/* The release (uname -r) a kernel image was built as: a bzImage's header points at its version
 * string; a vmlinux holds linux_banner, "Linux version REL (...". */
char *mgb_vm_image_release(const char *path)
{
	static const char banner[] = "Linux version ";
	char e2[MGB_ERR_LEN], *rel = NULL;
	struct stat st;
	int fd = open_regular(path, e2);
	unsigned char *m;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size < 0x210 ||
	    (m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	close(fd);
	if (!memcmp(m + 0x202, "HdrS", 4)) {
		size_t off = 0x200 + (size_t)(m[0x20e] | m[0x20f] << 8);

		if (off < (size_t)st.st_size)
			rel = strndup((char *)m + off, strnlen((char *)m + off, (size_t)st.st_size - off));
	} else {
		const unsigned char *end = m + st.st_size, *p = m;

		while ((p = memmem(p, (size_t)(end - p), banner, sizeof(banner) - 1))) {
			p += sizeof(banner) - 1;
			if (p < end && *p >= '0' && *p <= '9') {
				rel = strndup((const char *)p, strnlen((const char *)p, (size_t)(end - p)));
				break;
			}
		}
	}
	munmap(m, (size_t)st.st_size);
	if (rel)
		rel[strcspn(rel, " ")] = '\0';
	if (rel && !*rel) {
		free(rel);
		rel = NULL;
	}
	return rel;
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

static int run_depmod(const char *root, const char *rel, char *err)
{
	const char *argv[] = { "depmod", "-b", root, rel, NULL };
	char *out = NULL;
	int st = mgb_capture(argv, NULL, &out, err);

	if (st > 0)
		mgb_err(err, "depmod -b %s %s failed: %s", root, rel, out ? out : "");
	free(out);
	return st ? -1 : 0;
}

/* depmod a cache tree of ours unless modules.dep.bin is there already. */
static int ensure_depmod(const char *root, const char *rel, char *err)
{
	char *dep;
	int st;

	if (asprintf(&dep, "%s/lib/modules/%s/modules.dep.bin", root, rel) < 0)
		return mgb_err(err, "out of memory");
	st = access(dep, R_OK);
	free(dep);
	return st == 0 ? 0 : run_depmod(root, rel, err);
}

/* depmod's inputs at the top of a release directory; every other modules.* is its output. */
static bool depmod_input(const char *name)
{
	return strncmp(name, "modules.", 8) || !strcmp(name, "modules.order") ||
	       !strcmp(name, "modules.builtin") || !strcmp(name, "modules.builtin.modinfo");
}

/*
 * A user's --modules tree is never written to, and its index may be missing, stale or damaged:
 * mirror it into the scratch as symlinks (cp -as), drop the old index there and depmod the
 * mirror.  *root gets the mirror's root (malloc'd).
 */
static int depmod_mirror(const char *modroot, const char *rel, const char *scratch, char **root, char *err)
{
	char *src = NULL, *dst = NULL, *out = NULL;
	DIR *d = NULL;
	struct dirent *e;
	int st, rc = -1;

	if (asprintf(root, "%s/modules", scratch) < 0 || asprintf(&src, "%s/lib/modules/%s", modroot, rel) < 0 ||
	    asprintf(&dst, "%s/lib/modules", *root) < 0) {
		mgb_err(err, "out of memory");
		goto out;
	}
	if (mgb_mkdirs(dst, err))
		goto out;
	const char *argv[] = { "cp", "-as", "--", src, dst, NULL };
	st = mgb_capture(argv, NULL, &out, err);
	if (st > 0)
		mgb_err(err, "cp -as %s failed: %s", src, out ? out : "");
	if (st)
		goto out;
	free(dst);
	if (asprintf(&dst, "%s/lib/modules/%s", *root, rel) < 0 || !(d = opendir(dst))) {
		mgb_err(err, "cannot read %s", dst ? dst : *root);
		goto out;
	}
	while ((e = readdir(d)))
		if (!depmod_input(e->d_name))
			unlinkat(dirfd(d), e->d_name, 0);
	rc = run_depmod(*root, rel, err);
out:
	if (d)
		closedir(d);
	free(src);
	free(dst);
	free(out);
	return rc;
}

/* The manifest's sha256 of vmlinux, when the build recorded one: a vmlinux that does not match
 * (an export that failed part way, a file replaced since) is refused.  Without one the build is
 * booted but said to be unverified, and its release must at least be the manifest's. */
static int verify_build(json_t *m, struct mgb_vm_kernel *k, const char *who, char *err)
{
	const char *want = json_string_value(mgb_json_path(m, "sha256.vmlinux"));
	char have[65], *rel;

	if (want) {
		if (mgb_sha256_file(k->image, have, err))
			return -1;
		if (strcasecmp(want, have))
			return mgb_err(err, "%s does not match its manifest (sha256 %.12s..., the manifest says %.12s...): "
				       "refusing to boot it", k->image, have, want);
		k->verified = true;
		return 0;
	}
	rel = mgb_vm_image_release(k->image);
	if (rel && k->release && strcmp(rel, k->release)) {
		mgb_err(err, "%s is release %s but its manifest says %s: refusing a stale manifest", k->image, rel,
			k->release);
		free(rel);
		return -1;
	}
	free(rel);
	if (who)
		fprintf(stderr, "%s: note: the build's manifest has no sha256 of vmlinux: booting it unverified\n", who);
	return 0;
}

/* A build directory boots its vmlinux; the manifest names source, version and patches. */
static int from_build(const char *dir, const char *who, struct mgb_vm_kernel *k, char *err)
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
	rc = verify_build(m, k, who, err);
out:
	json_decref(m);
	free(p);
	free(real);
	return rc;
}

/* A modules tree serves one kernel: its release must be the image's. */
static int modules_match(const char *modules, struct mgb_vm_kernel *k, char *err)
{
	char *mrel = single_release(k->modroot);

	if (!mrel)
		return mgb_err(err, "--modules %s: expected one lib/modules/<release> directory in it", modules);
	if (!k->release) {
		free(mrel);
		return mgb_err(err, "cannot tell the release of %s, so --modules %s cannot be checked against it",
			       k->image, modules);
	}
	if (strcmp(mrel, k->release)) {
		mgb_err(err, "--modules %s is for release %s, but the kernel %s is %s", modules, mrel, k->image,
			k->release);
		free(mrel);
		return -1;
	}
	free(mrel);
	return 0;
}

static int from_path(const char *spec, const char *modules, const char *scratch, const char *who,
		     struct mgb_vm_kernel *k, char *err)
{
	char *mirror = NULL;

	if (mgb_vm_kernel_check(spec, err))
		return -1;
	if (is_build_dir(spec)) {
		if (modules)
			return mgb_err(err, "--modules does not go with a build directory (its kernel has no modules)");
		return from_build(spec, who, k, err);
	}
	k->kind = "path";
	k->image = realpath(spec, NULL);
	if (!k->image)
		return mgb_err(err, "%s: %s", spec, strerror(errno));
	k->release = mgb_vm_image_release(k->image);
	if (!modules)
		return 0;
	if (!(k->modroot = realpath(modules, NULL)))
		return mgb_err(err, "--modules %s: %s", modules, strerror(errno));
	if (modules_match(modules, k, err) || depmod_mirror(k->modroot, k->release, scratch, &mirror, err)) {
		free(mirror);
		return -1;
	}
	free(k->modroot);
	k->modroot = mirror;
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

/* A cached vmlinux is used when it is whole and matches the sha256 written beside it when it
 * was extracted (an entry from before that file existed is judged on its ELF alone). */
static bool cached_ok(const char *vmlinux, const char *sumfile)
{
	char e2[MGB_ERR_LEN], want[80] = "", have[65];
	FILE *f;

	if (mgb_vm_kernel_check(vmlinux, e2))
		return false;
	if (!(f = fopen(sumfile, "re")))
		return errno == ENOENT;
	if (!fgets(want, sizeof(want), f))
		want[0] = '\0';
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	return !mgb_sha256_file(vmlinux, have, e2) && !strcmp(want, have);
}

/* The sha256 of tmp, into sumfile (through a temporary name of its own). */
static int write_sum(const char *tmp, const char *sumfile, char *err)
{
	char hex[65], *t = NULL;
	int fd = -1, rc = -1;

	if (mgb_sha256_file(tmp, hex, err) || asprintf(&t, "%s.XXXXXX", sumfile) < 0 || (fd = mkstemp(t)) < 0)
		goto out;
	if (dprintf(fd, "%s\n", hex) < 0 || fsync(fd) || fchmod(fd, 0644) || rename(t, sumfile))
		mgb_err(err, "cannot write %s: %s", sumfile, strerror(errno));
	else
		rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc && t)
		unlink(t);
	free(t);
	return rc;
}

/* One try: the payload at off decompressed by tool into tmp; true if tmp is a whole vmlinux.  The
 * tool's status says nothing (the payload is followed by more data, which it complains about):
 * the ELF's own segment table says whether everything arrived. */
static bool try_payload(const char *image, long off, const char *tool, const char *tmp, int fd, char *err)
{
	char offs[32];
	const char *argv[] = { "sh", "-c", "tail -c \"$1\" \"$2\" | \"$0\" -dcq > \"$3\" 2>/dev/null", tool, offs,
			       image, tmp, NULL };

	snprintf(offs, sizeof(offs), "+%ld", off + 1);
	if (ftruncate(fd, 0) || mgb_capture(argv, NULL, NULL, err) < 0)
		return false;
	return elf_complete(fd) && !fsync(fd);
}

/*
 * The uncompressed vmlinux inside a bzImage, for qemu's PVH entry (Debian's kernels have
 * CONFIG_PVH): decompressing the xz/zstd payload under TCG costs 1-5 s per boot, once on the
 * host it is free.  Like linux/scripts/extract-vmlinux: try each xz or zstd magic in the image
 * and keep the first output that is a whole ELF file.  Extracted under a temporary name and
 * renamed when complete, with its sha256 beside it, so a full disk or an interruption never
 * leaves a truncated vmlinux in the cache.  NULL if none (the bzImage is booted instead).
 */
static char *extract_vmlinux(const char *image, const char *root, const char *who)
{
	static const struct { const char *magic; size_t len; const char *tool; } fmts[] = {
		{ "\xfd" "7zXZ\0", 6, "xz" }, { "\x28\xb5\x2f\xfd", 4, "zstd" } };
	char *out = NULL, *tmp = NULL, *sum = NULL, *buf = NULL, e2[MGB_ERR_LEN] = "";
	int fd = -1;
	FILE *f;
	long size;

	if (asprintf(&out, "%s/vmlinux", root) < 0 || asprintf(&sum, "%s/vmlinux.sha256", root) < 0 ||
	    asprintf(&tmp, "%s/vmlinux.tmp.XXXXXX", root) < 0)
		goto fail;
	if (cached_ok(out, sum))
		goto done;
	if ((fd = mkstemp(tmp)) < 0) {
		mgb_err(e2, "cannot write in %s: %s", root, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto fail;
	}
	if (!(f = fopen(image, "rbe")))
		goto fail;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)size)) || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		goto fail;
	}
	fclose(f);
	for (size_t k = 0; k < MGB_ARRAY_SIZE(fmts); k++)
		for (long off = 0; off + (long)fmts[k].len <= size; off++) {
			if (memcmp(buf + off, fmts[k].magic, fmts[k].len))
				continue;
			if (try_payload(image, off, fmts[k].tool, tmp, fd, e2) && !fchmod(fd, 0644) &&
			    !write_sum(tmp, sum, e2) && !rename(tmp, out))
				goto done;
			if (mgb_stop_requested())
				goto fail;
		}
	if (!e2[0])
		mgb_err(e2, "no whole vmlinux came out of it (a full disk?)");
fail:
	if (who && !mgb_stop_requested())
		fprintf(stderr, "%s: note: cannot extract vmlinux from %s into the cache: %s; booting the "
			"compressed image\n", who, image, e2[0] ? e2 : strerror(errno));
	free(out);
	out = NULL;
done:
	if (fd >= 0)
		close(fd);
	if (tmp && fd >= 0)
		unlink(tmp);
	free(buf);
	free(tmp);
	free(sum);
	return out;
}

static int from_debian(const char *which, const char *who, struct mgb_vm_kernel *k, char *err)
{
	struct mgb_apt apt;
	char *cache = NULL, *meta_pkg = NULL, *pkg = NULL, *root = NULL, *done = NULL, *tmp = NULL;
	char **deps = NULL, **parts = NULL;
	const struct mgb_debian_kernel *known;
	int rc = -1;

	mgb_apt_system(&apt, NULL); /* nothing to free until the cache dir is known */
	k->kind = "debian";
	if (!(cache = mgb_cache_dir(err)))
		return -1;
	if (!(known = mgb_debian_kernel_find(which))) {
		mgb_err(err, "unknown kernel debian:%s (%s)", which, mgb_debian_kernel_names(false));
		goto out;
	}
	meta_pkg = strdup(known->image_meta);
	if (!known->suite)
		mgb_apt_system(&apt, cache);
	else if (mgb_apt_private(&apt, cache, known->suite, who, err))
		goto out;
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
			char *deb = mgb_apt_download(&apt, *p, debs, who, err);

			if (!deb) {
				mgb_remove_tree(debs); /* no partial .deb left by an interruption */
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
				mgb_remove_tree(debs);
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
		char *vmlinux = extract_vmlinux(k->image, root, who);

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

int mgb_vm_reindex(struct mgb_vm_kernel *k, const char *scratch, char *err)
{
	char *mirror = NULL;

	if (!k->modroot || strcmp(k->kind, "debian"))
		return -1; /* a --modules tree was indexed afresh already */
	if (depmod_mirror(k->modroot, k->release, scratch, &mirror, err)) {
		free(mirror);
		return -1;
	}
	free(k->modroot);
	k->modroot = mirror;
	return 0;
}

int mgb_vm_kernel_get(const char *spec, const char *modules, const char *scratch, const char *who,
		      struct mgb_vm_kernel *k, char *err)
{
	int rc;

	memset(k, 0, sizeof(*k));
	if (has_prefix(spec, "debian:")) {
		if (modules)
			return mgb_err(err, "--modules goes with a kernel path, not %s", spec);
		rc = from_debian(spec + strlen("debian:"), who, k, err);
	} else
		rc = from_path(spec, modules, scratch, who, k, err);
	if (rc)
		mgb_vm_kernel_free(k);
	return rc;
}
