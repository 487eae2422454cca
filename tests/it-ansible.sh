#!/bin/sh
# Integration: contrib/ansible's workflow with real Ansible over real SSH.  Two sshd on two
# localhost ports (own host keys, a throwaway client key, all in this test's temp dir) stand for two
# machines: node1 (baseline) runs `mgbench vm --kernel debian:6.12 -- run write --fs tmpfs`,
# node1-dev (dev) runs the same in debian:unstable, each installed from the release tarball into
# its own prefix.  node2 (baseline) is unreachable; node3 (baseline, already installed) fails its
# run.  The controller's report must say write's distinct ratio on tmpfs got better from node1 to
# node1-dev and name node2 and node3, and the gate, judged per pair, fails the play as "not judged"
# (node2 and node3 have no result to judge).  A second run under --limit reuses both documents (same
# run key, complete), runs nothing and still reports; a third, after node1's results directory is
# deleted and node1-dev's kernel changed, runs both again instead of reporting stale documents.  A
# run past mgbench_run_timeout is killed on the node; a hostile host name is refused.
# Nothing may be left running (sshd, qemu) and no key left behind.
# Exit 0 pass, 1 fail, 77 skip.
set -u

srcdir=${srcdir:-.}
MGBENCH=${MGBENCH:-$(pwd)/mgbench}
fail=0
me=it-ansible
. "$srcdir/tests/fleet-test-lib.sh"

case "${MGB_CHECK_QUICK:-0}" in 0|"") ;; *) say "skip: slow: make check runs it, make check-quick does not"; exit 77 ;; esac
# the nodes build and run the tarball's own mgbench, never this build: under the sanitizers only the
# controller's compare would be this binary, and it-compare and it-fleet-compare run that
[ "${MGB_CHECK_TIER:-}" = sanitizers ] && { say "skip: in the sanitizer pass: the nodes run the tarball's own build, not this one"; exit 77; }
[ "$(id -u)" = 0 ] || { say "skip: needs root (mgbench vm, sshd)"; exit 77; }
for tool in ansible-playbook /usr/sbin/sshd ssh ssh-keygen python3 qemu-system-x86_64; do
	command -v "$tool" >/dev/null 2>&1 || { say "skip: $tool not installed (./bootstrap installs it)"; exit 77; }
done

start=$(date +%s)
T=$(mktemp -d "${TMPDIR:-/tmp}/mgbench-it-ansible.XXXXXX") || exit 1
sshd_pids=


cleanup() {
	for p in $sshd_pids; do
		# session children first (none expected: ControlMaster is off), then the listener
		for c in $(pgrep -P "$p" 2>/dev/null); do
			say "FAIL: sshd $p still has a session child $c"
			kill "$c" 2>/dev/null
			fail=1
		done
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	stop_ours
	rm -rf "$T"
	[ -e "$T" ] && { say "FAIL: $T (keys) not removed"; fail=1; }
	sshd_dir_leave
	say "took $(($(date +%s) - start)) s"
}
trap 'cleanup; exit $fail' EXIT
trap 'exit 1' INT TERM HUP

# The role's Debian packages are ./bootstrap's (less what only the controller and this test need).
check "install-deps/debian lists ./bootstrap's packages" python3 - "$srcdir" <<'PKGS'
import re, sys
src = sys.argv[1]
boot = open(src + "/bootstrap").read()
boot = set(re.search(r'packages="([^"]*)"', boot).group(1).split()) - {"ansible", "openssh-server", "sudo", "valgrind"}
role = open(src + "/contrib/ansible/roles/mgbench/tasks/install-deps/debian/main.yml").read()
role = set(re.findall(r"^      - (\S+)$", role, re.M))
if boot != role:
    print("only in bootstrap: %s; only in the role: %s" % (sorted(boot - role), sorted(role - boot)))
sys.exit(0 if boot == role else 1)
PKGS

# The release tarball: the build tree's `make distdir`, packed here (a VPATH build works too).
builddir=$(dirname "$MGBENCH")
version=$("$MGBENCH" --version | awk '{print $2}')
if [ -n "${MGB_TARBALL:-}" ]; then
	tarball=$MGB_TARBALL
else
	tarball=$T/mgbench-$version.tar.gz
	(unset MAKEFLAGS MFLAGS MAKELEVEL; make -s -C "$builddir" distdir distdir="$T/mgbench-$version") \
		>"$T/distdir.log" 2>&1 || { cat "$T/distdir.log" >&2; say "FAIL: make distdir"; exit 1; }
	tar -C "$T" -czf "$tarball" "mgbench-$version" && rm -rf "${T:?}/mgbench-$version"
fi

# Keys and two sshd.
mkdir -m 700 "$T/ssh"
ssh-keygen -q -t ed25519 -N '' -C mgbench-it-ansible -f "$T/ssh/id" || exit 1
cp "$T/ssh/id.pub" "$T/ssh/authorized_keys"
sshd_dir_enter
: >"$T/ssh/known_hosts"
for n in 1 2; do
	port=$(free_port)
	ssh-keygen -q -t ed25519 -N '' -C "node$n" -f "$T/ssh/host$n" || exit 1
	cat >"$T/ssh/sshd$n.conf" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $T/ssh/host$n
PidFile none
AuthorizedKeysFile $T/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
LogLevel ERROR
# Debian's bash reads ~/.bashrc when sshd runs it (SSH_CLIENT set, SHLVL below 2), and so does
# every /bin/bash make recipe beneath it: this machine's root .bashrc is not the node's business.
SetEnv SHLVL=1
EOF
	/usr/sbin/sshd -D -e -f "$T/ssh/sshd$n.conf" 2>"$T/ssh/sshd$n.log" &
	sshd_pids="$sshd_pids $!"
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$T/ssh/host$n.pub")" >>"$T/ssh/known_hosts"
	eval "port$n=$port"
done
port3=$(free_port) # nothing listens there: node2 is unreachable

ssh_opts="-F /dev/null -o UserKnownHostsFile=$T/ssh/known_hosts -o StrictHostKeyChecking=yes
 -o IdentitiesOnly=yes -o BatchMode=yes -o ConnectTimeout=5 -o ControlMaster=no -o ControlPersist=no"
for n in 1 2; do
	eval "port=\$port$n"
	i=0
	# shellcheck disable=SC2086
	until ssh $ssh_opts -i "$T/ssh/id" -p "$port" root@127.0.0.1 true 2>/dev/null; do
		i=$((i + 1))
		if [ $i -ge 50 ]; then
			say "FAIL: sshd $n on port $port does not answer: $(cat "$T/ssh/sshd$n.log")"
			exit 1
		fi
		sleep 0.2
	done
done

# node3 looks built and installed from this tarball (the role's markers in the tree of the tarball's
# checksum, this build's mgbench), so it fails fast, in its run.
sha=$(sha256sum "$tarball" | cut -c1-64)
src3=$T/node3/src-$(echo "$sha" | cut -c1-16)/mgbench-$version
mkdir -p "$src3" "$T/node3/prefix/bin"
touch "$src3/configure.ac" "$src3/config.status" "$src3/.mgbench-installed"
ln -s "$MGBENCH" "$src3/mgbench"
ln -s "$MGBENCH" "$T/node3/prefix/bin/mgbench"

cat >"$T/hosts" <<EOF
[baseline]
node1 ansible_port=$port1 mgbench_vm_kernel=debian:6.12 mgbench_node_dir=$T/node1 mgbench_prefix=$T/node1/prefix
node2 ansible_port=$port3 mgbench_node_dir=$T/node2 mgbench_prefix=$T/node2/prefix
node3 ansible_port=$port1 mgbench_vm_kernel=$T/no-such-kernel mgbench_node_dir=$T/node3 mgbench_prefix=$T/node3/prefix

[dev]
node1-dev ansible_port=$port2 mgbench_vm_kernel=debian:unstable mgbench_node_dir=$T/node1-dev mgbench_prefix=$T/node1-dev/prefix

[all:vars]
ansible_host=127.0.0.1
ansible_user=root
ansible_ssh_private_key_file=$T/ssh/id
ansible_python_interpreter=/usr/bin/python3
EOF
cat >"$T/vars.json" <<EOF
{
  "mgbench_tarball": "$tarball",
  "mgbench_results_dir": "$T/results",
  "mgbench_controller_bin": "$MGBENCH",
  "mgbench_apt_update": false,
  "mgbench_make_jobs": 2,
  "mgbench_configure_args": $(node_configure_args),
  "mgbench_workloads": ["write"],
  "mgbench_filesystems": ["tmpfs"],
  "mgbench_backends": ["sync"],
  "mgbench_repeats": 1,
  "mgbench_rounds": 2000,
  "mgbench_run_extra_args": ["--query", "every"],
  "mgbench_vm_extra_args": ["--quiet"],
  "mgbench_run_poll": 2,
  "mgbench_fail_on_regression": ["ctime.distinct_ratio"]
}
EOF

# The shipped contrib/ansible/ansible.cfg, as a user runs it (pipelining, the controller's poll
# interval), less its persistent connections: no connection outlives a task.  Ansible's own state
# stays in the temp dir.
export ANSIBLE_CONFIG="$(cd "$srcdir" && pwd)/contrib/ansible/ansible.cfg" ANSIBLE_HOME="$T/ansible" ANSIBLE_LOCAL_TEMP="$T/ansible/tmp"
export ANSIBLE_REMOTE_TEMP="$T/ansible/remote" ANSIBLE_ASYNC_DIR="$T/ansible/async" ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0
export ANSIBLE_SSH_ARGS="$(echo $ssh_opts)" ANSIBLE_HOST_KEY_CHECKING=True ANSIBLE_TIMEOUT=10
export ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks ANSIBLE_SSH_CONTROL_PATH_DIR="$T/ansible/cp" ANSIBLE_FORKS=5 ANSIBLE_DEPRECATION_WARNINGS=0 ANSIBLE_GATHERING=explicit

playbook() { # playbook LOG [ARGS...]: run the workflow, output to LOG and to the test's log
	t0=$(date +%s)
	log=$1
	shift
	ansible-playbook -i "$T/hosts" -e "@$T/vars.json" "$@" "$srcdir/contrib/ansible/mgbench.yml" >"$log" 2>&1
	rc=$?
	cat "$log" >&2
	say "ansible-playbook exited $rc after $(($(date +%s) - t0)) s"
	return $rc
}

playbook "$T/play1.log"
rc1=$?
R=$T/results
check "the play fails through the gate alone: node2 and node3 cannot be judged (exit $rc1)" [ "$rc1" = 2 ]
check "the play says the gate could not judge every pair" grep -q "NOT JUDGED: the gate could not judge every pair" \
	"$T/play1.log"
check "the report names the pairs not judged" \
	grep -q "^verdict: NOT JUDGED: node2 -> node2-dev, node3 -> node3-dev$" "$R/compare/report.txt"
check "the play shows the report before it fails" grep -q '"verdict: NOT JUDGED' "$T/play1.log"
check "report.txt written" [ -s "$R/compare/report.txt" ]
check "report.md written" [ -s "$R/compare/report.md" ]
check "report.json written" [ -s "$R/compare/report.json" ]
[ -s "$R/compare/report.txt" ] && cat "$R/compare/report.txt" >&2
for f in node1--node1-dev.txt node1--node1-dev.md node1--node1-dev.json node1--node1-dev-plot.png \
	node1--node1-dev-plot.txt all.txt all.md all.json all-plot.png; do
	check "compare/$f written" [ -s "$R/compare/$f" ]
done
for h in node1 node1-dev; do
	check "$h: document fetched and valid" "$MGBENCH" report "$R/$h/mgbench.json" >/dev/null
	check "$h: document kept on the node, under its run key" \
		[ -s "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$R/$h/status.json" |
			sed "s|^|$T/$h/results/|")/mgbench.json" ]
	check "$h: its run key names the tarball's checksum" grep -q "\"tarball_sha256\": \"$sha\"" "$R/$h/status.json"
	check "$h: built in the tree of the tarball's checksum" [ -f "$T/$h/src-$(echo "$sha" | cut -c1-16)/mgbench-$version/.mgbench-installed" ]
	check "$h: the document records the command that ran" python3 - "$R/$h/mgbench.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["command"]
sys.exit(0 if c[:6] == ["run", "write", "--fs", "tmpfs", "--backend", "sync"] else 1)
EOF
	check "$h: installed from the tarball into its prefix" [ -x "$T/$h/prefix/bin/mgbench" ]
done
check "the text report says write's distinct ratio on tmpfs got better" \
	grep -q "^    better write on tmpfs via sync: distinct (ctime.distinct_ratio)" "$R/compare/report.txt"
check "the text report names node2 as unreachable" grep -q "node2 .*unreachable" "$R/compare/report.txt"
check "the text report names node3's failed run" grep -q "node3 .*failed .*mgbench run failed: mgbench exited" \
	"$R/compare/report.txt"
check "the markdown report names node2" grep -q "node2" "$R/compare/report.md"
check "report.json: the pair compared, write/tmpfs distinct better, node2 unreachable, gate passed" \
	python3 - "$R/compare/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
hosts = {h["host"]: h for h in r["hosts"]}
pair = [p for p in r["pairs"] if p["baseline"] == "node1"][0]
ok = (hosts["node1"]["state"] == "ok" and hosts["node1-dev"]["state"] == "ok"
      and hosts["node2"]["state"] == "unreachable" and hosts["node3"]["state"] == "failed"
      and pair["state"] == "compared"
      and pair["dev"] == "node1-dev" and pair["gate"] == "passed" and not r["regression"]
      and any(c["workload"] == "write" and c["fs"] == "tmpfs" and c["metric"] == "ctime.distinct_ratio"
              and c["verdict"] == "better" and c["base"] < 0.5 and c["value"] == 1.0 for c in pair["changes"])
      and any("node2" in f for f in r["faults"]) and r["all"] and len(r["all"]["documents"]) == 2)
sys.exit(0 if ok else 1)
EOF
check "the guests were debian:6.12 and debian:unstable" python3 - "$R" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1] + "/node1/mgbench.json"))
b = json.load(open(sys.argv[1] + "/node1-dev/mgbench.json"))
sys.exit(0 if a["kernel"]["release"].startswith("6.12.") and "vm" in a and "vm" in b
         and a["kernel"]["release"] != b["kernel"]["release"] else 1)
EOF

# The gate: the same documents the other way round are a regression of the distinct ratio.
mkdir -p "$T/swapped/x" "$T/swapped/x-dev"
cp "$R/node1-dev/mgbench.json" "$T/swapped/x/mgbench.json"
cp "$R/node1/mgbench.json" "$T/swapped/x-dev/mgbench.json"
python3 "$srcdir/contrib/ansible/scripts/mgbench-fleet-compare" --results "$T/swapped" --mgbench "$MGBENCH" \
	--baseline x --dev x-dev --fail-on-regression ctime.distinct_ratio >"$T/swapped.txt" 2>&1
rc=$?
check "--fail-on-regression: a worse distinct ratio exits 1 (exit $rc)" [ $rc = 1 ]
check "--fail-on-regression: the report names the regression" grep -q "REGRESSION in x -> x-dev" "$T/swapped.txt"

# A rerun under --limit reuses: same run key, complete documents; nothing runs on the nodes, and the
# comparison still runs (the play is on the hosts, not on localhost) and names the reused documents.
stamp1=$(stat -c %Y "$R/node1/mgbench.json" "$R/node1-dev/mgbench.json" "$T"/node1/results/*/mgbench.json)
rm -f "$R/compare/report.txt"
playbook "$T/play2.log" --limit node1,node1-dev
rc2=$?
check "the rerun fails as the first did: node2, node3 still not judged (exit $rc2)" [ "$rc2" = 2 ]
check "the rerun reuses both documents" [ "$(grep -c 'reusing the document of run' "$T/play2.log")" = 2 ]
check "the rerun changes nothing on node1 and node1-dev" \
	[ "$(grep -cE '^changed: \[node1(-dev)?\]' "$T/play2.log")" = 0 ]
check "the rerun runs nothing" sh -c '! grep -q "TASK \[mgbench : Start mgbench\]" "$1"' sh "$T/play2.log"
check "the rerun keeps the documents" [ "$stamp1" = "$(stat -c %Y "$R/node1/mgbench.json" \
	"$R/node1-dev/mgbench.json" "$T"/node1/results/*/mgbench.json)" ]
check "--limit still compares and reports" grep -q "node1 -> node1-dev: compared" "$R/compare/report.txt"
check "the report names the reused documents" [ "$(grep -c '(reused: run .*, key ' "$R/compare/report.txt")" = 2 ]

# Stale results: node1's results directory deleted (it runs again), node1-dev's kernel changed (its
# run key changes, so it runs again, on 6.12): no document of the earlier runs is reported.
created1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["created"])' "$R/node1-dev/mgbench.json")
rm -rf "$R/node1"
playbook "$T/play3.log" --limit node1,node1-dev -e mgbench_vm_kernel=debian:6.12
rc3=$?
check "the third run fails only through the gate (exit $rc3)" [ "$rc3" = 2 ]
check "the third run runs both hosts" [ "$(grep -c 'node1.*: run [0-9a-f]*: ' "$T/play3.log")" = 2 ]
check "the third run reuses nothing" sh -c '! grep -q "reusing the document" "$1"' sh "$T/play3.log"
check "node1 ran again after its directory was deleted" "$MGBENCH" report "$R/node1/mgbench.json" >/dev/null
check "node1-dev ran again on its new kernel" python3 - "$R/node1-dev/mgbench.json" "$created1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["kernel"]["release"].startswith("6.12.") and d["created"] != sys.argv[2] else 1)
EOF
check "node1-dev keeps both runs on the node, one per key" [ "$(ls -d "$T"/node1-dev/results/*/ | wc -l)" = 2 ]
check "the report no longer says distinct got better" sh -c '! grep -q "better write on tmpfs" "$1"' sh \
	"$R/compare/report.txt"
check "the report names no reused document" sh -c '! grep -q "(reused" "$1"' sh "$R/compare/report.txt"

# An invalid document is named, not fatal, and a rerun runs that host again.
echo '{"schema": "mgbench/1", "cells": [' >"$R/node1-dev/mgbench.json"
check "the controller step alone names an invalid document and exits 0" sh -c '
	python3 "$1/contrib/ansible/scripts/mgbench-fleet-compare" --results "$2" --mgbench "$3" \
		--baseline node1 --baseline node2 --baseline node3 --dev node1-dev >"$2/invalid.txt" 2>&1 &&
	grep -q "node1-dev .*invalid" "$2/invalid.txt" && grep -q "node1 -> node1-dev: not compared" "$2/invalid.txt"' \
	sh "$srcdir" "$R" "$MGBENCH"

# A host name that would put its results outside the results directory is refused by the role
# before anything is written, and named by the controller step; the others go on.
cat >"$T/hostile.yml" <<EOF
all:
  vars: {ansible_host: 127.0.0.1, ansible_port: $port3, ansible_user: root}
  children:
    baseline:
      hosts:
        ../escaped: {}
        plain: {}
    dev:
      hosts:
        ../escaped-dev: {}
EOF
mkdir -p "$T/hostile"
ansible-playbook -i "$T/hostile.yml" -e "@$T/vars.json" -e "mgbench_results_dir=$T/hostile/results" \
	"$srcdir/contrib/ansible/mgbench.yml" >"$T/hostile.log" 2>&1
rc=$?
cat "$T/hostile.log" >&2
check "a hostile host name fails the play (exit $rc)" [ $rc != 0 ]
check "a hostile host name writes nothing outside the results directory" \
	sh -c '[ "$(ls "$1/hostile")" = results ] && [ ! -e "$1/escaped" ] && [ ! -e "$1/escaped-dev" ]' sh "$T"
check "a hostile host name is refused by name" grep -q "host name .*\.\./escaped.* cannot name a directory" "$T/hostile.log"
check "the controller step still reports, naming the refused hosts" \
	grep -q "^  \.\./escaped  *baseline refused" "$T/hostile/results/compare/report.txt"
check "the other host is still tried" grep -q "^  plain  *baseline unreachable" "$T/hostile/results/compare/report.txt"

# An SSH drop does not interrupt a run: the run is an async job, out of the session that started
# it, so killing every SSH session to the node mid-run (what a dropped link does to them) leaves
# it running, and a later poll (ssh retried) finds it done and fetches its document.
# $T/NAME.hosts: one baseline host NAME on node1's sshd, with node3's fake install.
node3_hosts() {
	cat >"$T/$1.hosts" <<EOF
[baseline]
$1 ansible_port=$port1 mgbench_node_dir=$T/node3 mgbench_prefix=$T/node3/prefix
[all:vars]
ansible_host=127.0.0.1
ansible_user=root
ansible_ssh_private_key_file=$T/ssh/id
ansible_python_interpreter=/usr/bin/python3
EOF
}
# Pipelined (contrib/ansible/ansible.cfg, above): a poll then makes no remote temp dir.  Without,
# a session killed after `mkdir ansible-tmp-N` ran is retried with the same N, and the retry's
# mkdir fails on the directory the killed attempt made: "Failed to create temporary directory",
# the host unreachable (seen in make -j check, the kill landing on a poll's first session).
node3_hosts drop
ANSIBLE_SSH_RETRIES=5 ansible-playbook -i "$T/drop.hosts" -e "@$T/vars.json" -e "mgbench_results_dir=$T/drop/results" \
	-e '{"mgbench_run_timeout": 300, "mgbench_rounds": 2000000, "mgbench_run_extra_args": [], "mgbench_fail_on_regression": []}' \
	"$srcdir/contrib/ansible/mgbench.yml" >"$T/drop.log" 2>&1 &
play=$!
run_pid=
bin=$(readlink -f "$MGBENCH")
i=0
while [ $i -lt 1200 ] && [ -z "$run_pid" ] && kill -0 $play 2>/dev/null; do
	# (mgbench names its process after the workload: its executable says what it is)
	for p in $(pgrep -f "$T/node3/results/.*/mgbench.json"); do
		[ "$(readlink /proc/"$p"/exe 2>/dev/null)" = "$bin" ] && run_pid=$p
	done
	sleep 0.1
	i=$((i + 1))
done
if [ -n "$run_pid" ]; then
	ancestors=
	p=$run_pid
	while [ "$p" -gt 1 ] 2>/dev/null; do
		ancestors="$ancestors $(cat /proc/"$p"/comm 2>/dev/null)"
		p=$(awk '{print $4}' /proc/"$p"/stat 2>/dev/null)
	done
	check "the run is out of every SSH session (ancestors:$ancestors)" sh -c '! echo "$1" | grep -qw sshd' sh "$ancestors"
	dropped=0
	for s in $sshd_pids; do
		for c in $(pgrep -P "$s"); do kill -9 "$c" && dropped=$((dropped + 1)); done
	done
	say "drop case: mgbench $run_pid, ancestors:$ancestors; $dropped SSH session(s) killed"
	sleep 1
	check "the run outlives its SSH sessions being dropped ($dropped killed)" kill -0 "$run_pid"
else
	check "the drop case's run started" false
fi
wait $play
rc=$?
cat "$T/drop.log" >&2
check "a run whose SSH sessions dropped is fetched (exit $rc)" [ $rc = 0 ]
check "a run whose SSH sessions dropped is ok" grep -q '"state": "ok"' "$T/drop/results/drop/status.json"
check "its document is complete" "$MGBENCH" report "$T/drop/results/drop/mgbench.json" >/dev/null

# A run past mgbench_run_timeout is stopped on the node (timeout(1)'s SIGTERM to the run's process
# group: mgbench cleans up), the host is failed, and nothing of it is fetched, then or later.
# node3's fake install, a long run on tmpfs.
node3_hosts slow
t0=$(date +%s)
ansible-playbook -i "$T/slow.hosts" -e "@$T/vars.json" -e "mgbench_results_dir=$T/slow/results" \
	-e '{"mgbench_run_timeout": 4, "mgbench_rounds": 2000000000, "mgbench_run_extra_args": []}' \
	"$srcdir/contrib/ansible/mgbench.yml" >"$T/slow.log" 2>&1
rc=$?
cat "$T/slow.log" >&2
say "the timed-out play exited $rc after $(($(date +%s) - t0)) s"
check "a run past its timeout fails the host" grep -q '"state": "failed"' "$T/slow/results/slow/status.json"
check "a run past its timeout is named, and was stopped by timeout(1)" \
	grep -q "the run did not finish in mgbench_run_timeout (4 s): stopped on the node" "$T/slow/results/slow/status.json"
check "a run past its timeout leaves no document on the controller" [ ! -e "$T/slow/results/slow/mgbench.json" ]
check "a run past its timeout is gone from the node" sh -c '! pgrep -f "$1/node3/results/.*/mgbench.json" >/dev/null' \
	sh "$T"

# A timeout that is not a number of seconds would be no limit to timeout(1): refused before the run.
node3_hosts badtimeout
ansible-playbook -i "$T/badtimeout.hosts" -e "@$T/vars.json" -e "mgbench_results_dir=$T/badtimeout/results" \
	-e '{"mgbench_run_timeout": "2h"}' "$srcdir/contrib/ansible/mgbench.yml" >"$T/badtimeout.log" 2>&1
rc=$?
check "a run timeout of \"2h\" fails the play (exit $rc)" [ $rc != 0 ]
check "a run timeout of \"2h\" is refused, named" \
	grep -q 'mgbench_run_timeout \\"2h\\" is not a whole number' "$T/badtimeout/results/badtimeout/status.json"

# The controller step alone on hostile and broken documents (deep nesting, hostile names, escapes).
check "the controller step on hostile input (tests/it-fleet-compare.sh)" \
	env srcdir="$srcdir" MGBENCH="$MGBENCH" sh "$srcdir/tests/it-fleet-compare.sh"
exit $fail
