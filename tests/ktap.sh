#!/bin/bash
# The TAP parser of make check (scripts/ktap.py) against fixtures: nested
# kselftest output and a kernel log with KUnit results, with failures, a
# skipped case, a short plan, a timeout and a run cut short.
cd "$(dirname "$0")/.." || exit 1
rc=0
for input in tests/ktap/runner.tap tests/ktap/kunit.log; do
	if ! /usr/bin/python3 scripts/ktap.py "$input" |
		diff -u "${input%.*}.want" -; then
		echo "ktap.py: wrong cases for $input"
		rc=1
	fi
done
exit "$rc"
