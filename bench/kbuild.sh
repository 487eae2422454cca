#!/bin/sh
# make bench-vm, the builds: what `mgbench kernel build` and `kernel bisect` cost on this
# machine, each step timed by the wall clock, in a cache of its own emptied first (so the first
# build is clean: no kept work tree, no ccache), with the source package taken from mgbench's
# own cache when it is there.  Steps:
#   clean     debian:6.1 alone, nothing cached
#   cached    the same again
#   series    the whole series, in the tree the clean build kept (its first patch changes
#             include/linux/fs.h, which nearly every file includes)
#   one patch the series with one line of its last patch changed
#   boot      the series' guest, boot to its first workload
#   bisect    kernel bisect of the series on ext4, xfs, btrfs and tmpfs (inversions): the
#             source and the whole series are cached by now, the prefixes between are not
# SERIES names the series (../shared/seeds-6.1 in the mgbench workspace); without it this part
# is skipped.  Needs root; takes 30 to 60 minutes on two CPUs.  Run it on an idle machine.
M=${MGBENCH:-./mgbench}
[ -n "$SERIES" ] || { echo "== builds: skipped (set SERIES to a patch series directory)"; exit 0; }
[ -d "$SERIES" ] || { echo "SERIES=$SERIES is not a directory" >&2; exit 1; }
C=${BENCH_KBUILD_CACHE:-/var/tmp/mgbench-bench-kbuild}
main=${MGBENCH_CACHE:-/var/cache/mgbench}
out=$(mktemp -d "${TMPDIR:-/tmp}/mgbench-bench-kbuild.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
rm -rf "$C" && mkdir -p "$C/src" && chmod 0755 "$C" "$C/src" || exit 1
for s in "$main"/src/linux-source-6.1*; do
	[ -e "$s" ] && cp -al "$s" "$C/src/"
done
export MGBENCH_CACHE="$C"

now() { date +%s.%N; }
step() { # name command...: prints the step's wall time; the command's stdout in $out/last
	name=$1
	shift
	t0=$(now)
	"$@" >"$out/last" 2>"$out/err"
	rc=$?
	printf '%-10s %7.1f s  (exit %d, load %s)\n' "$name" "$(echo "$(now) - $t0" | bc)" "$rc" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
	[ "$rc" = 0 ] || tail -3 "$out/err"
	return "$rc"
}
kept() { # the manifest's work_tree of the build directory in $out/last
	python3 -c 'import json, sys; w = json.load(open(sys.argv[1] + "/manifest.json")).get("work_tree", {});
print("  work tree %s, %s patches kept" % ("kept" if w.get("kept") else "copied afresh", w.get("patches_kept")))' \
		"$(head -1 "$out/last")"
}

echo "== builds ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), cache $C)"
step clean "$M" kernel build -q --source debian:6.1 || exit 1
kept
step cached "$M" kernel build -q --source debian:6.1 || exit 1
step series "$M" kernel build -q --source debian:6.1 --patches "$SERIES" || exit 1
kept
series_dir=$(head -1 "$out/last")

mkdir "$out/changed" && cp "$SERIES"/*.patch "$out/changed/" || exit 1
last=$(ls "$out/changed"/*.patch | tail -1)
# a trailing space on the first added line that is not blank: one file's text changes
awk 'done || !/^\+[^+]/ { print; next } { print $0 " "; done = 1 }' "$last" >"$out/p" && mv "$out/p" "$last"
step one-patch "$M" kernel build -q --source debian:6.1 --patches "$out/changed" || exit 1
kept

step boot "$M" vm --kernel "$series_dir" -q -o "$out/boot.json" -- run write --fs tmpfs --rounds 2000 || exit 1
python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["vm"];
print("  boot to first workload %.2f s (%s, %s vCPUs)" % (v["boot_s"], v["accel"], v.get("cpus")))' "$out/boot.json"

step bisect "$M" kernel bisect -q --source debian:6.1 --patches "$SERIES" --metric inversions -o "$out/bisect" \
	-- run ordering --fs ext4,xfs,btrfs,tmpfs || exit 1
sed 's/^/  /' "$out/last"
