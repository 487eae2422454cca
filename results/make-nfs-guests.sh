#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Rebuild results/nfs-guests: NFS inside guests of Debian's 6.12 (no multigrain) and unstable
# (multigrain) kernels, served by the kernel's nfsd and by the embedded nfs-ganesha, through
# libnfs (nfs3, nfs4) and the guest kernel's client (nfs3-mount, nfs4-mount), on ext4, xfs,
# btrfs and tmpfs exports.  As root, from a built tree, on an otherwise idle machine:
#     results/make-nfs-guests.sh [MGBENCH]
# About an hour on two CPUs under TCG (the kernels are downloaded into the cache once).
set -eu
mgbench=${1:-./mgbench}
out=$(dirname "$0")/nfs-guests
fs=ext4,xfs,btrfs,tmpfs

vm() { # kernel output run-arguments...
	k=$1 o=$2
	shift 2
	"$mgbench" vm --quiet --kernel "debian:$k" -o "$out/$o.json" -- run "$@" --fs $fs -q
	"$mgbench" report "$out/$o.json" > "$out/$o.txt"
}
for srv in knfsd ganesha; do
	for k in unstable 6.12; do
		# write, and revalidate free-running, its first 300 rounds (A) ...
		vm $k write-$srv-$k write,revalidate --backend nfs3,nfs4 --nfs-server $srv --rounds 300 --repeat 4
		# ... revalidate sequenced, through libnfs and the kernel's client (B) ...
		vm $k reval-seq-$srv-$k revalidate --sequenced --backend nfs3,nfs4,nfs3-mount,nfs4-mount \
			--nfs-server $srv --rounds 300 --repeat 4
	done
done
for srv in knfsd ganesha; do
	for k in unstable 6.12; do
		# ... and free-running with enough rounds for 100 fresh polls in every repeat (C)
		vm $k reval-free-$srv-$k revalidate --backend nfs3,nfs4 --nfs-server $srv --rounds 1000 --repeat 4
	done
done
# 6.12 against unstable for knfsd: five boots a side, alternating; the boot is the unit
for i in 1 2 3 4 5; do
	for k in 6.12 unstable; do
		vm $k compare-knfsd-$k-$i write,revalidate --sequenced --backend nfs3,nfs4 --nfs-server knfsd \
			--rounds 300
	done
done
"$mgbench" compare "$out"/compare-knfsd-6.12-?.json -- "$out"/compare-knfsd-unstable-?.json \
	> "$out/compare-knfsd-6.12-unstable.txt"
MGBENCH=$mgbench "$(dirname "$0")/../bench/bench-nfs-guest" > "$out/bench-nfs-guest.txt"
