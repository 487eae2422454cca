#!/usr/bin/env python3
# Usage: calibrate.py MGBENCH DIR DRAWS aa|power   (DIR holds make-runs.sh's documents)
"""Same-kernel false verdicts and power of `mgbench compare`, from interleaved real runs.
Documents are passed as argv lists (no shell)."""
import json, random, subprocess, sys, collections
import math

M = sys.argv[1]
D = sys.argv[2]
R = int(sys.argv[3]) if len(sys.argv) > 3 else 100
rng = random.Random(37)
SIG = {"better", "worse", "changed"}

def compare(a, b, gate=None):
    args = [M, "compare", "--format", "json"] + [f"{D}/{x}" for x in a] + ["--"] + [f"{D}/{x}" for x in b]
    if gate:
        args[2:2] = ["--fail-on-regression", gate]
    p = subprocess.run(args, capture_output=True, text=True)
    return json.loads(p.stdout), p.returncode

def verdicts(cmp):
    out = {}
    for c in cmp["cells"]:
        fs = "|".join(sorted(set(c["fs"])))
        for m in c["metrics"]:
            v = m["against_base"][1]
            out[(fs, m["header"])] = v["verdict"]
    return out

def cp_upper(x, n, tail=0.025):
    """Clopper-Pearson upper bound (two-sided 95 %): the p with P(X <= x | n, p) = tail."""
    if x >= n:
        return 1.0
    cdf = lambda p: sum(math.comb(n, i) * p**i * (1 - p)**(n - i) for i in range(x + 1))
    lo, hi = x / n, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) > tail else (lo, mid)
    return hi

def draws(n, k):
    """R random pairs of disjoint k-subsets of n runs, A's and B's interleaved in time by chance."""
    out = []
    for _ in range(R):
        s = rng.sample(range(1, n + 1), 2 * k)
        out.append((s[:k], s[k:]))
    return out

def disjoint(n, k):
    """Independent comparisons: consecutive blocks of 2k runs, A odd, B even (alternated)."""
    return [(list(range(j + 1, j + 2 * k + 1, 2)), list(range(j + 2, j + 2 * k + 1, 2))) for j in range(0, n - 2 * k + 1, 2 * k)]

mode = sys.argv[4] if len(sys.argv) > 4 else "aa"
N = 30
if mode == "aa":
    for prefix, what, gate in (("wt", "write tmpfs", "distinct"), ("wr", "write ramfs", "distinct"),
                               ("wx", "write xfs", "distinct"), ("or", "ordering tmpfs", "invers"),
                               ("rb", "revalidate btrfs", "ann/read"), ("rx", "revalidate xfs", "ann/read")):
        for k in range(1, 6):
            for kind, pairs in (("random", draws(N, k)), ("disjoint", disjoint(N, k))):
                false = collections.Counter(); judged = collections.Counter(); tables = 0; gates = 0
                for a, b in pairs:
                    cmp, rc = compare([f"{prefix}{i}.json" for i in a], [f"{prefix}{i}.json" for i in b], gate)
                    v = verdicts(cmp)
                    tables += any(x in SIG for x in v.values())
                    gates += rc == 1
                    for key, x in v.items():
                        false[key] += x in SIG
                        judged[key] += x in SIG or x == "no change"
                n = len(pairs)
                worst = max(false.values()) if false else 0
                print(f"{what:17s} k={k} {kind:8s} n={n:3d} tables with a false verdict {tables:3d} "
                      f"({tables/n:.3f}, CP95 upper {cp_upper(tables, n):.3f}); gate {gate} exit 1: {gates}")
                for key in sorted(false):
                    if false[key]:
                        print(f"    {key[1]:9s} {false[key]}/{n} false ({false[key]/n:.3f}, CP95 upper {cp_upper(false[key], n):.3f}), judged {judged[key]}")
                sys.stdout.flush()
else:
    for k in range(1, 6):
        pairs = []
        for _ in range(R):
            a = rng.sample(range(1, N + 1), k); b = rng.sample(range(1, N + 1), k)
            pairs.append((a, b))
        c = collections.defaultdict(collections.Counter); g = collections.Counter()
        for a, b in pairs:
            cmp, rc = compare([f"wt{i}.json" for i in a], [f"wr{i}.json" for i in b], "distinct")
            for key, x in verdicts(cmp).items():
                c[key[1]][x] += 1
            g[rc] += 1
        print(f"power tmpfs->ramfs k={k} (n={R}): gate --fail-on-regression distinct exit {dict(sorted(g.items()))}")
        for m in c:
            print(f"    {m:9s} " + ", ".join(f"{x} {n}" for x, n in sorted(c[m].items())))
        sys.stdout.flush()
