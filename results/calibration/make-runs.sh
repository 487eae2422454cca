#!/bin/sh
# interleaved same-kernel runs for the calibration: one of each configuration per round
M=${MGBENCH:-./mgbench}
for i in $(seq 1 30); do
	$M run write --fs tmpfs --rounds 2000 -q -o wt$i.json
	$M run write --fs ramfs --rounds 2000 -q -o wr$i.json
	$M run ordering --fs tmpfs -q -o or$i.json
	$M run revalidate --fs btrfs -q -o rb$i.json
	$M run revalidate --fs xfs -q -o rx$i.json
	$M run write --fs xfs --rounds 2000 -q -o wx$i.json
done
echo done
