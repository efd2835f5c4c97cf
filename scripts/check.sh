#!/bin/bash
# The test command behind 'make check'. Host checks first (checkpatch on
# every patch, the patch queue round trip, shellcheck), then the debug
# kernel is built and booted: KUnit suites run at boot, the kselftests of
# tests/kselftests.list run through the kselftest runner, and any kernel
# splat or kmemleak report fails the run. Ends with 'N passed, N failed'.
#   check.sh [run_kselftest.sh options, e.g. -t net:veth.sh]
set -uo pipefail
cd "$(dirname "$0")/.." || exit
. scripts/lib.sh

out=$BUILD/check
passed=0 failed=0 skipped=0

result() { # result pass|fail|skip NAME [DETAIL]
	case $1 in
	pass) passed=$((passed + 1)) tag=PASS ;;
	fail) failed=$((failed + 1)) tag=FAIL ;;
	skip) skipped=$((skipped + 1)) tag=SKIP ;;
	esac
	echo "[$tag] $2${3:+ ($3)}"
}

finish() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit
}

# phase NAME: a heading, with the time since the start
phase() {
	echo "== $1 ($((SECONDS / 60)) min $((SECONDS % 60)) s)"
}

step() { # step NAME COMMAND...: a setup step; failure ends the run
	phase "$1"
	shift
	if ! "$@"; then
		result fail "$*"
		finish
	fi
}

rm -rf "$out"
mkdir -p "$out"

# 1. Host checks.
step "apply the series" bash scripts/tree.sh
for p in $(series_patches); do
	if (cd "$TREE" && ./scripts/checkpatch.pl --strict --quiet \
		"$OLDPWD/patches/$p") > "$out/checkpatch-$p.log" 2>&1; then
		result pass "checkpatch: $p"
	else
		result fail "checkpatch: $p" "see $out/checkpatch-$p.log"
		cat "$out/checkpatch-$p.log"
	fi
done

mkdir -p "$out/export"
export_series "$TREE" "$out/export"
if diff -r -x series patches "$out/export" > "$out/roundtrip.log" 2>&1; then
	result pass "patch queue round trip"
else
	result fail "patch queue round trip" "apply + export changed patches/"
	cat "$out/roundtrip.log"
fi

if shellcheck -x scripts/*.sh tests/*.sh vm/*.sh demo/*.sh bench/*.sh .ci/run > "$out/shellcheck.log"
then
	result pass "shellcheck"
else
	result fail "shellcheck" "see $out/shellcheck.log"
	cat "$out/shellcheck.log"
fi

if bash tests/bench-report.sh > "$out/bench-report.log" 2>&1; then
	result pass "bench report"
else
	result fail "bench report" "see $out/bench-report.log"
	cat "$out/bench-report.log"
fi

# tap_results PREFIX FILE: one result per "ok"/"not ok" line of FILE
tap_results() {
	local line name

	while read -r line; do
		name=${line#*ok [0-9]* - }
		case $line in
		"not ok "*) result fail "$1: $name" ;;
		*"# SKIP"*) result skip "$1: $name" ;;
		*) result pass "$1: $name" ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ - ' "$2" 2>/dev/null)
}

make -s -C tools/qbulkstat OUT="$PWD/$out" test > "$out/qbulkstat-unit.tap" 2>&1
tap_results "qbulkstat unit" "$out/qbulkstat-unit.tap"
grep -q '^1\.\.' "$out/qbulkstat-unit.tap" ||
	result fail "qbulkstat unit" "see $out/qbulkstat-unit.tap"

# 2. The debug kernel, booted.
step "build the debug kernel" bash scripts/build.sh debug qbulk
step "install the kselftests" bash scripts/ksft.sh
step "build qbulkstat" make -s -C tools/qbulkstat OUT="$PWD/$BUILD"
phase "boot and test"
# About 30 minutes on 2 cores; the limit leaves room for a slower host.
bash scripts/vm.sh -t 2700 -o "$out/vm" -- bash tests/guest.sh "$@"
echo "guest exit code: $?"
# A second boot for the test that needs DMA mappings to fail.
dma_test=drivers/net/hw:tx_doorbell_dma.py
if [ $# -eq 0 ] || [[ " $* " == *" $dma_test "* ]]; then
	phase "boot with a small bounce buffer pool and test"
	QBULK_APPEND="swiotlb=512,force" bash scripts/vm.sh -o "$out/vm-swiotlb" \
		-- bash tests/guest.sh -t "$dma_test"
	echo "guest exit code: $?"
fi

phase "results"
for vm in "$out"/vm*/; do
	[ -f "$vm/times" ] && sed "s|^|${vm%/}: |" "$vm/times"
done

# 3. Results. KUnit suites print KTAP in the kernel log at boot.
/usr/bin/python3 "$TREE/tools/testing/kunit/kunit.py" parse \
	< "$out/vm/dmesg" > "$out/kunit.log" 2>&1
sed -n -E 's/^\[[0-9:]+\] \[(PASSED|FAILED|SKIPPED|CRASHED)\] ([^=]+)$/\1 \2/p' \
	"$out/kunit.log" > "$out/kunit.cases"
while read -r status name; do
	case $status in
	PASSED) result pass "kunit: $name" ;;
	SKIPPED) result skip "kunit: $name" ;;
	*) result fail "kunit: $name" ;;
	esac
done < "$out/kunit.cases"
[ -s "$out/kunit.cases" ] || result fail "kunit" "no KTAP in the kernel log"

# ksft_results TAP: one result per kselftest in a runner's TAP output
ksft_results() {
	local line name

	while read -r line; do
		name=${line#*selftests: }
		name=${name%% #*}
		ran=$((ran + 1))
		case $line in
		"not ok "*) result fail "kselftest: $name" ;;
		*"# SKIP"*) result skip "kselftest: $name" ;;
		*) result pass "kselftest: $name" ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ selftests: ' "$1" 2>/dev/null)
}

# All but the DMA test, which only the second boot runs.
want=$(grep -v -x -F "$dma_test" "$BUILD/ksft/kselftest-list.txt" | grep -c .)
ran=0
ksft_results "$out/vm/ksft.tap"
[ $# -gt 0 ] || [ "$ran" = "$want" ] ||
	result fail "kselftest" "$ran of $want tests reported a result"
if [ -d "$out/vm-swiotlb" ]; then
	ran=0
	ksft_results "$out/vm-swiotlb/ksft.tap"
	[ "$ran" = 1 ] || result fail "kselftest: $dma_test" "no result"
fi

tap_results "qbulkstat in the VM" "$out/vm/tools.tap"
[ $# -gt 0 ] || grep -q '^1\.\.' "$out/vm/tools.tap" 2>/dev/null ||
	result fail "qbulkstat in the VM" "no results"

splat='WARNING:|BUG:|Oops|Kernel panic|KASAN|UBSAN|general protection'
splat+='|possible (circular|recursive) locking|inconsistent lock state'
splat+='|suspicious RCU usage|NETDEV WATCHDOG|INFO: task .* blocked'
splat+='|rcu: .*self-detected stall'
for vm in "$out"/vm*/; do
	vm=${vm%/}
	if grep -E "$splat" "$vm/dmesg" "$vm/console.log" > "$vm/splats" 2>&1
	then
		result fail "guest log: ${vm##*/}" "kernel splat, see $vm/dmesg"
		head -20 "$vm/splats"
	elif [ ! -f "$vm/dmesg" ]; then
		result fail "guest log: ${vm##*/}" "no kernel log saved"
	else
		result pass "guest log: ${vm##*/}"
	fi
	if [ -s "$vm/kmemleak" ]; then
		result fail "kmemleak: ${vm##*/}" "see $vm/kmemleak"
		head -20 "$vm/kmemleak"
	else
		result pass "kmemleak: ${vm##*/}"
	fi
done
finish
