/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loop devices, attached with LO_FLAGS_AUTOCLEAR so that they detach when their filesystem goes. */
#include "config.h"
#include "target.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int mgb_loop_attach(const char *image, char **devname, char *err)
{
	struct loop_config cfg;
	int ctl, img, loop = -1, saved;
	char name[32];

	img = open(image, O_RDWR | O_CLOEXEC);
	if (img < 0)
		return mgb_err(err, "open %s: %s", image, strerror(errno));
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		close(img);
		return mgb_err(err, "open /dev/loop-control: %s (is the loop driver available?)", strerror(errno));
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = img;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", image);
	/* Another process may take the free device between GET_FREE and CONFIGURE: retry. */
	for (int attempt = 0; attempt < 16; attempt++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0) {
			mgb_err(err, "LOOP_CTL_GET_FREE: %s", strerror(errno));
			break;
		}
		snprintf(name, sizeof(name), "/dev/loop%d", n);
		loop = open(name, O_RDWR | O_CLOEXEC);
		if (loop < 0) {
			mgb_err(err, "open %s: %s", name, strerror(errno));
			break;
		}
		if (ioctl(loop, LOOP_CONFIGURE, &cfg) == 0)
			break;
		saved = errno; /* mgb_err and close may change errno */
		mgb_err(err, "LOOP_CONFIGURE %s: %s", name, strerror(saved));
		close(loop);
		loop = -1;
		if (saved != EBUSY)
			break;
	}
	close(ctl);
	close(img);
	if (loop < 0)
		return -1;
	*devname = strdup(name);
	if (!*devname) {
		close(loop); /* autoclear: nothing is mounted on it yet, so it detaches now */
		return mgb_err(err, "out of memory");
	}
	return loop;
}
