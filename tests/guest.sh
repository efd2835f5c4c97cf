#!/bin/bash
# Runs inside the test VM (scripts/vm.sh): the kselftests installed in
# build/ksft through the kselftest runner, then a kmemleak scan. Writes
# ksft.tap (the driver tests: ksft-igb.tap, ksft-virtio.tap), kmemleak
# and times (seconds per test) into $QBULK_OUT.
#   guest.sh [-t COLLECTION:TEST]...   only these tests (tools:qbulkstat
#                                      for tests/qbulkstat-guest.sh)
set -u

kmemleak=/sys/kernel/debug/kmemleak
# Objects allocated during boot are not the tests' business.
[ -w "$kmemleak" ] && echo clear > "$kmemleak"

read -r uptime _ < /proc/uptime
echo "boot: ${uptime%.*} s" > "$QBULK_OUT/times"

. vm/net.sh
# The NIC pairs of scripts/vm.sh: igb and virtio-net, each a sender and
# its partner.
igb=$(dev_by_mac 52:54:00:00:00:01)
igb_peer=$(dev_by_mac 52:54:00:00:00:02)
virtio=$(dev_by_mac 52:54:00:00:00:03)
virtio_peer=$(dev_by_mac 52:54:00:00:00:04)

# The host root is read-only: run from a writable copy.
ksft=/tmp/ksft
cp -a build/ksft "$ksft"
# What the runner can run; a selection may also name tools:qbulkstat.
cp "$ksft/kselftest-list.txt" "$ksft/installed"
all=yes
if [ $# -gt 0 ]; then
	all=
	while [ $# -gt 0 ]; do
		[ "$1" = -t ] && shift
		echo "$1"
		shift
	done > "$ksft/selected"
else
	cp "$ksft/kselftest-list.txt" "$ksft/selected"
fi

# tx_doorbell_dma.py needs a boot that forces bounce buffers (make check
# boots a second time for it); in any other boot it could only skip.
bounce=
grep -q 'swiotlb=[0-9]*,force' /proc/cmdline && bounce=yes
[ -n "$bounce" ] ||
	sed -i '\|^drivers/net/hw:tx_doorbell_dma.py$|d' "$ksft/selected"

# timed NAME COMMAND...: run COMMAND, then log how long it took.
timed() {
	local start=$SECONDS

	"${@:2}"
	echo "$1: $((SECONDS - start)) s" >> "$QBULK_OUT/times"
}

# run_tests TAP GREP_ARGS...: the selected tests that grep picks, one
# runner call each, their output added to QBULK_OUT/TAP, so that each
# one's time is logged (named after $nic if set). Each test has
# 1200 s (over three times the slowest one's, 354 s on the debug kernel),
# well under the VM's limit in scripts/check.sh: a test that hangs is
# reported as a timeout and the ones after it still run.
run_tests() {
	local tap=$1 test
	shift

	grep "$@" "$ksft/selected" | grep -x -F -f "$ksft/installed" \
		> "$ksft/kselftest-list.txt" || return 0
	while read -r test <&3; do
		timed "$test${nic:+ ($nic)}" \
			"$ksft/run_kselftest.sh" -o 1200 -t "$test" 2>&1 |
			tee -a "$QBULK_OUT/$tap"
	done 3< "$ksft/kselftest-list.txt"
}

# Tests that need a NIC with BQL get both pairs and set them up
# themselves.
nic=
NETIF="$igb $virtio" PEER_NETIF="$igb_peer $virtio_peer" \
	run_tests ksft.tap -v '^drivers/net/hw:'

# Driver tests (NetDrvEpEnv) expect a configured pair: NETIF here, its
# partner in a namespace as the remote end.
#   hw_env_up NETIF PEER_NETIF
hw_env_up() {
	NETIF=$1
	PEER_NETIF=$2
	ip netns add "$remote_ns"
	ip link set "$PEER_NETIF" netns "$remote_ns"
	ip -n "$remote_ns" link set lo up
	# The pair is IPv4 only: without IPv6 neither NIC sends packets of
	# its own (solicitations, MLD reports) in the first seconds after it
	# comes up, where the tests count every packet.
	echo 1 > "/proc/sys/net/ipv6/conf/$NETIF/disable_ipv6"
	ip netns exec "$remote_ns" sh -c \
		"echo 1 > /proc/sys/net/ipv6/conf/$PEER_NETIF/disable_ipv6"
	ip -n "$remote_ns" addr add 192.0.2.2/24 dev "$PEER_NETIF"
	ip -n "$remote_ns" link set "$PEER_NETIF" up
	ip addr add 192.0.2.1/24 dev "$NETIF"
	ip link set "$NETIF" up
	cat > "$ksft/drivers/net/hw/net.config" <<-EOF
		NETIF=$NETIF
		LOCAL_V4=192.0.2.1
		REMOTE_V4=192.0.2.2
		REMOTE_TYPE=netns
		REMOTE_ARGS=$remote_ns
		QEMU_TRACE_LOG=$QBULK_OUT/qemu-trace.log
	EOF
	# With forced bounce buffers the rings of both NICs take the whole
	# pool, so nothing gets through until the test that runs then sets
	# smaller rings of its own: do not wait for a ping.
	[ -z "$bounce" ] || return 0
	# The remote end must hold a whole run in its rx ring (igb; QEMU
	# gives virtio-net its largest).
	[ "$PEER_NETIF" != "$igb_peer" ] ||
		ip netns exec "$remote_ns" ethtool -G "$PEER_NETIF" rx 4096
	for _ in $(seq 50); do
		ping -q -c 1 -W 1 192.0.2.2 >/dev/null 2>&1 && return
		sleep 0.2
	done
}

# hw_env_down: undo hw_env_up; with forced bounce buffers, NETIF goes
# down too, which frees the ones its rings hold for the next pair
hw_env_down() {
	ip netns del "$remote_ns"
	ip addr del 192.0.2.1/24 dev "$NETIF"
	[ -z "$bounce" ] || ip link set "$NETIF" down
	# The partner comes back to this namespace once the old one is gone.
	for _ in $(seq 100); do
		[ -e "/sys/class/net/$PEER_NETIF" ] && break
		sleep 0.1
	done
}

# hw_tests NAME NETIF PEER_NETIF: the driver tests listed in
# $ksft/NAME-tests on that pair, their output in QBULK_OUT/ksft-NAME.tap
hw_tests() {
	nic=$1
	[ -s "$ksft/$nic-tests" ] || return 0
	hw_env_up "$2" "$3"
	run_tests "ksft-$nic.tap" -x -F -f "$ksft/$nic-tests"
	hw_env_down
}

# Driver tests run on igb, but tx_kick.py, which is for virtio-net. The
# DMA test also runs on virtio-net when its sender has an IOMMU platform
# (scripts/check.sh; VIRTIO_F_ACCESS_PLATFORM, bit 33 of its features),
# without which it maps nothing; igb goes first and down again before
# virtio-net comes up (hw_env_down), as the pool holds the rings of one.
kick=drivers/net/hw:tx_kick.py
dma=drivers/net/hw:tx_doorbell_dma.py
grep '^drivers/net/hw:' "$ksft/selected" | grep -v -x -F "$kick" \
	> "$ksft/igb-tests"
grep -x -F "$kick" "$ksft/selected" > "$ksft/virtio-tests"
features=$(cat "/sys/class/net/$virtio/device/features")
[ "${features:33:1}" != 1 ] ||
	grep -x -F "$dma" "$ksft/selected" >> "$ksft/virtio-tests"
remote_ns=qbremote
hw_tests igb "$igb" "$igb_peer"
hw_tests virtio "$virtio" "$virtio_peer"

# The project's own tool against this kernel, last: it turns IPv6 off.
if [ -n "$all" ] || grep -qx 'tools:qbulkstat' "$ksft/selected"; then
	timed tools:qbulkstat bash tests/qbulkstat-guest.sh > "$QBULK_OUT/tools.tap"
fi

if [ -w "$kmemleak" ]; then
	# A leak is reported once it has gone unreferenced across two scans.
	echo scan > "$kmemleak"
	sleep 6
	echo scan > "$kmemleak"
	cat "$kmemleak" > "$QBULK_OUT/kmemleak"
fi
read -r uptime _ < /proc/uptime
echo "in all: ${uptime%.*} s" >> "$QBULK_OUT/times"
