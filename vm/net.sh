# Guest helpers for the demo and the benchmarks: test hosts, traffic and the
# bulk dequeue statistics. Sourced inside the VM.
# shellcheck shell=bash

PEER_NS=qpeer
TRACING=/sys/kernel/tracing
DEQ_EVENT=$TRACING/events/qdisc/qdisc_dequeue
# Addresses from the benchmarking range (RFC 2544), inside the VM only.
LOCAL_IP=198.18.0.1
PEER_IP=198.18.0.2

dev_by_mac() {
	local d

	for d in /sys/class/net/*; do
		if [ "$(cat "$d/address")" = "$1" ]; then
			basename "$d"
			return 0
		fi
	done
	return 1
}

# setup_pair DEV PEER: PEER goes into netns $PEER_NS, both get an address.
setup_pair() {
	local dev=$1 peer=$2

	ip netns add "$PEER_NS" 2>/dev/null || true
	ip link set "$peer" netns "$PEER_NS"
	ip -n "$PEER_NS" link set lo up
	ip addr add "$LOCAL_IP/24" dev "$dev"
	ip -n "$PEER_NS" addr add "$PEER_IP/24" dev "$peer"
	ip link set "$dev" up
	ip -n "$PEER_NS" link set "$peer" up
	for _ in $(seq 50); do
		ping -q -c 1 -W 1 "$PEER_IP" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "no link between $dev and $peer" >&2
	return 1
}

# The two emulated igb NICs on one hub (MACs from scripts/vm.sh).
setup_igb() {
	DEV=$(dev_by_mac 52:54:00:00:00:01) || return 1
	setup_pair "$DEV" "$(dev_by_mac 52:54:00:00:00:02)"
}

setup_veth() {
	DEV=qb0
	ip link add qb0 type veth peer name qb1
	setup_pair qb0 qb1
}

teardown() {
	ip netns del "$PEER_NS" 2>/dev/null || true
	ip link del qb0 2>/dev/null || true
}

# pktgen DEV COUNT THREADS MODE [BURST [SIZE]]: COUNT packets per thread
# to the peer, all threads on tx queue 0. MODE is queue_xmit (through the
# qdisc) or start_xmit (straight to the driver).
pktgen() {
	local dev=$1 count=$2 threads=$3 mode=$4 burst=${5:-1} size=${6:-1000}
	local mac t pg=/proc/net/pktgen

	mac=$(ip -n "$PEER_NS" -br link | awk '$1 != "lo" { print $3; exit }')
	for ((t = 0; t < threads; t++)); do
		echo rem_device_all > "$pg/kpktgend_$t"
		echo "add_device $dev@$t" > "$pg/kpktgend_$t"
		{
			echo "count $count"
			echo "pkt_size $size"
			echo "burst $burst"
			echo "xmit_mode $mode"
			echo "queue_map_min 0"
			echo "queue_map_max 0"
			echo "dst $PEER_IP"
			echo "dst_mac $mac"
			echo "delay 0"
		} | while read -r cmd; do echo "$cmd" > "$pg/$dev@$t"; done
	done
	# 'start' returns early if a thread is slow to pick the run up.
	echo start > "$pg/pgctrl"
	for ((t = 0; t < threads; t++)); do
		until grep -q '^Result: OK' "$pg/$dev@$t"; do sleep 0.2; done
		echo rem_device_all > "$pg/kpktgend_$t"
	done
}

# Histogram of packets per dequeue on DEV, from the qdisc_dequeue
# tracepoint: deq_start DEV, traffic, then deq_stop prints
# "PACKETS COUNT" lines. Dequeues that found nothing do not count.
deq_start() {
	local ifindex

	ifindex=$(cat "/sys/class/net/$1/ifindex")
	DEQ_TRIGGER="hist:keys=packets:vals=hitcount:sort=packets"
	DEQ_TRIGGER+=" if ifindex == $ifindex && skbaddr != 0"
	echo "$DEQ_TRIGGER" > "$DEQ_EVENT/trigger"
}

deq_stop() {
	sed -n -E 's/^\{ packets: *([0-9]+) *\} hitcount: *([0-9]+)$/\1 \2/p' \
		"$DEQ_EVENT/hist"
	echo "!$DEQ_TRIGGER" > "$DEQ_EVENT/trigger"
}

# Summary of a "PACKETS COUNT" histogram on stdin:
# "dequeues packets mean max".
deq_summary() {
	awk '{ n += $2; p += $1 * $2; if ($1 > max) max = $1 }
	     END { printf "%d %d %.2f %d\n", n, p, n ? p / n : 0, max }'
}

# Requeues of the root qdisc of DEV.
requeues() {
	tc -s qdisc show dev "$1" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "requeues") {
			print $(i + 1) + 0; exit } }'
}
