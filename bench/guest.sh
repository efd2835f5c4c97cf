#!/bin/bash
# Runs inside the VM for 'make bench': the benchmark scenarios on the
# kernel booted, one pktgen run each, printed as "SCENARIO KEY VALUE..."
# lines (see measure in vm/net.sh). Emulated machine: the counts and the
# ratios between kernels mean something, the absolute rates do not.
#   guest.sh main   doorbells (igb), kicks (virtio-net) and bulking
#   guest.sh cost   cost per packet, head-of-line blocking and low-rate
#                   latency, for a boot with -icount
#   guest.sh kicks  main's virtio-net part alone
#   guest.sh hol_virtio  cost's virtio-net part alone, with -icount
#   guest.sh latency  high-priority probes behind a flood on veth
#   guest.sh designs  latency's probes that compare veth BQL designs
set -eu
. vm/net.sh

COUNT=${QBULK_BENCH_COUNT:-5000}
KNOB=/proc/sys/net/core/dequeue_bulk_packets
BYTES_KNOB=/proc/sys/net/core/dequeue_bulk_bytes
HOL_COUNT=${QBULK_BENCH_HOL_COUNT:-20000}
PROBES=${QBULK_BENCH_PROBES:-500}

# run SCENARIO MEASURE_ARGS...: one measured run, lines tagged SCENARIO
run() {
	local name=$1

	shift
	measure "$DEV" "$COUNT" "$@" | awk -v n="$name" '{ print n, $0 }'
}

main() {
	local bql

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

	kicks

	setup_veth
	tc qdisc replace dev "$DEV" root mq
	run "bulking/veth-mq" 2 queue_xmit
	tc qdisc replace dev "$DEV" root handle 1: prio
	run "bulking/veth-prio" 2 queue_xmit
	teardown

	# The peer receives in NAPI: GRO on there, TSO off here. Its ring is
	# where the base kernel keeps the backlog; veth BQL keeps it in the
	# qdisc.
	setup_veth_napi
	tc qdisc replace dev "$DEV" root mq
	run "bulking/veth-napi-mq" 2 queue_xmit
	tc qdisc replace dev "$DEV" root handle 1: prio
	run "bulking/veth-napi-prio" 2 queue_xmit
	# Two flood threads and the peer's poll in a thread of its own: the
	# peer's ring fills up, as it does not with one thread.
	ip netns exec "$PEER_NS" sh -c "echo 1 > /sys/class/net/qb1/threaded"
	hol_run hol-veth/prio 2
	# An operator's bound on the bytes veth BQL lets into the ring of
	# queue 0, where the flood goes.
	bql=/sys/class/net/$DEV/queues/tx-0/byte_queue_limits
	if [ -e "$bql/limit_max" ]; then
		echo 15000 > "$bql/limit_max"
		hol_run hol-veth/prio-limit-max-15000 2
	fi
	teardown
}

# virtio-net, one queue pair: kicks instead of tail writes, for bursts
# straight to the driver, through its default root qdisc (pfifo_fast)
# and through prio.
kicks() {
	local sink

	setup_virtio
	ip netns exec "$PEER_NS" socat -u UDP4-RECV:9 /dev/null &
	sink=$!
	for burst in 1 8 32; do
		run "kicks/burst-$burst" 1 start_xmit "$burst"
	done
	run "kicks/qdisc" 2 queue_xmit
	tc qdisc replace dev "$DEV" root handle 1: prio
	run "bulking/virtio-prio" 2 queue_xmit
	kill "$sink"
	teardown
}

# The head-of-line figures of cost on virtio-net alone.
hol_virtio() {
	hol virtio hol-virtio
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
	hol igb hol
	hol_virtio
	lowrate
}

# hol_run NAME [THREADS]: pings in prio's high band while THREADS pktgen
# threads (default 1) flood the low band; prints the round trips ("rtt
# MS" lines) and the dequeues.
hol_run() {
	local name=$1 threads=${2:-1} pg

	deq_start "$DEV"
	pktgen "$DEV" "$HOL_COUNT" "$threads" queue_xmit 1 1000 2 > /dev/null &
	pg=$!
	sleep 0.2
	# TOS 0x10 (low delay) gives skb priority 6: prio's band 0.
	ping -n -Q 0x10 -i 0.01 -W 1 "$PEER_IP" > "$QBULK_OUT/ping.txt" &
	wait "$pg"
	kill %ping 2>/dev/null || true
	wait
	sed -n -E "s|.*time=([0-9.]+) ms|$name rtt \1|p" "$QBULK_OUT/ping.txt"
	deq_stop | awk -v n="$name" '{ print n, $0 }'
}

# The veth head-of-line scenario (probe_flood in vm/net.sh) through prio
# and through fq_codel, with 60- and 1000-byte frames, the peer's poll in
# softirq context as a veth has it by default. With RING1 set, on a
# kernel with veth BQL, each again with limit_max 0, which lets one packet
# at a time into the peer's ring: what a probe waits for then is not the
# ring. Then each with the poll in a NAPI thread of its own. Then the
# flood's frames change size as the middle probe is due: 1000 bytes that
# fall to 60, 60 that rise to 1000, and UDP GSO datagrams of 42 segments
# from a socket, one ring slot each, that give way to 60-byte frames;
# and the datagrams alone. Then the bulks under mq on the default veth
# whose peer receives in NAPI, as in main.
#   veth_probes RING1
veth_probes() {
	local qdisc size

	for qdisc in prio fq_codel; do
		for size in 60 1000; do
			probe_flood "$qdisc" "$size" "$PROBES" 0 |
				awk -v n="latency/$qdisc-$size" '{ print n, $0 }'
			[ "$1" = 1 ] && probe_flood "$qdisc" "$size" "$PROBES" 0 0 |
				awk -v n="ring-1/$qdisc-$size" '{ print n, $0 }'
			probe_flood "$qdisc" "$size" "$PROBES" 1 |
				awk -v n="threaded/$qdisc-$size" '{ print n, $0 }'
		done
		probe_flood "$qdisc" 1000 "$PROBES" 0 "" $((PROBES / 2)) 60 |
			awk -v n="change/$qdisc-1000-60" '{ print n, $0 }'
		probe_flood "$qdisc" 60 "$PROBES" 0 "" $((PROBES / 2)) 1000 |
			awk -v n="change/$qdisc-60-1000" '{ print n, $0 }'
		probe_flood "$qdisc" gso "$PROBES" 0 "" $((PROBES / 2)) 60 |
			awk -v n="change/$qdisc-gso-60" '{ print n, $0 }'
		probe_flood "$qdisc" gso "$PROBES" 0 |
			awk -v n="gso/$qdisc" '{ print n, $0 }'
	done
	setup_veth_napi
	tc qdisc replace dev "$DEV" root mq
	run "veth-bql/napi-mq" 2 queue_xmit
	teardown
}

# The veth scenarios with the one-packet ring, then veth churn
latency() {
	veth_probes 1
	churn
}

# The veth scenarios that compare veth BQL designs, alone
designs() {
	veth_probes 0
}

meminfo() {
	awk -v key="$1:" '$1 == key { print $2 }' /proc/meminfo
}

# 1000 veth pairs created and deleted in one ip -batch each, as a host of
# containers does: guest microseconds for each step, and the memory the
# pairs took (MemAvailable before less after, Slab after less before, kB).
churn() {
	local i t0 t1 t2 avail slab

	for ((i = 0; i < 1000; i++)); do
		echo "link add qc$i type veth peer name qd$i"
	done > /tmp/churn-add
	sed 's/^link add \(qc[0-9]*\) .*/link del \1/' /tmp/churn-add \
		> /tmp/churn-del
	avail=$(meminfo MemAvailable)
	slab=$(meminfo Slab)
	t0=$(date +%s%N)
	ip -batch /tmp/churn-add
	t1=$(date +%s%N)
	echo "churn/1000-veth mem_avail_kb $((avail - $(meminfo MemAvailable)))"
	echo "churn/1000-veth slab_kb $(($(meminfo Slab) - slab))"
	ip -batch /tmp/churn-del
	t2=$(date +%s%N)
	echo "churn/1000-veth create_us $(((t1 - t0) / 1000))"
	echo "churn/1000-veth delete_us $(((t2 - t1) / 1000))"
}

# hol NIC PREFIX: head-of-line blocking on one tx queue of NIC (igb or
# virtio), prio as the root qdisc and the low band held by netem, so that
# it always has a backlog (the emulated NICs drain too fast to build
# one). Every packet budget, then byte budgets, on a kernel that has
# them; results tagged PREFIX/.
hol() {
	local b

	"setup_$1"
	if [ "$1" = igb ]; then
		ethtool -L "$DEV" combined 1
		wait_peer
	fi
	tc qdisc replace dev "$DEV" root handle 1: prio
	tc qdisc add dev "$DEV" parent 1:3 netem delay 10ms limit 100000
	hol_run "$2/default"
	if [ -e "$KNOB" ]; then
		for b in 1 4 7 8 16 64; do
			echo "$b" > "$KNOB"
			hol_run "$2/packets-$b"
		done
		echo 0 > "$KNOB"
		for b in 1500 3000 6000 12000; do
			echo "$b" > "$BYTES_KNOB"
			hol_run "$2/bytes-$b"
		done
		echo 0 > "$BYTES_KNOB"
	fi
	tc qdisc del dev "$DEV" root
	teardown
}

# UDP request/response across the igb pair at low rates: bulking must not
# cost the idle path anything.
lowrate() {
	local rate

	setup_igb
	ip netns exec "$PEER_NS" python3 bench/udp_rr.py server 7 &
	sleep 1
	for rate in 10 100 1000 10000; do
		python3 bench/udp_rr.py client "$PEER_IP" 7 "$rate" \
			$((rate < 200 ? 20 : 500)) |
			awk -v n="lowrate/$rate" '{ print n, $0 }'
	done
	kill %1
	teardown
}

echo "kernel $(uname -r)"
"$1"
# A run that probe_flood had to stop does not count.
[ ! -e "$QBULK_OUT/stuck.txt" ]
