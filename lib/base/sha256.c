/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sha256 of a file or a buffer, in hex: the manifest, the cache keys and the boot checks. */
#include "config.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void to_hex(const unsigned char *md, unsigned len, char hex[65])
{
	for (unsigned i = 0; i < len && i < 32; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	hex[64] = '\0';
}

void mgb_sha256_buf(const void *buf, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;

	EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL);
	to_hex(md, mdlen, hex);
}

int mgb_sha256_file(const char *path, char hex[65], char *err)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	/* O_NONBLOCK: a FIFO must not hang the open; only a regular file is hashed */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc = -1;
	struct stat st;
	ssize_t n;

	if (fd < 0 || !ctx) {
		mgb_err(err, "cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		mgb_err(err, "%s is not a regular file", path);
		goto out;
	}
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		EVP_DigestUpdate(ctx, buf, (size_t)n);
	if (n < 0) {
		mgb_err(err, "cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	to_hex(md, mdlen, hex);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	EVP_MD_CTX_free(ctx);
	return rc;
}
