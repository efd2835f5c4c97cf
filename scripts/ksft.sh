#!/bin/bash
# Install the kselftests of tests/kselftests.list from the kernel tree into
# build/ksft, laid out as 'make -C tools/testing/selftests install' does,
# with the kselftest runner. Only the helpers those tests use are built.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

src=$TREE/tools/testing/selftests
dst=$BUILD/ksft
list=tests/kselftests.list

rm -rf "$dst"
mkdir -p "$dst/kselftest" "$dst/net"
cp "$src/run_kselftest.sh" "$dst/"
cp "$src"/kselftest/{runner.sh,prefix.pl,ktap_helpers.sh} "$dst/kselftest/"
grep -v -E '^[[:space:]]*(#|$)' "$list" > "$dst/kselftest-list.txt"

# net: the collection's support files and settings, each listed test and
# its own helpers (TEST.sh uses TEST_*.py).
cp "$src"/net/{settings,lib.sh,in_netns.sh} "$dst/net/"
# 6.12 has net_helper.sh; 7.3 moved its helpers into lib.sh, which sources
# lib/sh/ instead.
if [ -f "$src/net/net_helper.sh" ]; then
	cp "$src/net/net_helper.sh" "$dst/net/"
else
	mkdir -p "$dst/net/lib"
	cp -r "$src/net/lib/sh" "$dst/net/lib/"
fi
# The series' own tests share these.
cp "$src"/net/{bulk_lib.sh,dequeue_bulk_tx.py} "$dst/net/"
sed -n 's/^net://p' "$dst/kselftest-list.txt" | while read -r test; do
	cp "$src/net/$test" "$src/net/${test%.sh}"_*.py "$dst/net/" 2>/dev/null ||
		[ -f "$dst/net/$test" ] || die "no $test in $src/net"
done
for prog in udpgso_bench_rx udpgso_bench_tx; do  # used by veth.sh
	gcc -O2 -Wall -I "$src" -o "$dst/net/$prog" "$src/net/$prog.c"
done
if grep -q '^net:gro.sh$' "$dst/kselftest-list.txt"; then
	cp "$src"/net/setup_{loopback,veth}.sh "$dst/net/"
	gcc -O2 -Wall -I "$src" -o "$dst/net/gro" "$src/net/gro.c"
fi
# tc-testing: the tdc runner and its cases, with our qdisc selection.
if grep -q '^tc-testing:' "$dst/kselftest-list.txt"; then
	cp -a "$src/tc-testing" "$dst/"
	cp tests/tdc-qdiscs.sh "$dst/tc-testing/"
fi
# drivers/net/hw: the listed tests with the Python libraries they import,
# ynl and its specs among them.
hw_tests=$(sed -n 's|^drivers/net/hw:||p' "$dst/kselftest-list.txt")
if [ -n "$hw_tests" ]; then
	mkdir -p "$dst/drivers/net/hw" "$dst/drivers/net/lib" "$dst/net/lib/ynl"
	cp -r "$src/net/lib/py" "$dst/net/lib/"
	# ynl's python library: pyynl/lib on 7.3, lib on 6.12
	if [ -d "$TREE/tools/net/ynl/pyynl" ]; then
		cp -r "$TREE/tools/net/ynl/pyynl" "$dst/net/lib/ynl/"
	else
		cp -r "$TREE/tools/net/ynl/lib" "$dst/net/lib/ynl/"
	fi
	cp -r "$TREE/Documentation/netlink/specs" "$dst/net/lib/"
	cp -r "$src/drivers/net/lib/py" "$dst/drivers/net/lib/"
	cp -r "$src/drivers/net/hw/lib" "$src/drivers/net/hw/settings" \
		"$dst/drivers/net/hw/"
	for test in $hw_tests; do
		cp "$src/drivers/net/hw/$test" "$dst/drivers/net/hw/" ||
			die "no $test in $src/drivers/net/hw"
	done
fi
# The XDP programs of veth.sh and veth_bql.sh (xdp_dummy) and of
# tx_doorbell.py (xdp_bounce, xdp_forward): in net/lib/ on 7.3, in net/
# on 6.12
bpf_dir=net/lib
[ -f "$src/$bpf_dir/xdp_dummy.bpf.c" ] || bpf_dir=net
mkdir -p "$dst/$bpf_dir"
for prog in xdp_dummy xdp_bounce xdp_forward; do
	clang -O2 --target=bpf -idirafter /usr/include/x86_64-linux-gnu \
		-c "$src/$bpf_dir/$prog.bpf.c" -o "$dst/$bpf_dir/$prog.bpf.o"
done
echo "ksft: $(wc -l < "$dst/kselftest-list.txt") tests in $dst"
