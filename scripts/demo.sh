#!/bin/bash
# 'make demo': build the plain kernel if needed, boot it, and run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

bash scripts/tree.sh
bash scripts/build.sh plain qbulk
bash scripts/vm.sh -k "$(kernel_out plain qbulk)/arch/x86/boot/bzImage" \
	-o "$BUILD/demo" -- bash demo/guest.sh
