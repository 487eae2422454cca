#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Rebuild results/debian-config/: the 2023 multigrain series on Debian's 6.1 source, built with
# `--config debian` (Debian's own config, reduced to a guest), against Debian's own 6.1 kernel
# (the linux-image package that config came from), each booted under qemu and running the
# workloads of results/README.md.  As root, from a built tree:
#     results/make-debian-config.sh PATCHES_DIR [MGBENCH]
# PATCHES_DIR holds the series (../shared/seeds-6.1); MGBENCH defaults to ./mgbench.  The build
# comes from mgbench's cache when it is there (about an hour on two CPUs when not).  Run it on
# an otherwise idle machine: TCG guests share the host's CPUs.
set -eu
patches=${1:?usage: results/make-debian-config.sh PATCHES_DIR [MGBENCH]}
mgbench=${2:-./mgbench}
out=$(dirname "$0")/debian-config
mkdir -p "$out"

series=$("$mgbench" kernel build --source debian:6.1 --patches "$patches" --config debian)
cp "$series/manifest.json" "$out/series-manifest.json"
cp "$series/.config" "$out/series.config"

run() { # side kernel name workload-and-options...
	side=$1 kernel=$2 name=$3
	shift 3
	"$mgbench" vm --kernel "$kernel" --cpus 2 --mem 2048 -- run "$@" --fs ext4,xfs,btrfs,tmpfs \
		-o "$out/seeds-6.1-$side-$name.json"
}
for side in series control; do
	if [ "$side" = series ]; then kernel=$series; else kernel=debian:6.1; fi
	run "$side" "$kernel" suite ordering,write,statx06,revalidate
	run "$side" "$kernel" crossfs ordering --variant crossfs
	run "$side" "$kernel" threads ordering --variant threads
	run "$side" "$kernel" statx06-ticks0 statx06 --ticks 0
done

sh "$(dirname "$0")/make-seeds-6.1-tables.sh" "$out" "$mgbench"
