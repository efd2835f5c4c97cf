#!/bin/bash
# 'make demo': build the plain kernel if needed, boot it, and run the demo.
# QEMU logs its igb register writes, so the demo can count tail writes
# independently of the driver.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

bash scripts/tree.sh
bash scripts/build.sh plain qbulk
make -s -C tools/qbulkstat OUT="$PWD/$BUILD"
out=$BUILD/demo
mkdir -p "$out"
rm -f "$out/qemu-trace.log"
QBULK_QEMU_OPTS="-trace enable=e1000e_core_write -D $out/qemu-trace.log" \
	bash scripts/vm.sh -k "$(kernel_out plain qbulk)/arch/x86/boot/bzImage" \
	-o "$out" -- bash demo/guest.sh
