#!/bin/bash
# Runs inside the VM for 'make demo': pktgen traffic through the qdisc on
# veth, igb and virtio-net, and what the qdisc layer and the drivers made
# of it.
# Numbers come from an emulated machine (QEMU TCG): they show behaviour,
# not hardware speed.
set -eu
. vm/net.sh

COUNT=${QBULK_DEMO_COUNT:-5000}
KNOBS=/proc/sys/net/core/dequeue_bulk_packets

# line COLUMNS...: one line of the tables
line() {
	printf '  %-34s %8s %6s %6s %4s %5s %-11s %6s %6s\n' "$@"
}

# row LABEL [BURST]: one pktgen run on tx queue 0 of $DEV, 2 threads
# through the qdisc, or with BURST, one thread straight to the driver.
row() {
	local m deq ppd bpd max stop req db tw

	if [ -n "${2:-}" ]; then
		m=$(measure "$DEV" "$COUNT" 1 start_xmit "$2")
	else
		m=$(measure "$DEV" "$COUNT" 2 queue_xmit)
	fi
	read -r deq ppd bpd max stop <<< "$(deq_summary <<< "$m")"
	if [ "$deq" = 0 ]; then
		ppd=- bpd=- max=- stop=-
		# Sent through the qdisc and never dequeued: all bypassed it
		if [ -n "${2:-}" ]; then deq=-; else stop=bypassed; fi
	fi
	read -r req db tw <<< "$(awk '
		function ratio(a, b) {
			return b ? sprintf("%.2f", a / b) : "-"
		}
		{ v[$1] = $2; seen[$1] = 1 }
		END {
			if (seen["kicks"]) {
				db = ratio(v["kicks"], v["tx_packets"])
				tw = seen["notifies"] ?
					ratio(v["notifies"], v["tx_packets"]) : "-"
			} else {
				db = seen["doorbells"] ?
					ratio(v["doorbells"] + v["flushes"],
					      v["doorbells"] + v["xmit_more"]) : "-"
				tw = v["tail_writes"] ?
					ratio(v["tail_writes"], v["tx_packets"]) : "-"
			}
			printf "%d %s %s\n", v["requeues"], db, tw
		}' <<< "$m")"
	line "$1" "$deq" "$ppd" "$bpd" "$max" "$req" "$stop" "$db" "$tw"
}

header() {
	printf '\n%s, %s packets per pktgen thread, tx queue 0\n' "$1" "$COUNT"
	line "" dequeues pkts/ bytes/ max req- "stop" "db/" "tail/"
	line "" "" deq deq "" ueues "(top)" pkt pkt
}

# budgets QDISC_LABEL: rows for the series' budgets, if this kernel has them
budgets() {
	[ -e "$KNOBS" ] || return 0
	sysctl -q net.core.dequeue_bulk_packets=4
	row "$1, bulk_packets=4"
	sysctl -q net.core.dequeue_bulk_packets=1
	row "$1, bulk_packets=1"
	sysctl -q net.core.dequeue_bulk_packets=0 net.core.dequeue_bulk_bytes=3000
	row "$1, bulk_bytes=3000"
	sysctl -q net.core.dequeue_bulk_bytes=0
}

# bursts_and_prio: rows for pktgen bursts straight to the driver, then
# for prio as the root qdisc
bursts_and_prio() {
	local burst

	for burst in 1 8 32; do
		row "pktgen burst $burst, no qdisc" "$burst"
	done
	tc qdisc replace dev "$DEV" root handle 1: prio
	row "root prio (slow path)"
	budgets "root prio"
	tc qdisc del dev "$DEV" root
}

echo "qbulk demo on $(uname -r)"
if [ -e "$KNOBS" ]; then
	echo "This kernel has the series: net.core.dequeue_bulk_{packets,bytes}."
else
	echo "This kernel has no bulk dequeue budgets (base behaviour)."
fi
cat <<EOF
dequeues, pkts/deq, bytes/deq, max and stop (the most frequent reason a
bulk ended, and its share) come from the qdisc:qdisc_dequeue tracepoint;
requeues from tc. db/pkt is tail register writes per packet queued from
the driver's ethtool -S counters, tail/pkt the same from QEMU's own trace
of the register, per packet the device sent. On virtio-net both count
kicks: the driver's (ethtool -S tx0_kicks) and QEMU's notifications of
the transmit virtqueue, per packet the device sent. A dash: not reported.
"bypassed": no dequeue, every packet went past the empty qdisc.
EOF

setup_veth
header "veth, peer without NAPI (no BQL)"
tc qdisc replace dev "$DEV" root handle 1: prio
row "root prio (slow path)"
budgets "root prio"
tc qdisc del dev "$DEV" root
tc qdisc add dev "$DEV" root mq
row "mq + pfifo_fast (BQL path)"
teardown

setup_veth_napi
header "veth, peer in NAPI (GRO on): BQL where the kernel has veth BQL"
tc qdisc add dev "$DEV" root mq
row "mq + pfifo_fast (BQL path)"
budgets "mq"
tc qdisc replace dev "$DEV" root handle 1: prio
row "root prio (slow path)"
teardown

printf '\nveth, peer in NAPI: a ping in the high band of prio behind a flood\n'
cat <<EOF
Two pktgen threads flood the low band with 1000-byte frames; a probe
every 10 ms. Without veth BQL up to 256 packets (the peer's ring) wait
ahead of every probe, out of the qdisc's reach (the base 7.3 kernel: a
median of about 220, and a round trip of about 3 ms, in
results/s13-latency-b12-7.3); with it, BQL keeps the backlog in the qdisc,
where prio sends the probe first.
EOF
probe_flood prio 1000 "${QBULK_DEMO_PROBES:-100}" 0 | awk '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n ? a[int((n + 1) / 2)] : "-"
	}
	$1 == "probe" && $2 >= 0 { rtt[++nr] = $2 / 1000 }
	$1 == "probe" { ring[++np] = $3; if ($5 != "-") lim[++nl] = $5 }
	END {
		printf "  probes answered: %d of %d, round trip median %s ms\n",
			nr, np, median(rtt, nr)
		printf "  packets in the peer ring at a probe, median %s\n",
			median(ring, np)
		printf "  BQL limit, median %s\n",
			nl ? median(lim, nl) " bytes" : "- (no veth BQL)"
	}'

setup_igb
# A sink on the far end, so that it sends no ICMP errors back.
ip netns exec "$PEER_NS" socat -u UDP4-RECV:9 /dev/null &
header "igb (BQL)"
row "mq + pfifo_fast (BQL path)"
budgets "mq"
sysctl -q net.core.dev_weight=4
row "mq, net.core.dev_weight=4"
sysctl -q net.core.dev_weight=64
bursts_and_prio

printf '\nqbulkstat, the live viewer, one 3-second interval of the mq run:\n\n'
build/qbulkstat -1 -i 3 "$DEV" &
sleep 0.5
pktgen "$DEV" "$COUNT" 2 queue_xmit > /dev/null
wait %2
kill %1
teardown

setup_virtio
ip netns exec "$PEER_NS" socat -u UDP4-RECV:9 /dev/null &
sink=$!
header "virtio-net, one queue pair (BQL); db/ and tail/ are kicks"
row "pfifo_fast (default root, BQL path)"
budgets "pfifo_fast"
bursts_and_prio
kill "$sink"
teardown
