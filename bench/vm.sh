#!/bin/sh
# make bench-vm: per Debian kernel, boot to the first workload, per-module load time (guest
# uptime), whether anything was downloaded, and the write cells (distinct ratio and per tick).
# Run it twice: the second run must download nothing.  Needs root; boots each kernel once.
M=${MGBENCH:-./mgbench}
out=${TMPDIR:-/tmp}/mgbench-bench-vm.$$
mkdir -p "$out" || exit 1
trap 'rm -rf "$out"' EXIT
for k in ${KERNELS:-debian:6.1 debian:6.12 debian:unstable}; do
	t0=$(date +%s.%N)
	"$M" vm --kernel "$k" -o "$out/r.json" -- run write --query every \
		--fs ext4,xfs,btrfs,tmpfs --rounds 2000 >/dev/null 2>"$out/err"
	rc=$?
	t1=$(date +%s.%N)
	printf '== %s: exit %d, wall %.1f s, downloads %d, apt updates %d\n' "$k" "$rc" \
		"$(echo "$t1 - $t0" | bc)" "$(grep -c 'downloading' "$out/err")" \
		"$(grep -c 'apt-get update' "$out/err")"
	[ "$rc" = 0 ] || { tail -3 "$out/err"; continue; }
	grep 'vm: INIT\|vm: RUN' "$out/err" | sed 's/^vm: /  guest uptime: /'
	grep 'vm: INSMOD ' "$out/err" |
		awk '{ printf "%s%s %.2f", (n++ % 5 ? "  " : "\n  insmod s: "), $3, $5 - $4 } END { print "" }'
	command -v python3 >/dev/null && python3 - "$out/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("  boot to first workload %.2f s (%s, %s)" % (d["vm"]["boot_s"], d["kernel"]["release"], d["vm"]["accel"]))
for c in d["cells"]:
    m = c["metrics"]["ctime"]
    print("  %-6s distinct_ratio %.4f  per_tick %7.2f  backwards %d  future %d"
          % (c["target"]["fstype"], m["distinct_ratio"], m["distinct_per_tick"], m["backwards"], m["future"]))
PY
done
