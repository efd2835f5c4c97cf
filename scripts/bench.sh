#!/bin/bash
# 'make bench': the base kernel and the patched kernel, built from the same
# plain fragment and booted the same way, each run bench/guest.sh (main
# scenarios, then the cost scenario under -icount) REPS times, alternating
# kernels. Raw output goes to results/NAME/raw, the report next to it.
#   bench.sh [REPS [NAME]]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

reps=${1:-5}
name=${2:-$(date -u +%Y%m%d-%H%M)}
dir=results/$name
mkdir -p "$dir/raw"

bash scripts/tree.sh
bash scripts/tree.sh base
for source in base qbulk; do
	bash scripts/build.sh plain "$source"
done

{
	echo "commit $(git rev-parse HEAD)"
	echo "base $PACKAGE $VERSION"
	echo "series $(series_patches | wc -l) patches"
	echo "reps $reps"
	echo "count ${QBULK_BENCH_COUNT:-5000}"
	echo "vm $(qemu-system-x86_64 --version | head -1), q35, 2 vCPUs, TCG"
} > "$dir/settings"

# boot SOURCE MODE REP: one VM run of bench/guest.sh MODE
boot() {
	local source=$1 mode=$2 rep=$3 out icount=

	out=$BUILD/bench/$source-$mode
	rm -rf "$out"
	mkdir -p "$out"
	[ "$mode" = cost ] && icount=1
	QBULK_ICOUNT=$icount \
	QBULK_QEMU_OPTS="-trace enable=e1000e_core_write -D $out/qemu-trace.log" \
		bash scripts/vm.sh -k "$(kernel_out plain "$source")/arch/x86/boot/bzImage" \
		-o "$out" -- sh -c "QBULK_BENCH_COUNT=${QBULK_BENCH_COUNT:-5000} \
		bash bench/guest.sh $mode > \$QBULK_OUT/bench.txt" >/dev/null
	cp "$out/bench.txt" "$dir/raw/$source-$mode-$rep.txt"
}

for ((rep = 1; rep <= reps; rep++)); do
	for source in base qbulk; do
		for mode in main cost; do
			echo "bench: run $rep of $reps, $source, $mode"
			boot "$source" "$mode" "$rep"
		done
	done
done
/usr/bin/python3 bench/report.py "$dir"
