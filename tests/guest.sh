#!/bin/bash
# Runs inside the test VM (scripts/vm.sh): the kselftests installed in
# build/ksft through the kselftest runner, then a kmemleak scan. Writes
# ksft.tap and kmemleak into $QBULK_OUT. Arguments are passed to
# run_kselftest.sh (for example -t net:veth.sh).
set -u

kmemleak=/sys/kernel/debug/kmemleak
# Objects allocated during boot are not the tests' business.
[ -w "$kmemleak" ] && echo clear > "$kmemleak"

# Tests that need a NIC with BQL get the two igb NICs of the VM.
. vm/net.sh
NETIF=$(dev_by_mac 52:54:00:00:00:01)
PEER_NETIF=$(dev_by_mac 52:54:00:00:00:02)
export NETIF PEER_NETIF

# The host root is read-only: run from a writable copy.
cp -a build/ksft /tmp/ksft
/tmp/ksft/run_kselftest.sh "$@" 2>&1 | tee "$QBULK_OUT/ksft.tap"

if [ -w "$kmemleak" ]; then
	# A leak is reported once it has gone unreferenced across two scans.
	echo scan > "$kmemleak"
	sleep 6
	echo scan > "$kmemleak"
	cat "$kmemleak" > "$QBULK_OUT/kmemleak"
fi
