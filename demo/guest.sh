#!/bin/bash
# Runs inside the VM for 'make demo': pktgen traffic through the qdisc on
# veth and on igb, and what the qdisc layer made of it. Numbers come from
# an emulated machine (QEMU TCG): they show behaviour, not hardware speed.
set -eu
. vm/net.sh

COUNT=${QBULK_DEMO_COUNT:-5000}
KNOBS=/proc/sys/net/core/dequeue_bulk_packets

row() { # row LABEL: one pktgen run through the qdisc of $DEV
	local stats req

	req=$(requeues "$DEV")
	deq_start "$DEV"
	pktgen "$DEV" "$COUNT" 2 queue_xmit
	stats=$(deq_stop | deq_summary)
	req=$(($(requeues "$DEV") - req))
	# shellcheck disable=SC2086 # stats is "dequeues packets mean max"
	printf '  %-40s %9s %9s %8s %5s %9s\n' "$1" $stats "$req"
}

header() {
	printf '\n%s, %s packets from each of 2 pktgen threads on tx queue 0\n' \
		"$1" "$COUNT"
	printf '  %-40s %9s %9s %8s %5s %9s\n' qdisc dequeues packets \
		pkts/deq max requeues
}

# budgets QDISC_LABEL: rows for the series' budgets, if this kernel has them
budgets() {
	[ -e "$KNOBS" ] || return 0
	sysctl -q net.core.dequeue_bulk_packets=4
	row "$1, dequeue_bulk_packets=4"
	sysctl -q net.core.dequeue_bulk_packets=1
	row "$1, dequeue_bulk_packets=1"
	sysctl -q net.core.dequeue_bulk_packets=0 net.core.dequeue_bulk_bytes=3000
	row "$1, dequeue_bulk_bytes=3000"
	sysctl -q net.core.dequeue_bulk_bytes=0
}

echo "qbulk demo on $(uname -r)"
if [ -e "$KNOBS" ]; then
	echo "This kernel has the series: net.core.dequeue_bulk_{packets,bytes}."
else
	echo "This kernel has no bulk dequeue budgets (base behaviour)."
fi
echo "pkts/deq and max come from the qdisc:qdisc_dequeue tracepoint."

setup_veth
header "veth (no BQL)"
tc qdisc replace dev "$DEV" root handle 1: prio
row "root prio (slow path)"
budgets "root prio"
tc qdisc del dev "$DEV" root
tc qdisc add dev "$DEV" root mq
row "mq + pfifo_fast (BQL path)"
teardown

setup_igb
header "igb (BQL)"
row "mq + pfifo_fast (BQL path)"
budgets "mq"
sysctl -q net.core.dev_weight=4
row "mq, net.core.dev_weight=4"
sysctl -q net.core.dev_weight=64
tc qdisc replace dev "$DEV" root handle 1: prio
row "root prio (slow path)"
budgets "root prio"
teardown
