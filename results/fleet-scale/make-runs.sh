#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The fleet's scale on one machine, as the review measured it: N inventory hosts (N/2 pairs
# NAME, NAME-dev) spread over two sshd on localhost ports, each host with its own node directory
# and a build already in place (the role's markers), each running a cheap suite (write on tmpfs,
# one repeat, 2000 rounds, no dependencies).  What it measures is the controller: ansible-playbook's
# wall and CPU time (its children included: forks, ssh clients, the controller step; the nodes'
# processes are sshd's children and are not counted), and the compare step's time.
#
#   MGBENCH=$PWD/mgbench results/fleet-scale/make-runs.sh DIR N FORKS [ANSIBLE_CFG]
#
# DIR is a scratch directory (made, and removed at the end but for its logs); ANSIBLE_CFG an
# ansible.cfg to run with (default: contrib/ansible/ansible.cfg, the shipped defaults), FORKS
# then overrides its forks.  Prints one line: N forks wall_s cpu_s cpu_per_host_s compare_s
# load_before load_after.
set -u
[ $# -ge 3 ] || { echo "usage: $0 DIR N FORKS [ANSIBLE_CFG]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
W=$1 N=$2 F=$3
cfg=${4:-$top/contrib/ansible/ansible.cfg}
MGBENCH=${MGBENCH:?MGBENCH=path of the built mgbench}
[ "$(id -u)" = 0 ] || { echo "$0: run as root (sshd with its own host keys, root logins)" >&2; exit 1; }
mkdir -p "$W" && W=$(cd "$W" && pwd)
T=$(mktemp -d "$W/run.XXXXXX")
sshd_pids=
made_run_sshd=
cleanup() {
	for p in $sshd_pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	# ssh ControlPersist masters of this run (their command line names its control path)
	for d in /proc/[0-9]*; do
		{ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null | grep -qF "$T/cp" && kill "${d#/proc/}" 2>/dev/null
	done
	rm -rf "$T/nodes" "$T/ssh" "$T/results" "$T/ansible"
	[ -z "$made_run_sshd" ] || rmdir /run/sshd 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

version=$("$MGBENCH" --version | awk '{print $2}')
tarball=${MGB_TARBALL:-}
if [ -z "$tarball" ]; then
	tarball=$W/mgbench-$version.tar.gz
	[ -s "$tarball" ] || {
		(unset MAKEFLAGS MFLAGS MAKELEVEL; make -s -C "$(dirname "$MGBENCH")" distdir distdir="$W/mgbench-$version") &&
			tar -C "$W" -czf "$tarball" "mgbench-$version" && rm -rf "${W:?}/mgbench-$version"
	} || exit 1
fi
sha16=$(sha256sum "$tarball" | cut -c1-16)

mkdir -m 700 "$T/ssh"
ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/id" && cp "$T/ssh/id.pub" "$T/ssh/authorized_keys"
if [ ! -d /run/sshd ]; then # sshd's privilege separation directory, as its service makes it
	mkdir -m 755 /run/sshd && made_run_sshd=1
fi
: >"$T/ssh/known_hosts"
for n in 1 2; do
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/host$n"
	printf '%s\n' "Port $port" "ListenAddress 127.0.0.1" "HostKey $T/ssh/host$n" "PidFile none" \
		"AuthorizedKeysFile $T/ssh/authorized_keys" "PermitRootLogin prohibit-password" "UsePAM no" \
		"StrictModes no" "PasswordAuthentication no" "MaxStartups 200" "MaxSessions 200" \
		"Subsystem sftp internal-sftp" "LogLevel ERROR" "SetEnv SHLVL=1" >"$T/ssh/sshd$n.conf"
	/usr/sbin/sshd -D -e -f "$T/ssh/sshd$n.conf" 2>"$T/sshd$n.log" &
	sshd_pids="$sshd_pids $!"
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$T/ssh/host$n.pub")" >>"$T/ssh/known_hosts"
	eval "port$n=$port"
done
sleep 1

# N hosts, half baseline, half dev; each with a build in place (markers + this build's mgbench).
{
	echo "[baseline]"
	i=1
	while [ $i -le $((N / 2)) ]; do echo "h$i ansible_port=$port1"; i=$((i + 1)); done
	echo "[dev]"
	i=1
	while [ $i -le $((N / 2)) ]; do echo "h$i-dev ansible_port=$port2"; i=$((i + 1)); done
	echo "[all:vars]"
	echo "ansible_host=127.0.0.1"
	echo "ansible_user=root"
	echo "ansible_ssh_private_key_file=$T/ssh/id"
	echo "ansible_python_interpreter=/usr/bin/python3"
	echo "mgbench_node_dir=$T/nodes/{{ inventory_hostname }}"
	echo "mgbench_prefix=$T/nodes/{{ inventory_hostname }}/prefix"
} >"$T/hosts"
for h in $(sed -n 's/^\(h[0-9][-a-z0-9]*\) .*/\1/p' "$T/hosts"); do
	src=$T/nodes/$h/src-$sha16/mgbench-$version
	mkdir -p "$src" "$T/nodes/$h/prefix/bin"
	touch "$src/configure.ac" "$src/config.status" "$src/.mgbench-installed"
	ln -s "$MGBENCH" "$src/mgbench"
	ln -s "$MGBENCH" "$T/nodes/$h/prefix/bin/mgbench"
done

# Ansible's state, the nodes' side included (root's module files and async jobs), stays in $T.
export ANSIBLE_CONFIG="$cfg" ANSIBLE_FORKS="$F" ANSIBLE_HOME="$T/ansible" ANSIBLE_LOCAL_TEMP="$T/ansible/tmp"
export ANSIBLE_REMOTE_TEMP="$T/ansible/remote" ANSIBLE_ASYNC_DIR="$T/ansible/async"
export ANSIBLE_SSH_CONTROL_PATH_DIR="$T/cp" ANSIBLE_HOST_KEY_CHECKING=True ANSIBLE_NOCOLOR=1
export ANSIBLE_SSH_ARGS="-o UserKnownHostsFile=$T/ssh/known_hosts -o ControlMaster=auto -o ControlPersist=60s"
export ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks PROFILE_TASKS_TASK_OUTPUT_LIMIT=100
load0=$(cut -d' ' -f1 /proc/loadavg)
/usr/bin/time -f '%e %U %S' -o "$T/time" ansible-playbook -i "$T/hosts" \
	-e "{\"mgbench_tarball\": \"$tarball\", \"mgbench_results_dir\": \"$T/results\",
	     \"mgbench_controller_bin\": \"$MGBENCH\", \"mgbench_install_deps\": false,
	     \"mgbench_workloads\": [\"write\"], \"mgbench_filesystems\": [\"tmpfs\"], \"mgbench_repeats\": 1,
	     \"mgbench_rounds\": 2000, \"mgbench_fail_on_regression\": [\"distinct\"]}" \
	"$top/contrib/ansible/mgbench.yml" >"$W/play-$N-$F.log" 2>&1
rc=$?
load1=$(cut -d' ' -f1 /proc/loadavg)
ok=$(grep -c '"state": "ok"' "$T"/results/*/status.json 2>/dev/null | awk -F: '{s += $2} END {print s + 0}')
cmp_s=$(sed -n 's/^mgbench : Compare the fetched documents -* \([0-9.]*\)s$/\1/p' "$W/play-$N-$F.log" | head -1)
read -r wall user sys <"$T/time"
cp "$T/results/compare/report.txt" "$W/report-$N-$F.txt" 2>/dev/null
awk -v n="$N" -v f="$F" -v w="$wall" -v u="$user" -v s="$sys" -v c="${cmp_s:-?}" -v l0="$load0" -v l1="$load1" \
	-v rc="$rc" -v ok="$ok" 'BEGIN {
	printf "N=%d forks=%d wall=%.1fs cpu=%.1fs cpu/host=%.2fs compare=%ss load %s->%s rc=%d ok=%d\n",
		n, f, w, u + s, (u + s) / n, c, l0, l1, rc, ok }'
