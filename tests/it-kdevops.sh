#!/bin/sh
# Integration: contrib/kdevops in a checkout laid out as kdevops lays itself out, driven by its
# make targets, over real SSH as kdevops logs in: an ordinary user, root through sudo (become).
# Two sshd on localhost ports stand for PREFIX-mgbench (baseline) and PREFIX-mgbench-dev, named
# through an ssh config as kdevops names its nodes; the settings arrive as Kconfig gives them, as
# strings ("tmpfs,ramfs", "backward,future").  contrib/kdevops/install puts mgbench's role,
# playbook, Makefile, Kconfig and hosts template in the checkout; the inventory is rendered from
# the template.  Checked: `make mgbench` builds from the tarball as root and runs on both nodes,
# the documents land in workflows/mgbench/results/<host>/, record the whole --fs list, and the pair
# is compared and gated; `make mgbench-results` contacts no node; `make mgbench-baseline` runs the
# baseline only and compares nothing; `make mgbench-dev` then runs dev and compares.  The user,
# its sudoers entry, the sshd and every file go at the end.
# Exit 0 pass, 1 fail, 77 skip.
set -u

srcdir=${srcdir:-.}
srcdir=$(cd "$srcdir" && pwd)
MGBENCH=${MGBENCH:-$(pwd)/mgbench}
fail=0
me=it-kdevops
. "$srcdir/tests/fleet-test-lib.sh"

case "${MGB_CHECK_QUICK:-0}" in 0|"") ;; *) say "skip: slow: make check runs it, make check-quick does not"; exit 77 ;; esac
# the nodes build and run the tarball's own mgbench, never this build (as in it-ansible)
[ "${MGB_CHECK_TIER:-}" = sanitizers ] && { say "skip: in the sanitizer pass: the nodes run the tarball's own build, not this one"; exit 77; }
[ "$(id -u)" = 0 ] || { say "skip: needs root (a user, sudo, sshd)"; exit 77; }
for tool in ansible-playbook /usr/sbin/sshd ssh ssh-keygen python3 sudo useradd userdel make; do
	command -v "$tool" >/dev/null 2>&1 || { say "skip: $tool not installed (./bootstrap installs it)"; exit 77; }
done

start=$(date +%s)
T=$(mktemp -d "${TMPDIR:-/tmp}/mgbench-it-kdevops.XXXXXX") || exit 1
# the user reaches its home below T; nothing else of T is its
chmod 711 "$T"
user=mgbk$$
sudoers=/etc/sudoers.d/mgbench-it-kdevops-$$
made_user=
made_sudoers=
sshd_pids=


cleanup() {
	for p in $sshd_pids; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	stop_ours
	[ -n "$made_sudoers" ] && rm -f "$sudoers"
	if [ -n "$made_user" ]; then
		pkill -KILL -u "$user" 2>/dev/null # the user's own processes only (none expected)
		userdel "$user" 2>/dev/null || { say "FAIL: userdel $user"; fail=1; }
	fi
	rm -rf "$T"
	[ -e "$T" ] && { say "FAIL: $T not removed"; fail=1; }
	sshd_dir_leave
	say "took $(($(date +%s) - start)) s"
}
trap 'cleanup; exit $fail' EXIT
trap 'exit 1' INT TERM HUP

# The user kdevops logs in as: no password (not locked: sshd without PAM refuses a locked
# account), a key, and sudo without a password, as kdevops's nodes have.
if getent passwd "$user" >/dev/null; then
	say "FAIL: user $user exists already"
	exit 1
fi
mkdir -m 700 "$T/home"
useradd -M -d "$T/home" -s /bin/sh -p '*' "$user" || { say "FAIL: useradd"; exit 1; }
made_user=1
chown "$user:" "$T/home"
(set -C && echo "$user ALL=(root) NOPASSWD: ALL" >"$sudoers") || { say "FAIL: $sudoers"; exit 1; }
made_sudoers=1
chmod 440 "$sudoers"

mkdir -m 700 "$T/ssh" "$T/home/.ssh"
ssh-keygen -q -t ed25519 -N '' -C mgbench-it-kdevops -f "$T/ssh/id" || exit 1
cp "$T/ssh/id.pub" "$T/home/.ssh/authorized_keys"
chown -R "$user:" "$T/home/.ssh"
sshd_dir_enter

# kdevops names its nodes through an ssh config (~/.ssh/config includes kdevops's): so do we.
prefix=mgbk
: >"$T/ssh/known_hosts"
: >"$T/ssh/config"
for n in 1 2; do
	case $n in 1) host=$prefix-mgbench ;; 2) host=$prefix-mgbench-dev ;; esac
	port=$(free_port)
	ssh-keygen -q -t ed25519 -N '' -C "$host" -f "$T/ssh/host$n" || exit 1
	cat >"$T/ssh/sshd$n.conf" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $T/ssh/host$n
PidFile none
AuthorizedKeysFile .ssh/authorized_keys
PermitRootLogin no
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowUsers $user
Subsystem sftp internal-sftp
LogLevel ERROR
EOF
	/usr/sbin/sshd -D -e -f "$T/ssh/sshd$n.conf" 2>"$T/ssh/sshd$n.log" &
	sshd_pids="$sshd_pids $!"
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$T/ssh/host$n.pub")" >>"$T/ssh/known_hosts"
	cat >>"$T/ssh/config" <<EOF
Host $host
	HostName 127.0.0.1
	Port $port
	User $user
	IdentityFile $T/ssh/id
	IdentitiesOnly yes
	UserKnownHostsFile $T/ssh/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
	ConnectTimeout 5
	ControlMaster no
EOF
	i=0
	until ssh -F "$T/ssh/config" "$host" true 2>/dev/null; do
		i=$((i + 1))
		if [ $i -ge 50 ]; then
			say "FAIL: sshd $n on port $port does not answer: $(cat "$T/ssh/sshd$n.log")"
			exit 1
		fi
		sleep 0.2
	done
done

# The release tarball, from the build tree's `make distdir`.
builddir=$(dirname "$MGBENCH")
version=$("$MGBENCH" --version | awk '{print $2}')
(unset MAKEFLAGS MFLAGS MAKELEVEL; make -s -C "$builddir" distdir distdir="$T/mgbench-$version") \
	>"$T/distdir.log" 2>&1 || { cat "$T/distdir.log" >&2; say "FAIL: make distdir"; exit 1; }
tar -C "$T" -czf "$T/mgbench-$version.tar.gz" "mgbench-$version" && rm -rf "${T:?}/mgbench-$version"

# A kdevops checkout as far as this workflow touches it: the top Makefile's variables and its
# workflows/Makefile include, ansible.cfg, the gen_hosts template dispatch, extra_vars.yaml.
K=$T/kdevops
mkdir -p "$K/workflows" "$K/playbooks/roles/gen_hosts/templates/workflows" "$K/playbooks/roles/gen_nodes/tasks"
check "contrib/kdevops/install refuses a directory that is not a kdevops checkout" \
	sh -c '! "$1/contrib/kdevops/install" "$2/home" 2>/dev/null' sh "$srcdir" "$T"
"$srcdir/contrib/kdevops/install" "$K" "$T/mgbench-$version.tar.gz" >"$T/install.log" 2>&1
check "contrib/kdevops/install copies the workflow in ($(cat "$T/install.log"))" [ $? = 0 ]
check "install names the hooks to add" grep -q "Add the hooks" "$T/install.log"
for f in workflows/mgbench/Kconfig workflows/mgbench/Makefile workflows/mgbench/mgbench.tar.gz playbooks/mgbench.yml \
	playbooks/roles/mgbench/tasks/main.yml playbooks/roles/gen_hosts/templates/workflows/mgbench.j2 \
	playbooks/roles/gen_nodes/tasks/mgbench.yml playbooks/python/workflows/mgbench/mgbench-fleet-compare; do
	check "installed: $f" [ -s "$K/$f" ]
done
check "the role is mgbench's own, not a fork" diff -r "$srcdir/contrib/ansible/roles/mgbench" "$K/playbooks/roles/mgbench"
# kdevops's hooks (README.md): the Makefile include and the hosts template dispatch
cat >"$K/workflows/Makefile" <<'EOF'
ifeq (y,$(CONFIG_KDEVOPS_WORKFLOW_ENABLE_MGBENCH))
include workflows/mgbench/Makefile
endif # CONFIG_KDEVOPS_WORKFLOW_ENABLE_MGBENCH == y
EOF
cat >"$K/Makefile" <<'EOF'
TOPDIR := .
export TOPDIR_PATH := $(shell readlink -f $(TOPDIR))
KDEVOPS_EXTRA_VARS ?= extra_vars.yaml
Q := @
LIMIT_HOSTS :=
ifneq (,$(HOSTS))
LIMIT_HOSTS := --limit $(HOSTS)
endif
include .config
include workflows/Makefile
EOF
echo "CONFIG_KDEVOPS_WORKFLOW_ENABLE_MGBENCH=y" >"$K/.config"
printf '{%% include "workflows/" + kdevops_workflow_name + ".j2" %%}\n' \
	>"$K/playbooks/roles/gen_hosts/templates/hosts.j2"
cat >"$K/ansible.cfg" <<EOF
[defaults]
inventory = $K/hosts
forks = 10
interpreter_python = /usr/bin/python3
nocolor = 1
retry_files_enabled = False
deprecation_warnings = False
callbacks_enabled = ansible.posix.profile_tasks
local_tmp = $T/ansible/tmp
# the nodes' side (the login user's and, through sudo, root's) stays in the test's directory too
remote_tmp = $T/remote
[ssh_connection]
ssh_args = -F $T/ssh/config -o ControlMaster=no -o ControlPersist=no
control_path_dir = $T/ansible/cp
EOF
mkdir -m 1777 "$T/remote"
# Kconfig's `output yaml`: strings stay strings (the role must split "tmpfs,ramfs" itself).  The
# gate is on the invariants (0 on both sides, always judged): ramfs's distinct ratio, coarse, varies
# from run to run, and one run a side gives it no verdict, which the gate rightly calls NOT JUDGED.
# Settings beside those are kdevops's own; the nodes' directories and prefixes are this test's
# (host_vars beside the inventory): both "machines" share this one's /var/tmp and /usr/local.
cat >"$K/extra_vars.yaml" <<EOF
---
topdir_path: $K
kdevops_workflow_name: mgbench
kdevops_host_prefix: $prefix
kdevops_baseline_and_dev: True
kdevops_python_interpreter: /usr/bin/python3
kdevops_workflow_enable_mgbench: True
mgbench_node_groups: "mgbench"
mgbench_tarball: "$K/workflows/mgbench/mgbench.tar.gz"
mgbench_workloads: "write"
mgbench_filesystems: "tmpfs,ramfs"
mgbench_backends: "sync"
mgbench_repeats: 1
mgbench_rounds: "2000"
mgbench_run_extra_args: "--query every"
mgbench_vm_kernel: ""
mgbench_fail_on_regression: "backward,future"
mgbench_run_timeout: 900
mgbench_run_poll: 2
mgbench_install_deps: False
mgbench_rerun: False
mgbench_controller_bin: $MGBENCH
EOF
export ANSIBLE_CONFIG="$K/ansible.cfg" ANSIBLE_HOME="$T/ansible" ANSIBLE_ASYNC_DIR="$T/ansible/async"
(cd "$K" && ansible localhost -c local -m template \
	-a "src=playbooks/roles/gen_hosts/templates/hosts.j2 dest=$K/hosts trim_blocks=true lstrip_blocks=true" \
	-e @extra_vars.yaml) >"$T/hosts.log" 2>&1
check "the hosts template renders ($(tail -3 "$T/hosts.log"))" [ -s "$K/hosts" ]
cat "$K/hosts" >&2
check "the inventory: PREFIX-mgbench in baseline, its twin in dev" python3 - "$K/hosts" "$prefix" <<'EOF'
import configparser, sys
c = configparser.ConfigParser(allow_no_value=True, delimiters=("=",))
c.read(sys.argv[1])
p = sys.argv[2]
sys.exit(0 if list(c["baseline"]) == [p + "-mgbench"] and list(c["dev"]) == [p + "-mgbench-dev"] else 1)
EOF
# Node directories root owns and the user cannot write: only become gets in.
mkdir -p "$K/host_vars" "$T/nodes"
chmod 755 "$T/nodes"
for h in $prefix-mgbench $prefix-mgbench-dev; do
	printf 'mgbench_node_dir: %s\nmgbench_prefix: %s\nmgbench_make_jobs: 2\nmgbench_configure_args: %s\n' \
		"$T/nodes/$h" "$T/nodes/$h/prefix" "$(node_configure_args)" >"$K/host_vars/$h.yml"
done

mk() { # mk LOG TARGET: make TARGET in the checkout, output to LOG and the test's log
	t0=$(date +%s)
	log=$1
	(cd "$K" && make "$2") >"$log" 2>&1
	rc=$?
	cat "$log" >&2
	say "make $2 exited $rc after $(($(date +%s) - t0)) s"
	return $rc
}

R=$K/workflows/mgbench/results
B=$prefix-mgbench
D=$prefix-mgbench-dev
mk "$T/make1.log" mgbench
rc=$?
check "make mgbench: both nodes ran, the pair passed the gate (exit $rc)" [ $rc = 0 ]
check "the gate passed in the pair" grep -q "^verdict: gate passed in every pair (1)" "$R/compare/report.txt"
check "the nodes were reached as $user, not root" sh -c '! grep -q "Permission denied\|UNREACHABLE" "$1"' sh "$T/make1.log"
for h in $B $D; do
	check "$h: document in workflows/mgbench/results/$h/" "$MGBENCH" report "$R/$h/mgbench.json" >/dev/null
	check "$h: the document records the whole --fs list, and two cells" python3 - "$R/$h/mgbench.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["command"]
ok = c[:6] == ["run", "write", "--fs", "tmpfs,ramfs", "--backend", "sync"] and "every" in c
ok = ok and sorted(x["fs"] for x in d["cells"]) == ["ramfs", "tmpfs"]
sys.exit(0 if ok else (print(c), 1)[1])
EOF
	check "$h: run as root on the node (become), in a directory the user cannot write" \
		sh -c '[ "$(stat -c %U "$1"/results/*/mgbench.json)" = root ] && ! sudo -u "$2" touch "$1/x" 2>/dev/null' \
		sh "$T/nodes/$h" "$user"
done
check "$B: built from the tarball and installed as root" \
	sh -c '[ "$(stat -c %U "$1"/prefix/bin/mgbench)" = root ]' sh "$T/nodes/$B"
check "the version came from the renamed tarball's top directory" \
	grep -q "\"mgbench_version\": \"$version\"" "$R/$B/status.json"
check "compare/ has the pair's reports" [ -s "$R/compare/$B--$D.txt" ]

# The report again from what is fetched: no node is contacted (the sshd are stopped first).
mk "$T/make2.log" mgbench-results
rc=$?
check "make mgbench-results: exit $rc" [ $rc = 0 ]
check "make mgbench-results runs nothing on the nodes" sh -c '! grep -q "TASK \[mgbench : \(Reach the node\|Start mgbench\)" "$1"' sh "$T/make2.log"
check "make mgbench-results reports" grep -q "$B -> $D: compared" "$R/compare/report.txt"

# Baseline first, then dev: the baseline target compares nothing, the dev target compares.  The
# baseline gets a changed tarball of the same version (one file more): it must be unpacked, built
# and installed again, and run (its key names the tarball's checksum).
(cd "$K" && make -s mgbench-clean-results)
check "make mgbench-clean-results" [ ! -e "$R" ]
cp "$K/workflows/mgbench/mgbench.tar.gz" "$T/original.tar.gz"
mkdir "$T/changed"
tar -C "$T/changed" -xzf "$T/original.tar.gz" && echo changed >"$T/changed/mgbench-$version/CHANGED" &&
	tar -C "$T/changed" -czf "$K/workflows/mgbench/mgbench.tar.gz" "mgbench-$version"
sha2=$(sha256sum "$K/workflows/mgbench/mgbench.tar.gz" | cut -c1-16)
mk "$T/make3.log" mgbench-baseline
rc=$?
check "make mgbench-baseline: exit $rc" [ $rc = 0 ]
check "a changed tarball of the same version is unpacked and built again" \
	sh -c '[ -f "$1/CHANGED" ] && [ -f "$1/.mgbench-installed" ]' sh "$T/nodes/$B/src-$sha2/mgbench-$version"
check "and installed: the prefix holds its build" cmp -s "$T/nodes/$B/src-$sha2/mgbench-$version/mgbench" "$T/nodes/$B/prefix/bin/mgbench"
check "and its run keyed by it" grep -q "\"tarball_sha256\": \"$sha2" "$R/$B/status.json"
cp "$T/original.tar.gz" "$K/workflows/mgbench/mgbench.tar.gz"
check "make mgbench-baseline ran the baseline only" sh -c '[ -s "$1/$2/mgbench.json" ] && [ ! -e "$1/$3" ]' sh "$R" "$B" "$D"
check "make mgbench-baseline compares nothing" [ ! -e "$R/compare" ]
mk "$T/make4.log" mgbench-dev
rc=$?
check "make mgbench-dev: exit $rc" [ $rc = 0 ]
check "make mgbench-dev ran dev without running the baseline again" \
	sh -c '[ -s "$1/$2/mgbench.json" ] && [ "$(grep -c "^changed: \[$3\]" "$4")" = 0 ]' sh "$R" "$D" "$B" "$T/make4.log"
check "make mgbench-dev compared the pair" grep -q "$B -> $D: compared" "$R/compare/report.txt"
exit $fail
