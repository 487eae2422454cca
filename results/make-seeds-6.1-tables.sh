#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The seeds-6.1 tables and picture from the documents in DIR (results/ or results/faithful-config/),
# with this mgbench's compare and plot; no kernel is built or booted:
#     results/make-seeds-6.1-tables.sh DIR [MGBENCH]
# seeds-6.1-compare.txt / .md hold one section per pair of documents (control as A, series as B).
set -eu
dir=${1:?usage: results/make-seeds-6.1-tables.sh DIR [MGBENCH]}
mgbench=$(realpath "${2:-./mgbench}")
cd "$dir" # the tables name the documents as they sit beside them

for format in text markdown; do
	if [ "$format" = text ]; then file=seeds-6.1-compare.txt; else file=seeds-6.1-compare.md; fi
	: > "$file.new"
	for name in suite crossfs threads statx06-ticks0; do
		if [ "$format" = text ]; then echo "== $name"; else printf '## %s\n\n' "$name"; fi >> "$file.new"
		"$mgbench" compare --format "$format" "seeds-6.1-control-$name.json" \
			"seeds-6.1-series-$name.json" >> "$file.new"
	done
	mv "$file.new" "$file"
done
"$mgbench" plot "seeds-6.1-control-suite.json" "seeds-6.1-series-suite.json" --workload ordering \
	-o "seeds-6.1-ordering.png"
"$mgbench" plot "seeds-6.1-control-suite.json" "seeds-6.1-series-suite.json" --workload ordering \
	-o "seeds-6.1-ordering.txt"
