#!/bin/bash
# Runs inside the VM for 'make demo': traffic through veth and igb, and what
# the qdisc layer did with it. Numbers come from an emulated machine (QEMU
# TCG): they show behaviour, not hardware performance.
set -eu
. vm/net.sh

COUNT=${QBULK_DEMO_COUNT:-20000}

row() { # row LABEL DEV THREADS: pktgen through the qdisc, one table row
	local label=$1 dev=$2 threads=$3 stats req

	deq_start "$dev"
	pktgen "$dev" "$COUNT" "$threads" queue_xmit
	stats=$(deq_stop | deq_summary)
	req=$(requeues "$dev")
	# shellcheck disable=SC2086 # stats is "dequeues packets mean max"
	printf '%-34s %9s %9s %8s %5s %9s\n' "$label" $stats "$req"
}

header() {
	printf '\n%s\n' "$1"
	printf '%-34s %9s %9s %8s %5s %9s\n' scenario dequeues packets \
		pkts/deq max requeues
}

sysctl_show() {
	local k

	for k in "$@"; do
		[ -e "/proc/sys/${k//.//}" ] && printf '  %s = %s\n' "$k" "$(sysctl -n "$k")"
	done
	return 0
}

echo "qbulk demo on $(uname -r)"
echo "Bulk dequeue knobs of this kernel:"
sysctl_show net.core.dev_weight net.core.dev_weight_tx_bias \
	net.core.dequeue_bulk_packets net.core.dequeue_bulk_bytes

header "veth ($COUNT packets per pktgen thread, 2 threads on tx queue 0)"
setup_veth
tc qdisc replace dev "$DEV" root handle 1: prio
row "root prio (slow path)" "$DEV" 2
tc qdisc replace dev "$DEV" root handle 1: mq
row "mq + pfifo_fast (BQL path)" "$DEV" 2
teardown

header "igb ($COUNT packets per pktgen thread, 2 threads on tx queue 0)"
setup_igb
row "mq + pfifo_fast (BQL path)" "$DEV" 2
tc qdisc replace dev "$DEV" root handle 1: prio
row "root prio (slow path)" "$DEV" 2
tc qdisc del dev "$DEV" root
sysctl -q net.core.dev_weight=4
row "mq, net.core.dev_weight=4" "$DEV" 2
sysctl -q net.core.dev_weight=64
teardown
