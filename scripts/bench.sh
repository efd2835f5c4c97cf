#!/bin/bash
# 'make bench': the base kernel and the patched kernel, built from the same
# plain fragment and booted the same way, each run bench/guest.sh (main
# scenarios, the cost scenario under -icount, then the veth latency
# scenario) REPS times, alternating kernels. The latency boot (or designs,
# its part that compares veth BQL designs) runs on a third kernel too: the
# series with bench/veth-packet-unit.patch, a model of the public
# packet-unit design of veth BQL. Raw output goes to
# results/NAME/raw, the report next to it. MODES (make bench MODES=...)
# picks some of the three boots, or parts of them that bench/guest.sh
# names (kicks, hol_virtio).
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
bash scripts/tree.sh pkt
# udpgso_bench_tx, the GSO datagrams' sender in the latency boot
bash scripts/ksft.sh
for source in base qbulk pkt; do
	bash scripts/build.sh plain "$source"
done

{
	echo "commit $(git rev-parse HEAD)"
	echo "base $PACKAGE $VERSION"
	echo "series $(series_patches | wc -l) patches"
	echo "reps $reps"
	echo "count ${QBULK_BENCH_COUNT:-5000}"
	echo "probes ${QBULK_BENCH_PROBES:-500}"
	echo "modes ${QBULK_BENCH_MODES:-main cost latency}"
	echo "vm $(qemu-system-x86_64 --version | head -1), q35, 2 vCPUs, TCG"
} > "$dir/settings"

# boot SOURCE MODE REP: one VM run of bench/guest.sh MODE. A guest that
# does not finish in 15 minutes (TCG has been seen to hang in early boot,
# its timers stalled) is booted again, up to three times in all.
boot() {
	local source=$1 mode=$2 rep=$3 out try icount=

	out=$BUILD/bench/$source-$mode
	case $mode in cost | hol_virtio) icount=1 ;; esac
	for try in 1 2 3; do
		rm -rf "$out"
		mkdir -p "$out"
		if QBULK_ICOUNT=$icount \
			progress "bench: $source $mode" "bench-$mode" \
			bash scripts/vm.sh -t 900 \
			-k "$(kernel_out plain "$source")/arch/x86/boot/bzImage" \
			-o "$out" -- sh -c "QBULK_BENCH_COUNT=${QBULK_BENCH_COUNT:-5000} \
			QBULK_BENCH_PROBES=${QBULK_BENCH_PROBES:-500} \
			bash bench/guest.sh $mode > \$QBULK_OUT/bench.txt" >/dev/null; then
			cp "$out/bench.txt" "$dir/raw/$source-$mode-$rep.txt"
			return
		fi
		echo "bench: $source $mode run $rep failed (boot $try of 3)"
		rm -rf "$out-failed-$rep-$try"
		mv "$out" "$out-failed-$rep-$try"
	done
	die "bench: $source $mode run $rep failed three times, see $out/console.log"
}

read -ra modes <<< "${QBULK_BENCH_MODES:-main cost latency}"
# The packet-unit variant differs from the series in veth alone
runs_on() {
	[ "$1" != pkt ] || [ "$2" = latency ] || [ "$2" = designs ]
}
boots=0
for source in base qbulk pkt; do
	for mode in "${modes[@]}"; do
		runs_on "$source" "$mode" && boots=$((boots + reps))
	done
done
done=0
start=$SECONDS
for ((rep = 1; rep <= reps; rep++)); do
	for source in base qbulk pkt; do
		for mode in "${modes[@]}"; do
			runs_on "$source" "$mode" || continue
			left=
			((done)) && left=", about $(hms $(((SECONDS - start) * \
				(boots - done) / done))) left"
			echo "bench: boot $((done + 1)) of $boots (run $rep of $reps, $source, $mode)$left"
			boot "$source" "$mode" "$rep"
			done=$((done + 1))
		done
	done
done
/usr/bin/python3 bench/report.py "$dir"
