#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Rebuild the seeds-6.1 documents, tables and picture in this directory: Debian's 6.1 source
# with and without the 2023 multigrain series, each booted under qemu with mgbench's guest
# config, every workload of results/README.md run in both.  As root, from a built tree:
#     results/make-seeds-6.1.sh PATCHES_DIR [MGBENCH]
# PATCHES_DIR holds the series (../shared/seeds-6.1); MGBENCH defaults to ./mgbench.  Builds
# come from mgbench's cache when they are there (about 10-25 min each on two CPUs when not).
# Run it on an otherwise idle machine: TCG guests share the host's CPUs, and revalidate's
# cells are inconclusive when the guest's two vCPUs are not really running side by side.
set -eu
patches=${1:?usage: results/make-seeds-6.1.sh PATCHES_DIR [MGBENCH]}
mgbench=${2:-./mgbench}
out=$(dirname "$0")

series=$("$mgbench" kernel build --source debian:6.1 --patches "$patches")
control=$("$mgbench" kernel build --source debian:6.1)

run() { # side kernel-dir name workload-and-options...
	side=$1 kdir=$2 name=$3
	shift 3
	"$mgbench" vm --kernel "$kdir" --cpus 2 --mem 2048 -- run "$@" --fs ext4,xfs,btrfs,tmpfs \
		-o "$out/seeds-6.1-$side-$name.json"
}
for side in series control; do
	if [ "$side" = series ]; then kdir=$series; else kdir=$control; fi
	run "$side" "$kdir" suite ordering,write,statx06,revalidate
	run "$side" "$kdir" crossfs ordering --variant crossfs
	run "$side" "$kdir" threads ordering --variant threads
	run "$side" "$kdir" statx06-ticks0 statx06 --ticks 0
done

sh "$out/make-seeds-6.1-tables.sh" "$out" "$mgbench"
