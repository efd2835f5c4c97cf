#!/bin/bash
# Regression: the base tree's tc-testing cases for the qdiscs whose
# dequeue the series touches (prio, pfifo_fast, pfifo/bfifo). Installed
# into the tc-testing collection by scripts/ksft.sh.
cd "$(dirname "$0")" || exit 1
out=$(python3 ./tdc.py -f tc-tests/qdiscs/prio.json \
	tc-tests/qdiscs/pfifo_fast.json tc-tests/qdiscs/fifo.json 2>&1)
echo "$out"
# Every case must run: tdc reports one it skipped as "ok N ... # skipped".
grep -q '^ok ' <<< "$out" || exit 1
! grep -q -i -E '^not ok |^ok .*# skip' <<< "$out"
