# Guest helpers for the demo and the benchmarks: test hosts, traffic and the
# bulk dequeue statistics. Sourced inside the VM.
# shellcheck shell=bash

PEER_NS=qpeer
TRACING=/sys/kernel/tracing
DEQ_EVENT=$TRACING/events/qdisc/qdisc_dequeue
# The kselftests' install (scripts/ksft.sh): udpgso_bench_tx sends UDP
# GSO datagrams of GSO_SEGS segments of GSO_SIZE bytes.
KSFT_NET=build/ksft/net
GSO_SIZE=1472
GSO_SEGS=42
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
	# Fixed neighbours: no ARP among the packets that are counted (the
	# peer answers pktgen's UDP with ICMP errors, to our address).
	ip neigh replace "$PEER_IP" dev "$dev" nud permanent \
		lladdr "$(ip netns exec "$PEER_NS" cat "/sys/class/net/$peer/address")"
	ip -n "$PEER_NS" neigh replace "$LOCAL_IP" dev "$peer" nud permanent \
		lladdr "$(cat "/sys/class/net/$dev/address")"
	wait_peer
}

# wait_peer: until the peer answers a ping (for up to about 60 s).
wait_peer() {
	for _ in $(seq 50); do
		ping -q -c 1 -W 1 "$PEER_IP" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "no answer from $PEER_IP" >&2
	return 1
}

# setup_nics MAC PEER_MAC: the NIC with MAC and its peer with PEER_MAC
# (from scripts/vm.sh) as setup_pair makes them, once the peer is back
# from the namespace that a teardown deleted.
setup_nics() {
	local peer=

	DEV=$(dev_by_mac "$1") || return 1
	for _ in $(seq 50); do
		peer=$(dev_by_mac "$2") && break
		sleep 0.2
	done
	[ -n "$peer" ] || { echo "no NIC with MAC $2" >&2; return 1; }
	setup_pair "$DEV" "$peer"
}

# The two emulated igb NICs on one hub.
setup_igb() {
	setup_nics 52:54:00:00:00:01 52:54:00:00:00:02
}

# The two virtio-net NICs on a hub of their own.
setup_virtio() {
	setup_nics 52:54:00:00:00:03 52:54:00:00:00:04
}

# setup_veth [QUEUES]: the pair qb0, qb1, with QUEUES tx and rx queues
# each if given (else veth's default).
setup_veth() {
	local queues=()

	[ -z "${1:-}" ] || queues=(numtxqueues "$1" numrxqueues "$1")
	DEV=qb0
	ip link add qb0 "${queues[@]}" type veth peer name qb1 "${queues[@]}"
	setup_pair qb0 qb1
}

# setup_veth_napi [QUEUES]: a veth pair whose peer receives in NAPI (GRO
# on there, TSO off here), where a kernel with veth BQL charges it.
setup_veth_napi() {
	setup_veth "${1:-}"
	ethtool -K qb0 tso off
	ip netns exec "$PEER_NS" ethtool -K qb1 gro on
}

teardown() {
	# The pair before its namespace: deleting the pair returns once both
	# ends are gone, where deleting the namespace leaves them to a worker,
	# and the next setup_veth would find qb0 still there.
	ip link del qb0 2>/dev/null || true
	ip netns del "$PEER_NS" 2>/dev/null || true
	# An address left on an igb NIC would take the route of the next pair.
	if [ -n "${DEV:-}" ]; then
		ip addr del "$LOCAL_IP/24" dev "$DEV" 2>/dev/null || true
	fi
}

# pktgen_clear THREAD: take all devices from pktgen thread THREAD. The
# thread acts on the request in its own time, and would also drop a device
# added before it did: wait until it has. No request without devices, as
# nothing would show that it was done.
pktgen_clear() {
	local ctl=/proc/net/pktgen/kpktgend_$1

	grep -q '@' "$ctl" || return 0
	echo rem_device_all > "$ctl"
	for _ in $(seq 100); do
		grep -q '@' "$ctl" || return 0
		sleep 0.1
	done
	echo "pktgen: thread $1 keeps its devices" >&2
	return 1
}

# pktgen_add THREAD DEV: give DEV to pktgen thread THREAD, and it alone.
pktgen_add() {
	pktgen_clear "$1" || return 1
	echo "add_device $2" > "/proc/net/pktgen/kpktgend_$1"
}

# pktgen_setup DEV COUNT THREADS MODE [BURST [SIZE [PRIORITY]]]: pktgen's
# threads 0 to THREADS - 1 set up to send COUNT packets each (0: until
# stopped) of SIZE bytes to the peer, all on tx queue 0, with skb priority
# PRIORITY; not started. MODE is queue_xmit (through the qdisc) or
# start_xmit (straight to the driver).
pktgen_setup() {
	local dev=$1 count=$2 threads=$3 mode=$4 burst=${5:-1} size=${6:-1000}
	local prio=${7:-0}
	local mac t pg=/proc/net/pktgen

	mac=$(ip -n "$PEER_NS" -br link | awk '$1 != "lo" { print $3; exit }')
	for ((t = 0; t < threads; t++)); do
		pktgen_add "$t" "$dev@$t" || return 1
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
			echo "skb_priority $prio"
		} | while read -r cmd; do echo "$cmd" > "$pg/$dev@$t"; done
	done
}

# pktgen DEV COUNT THREADS MODE [BURST [SIZE [PRIORITY]]]: a run of
# pktgen_setup's threads. Prints "sent N" (packets of all threads) and
# "usec N" (the longest thread's run).
pktgen() {
	local dev=$1 threads=$3 t pg=/proc/net/pktgen

	pktgen_setup "$@" || return 1
	# 'start' returns early if a thread is slow to pick the run up: wait
	# for each run's result, not the "OK: ..." that setting an option left.
	echo start > "$pg/pgctrl"
	for ((t = 0; t < threads; t++)); do
		for _ in $(seq 3000); do
			grep -q '^Result: OK: [0-9]*(c' "$pg/$dev@$t" && break
			sleep 0.2
		done
		sed -n -E 's/^Result: OK: ([0-9]+)\(.* usec, ([0-9]+) .*/\1 \2/p' \
			"$pg/$dev@$t"
		pktgen_clear "$t"
	done | awk '{ if ($1 > u) u = $1; n += $2 }
		    END { print "sent", n; print "usec", u }'
}

# Stop reasons of the qdisc_dequeue tracepoint, by value (patched kernel).
DEQ_STOPS=(none packets bytes bql empty txq)

# Whether this kernel's qdisc_dequeue event has bytes and stop reasons
# (stop is a u8 on 6.12, an enum qdisc_bulk_stop on 7.3).
deq_has_stop() {
	grep -q -E 'field:(u8|enum qdisc_bulk_stop) stop;' "$DEQ_EVENT/format"
}

# Histogram of the dequeues on DEV from the qdisc_dequeue tracepoint:
# deq_start DEV, traffic, then deq_stop prints "packets PACKETS COUNT
# BYTES" lines (BYTES 0 where the event has none) and, where the event
# has stop reasons, "stop REASON COUNT" lines. Dequeues that found
# nothing do not count. (An event keeps one histogram at a time.)
deq_start() {
	DEQ_TRIGGER="hist:keys=packets:vals=hitcount"
	deq_has_stop && DEQ_TRIGGER="hist:keys=packets,stop:vals=hitcount,bytes"
	DEQ_TRIGGER+=" if ifindex == $(cat "/sys/class/net/$1/ifindex")"
	DEQ_TRIGGER+=" && skbaddr != 0"
	echo "$DEQ_TRIGGER" > "$DEQ_EVENT/trigger"
}

deq_stop() {
	local stop=0

	deq_has_stop && stop=1
	awk -v stop=$stop -v names="${DEQ_STOPS[*]}" '
		BEGIN { split(names, name) }
		/^\{ packets:/ {
			gsub(/[^0-9]+/, " ")
			if (!stop) {
				print "packets", $1, $2, 0
				next
			}
			print "packets", $1, $3, $4
			why[name[$2 + 1]] += $3
		}
		END { for (w in why) print "stop", w, why[w] }
	' "$DEQ_EVENT/hist"
	echo "!$DEQ_TRIGGER" > "$DEQ_EVENT/trigger"
}

# Summary of measure's output on stdin: "dequeues pkts/deq bytes/deq max
# stop", where stop is the most frequent stop reason and its share of the
# dequeues ("-" where the kernel reports neither).
deq_summary() {
	awk '$1 == "packets" { n += $3; p += $2 * $3; b += $4
			       if ($2 > max) max = $2 }
	     $1 == "stop" && $3 > top { top = $3; why = $2 }
	     END {
		printf "%d %.2f %s %d %s\n", n, n ? p / n : 0,
			b ? sprintf("%.0f", b / n) : "-", max,
			top ? sprintf("%s:%.0f%%", why, 100 * top / n) : "-"
	     }'
}

# Transmit doorbell counters of DEV's driver, summed over its queues:
# "doorbells xmit_more flushes", or nothing if the driver has none.
doorbells() {
	ethtool -S "$1" | awk '
		/tx_queue_[0-9]+_doorbells:/ { d += $2; found = 1 }
		/tx_queue_[0-9]+_xmit_more:/ { x += $2 }
		/tx_queue_[0-9]+_flushes:/ { f += $2 }
		END { if (found) print d, x, f }'
}

# grep_trace GREP_ARGS...: grep -c in QEMU's trace log, which scripts/vm.sh
# writes to $QBULK_OUT, up to the size it has now (nothing if there is no
# log): in a log with 9p's notifications (scripts/vm.sh leaves them out)
# each read over 9p adds a line of its own, and a read to its end would
# not end.
grep_trace() {
	local log=$QBULK_OUT/qemu-trace.log

	[ -f "$log" ] || return 0
	head -c "$(stat -c %s "$log")" "$log" | grep -c "$@" || true
}

# Transmit tail register writes of the VM's igb NICs seen by QEMU, when
# it logs e1000e_core_write (TDT of queue n is at 0xe018 + 0x40 * n;
# scripts/vm.sh keeps only those lines).
tail_writes() {
	grep_trace -E 'register 0xe[0-3][159d]8,'
}

# Virtqueue kicks of DEV's driver (virtio_net), summed over its queues:
# "kicks KICKS" and, where the driver counts them, "xmit_more PACKETS"
# (the packets it queued with the kick deferred); nothing for another
# driver.
kick_counts() {
	ethtool -S "$1" | awk '
		/^ *tx[0-9]+_kicks:/ { k += $2; found = 1 }
		/^ *tx[0-9]+_xmit_more:/ { x += $2; more = 1 }
		END { if (found) print "kicks", k
		      if (more) print "xmit_more", x }'
}

# Notifications of transmit virtqueue 0 (the device's queue 1) of the
# VM's virtio-net NICs seen by QEMU. The peer sends nothing in a run (no
# ARP, a UDP sink), so they are the sender's.
notifies() {
	grep_trace 'virtio_queue_notify .* n 1 '
}

# Counters of DEV that measure reports as differences over a run.
snapshot() {
	echo "tx_packets $(cat "/sys/class/net/$1/statistics/tx_packets")"
	echo "requeues $(requeues "$1")"
	[ -z "$(tail_writes)" ] || echo "tail_writes $(tail_writes)"
	kick_counts "$1"
	[ -z "$(kick_counts "$1")" ] || echo "notifies $(notifies)"
	doorbells "$1" | awk '{ print "doorbells", $1
				print "xmit_more", $2
				print "flushes", $3 }'
}

# measure DEV COUNT THREADS MODE [BURST]: one pktgen run (see pktgen) on
# tx queue 0 of DEV, and what the stack, the driver and QEMU saw of it,
# as "KEY VALUE..." lines: pktgen's "sent" and "usec"; the device's
# "tx_packets", the root qdisc's "requeues", QEMU's "tail_writes" (if
# logged) and the driver's "doorbells", "xmit_more" and "flushes" (if
# reported), as differences over the run; then deq_stop's "packets" and
# "stop" lines.
measure() {
	local dev=$1 before

	before=$(snapshot "$dev")
	deq_start "$dev"
	pktgen "$dev" "$2" "$3" "$4" "${5:-1}"
	sleep 1  # transmit completions
	awk 'NR == FNR { v[$1] = $2; next } { print $1, $2 - v[$1] }' \
		<(echo "$before") <(snapshot "$dev")
	deq_stop
}

# Requeues of the root qdisc of DEV.
requeues() {
	tc -s qdisc show dev "$1" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "requeues") {
			print $(i + 1) + 0; exit } }'
}

# wait_probe PID: wait for the prober; one that runs for 5 minutes (500
# probes take about 20 s) is stopped, and the state of the pair goes to
# $QBULK_OUT/stuck.txt for a look. A prober that fails is noted there too:
# bench/guest.sh then fails the boot.
wait_probe() {
	local t

	for ((t = 0; t < 300; t++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$1" 2>/dev/null; then
		{
			tc -s qdisc show dev "$DEV"
			grep . "/sys/class/net/$DEV"/queues/tx-0/byte_queue_limits/*
			grep . "/sys/class/net/$DEV"/queues/tx-0/tx_timeout
			ip netns exec "$PEER_NS" ethtool -S qb1
			ip -s link show "$DEV"
			cat /proc/net/pktgen/kpktgend_[01] /proc/net/pktgen/"$DEV"@*
		} > "$QBULK_OUT/stuck.txt" 2>&1
		kill "$1"
	fi
	wait "$1" || echo "prober exit code $?" >> "$QBULK_OUT/stuck.txt"
}

# poll_switches THREADED: "SLEPT PREEMPTED MS" of the threads that run
# the peer's poll so far: its NAPI thread if THREADED is 1, else the
# ksoftirqd threads, which run it when softirq work is deferred to them.
# Their voluntary and involuntary context switches, and the time.
poll_switches() {
	local pattern='ksoftirqd/[0-9]*'

	if [ "$1" = 1 ]; then
		pattern='napi/qb1-[0-9]*'
	fi
	# shellcheck disable=SC2016 # the program is awk's, run by xargs
	pgrep -x "$pattern" | sed 's|.*|/proc/&/status|' |
		xargs awk -v ms="$(($(date +%s%N) / 1000000))" '
		/^voluntary_ctxt_switches/ { s += $2 }
		/^nonvoluntary_ctxt_switches/ { p += $2 }
		END { print s, p, ms }'
}

# probe_flood QDISC SIZE PROBES THREADED [LIMIT_MAX [AT SIZE2]]: the veth
# head-of-line scenario, pinned. A veth with one tx and rx queue, TSO off
# here, GRO on the peer, whose poll runs in softirq context (THREADED 0,
# the default of a veth) or in a NAPI thread of its own (THREADED 1);
# QDISC as the root; two pktgen threads flood with SIZE-byte frames at
# priority 0 (prio's low band) while bench/hol_probe.py sends PROBES
# probes in the high band (its own flow in fq_codel), one every 10 ms.
# Prints the probe's lines, and how often the threads that ran the poll
# (poll_switches) slept and were preempted meanwhile, and in how long.
# With LIMIT_MAX (not empty), tx-0's byte_queue_limits/limit_max is set
# to it first, and a kernel without veth BQL prints nothing. With AT and
# SIZE2, the flood's frames change to SIZE2 bytes as probe AT is due.
# SIZE "gso": the flood is UDP GSO datagrams of GSO_SEGS segments from a
# socket (udpgso_bench_tx, a kselftest helper; the peer forwards UDP GRO)
# and, from probe AT if given, SIZE2-byte frames from pktgen instead.
probe_flood() {
	local probe pg before after bql args=() wmem='' size=$2

	setup_veth_napi 1
	bql=/sys/class/net/$DEV/queues/tx-0/byte_queue_limits
	if [ -n "${5:-}" ]; then
		[ -e "$bql" ] || { teardown; return 0; }
		echo "$5" > "$bql/limit_max"
	fi
	ip netns exec "$PEER_NS" sh -c "echo $4 > /sys/class/net/qb1/threaded"
	tc qdisc replace dev "$DEV" root handle 1: "$1"
	[ -z "${6:-}" ] || args=("$6" "$7")
	if [ "$2" = gso ]; then
		size=${7:-60}
		args=("${6:-$3}" "$size" "$GSO_SEGS")
		ip netns exec "$PEER_NS" ethtool -K qb1 rx-udp-gro-forwarding on
		# Room in the socket's send buffer for some 60 datagrams, so
		# that the qdisc holds a backlog of them
		wmem=$(sysctl -n net.core.wmem_default)
		sysctl -qw net.core.wmem_default=4194304
	fi
	python3 bench/hol_probe.py "$DEV" "$PEER_IP" "$3" "${args[@]}" \
		> "$QBULK_OUT/probe.txt" &
	probe=$!
	until grep -q idle_offset "$QBULK_OUT/probe.txt"; do
		sleep 0.1
	done
	# count 0: until stopped. The prober may stop and start it again.
	pktgen_setup "$DEV" 0 2 queue_xmit 1 "$size"
	if [ "$2" = gso ]; then
		"$KSFT_NET/udpgso_bench_tx" -4 -u -D "$PEER_IP" -l 3600 \
			-s $((GSO_SIZE * GSO_SEGS)) -S "$GSO_SIZE" > /dev/null &
	else
		echo start > /proc/net/pktgen/pgctrl &
	fi
	pg=$!
	before=$(poll_switches "$4")
	wait_probe "$probe"
	after=$(poll_switches "$4")
	echo stop > /proc/net/pktgen/pgctrl
	if [ "$2" = gso ]; then
		# The prober stopped the sender at its change, if it had one
		kill "$pg" 2>/dev/null || true
		wait "$pg" || true
		sysctl -qw net.core.wmem_default="$wmem"
	else
		wait "$pg"
	fi
	cat "$QBULK_OUT/probe.txt"
	echo "$before $after" | awk '{ print "poll_slept", $4 - $1
		print "poll_preempted", $5 - $2; print "poll_ms", $6 - $3 }'
	teardown
}
