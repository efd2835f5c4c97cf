#!/bin/bash
# 'make backport': make check on the 6.12 backport (patches/ with the
# fix-ups of backports/6.12/ on base/linux-6.12.pin): the fix postings
# alone, the fix-ups' round trip, the debug kernel built and booted, its
# KUnit suites and kselftests. The output, with this machine's paths
# cut, goes to results/backport-6.12/check.log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
export KERNEL=6.12
. scripts/lib.sh

dir=results/backport-$KERNEL
mkdir -p "$dir"
# The 7.3 tree's objects are the merge bases of the backport's patches
KERNEL=7.3 bash scripts/tree.sh || exit
{
	echo "commit $(git rev-parse HEAD)"
	echo "base $PACKAGE $VERSION"
	echo "series $(series_patches | wc -l) patches, $(find "$FIXUPS" -name '*.diff' | wc -l) with a fix-up"
	echo "started $(date -u '+%F %H:%M') UTC"
	bash scripts/check.sh
	rc=$?
	echo "finished $(date -u '+%F %H:%M') UTC, make check exit code $rc"
	exit "$rc"
} 2>&1 | sed -u "s|$PWD/||g" | tee "$dir/check.log"
exit "${PIPESTATUS[0]}"
