#!/bin/sh
# The rooms stand in floors: the #include graph between rooms (lib/<room>/ with its contract
# header lib/<room>.h, workloads/, cmd/) has no loop.  Each #include "x.h" is resolved as the
# compiler resolves it (the file's own folder, then Makefile.am's -I list); an arrow from one
# room to another is a use.  Prints the floors, bottom up, each room above everything it uses;
# on a loop, names the rooms in it and the includes that make its arrows, and exits 1.
#   tests/unit-rooms.sh [SOURCE-DIR]     (default: $srcdir, else .)
# Exit 0 pass, 1 fail.
set -u

top=${1:-${srcdir:-.}}
cd "$top" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mgbench-rooms.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

find lib cmd workloads -name '*.[ch]' ! -name '*_fragment.c' | sort >"$tmp/files"
# "file<TAB>included name" for every quoted include
while read -r f; do
	sed -n "s|^[[:space:]]*#[[:space:]]*include[[:space:]]*\"\([^\"]*\)\".*|$f	\1|p" "$f"
done <"$tmp/files" >"$tmp/includes"

# The edges "from to file header", resolved through the files that exist.
awk -F'\t' '
function room(path,   n, part) {
	n = split(path, part, "/")
	if (part[1] == "cmd" || part[1] == "workloads")
		return part[1]
	if (n == 2) {                 # a contract header at lib/ top
		sub(/\.h$/, "", part[2])
		if (part[2] == "serve")   # the target side of serving a backend
			return "target"
		return part[2]
	}
	return part[2]
}
NR == FNR { exists[$1] = 1; next }
{
	file = $1; name = $2
	dir = file; sub(/\/[^\/]*$/, "", dir)
	split(dir "/ lib/ lib/base/ lib/run/ lib/doc/ workloads/cost/", search, " ")
	target = ""
	for (i = 1; i in search && target == ""; i++)
		if ((search[i] name) in exists)
			target = search[i] name
	if (target == "")
		next                      # config.h and other generated headers
	from = room(file); to = room(target)
	if (from != to)
		print from, to, file, name
}' "$tmp/files" "$tmp/includes" | sort -u >"$tmp/edges"

# Floors: a room stands one floor above the highest room it uses.  An arrow a -> b is on a loop
# when b reaches a again: those arrows are the failure, with the includes behind the thin ones.
awk '
NR == FNR {
	if (!($1 in seen)) { seen[$1] = 1; rooms[++n] = $1 }
	if (!($2 in seen)) { seen[$2] = 1; rooms[++n] = $2 }
	if (!(($1, $2) in reach)) { reach[$1, $2] = 1; from[++m] = $1; to[m] = $2 }
	include[$1, $2] = include[$1, $2] "    " $3 ": #include \"" $4 "\"\n"
	count[$1, $2]++
	next
}
END {
	for (k = 1; k <= n; k++)
		for (i = 1; i <= n; i++)
			for (j = 1; j <= n; j++)
				if ((rooms[i], rooms[k]) in reach && (rooms[k], rooms[j]) in reach)
					reach[rooms[i], rooms[j]] = 1
	for (e = 1; e <= m; e++)
		if ((to[e], from[e]) in reach) {
			if (!loop)
				print "unit-rooms: FAIL: the rooms include each other in a loop; its arrows:"
			loop = 1
			printf "  %s -> %s (%d includes)\n", from[e], to[e], count[from[e], to[e]]
			# a back-edge is usually a few includes: those are shown
			if (count[from[e], to[e]] <= 3)
				printf "%s", include[from[e], to[e]]
		}
	if (loop)
		exit 1
	for (i = 1; i <= n; i++)
		floor[rooms[i]] = 1
	for (pass = 0; pass < n; pass++)
		for (e = 1; e <= m; e++)
			if (floor[from[e]] <= floor[to[e]])
				floor[from[e]] = floor[to[e]] + 1
	for (i = 1; i <= n; i++)
		if (floor[rooms[i]] > top)
			top = floor[rooms[i]]
	for (f = 1; f <= top; f++) {
		line = ""
		for (i = 1; i <= n; i++)
			if (floor[rooms[i]] == f)
				line = line " " rooms[i]
		printf "floor %d:%s\n", f, line
	}
}' "$tmp/edges"
