#!/bin/bash
# 'make demo': build the plain kernel if needed, boot it, and run the demo.
# QEMU logs igb's transmit tail writes and the virtqueue notifications
# (scripts/vm.sh), so the demo counts tail writes and kicks independently
# of the drivers.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

bash scripts/tree.sh
bash scripts/build.sh plain qbulk
make -s -C tools/qbulkstat OUT="$PWD/$BUILD"
out=$BUILD/demo
mkdir -p "$out"
bash scripts/vm.sh -k "$(kernel_out plain qbulk)/arch/x86/boot/bzImage" \
	-o "$out" -- bash demo/guest.sh
