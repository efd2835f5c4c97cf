#!/bin/bash
# Runs inside the test VM: qbulkstat (tools/qbulkstat) against the kernel
# under test, on the first igb NIC under pktgen load. Prints TAP lines.
set -u
. vm/net.sh

tool=$PWD/build/qbulkstat
out=/tmp/qbulkstat.out
n=0

check() { # check DESCRIPTION COMMAND...
	n=$((n + 1))
	if "${@:2}"; then
		echo "ok $n - qbulkstat: $1"
	else
		echo "not ok $n - qbulkstat: $1"
	fi
}

# value KEY: a "KEY VALUE" line of the one-shot output
value() {
	awk -v k="$1" '$1 == k { print $2 }' "$out"
}

# wait_trigger: until the tool has set its histogram (for up to 5 s)
wait_trigger() {
	for _ in $(seq 50); do
		grep -q '^hist' "$DEQ_EVENT/trigger" && return
		sleep 0.1
	done
}

# loaded_run FILE OPTION: one 6 s interval of the tool with OPTION into
# FILE while pktgen sends 500 packets on two threads; its exit code in rc
loaded_run() {
	local pid

	"$tool" -1 "$2" -i 6 "$DEV" > "$1" 2> /tmp/qbulkstat.err &
	pid=$!
	wait_trigger
	sleep 0.5
	pktgen "$DEV" 500 2 queue_xmit > /dev/null
	wait "$pid"
	rc=$?
}

# No IPv6 chatter (router solicitations) among the packets counted.
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
if ! setup_igb; then
	echo "not ok 1 - qbulkstat: no igb pair to test on"
	echo "1..1"
	exit 0
fi
# Under mq's default pfifo_fast children a NIC that keeps up with the load
# takes every packet past the empty qdisc, and nothing is dequeued (seen
# once in a full make check). A prio child per tx queue cannot be
# bypassed. (A root prio would not do: on a multi-queue NIC it dequeues
# packets for other queues and dequeues them again later, so packets would
# count more than once.)
tc qdisc replace dev "$DEV" root handle 1: mq
txqs=("/sys/class/net/$DEV/queues/tx-"*)
for ((q = 1; q <= ${#txqs[@]}; q++)); do
	tc qdisc replace dev "$DEV" parent "1:$(printf %x "$q")" prio
done
# The interval holds the whole run (under 4 s in the VM), so that no bulk is
# counted whose packets are sent after the counters are read: start once
# the tool has set its histogram.
loaded_run "$out" -p
cat "$out" >&2

check "one-shot run exits 0" test "$rc" = 0
check "one-shot run prints counters" test -s "$out"
check "dequeues seen" test "$(value dequeues)" -gt 0
check "packets split into the buckets" test "$(awk '
	$1 == "packets_per_dequeue" { s += $3 } END { print s + 0 }' "$out")" \
	= "$(value dequeues)"
check "stop reasons add up to the dequeues" test "$(awk '
	$1 == "stop" { s += $3 } END { print s + 0 }' "$out")" \
	= "$(value dequeues)"
# pktgen sends 1000-byte frames
# Exact totals: a histogram that dropped events would be short.
check "the histogram dropped no event" test "$(value dropped)" = 0
check "1000 bytes per packet" test "$(value bytes)" \
	= "$(($(value packets) * 1000))"
# Every packet sent counts once, as a doorbell or as deferred. A packet
# that a queue stopped by BQL in the middle of a bulk handed back is
# requeued and dequeued again: it counts twice among the packets.
requeues=$(requeues "$DEV")
echo "requeues $requeues" >&2
check "doorbells counted" test "$(($(value doorbells) + $(value xmit_more)))" \
	-ge "$(($(value packets) - ${requeues:-0}))"
# The histogram trigger is gone after the run
check "trigger removed" bash -c "! grep -q '^hist' $DEQ_EVENT/trigger"

# The same with -j: one JSON object, whose figures add up as above.
json=/tmp/qbulkstat.json
loaded_run "$json" -j
cat "$json" >&2
check "-j run exits 0" test "$rc" = 0
check "-j prints one JSON object that adds up" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
o = json.loads(lines[0])
assert len(lines) == 1 and o["interface"] == sys.argv[2], lines
assert o["dequeues"] > 0 and o["dropped"] == 0, o
assert sum(o["packets_per_dequeue"].values()) == o["dequeues"], o
assert sum(o["stop"].values()) == o["dequeues"], o
assert o["bytes"] == o["packets"] * 1000, o
assert o["doorbells"] + o["xmit_more"] > 0, o
' "$json" "$DEV"

# An interface that goes away mid-run: a one-line error, exit 1 and the
# trigger removed.
ip link add qbgone type veth peer name qbgone1
"$tool" -i 0.2 qbgone > /dev/null 2> /tmp/qbulkstat.err &
pid=$!
wait_trigger
ip link del qbgone
for _ in $(seq 50); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill "$pid" 2>/dev/null
wait "$pid"
rc=$?
check "interface gone: exits 1" test "$rc" = 1
check "interface gone: one line says so" test "$(cat /tmp/qbulkstat.err)" \
	= "qbulkstat: interface qbgone is gone"
check "interface gone: trigger removed" bash -c "! grep -q '^hist' $DEQ_EVENT/trigger"

"$tool" -1 nosuchif > /dev/null 2> /tmp/qbulkstat.err
check "unknown interface fails" test $? = 1
check "unknown interface named" grep -q "no interface nosuchif" /tmp/qbulkstat.err
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$tool" -1 "$DEV" > /dev/null 2> /tmp/qbulkstat.err
check "non-root told to run as root" grep -q "run as root" /tmp/qbulkstat.err
# hist.c on a 'hist' file this kernel wrote: test_hist checks what it
# parses against the totals at the file's end.
trigger="hist:keys=packets,bytes,stop:vals=hitcount if skbaddr != 0"
echo "$trigger" > "$DEQ_EVENT/trigger"
pktgen "$DEV" 200 2 queue_xmit > /dev/null
cp "$DEQ_EVENT/hist" "$QBULK_OUT/hist.txt"
echo "!$trigger" > "$DEQ_EVENT/trigger"
hist_file_ok() { # hist_file_ok FILE: test_hist on FILE, its TAP to stderr
	"$PWD/build/test_hist" "$1" >&2
}
check "hist.c parses this kernel's hist file" hist_file_ok "$QBULK_OUT/hist.txt"

tc qdisc del dev "$DEV" root
teardown
echo "1..$n"
