#!/bin/bash
# Runs inside the VM for 'make bench': the benchmark scenarios on the
# kernel booted, one pktgen run each, printed as "SCENARIO KEY VALUE..."
# lines (see measure in vm/net.sh). Emulated machine: the counts and the
# ratios between kernels mean something, the absolute rates do not.
#   guest.sh main   doorbells and bulking
#   guest.sh cost   cost per packet, for a boot with -icount
set -eu
. vm/net.sh

COUNT=${QBULK_BENCH_COUNT:-5000}
KNOB=/proc/sys/net/core/dequeue_bulk_packets

# run SCENARIO MEASURE_ARGS...: one measured run, lines tagged SCENARIO
run() {
	local name=$1

	shift
	measure "$DEV" "$COUNT" "$@" | awk -v n="$name" '{ print n, $0 }'
}

main() {
	setup_igb
	# A sink on the far end, so that it sends no ICMP errors back.
	ip netns exec "$PEER_NS" socat -u UDP4-RECV:9 /dev/null &
	for burst in 1 2 4 8 32; do
		run "doorbells/burst-$burst" 1 start_xmit "$burst"
	done
	run "doorbells/qdisc" 2 queue_xmit
	run "bulking/igb-mq" 2 queue_xmit
	tc qdisc replace dev "$DEV" root handle 1: prio
	run "bulking/igb-prio" 2 queue_xmit
	kill %1
	teardown

	setup_veth
	tc qdisc replace dev "$DEV" root mq
	run "bulking/veth-mq" 2 queue_xmit
	tc qdisc replace dev "$DEV" root handle 1: prio
	run "bulking/veth-prio" 2 queue_xmit
	teardown
}

# One thread through a veth's mq, where neither kernel bulks (veth has no
# BQL): the same work per packet, so guest time under -icount shift=0
# (one instruction per nanosecond) measures the cost of the code. Run
# with the defaults and, on a kernel that has it, with bulking disabled.
cost() {
	setup_veth
	tc qdisc replace dev "$DEV" root mq
	run "cost/defaults" 1 queue_xmit
	if [ -e "$KNOB" ]; then
		echo 1 > "$KNOB"
		run "cost/bulk-off" 1 queue_xmit
		echo 0 > "$KNOB"
	fi
	teardown
}

echo "kernel $(uname -r)"
"$1"
