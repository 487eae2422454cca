#!/bin/sh
# contrib/ansible's controller step (scripts/mgbench-fleet-compare) on hostile and broken input,
# without Ansible or SSH: documents made here by quick runs on tmpfs and ramfs, laid out as the
# playbook fetches them (RESULTS/<host>/mgbench.json).  tests/it-ansible.sh calls it; it also runs
# alone: srcdir=. MGBENCH=$PWD/mgbench sh tests/it-fleet-compare.sh
#
# - one host's valid document nested 1500 deep (mgbench reads it, Python's json does not): that
#   host is "invalid", the other pair is still compared, the exit is not 1 ("regression");
# - host names with '/' or '..': refused, no crash, nothing read or written outside RESULTS;
# - a node's kernel.release with ESC/OSC sequences, a newline, '|', HTML and a javascript: link:
#   escaped in stdout and report.txt, inside code spans in report.md;
# - the recorded command: `run write --fs tmpfs,ramfs` is recorded with the whole list;
# - the gate, judged per pair: a regression exits 1; a misspelt metric 2 (even beside a regression);
#   a gated pair that cannot be judged (a failed host, no twin, no cell in common, a rate with one
#   document a side) 3, never 0 or 1; two healthy pairs on different kernels pass; a missing
#   controller mgbench is a usage error, not a traceback;
# - stale and partial documents: --check-document (the role's reuse test) refuses another key, an
#   interrupted run and a missing cell; the report calls an interrupted document incomplete,
#   ignores a document left beside a failed run, and names a reused one.
# Exit 0 pass, 1 fail, 77 skip.
set -u

srcdir=${srcdir:-.}
MGBENCH=${MGBENCH:-$(pwd)/mgbench}
FC="$srcdir/contrib/ansible/scripts/mgbench-fleet-compare"
fail=0
say() { printf '%s\n' "it-fleet-compare: $*" >&2; }
check() { # check DESCRIPTION COMMAND...
	desc=$1
	shift
	if ! "$@"; then
		say "FAIL: $desc"
		fail=1
	fi
}

[ "$(id -u)" = 0 ] || { say "skip: needs root (runs on tmpfs and ramfs)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { say "skip: python3 not installed"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/mgbench-it-fleet-compare.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

for fs in tmpfs ramfs; do
	"$MGBENCH" run write --fs $fs --rounds 2000 --query every -q -o "$T/$fs.json" || {
		say "FAIL: mgbench run write --fs $fs"
		exit 1
	}
done
# a second run of tmpfs: one document a side of a rate, two runs, not one document twice (compare
# reads a document against itself as identical, which decides: "no change, same")
"$MGBENCH" run write --fs tmpfs --rounds 2000 --query every -q -o "$T/tmpfs2.json" || {
	say "FAIL: mgbench run write --fs tmpfs (second)"
	exit 1
}

# The fleet's provenance: a document's command reruns its run, a comma list whole (the role
# passes --fs F1,F2 as one word; it was once recorded cut at its first comma).
"$MGBENCH" run write --fs tmpfs,ramfs --rounds 200 -q -o "$T/list.json" || { say "FAIL: mgbench run --fs tmpfs,ramfs"; exit 1; }
check "mgbench run write --fs tmpfs,ramfs records the whole list" python3 - "$T/list.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["command"]
sys.exit(0 if c[:4] == ["run", "write", "--fs", "tmpfs,ramfs"] else (print(c), 1)[1])
EOF

fc() { # fc OUT ARGS...: the controller step, stdout+stderr to OUT; returns its exit status
	out=$1
	shift
	python3 "$FC" --mgbench "$MGBENCH" "$@" >"$out" 2>&1
}

# --- a deeply nested valid document: named invalid, the other pairs still compared -------------
R=$T/deep/results
for h in b b-dev c c-dev; do mkdir -p "$R/$h" && cp "$T/tmpfs.json" "$R/$h/mgbench.json"; done
python3 - "$R/c-dev/mgbench.json" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
n = 1500
assert '"host": {' in s
open(p, "w").write(s.replace('"host": {', '"host": {"deep": ' + "[" * n + "1" + "]" * n + ", ", 1))
EOF
check "mgbench itself reads the deep document (else this test tests nothing)" \
	"$MGBENCH" report "$R/c-dev/mgbench.json" >/dev/null
fc "$T/deep.out" --results "$R" --baseline b --baseline c --dev b-dev --dev c-dev
rc=$?
check "deep document: exit 0, not 1 or a crash (exit $rc)" [ $rc = 0 ]
check "deep document: no traceback" sh -c '! grep -q Traceback "$1"' sh "$T/deep.out"
check "deep document: c-dev reported invalid" grep -q "c-dev .*invalid .*nested too deeply" "$R/compare/report.txt"
check "deep document: pair b still compared" grep -q "b -> b-dev: compared" "$R/compare/report.txt"
check "deep document: pair c not compared" grep -q "c -> c-dev: not compared" "$R/compare/report.txt"
for f in report.md report.json b--b-dev.txt; do
	check "deep document: compare/$f written" [ -s "$R/compare/$f" ]
done

# --- host names with '/' and '..' -------------------------------------------------------------
W=$T/names
R=$W/results
for h in ok ok-dev inside; do mkdir -p "$R/$h" && cp "$T/tmpfs.json" "$R/$h/mgbench.json"; done
# what the hostile names resolve to holds valid documents: they must not be read either
for h in outside outside-dev; do mkdir -p "$W/$h" && cp "$T/tmpfs.json" "$W/$h/mgbench.json"; done
cp "$T/tmpfs.json" "$R/inside/mgbench.json"
mkdir -p "$R/x"
before=$(cd "$W" && find . | sort)
fc "$T/names.out" --results "$R" --baseline ok --baseline ../outside --baseline x/../inside --baseline .. \
	--baseline compare --dev ok-dev --dev ../outside-dev --dev x/../inside-dev --dev ..-dev
rc=$?
check "hostile names: exit 0, no crash (exit $rc)" [ $rc = 0 ]
check "hostile names: no traceback" sh -c '! grep -q Traceback "$1"' sh "$T/names.out"
for h in ../outside ../outside-dev x/../inside x/../inside-dev compare; do
	check "hostile names: $h refused" grep -qF "$h " "$R/compare/report.txt"
	check "hostile names: $h named as refused" sh -c 'grep -F "$2 " "$1" | grep -q refused' sh \
		"$R/compare/report.txt" "$h"
done
check "hostile names: .. refused" grep -qE '^  \.\. +baseline +refused' "$R/compare/report.txt"
check "hostile names: the good pair is compared" grep -q "ok -> ok-dev: compared" "$R/compare/report.txt"
check "hostile names: the all-hosts comparison holds only the good pair" python3 - "$R/compare/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["all"] and sorted(r["all"]["documents"]) == ["ok-dev/mgbench.json", "ok/mgbench.json"] else 1)
EOF
after=$(cd "$W" && find . | grep -v '^\./results/compare' | sort)
check "hostile names: nothing written outside results/compare" [ "$before" = "$after" ]

# --- a node's strings reach no terminal and no markdown as code ---------------------------------
R=$T/esc/results
for h in e e-dev; do mkdir -p "$R/$h" && cp "$T/tmpfs.json" "$R/$h/mgbench.json"; done
python3 - "$R/e-dev/mgbench.json" <<'EOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["kernel"]["release"] = ("6.1\x1b[2J\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07\u202e\n## injected\n"
                          "<img src=x onerror=alert(1)> [a](javascript:alert(1)) | x ` www.evil.example \x9b31m")
json.dump(d, open(p, "w"))
EOF
check "mgbench reads the hostile kernel string" "$MGBENCH" report "$R/e-dev/mgbench.json" >/dev/null
fc "$T/esc.out" --results "$R" --baseline e --dev e-dev
rc=$?
check "hostile kernel string: exit 0 (exit $rc)" [ $rc = 0 ]
check "hostile kernel string: escaped in stdout and report.txt" python3 - "$T/esc.out" "$R/compare/report.txt" <<'EOF'
import sys, unicodedata
ok = True
for p in sys.argv[1:]:
    t = open(p, encoding="utf-8").read()
    bad = [c for c in t if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]
    if bad or "\n## injected" in t or "\\x1b" not in t:
        print("%s: raw %r" % (p, bad[:5]))
        ok = False
sys.exit(0 if ok else 1)
EOF
check "hostile kernel string: report.md has it in code spans only" python3 - "$R/compare/report.md" <<'EOF'
import re, sys, unicodedata
t = open(sys.argv[1], encoding="utf-8").read()
ok = "\\x1b" in t
for line in t.split("\n"):
    # CommonMark code spans: a run of N backticks up to the next run of exactly N
    rest = re.sub(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", "", line)
    bad = [c for c in rest if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]
    if bad or "<" in rest or "javascript" in rest or "injected" in rest or "evil" in rest:
        print("outside a code span: %r" % line)
        ok = False
    if line.startswith("#") and line not in ("# mgbench fleet report", "## Pairs", "## All hosts (not gated)", "## Faults") \
            and not line.startswith("### "):
        print("a heading of its own: %r" % line)
        ok = False
    if line.startswith("| ") and rest.count("|") - rest.count("\\|") != 5:
        print("a table row split: %r" % line)
        ok = False
sys.exit(0 if ok else 1)
EOF
# --- the gate -----------------------------------------------------------------------------------
"$MGBENCH" run stat --fs tmpfs --rounds 100 -q -o "$T/stat.json" || { say "FAIL: mgbench run stat"; exit 1; }
gate() { # gate NAME EXPECTED-EXIT GATE HOST:DOC... : lay out RESULTS, run the controller step
	name=$1 want=$2 metrics=$3
	shift 3
	R=$T/gate-$name/results
	set -- "$@"
	argv=""
	for hd in "$@"; do
		h=${hd%%:*} d=${hd#*:}
		mkdir -p "$R/$h"
		case $d in
		failed) printf '{"state": "failed", "step": "Run mgbench", "message": "boom"}\n' >"$R/$h/status.json" ;;
		*) cp "$T/$d.json" "$R/$h/mgbench.json" ;;
		esac
		case $h in *-dev) argv="$argv --dev $h" ;; *) argv="$argv --baseline $h" ;; esac
	done
	# shellcheck disable=SC2086
	fc "$T/gate-$name.out" --results "$R" --fail-on-regression "$metrics" $argv
	rc=$?
	check "gate $name: exit $want (exit $rc)" [ $rc = "$want" ]
	check "gate $name: no traceback" sh -c '! grep -q Traceback "$1"' sh "$T/gate-$name.out"
	[ $rc = "$want" ] || cat "$T/gate-$name.out" >&2
}
gate regression 1 ctime.distinct_ratio a:tmpfs a-dev:ramfs
check "gate regression: named" grep -q "^verdict: REGRESSION in a -> a-dev" "$T/gate-regression.out"
gate typo 2 distinctt a:tmpfs a-dev:ramfs
check "gate typo: named" grep -q "GATE ERROR: no pair has a metric named 'distinctt'" "$T/gate-typo.out"
gate typo-beside 2 distinct,distinctt a:tmpfs a-dev:ramfs
gate failed-dev 3 distinct a:tmpfs a-dev:failed b:tmpfs b-dev:tmpfs
check "gate failed-dev: the unjudged pair named" grep -q "^verdict: NOT JUDGED: a -> a-dev$" "$T/gate-failed-dev.out"
check "gate failed-dev: the other pair passed" grep -A3 "b -> b-dev: compared" "$T/gate-failed-dev.out" | grep -q "gate distinct: passed"
gate failed-beside-regression 1 distinct a:tmpfs a-dev:failed b:tmpfs b-dev:ramfs
check "gate failed-beside-regression: both named" \
	grep -q "^verdict: REGRESSION in b -> b-dev; NOT JUDGED: a -> a-dev$" "$T/gate-failed-beside-regression.out"
gate no-twin 3 distinct a:tmpfs a-dev:tmpfs lone:tmpfs
gate orphan-dev 3 distinct a:tmpfs a-dev:tmpfs stray-dev:tmpfs
gate no-common-cell 3 distinct a:tmpfs a-dev:stat
check "gate no-common-cell: not a regression" sh -c '! grep -q REGRESSION "$1"' sh "$T/gate-no-common-cell.out"
gate rate-one-doc 3 writes_per_s a:tmpfs a-dev:tmpfs2
gate kernels-differ 0 distinct p:tmpfs p-dev:tmpfs q:ramfs q-dev:ramfs
check "gate kernels-differ: passed in every pair" grep -q "^verdict: gate passed in every pair (2)" "$T/gate-kernels-differ.out"
check "gate kernels-differ: all hosts is not gated" grep -q "^all hosts together (4 documents; not gated)" \
	"$T/gate-kernels-differ.out"
# --- stale and partial documents ------------------------------------------------------------------
# --check-document: what the role asks before it reuses a document, and after it fetches one.
R=$T/stale/results
mkdir -p "$R/a" "$R/a-dev"
cp "$T/tmpfs.json" "$R/a/mgbench.json"
cp "$T/tmpfs.json" "$R/a-dev/mgbench.json"
printf '{"state": "ok", "key": "k1", "complete": true, "expect_cells": 1}\n' >"$R/a/status.json"
printf '{"state": "ok", "key": "k1", "complete": true, "expect_cells": 1, "reused": true}\n' >"$R/a-dev/status.json"
python3 "$FC" --check-document "$R/a" --key k1 --mgbench "$MGBENCH" >"$T/check.out" 2>&1
check "check-document: the same key and complete: reused ($(cat "$T/check.out"))" [ $? = 0 ]
python3 "$FC" --check-document "$R/a" --key k2 --mgbench "$MGBENCH" >"$T/check.out" 2>&1
check "check-document: another key is not reused" [ $? = 1 ]
check "check-document: says so" grep -q "another run key" "$T/check.out"
python3 "$FC" --check-document "$R/a" --expect-cells 2 --mgbench "$MGBENCH" >"$T/check.out" 2>&1
check "check-document: a missing cell is incomplete" [ $? = 1 ]
python3 - "$R/a/mgbench.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["interrupted"] = True
json.dump(d, open(sys.argv[1], "w"))
EOF
python3 "$FC" --check-document "$R/a" --key k1 --mgbench "$MGBENCH" >"$T/check.out" 2>&1
check "check-document: an interrupted run is not reused" [ $? = 1 ]
check "check-document: says interrupted" grep -q "incomplete document: the run was interrupted" "$T/check.out"
rm -rf "$R/a-dev" && mkdir -p "$R/a-dev" && cp "$T/tmpfs.json" "$R/a-dev/mgbench.json"
printf '{"state": "failed", "step": "Run mgbench", "message": "boom", "key": "k2"}\n' >"$R/a-dev/status.json"
fc "$T/stale.out" --results "$R" --baseline a --dev a-dev
check "an interrupted document is reported incomplete, not compared" \
	grep -q "^  a  *baseline incomplete  *incomplete document: the run was interrupted" "$T/stale.out"
check "a document left beside a failed run is not used" grep -q "^  a-dev  *dev  *failed  *Run mgbench: boom" "$T/stale.out"
cp "$T/tmpfs.json" "$R/a/mgbench.json"
printf '{"state": "ok", "key": "k1", "complete": true, "expect_cells": 1, "reused": true}\n' >"$R/a/status.json"
printf '{"state": "ok", "key": "k3", "complete": true, "expect_cells": 1}\n' >"$R/a-dev/status.json"
fc "$T/stale.out" --results "$R" --baseline a --dev a-dev
check "the report names a reused document" grep -q "^  a  *baseline ok  *6.*(reused: run .*, key k1)" "$T/stale.out"
check "the report names only the reused one" sh -c '! grep -q "^  a-dev .*reused" "$1"' sh "$T/stale.out"

# The role's two controller-side calls per host: --check-document --record-status after the
# fetch (the outcome into status.json), --reuse-or-clear before the run.
R=$T/reuse/results
mkdir -p "$R/h"
cp "$T/tmpfs.json" "$R/h/mgbench.json"
python3 "$FC" --check-document "$R/h" --expect-cells 1 --mgbench "$MGBENCH" \
	--record-status '{"key": "k1", "expect_cells": 1}' >"$T/rec.out" 2>&1
check "record-status: a complete document exits 0" [ $? = 0 ]
check "record-status: status.json says ok, complete, key k1" python3 - "$R/h/status.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if s["state"] == "ok" and s["complete"] is True and s["key"] == "k1" and s["reused"] is False else 1)
EOF
python3 "$FC" --reuse-or-clear "$R/h" --key k1 --mgbench "$MGBENCH" >"$T/reuse.out" 2>&1
check "reuse-or-clear: the same key is reused (exit 0)" [ $? = 0 ]
check "reuse-or-clear: status.json says reused" grep -q '"reused": true' "$R/h/status.json"
python3 "$FC" --reuse-or-clear "$R/h" --key k1 --rerun --mgbench "$MGBENCH" >"$T/reuse.out" 2>&1
check "reuse-or-clear --rerun: not reused (exit 1)" [ $? = 1 ]
check "reuse-or-clear --rerun: the earlier run's files are gone" sh -c '[ -z "$(ls -A "$1")" ]' sh "$R/h"
python3 "$FC" --reuse-or-clear "$R/new" --key k1 --mgbench "$MGBENCH" >"$T/reuse.out" 2>&1
check "reuse-or-clear: a new host's directory is made, nothing to reuse (exit 1)" sh -c '[ $1 = 1 ] && [ -d "$2" ]' sh $? "$R/new"

python3 "$FC" --results "$T/gate-regression/results" --mgbench "$T/no-such-mgbench" --baseline a --dev a-dev \
	>"$T/nobin.out" 2>&1
rc=$?
check "no controller mgbench: a usage error (exit $rc)" [ $rc = 2 ]
check "no controller mgbench: said so" grep -q "mgbench_controller_bin" "$T/nobin.out"
exit $fail
