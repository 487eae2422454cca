# SPDX-License-Identifier: GPL-2.0-or-later
# What tests/it-ansible.sh and tests/it-kdevops.sh share, sourced after they set $me (the test's
# name), $T (its temp dir, named in every process it starts) and fail=0.

say() { printf '%s\n' "$me: $*" >&2; }

check() { # check DESCRIPTION COMMAND...: record a failure and go on
	desc=$1
	shift
	if ! "$@"; then
		say "FAIL: $desc"
		fail=1
	fi
}

ours() { # processes (pid) whose command line names $T
	for d in /proc/[0-9]*; do
		case $(cat "$d/comm" 2>/dev/null) in grep | tr | cat) continue ;; esac
		tr '\0' ' ' <"$d/cmdline" 2>/dev/null | grep -qF "$T" && echo "${d#/proc/}"
	done
	return 0
}

# Fail on, and kill, what the test left running.  Ansible's async_wrapper polls its job every
# 5 s: a finished one may take that long to go, so what is left gets 15 s first.
stop_ours() {
	left=$(ours | grep -vx "$$")
	n=0
	while [ -n "$left" ] && [ "$n" -lt 30 ]; do
		sleep 0.5
		n=$((n + 1))
		left=$(ours | grep -vx "$$")
	done
	if [ -n "$left" ]; then
		say "FAIL: left running: $(for p in $left; do tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null; echo; done)"
		for p in $left; do kill -9 "$p" 2>/dev/null; done
		fail=1
	fi
}

# The nodes' ./configure arguments, as a JSON list: their compiler is ccache (./bootstrap installs
# it), into mgbench's own ccache, so a suite after the first compiles only what changed in the
# tarball.  CCACHE_NOHASHDIR: each run unpacks the tarball under another temp dir, which -g would
# otherwise put into every object's hash.
node_configure_args() {
	if command -v ccache >/dev/null 2>&1; then
		echo "[\"CC=env CCACHE_DIR=${MGBENCH_CACHE:-/var/cache/mgbench}/ccache CCACHE_NOHASHDIR=1 ccache gcc\"]"
	else
		echo "[]"
	fi
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# /run/sshd, sshd's privilege separation directory, which its service makes: where it is missing,
# a fleet test makes it for its own sshd.  make -j check runs it-ansible and it-kdevops side by
# side, so the first in makes it and the last out removes it.  Who is in: the pids listed in
# /run/sshd/.mgbench-fleet-tests, whose being there says a fleet test made the directory; read
# and written under a lock on this file.  A test that was killed stays listed, and is dropped by
# the next one out, which sees it gone.
sshd_dir_list=/run/sshd/.mgbench-fleet-tests
sshd_dir_entered=
sshd_dir_enter() {
	sshd_dir_entered=1
	exec 9<"$srcdir/tests/fleet-test-lib.sh"
	flock 9
	if [ ! -d /run/sshd ]; then
		mkdir -m 755 /run/sshd && : >"$sshd_dir_list"
	fi
	[ -f "$sshd_dir_list" ] && echo $$ >>"$sshd_dir_list"
	flock -u 9
}
sshd_dir_leave() {
	[ -n "$sshd_dir_entered" ] || return 0
	flock 9
	if [ -f "$sshd_dir_list" ]; then
		others=$(while read -r p; do
			[ "$p" != $$ ] && kill -0 "$p" 2>/dev/null && echo "$p"
		done <"$sshd_dir_list")
		if [ -n "$others" ]; then
			echo "$others" >"$sshd_dir_list"
		else
			rm -f "$sshd_dir_list" && rmdir /run/sshd
		fi
	fi
	flock -u 9
}
