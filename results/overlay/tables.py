#!/usr/bin/env python3
"""Per-kernel tables from the boots' documents of the overlay ab runs (issue 40).

usage: tables.py AB_DIR...   (each an `mgbench ab -o` directory with boots/*.json)

Sums over each kernel's boots, per cell (workload, fs): what the re-read did to the atime, what
the copy-ups kept, the target's copy-up probe (overlay against upper, tv_nsec below 1e9) and
the invariants (backwards, future, inversions).  Reads documents only; prints markdown.
"""
import collections
import glob
import json
import os
import sys


def kernel_label(doc):
    ab = doc.get("ab") or {}
    man = ((doc.get("vm") or {}).get("kernel_source") or {}).get("manifest") or {}
    patches = [p.get("name", "?") for p in man.get("patches") or []]
    return ab.get("kernel") or "?", len(patches), any(n.startswith("003-") for n in patches)


def describe(n, has26):
    if n == 0:
        return "control"
    return "series" if has26 else "series without 2/6"


def main(dirs):
    rows = collections.OrderedDict()
    boots = collections.Counter()
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "boots", "*.json"))):
            with open(path) as f:
                doc = json.load(f)
            _, n, has26 = kernel_label(doc)
            k = describe(n, has26)
            boots[(d, k)] += 1
            for c in doc.get("cells", []):
                if c.get("status") != "ok":
                    continue
                m = c.get("metrics") or {}
                key = (c["workload"], c["fs"], k)
                r = rows.setdefault(key, collections.Counter())
                r["boots"] += 1
                rr = m.get("reread") or {}
                r["reread"] += rr.get("rounds", 0)
                r["reread_moved"] += rr.get("atime_moved", 0)
                r["reread_same_s"] += rr.get("same_second", 0)
                cu = m.get("copy_up") or {}
                for f_ in ("files", "copied_up", "mtime_kept", "atime_kept", "ctime_new"):
                    r["cu_" + f_] += cu.get(f_, 0)
                probe = (((c.get("target") or {}).get("overlay") or {}).get("copy_up")) or {}
                if probe:
                    r["probes"] += 1
                    r["probe_match"] += bool(probe.get("matches_upper"))
                    r["probe_nsec"] += bool(probe.get("nsec_below_1e9"))
                    r["probe_mtime"] += bool(probe.get("mtime_kept"))
                for inv in ("inversions",):
                    r[inv] += m.get(inv) or 0
                for stamp in ("ctime", "mtime"):
                    s = m.get(stamp) or {}
                    r["backwards"] += s.get("backwards") or 0
                    r["future"] += s.get("future") or 0
                if "rounds" in m and c["workload"] == "ordering":
                    r["rounds"] += m["rounds"]
    print("boots: " + ", ".join("%s %s: %d" % (os.path.basename(d.rstrip("/")), k, n) for (d, k), n in boots.items()))
    print()
    print("| workload | fs | kernel | boots | re-reads judged | atime moved | same second | files from lower | copied up | mtime kept | atime kept | ctime new | probe: overlay = upper | probe: tv_nsec < 1e9 | inversions | backwards | future |")
    print("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for (w, fs, k), r in sorted(rows.items()):
        print("| %s | %s | %s | %d | %s | %s | %s | %d | %d | %d | %d | %d | %s | %s | %s | %d | %d |" % (
            w, fs, k, r["boots"],
            r["reread"] if w == "read" else "", r["reread_moved"] if w == "read" else "",
            r["reread_same_s"] if w == "read" else "",
            r["cu_files"], r["cu_copied_up"], r["cu_mtime_kept"], r["cu_atime_kept"], r["cu_ctime_new"],
            "%d/%d" % (r["probe_match"], r["probes"]) if r["probes"] else "",
            "%d/%d" % (r["probe_nsec"], r["probes"]) if r["probes"] else "",
            r["inversions"] if w == "ordering" else "", r["backwards"], r["future"]))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
