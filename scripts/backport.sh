#!/bin/bash
# 'make backport': make check on the 6.12 backport (backports/6.12/ on
# base/linux-6.12.pin): checkpatch, the queue's round trip, the debug
# kernel built and booted, its KUnit suites and kselftests. The output,
# with this machine's paths cut, goes to results/backport-6.12/check.log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
export KERNEL=6.12
. scripts/lib.sh

dir=results/backport-$KERNEL
mkdir -p "$dir"
{
	echo "commit $(git rev-parse HEAD)"
	echo "base $PACKAGE $VERSION"
	echo "series $(series_patches | wc -l) patches"
	echo "started $(date -u '+%F %H:%M') UTC"
	bash scripts/check.sh
	rc=$?
	echo "finished $(date -u '+%F %H:%M') UTC, make check exit code $rc"
	exit "$rc"
} 2>&1 | sed -u "s|$PWD/||g" | tee "$dir/check.log"
exit "${PIPESTATUS[0]}"
