#!/bin/bash
# Host test of bench/report.py: render a report from made-up raw results
# whose figures are known, and check them in the tables.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/raw"
echo "reps 2" > "$dir/settings"

# raw SOURCE MODE REP LINES...: one raw result file
raw() {
	local file=$dir/raw/$1-$2-$3.txt

	shift 3
	printf '%s\n' "kernel test" "$@" > "$file"
}

for rep in 1 2; do
	raw base main "$rep" \
		"doorbells/burst-8 tx_packets 800" \
		"doorbells/burst-8 requeues 0" \
		"doorbells/burst-8 tail_writes $((790 + rep * 5))" \
		"doorbells/burst-8 sent 800" "doorbells/burst-8 usec 1000" \
		"bulking/igb-mq tx_packets 100" "bulking/igb-mq requeues 0" \
		"bulking/igb-mq sent 100" "bulking/igb-mq usec 100" \
		"bulking/igb-mq packets 1 40 0" "bulking/igb-mq packets 20 3 0"
	raw qbulk main "$rep" \
		"doorbells/burst-8 tx_packets 800" \
		"doorbells/burst-8 requeues 0" \
		"doorbells/burst-8 tail_writes 100" \
		"doorbells/burst-8 doorbells 100" \
		"doorbells/burst-8 xmit_more 700" \
		"doorbells/burst-8 flushes 0" \
		"doorbells/burst-8 sent 800" "doorbells/burst-8 usec 1000" \
		"bulking/igb-mq tx_packets 100" "bulking/igb-mq requeues 0" \
		"bulking/igb-mq sent 100" "bulking/igb-mq usec 50" \
		"bulking/igb-mq packets 1 40 40000" \
		"bulking/igb-mq packets 20 3 60000" \
		"bulking/igb-mq stop bql 43"
	raw base cost "$rep" "cost/defaults sent 1000" \
		"cost/defaults usec 1000" "cost/defaults tx_packets 1000" \
		"cost/defaults requeues 0"
	raw qbulk cost "$rep" "cost/bulk-off sent 1000" \
		"cost/bulk-off usec 1005" "cost/bulk-off tx_packets 1000" \
		"cost/bulk-off requeues 0" \
		"hol/packets-4 packets 1 10 10000" \
		"hol/packets-4 packets 4 5 20000" \
		"hol/packets-4 rtt 0.5" "hol/packets-4 rtt $rep.5" \
		"hol/packets-4 rtt 3" \
		"lowrate/100 requests 20" "lowrate/100 lost 0" \
		"lowrate/100 p50_ns $((rep * 100000))" \
		"lowrate/100 p99_ns 300000" "lowrate/100 max_ns 400000"
	raw base latency "$rep" "latency/prio-60 idle_offset 3" \
		"latency/prio-60 probe 2000 200 5 -" \
		"latency/prio-60 probe 3000 240 0 -" \
		"latency/prio-60 probe -1 250 7 -" \
		"gso/prio probe 3000 200 5 -"
	raw qbulk latency "$rep" "latency/prio-60 idle_offset 3" \
		"latency/prio-60 probe 400 20 5 1400" \
		"latency/prio-60 probe $((rep * 100 + 500)) 30 9 1500" \
		"latency/prio-60 poll_slept 10" \
		"latency/prio-60 poll_preempted $((rep * 20))" \
		"latency/prio-60 poll_ms 2000" \
		"ring-1/prio-60 probe 300 1 4 0" \
		"ring-1/prio-60 probe 500 0 6 0" \
		"change/prio-1000-60 probe 400 1 5 12000" \
		"change/prio-1000-60 probe 400 3 5 12000" \
		"change/prio-1000-60 change 2 60" \
		"change/prio-1000-60 change_pause_us $((rep * 1000))" \
		"change/prio-1000-60 probe 400 20 5 12000" \
		"change/prio-1000-60 probe 400 30 5 11000" \
		"gso/prio probe 300 10 5 700000"
	raw pkt latency "$rep" "latency/prio-60 idle_offset 3" \
		"latency/prio-60 probe 800 40 5 40" \
		"latency/prio-60 probe 1000 50 5 45" \
		"change/prio-1000-60 probe 400 2 5 40" \
		"change/prio-1000-60 probe 400 4 5 40" \
		"change/prio-1000-60 change 2 60" \
		"change/prio-1000-60 probe 400 26 5 40" \
		"change/prio-1000-60 probe 400 34 5 40"
done

/usr/bin/python3 bench/report.py "$dir" >/dev/null

fail=0
expect() {
	if ! grep -qF -- "$1" "$dir/report.md"; then
		echo "report lacks: $1"
		fail=1
	fi
}
# burst-8: base 795 and 800 tail writes of 800 packets, patched 100
expect "| burst-8 | tail writes/packet (QEMU) | 0.997 [0.994-1] | 0.125 [0.125-0.125] | 0.125 |"
expect "| burst-8 | doorbells/packet (driver) | - | 0.125 [0.125-0.125] | - |"
# 43 dequeues of 100 packets; 100 kB in the patched kernel's bytes
expect "| igb-mq | packets/dequeue | 2.33 [2.33-2.33] | 2.33 [2.33-2.33] | 1.000 |"
expect "| igb-mq | bytes/dequeue | - | 2326 [2326-2326] | - |"
expect "| igb-mq | largest dequeue | 20 [20-20] | 20 [20-20] | 1.000 |"
expect "| igb-mq | packets/s | 1000000 [1000000-1000000] | 2000000 [2000000-2000000] | 2.000 |"
expect "1.0050 of the base kernel's instructions per packet (+0.50%)"
# hol: the largest dequeue, 4 packets, is 4000 bytes: 0.32 ms at 100 Mbit/s;
# the median round trip is 1.5 and 2.5 ms in the two runs
expect "| packets-4 | largest dequeue bytes | - | 4000 [4000-4000] | - |"
expect "| packets-4 | its wire time at 100 Mbit/s (ms) | - | 0.32 [0.32-0.32] | - |"
expect "| packets-4 | its wire time at 1 Gbit/s (ms) | - | 0.032 [0.032-0.032] | - |"
expect "| packets-4 | ping rtt median (guest ms) | - | 2 [1.5-2.5] | - |"
expect "| packets-4 | ping rtt max (guest ms) | - | 3 [3-3] | - |"
expect "| 100 | rtt p50 (guest us) | - | 150 [100-200] | - |"
expect "| 100 | lost | - | 0 [0-0] | - |"
# latency: base answers 2 of 3 probes (2 and 3 ms), rings 200, 240, 250;
# patched 0.4 ms and 0.6 or 0.7 ms (medians 0.5 and 0.55), rings 20 and 30
expect "| prio-60 | probe rtt median (guest ms) | 2.5 [2.5-2.5] | 0.525 [0.5-0.55] | 0.210 |"
expect "| prio-60 | probe rtt max (guest ms) | 3 [3-3] | 0.65 [0.6-0.7] | 0.217 |"
expect "| prio-60 | probes unanswered | 1 [1-1] | 0 [0-0] | 0.000 |"
expect "| prio-60 | ring packets at a probe, median | 240 [240-240] | 25 [25-25] | 0.104 |"
expect "| prio-60 | share of probes with a qdisc backlog | 0.667 [0.667-0.667] | 1 [1-1] | 1.500 |"
expect "| prio-60 | BQL limit, median (bytes) | - | 1450 [1450-1450] | - |"
# 10 sleeps and 20 or 40 preemptions in 2 s; with one packet in the ring,
# 0.4 ms against the base kernel's 2.5 ms of the same scenario
expect "| prio-60 | poll thread sleeps per second | - | 5 [5-5] | - |"
expect "| prio-60 | poll thread preemptions per second | - | 15 [10-20] | - |"
expect "| prio-60 | probe rtt median (guest ms) | 2.5 [2.5-2.5] | 0.4 [0.4-0.4] | 0.160 |"
expect "| prio-60 | ring packets at a probe, median | 240 [240-240] | 0.5 [0.5-0.5] | 0.002 |"
# The packet-unit model: 0.8 and 1 ms, rings 40 and 50
expect "| prio-60 | probe rtt median (guest ms) | 2.5 [2.5-2.5] | 0.525 [0.5-0.55] | 0.210 | 0.9 [0.9-0.9] | 0.360 |"
expect "| latency/prio-60 | probe rtt median (guest ms) | 0.525 | 0.9 | this series |"
# A fall in size after two probes: rings 1, 3 before it, 20, 30 after it
# (the model 2, 4 and 26, 34)
expect "| prio-1000-60 | ring packets before the change, median | - | 2 [2-2] | - | 3 [3-3] | - |"
expect "| prio-1000-60 | ring packets first second after the change, median | - | 25 [25-25] | - | 30 [30-30] | - |"
expect "| prio-1000-60 | ring packets first second after the change, max | - | 30 [30-30] | - | 34 [34-34] | - |"
expect "| latency/prio-60 | ring packets at a probe, median | 0.104 | 0.2 | 0.188 | yes |"
# The flood paused 1 and 2 ms at the change; the datagrams alone: 3 ms and
# a ring of 200 on the base kernel, 0.3 ms and 10 patched
expect "| prio-1000-60 | flood paused at the change (guest us) | - | 1500 [1000-2000] | - |"
expect "| prio | ring packets at a probe, median | 200 [200-200] | 10 [10-10] | 0.050 |"
expect "| gso/prio | probe rtt median (guest ms) | 0.100 | 0.2 | - | yes |"
for png in doorbells.png bulking-igb-mq.png latency-limit.png; do
	[ -s "$dir/$png" ] || { echo "no $png"; fail=1; }
done
exit "$fail"
