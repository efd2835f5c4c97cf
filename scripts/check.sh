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
fails=()

result() { # result pass|fail|skip NAME [DETAIL]
	case $1 in
	pass) passed=$((passed + 1)) tag=PASS ;;
	fail) failed=$((failed + 1)) tag=FAIL fails+=("$2${3:+ ($3)}") ;;
	skip) skipped=$((skipped + 1)) tag=SKIP ;;
	esac
	echo "[$tag] $2${3:+ ($3)}"
}

# The failures again at the end, where a log's tail shows them.
finish() {
	[ "$failed" = 0 ] || printf 'failed: %s\n' "${fails[@]}"
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
# The stored queue carries no Signed-off-by: make postings adds the
# poster's, and checks the rendered patches with it. (On an older
# kernel, these are 7.3's patches, checked there.)
if [ -z "$FIXUPS" ]; then
	for p in $(series_patches); do
		log=$out/checkpatch-${p//\//_}.log
		checkpatch_findings "$PATCHES/$p" --no-signoff > "$log" 2>&1
		if [ -s "$log" ]; then
			result fail "checkpatch: $p" "see $log"
			cat "$log"
		else
			result pass "checkpatch: $p"
		fi
	done
fi

for name in $(postings); do
	if [ -n "$FIXUPS" ]; then
		:
	elif posting_rules "$PATCHES/$name" > "$out/rules-$name.log"; then
		result pass "posting rules: $name"
	else
		result fail "posting rules: $name" "see $out/rules-$name.log"
		cat "$out/rules-$name.log"
	fi
	case $(posting_tree "$name") in
	net | iwl-net)
		if applies_on_base "$PATCHES/$name" > "$out/alone-$name.log" 2>&1
		then
			result pass "fix posting applies to the base alone: $name"
		else
			result fail "fix posting applies to the base alone: $name" \
				"see $out/alone-$name.log"
		fi
		;;
	esac
done
if bash tests/posting-rules.sh > "$out/posting-rules.log" 2>&1; then
	result pass "posting rules catch each broken rule"
else
	result fail "posting rules catch each broken rule" \
		"see $out/posting-rules.log"
	cat "$out/posting-rules.log"
fi

mkdir -p "$out/export"
export_series "$TREE" "$out/export"
if diff -r -x README "$QUEUE" "$out/export" > "$out/roundtrip.log" 2>&1; then
	result pass "patch queue round trip"
else
	result fail "patch queue round trip" "apply + export changed $QUEUE/"
	cat "$out/roundtrip.log"
fi

# make bench applies its packet-unit variant of veth on top of the series
if [ -z "$FIXUPS" ]; then
	if git -C "$TREE" apply --check "$PWD/bench/veth-packet-unit.patch" \
		> "$out/bench-variant.log" 2>&1; then
		result pass "bench's packet-unit variant applies"
	else
		result fail "bench's packet-unit variant applies" \
			"see $out/bench-variant.log"
	fi
fi

# The 6.12 backport is derived from this queue: it must still apply
# (no kernel build; make backport builds and tests it).
if [ -z "$FIXUPS" ]; then
	if KERNEL=6.12 bash scripts/tree.sh > "$out/backport.log" 2>&1; then
		result pass "6.12 backport applies"
	else
		result fail "6.12 backport applies" "$(tail -n 1 "$out/backport.log")"
	fi
fi

if shellcheck -x scripts/*.sh tests/*.sh vm/*.sh demo/*.sh bench/*.sh tools/qbulkstat/*.sh .ci/run > "$out/shellcheck.log"
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

# cases FILE: one "RESULT<TAB>PATH<TAB>DETAIL" line per case of the TAP
# or KTAP in FILE, nested results flattened (scripts/ktap.py)
cases() {
	/usr/bin/python3 scripts/ktap.py "$1" 2>/dev/null
}

# tap_results PREFIX FILE: one result per case of FILE; a skip fails, as
# every case of the project's own tools must run
tap_results() {
	local status path detail

	while IFS=$'\t' read -r status path detail; do
		case $status in
		PASS) result pass "$1: $path" ;;
		SKIP) result fail "$1: $path" "skipped: $detail" ;;
		*) result fail "$1: $path" "$detail" ;;
		esac
	done < <(cases "$2")
}

if bash tests/ktap.sh > "$out/ktap.log" 2>&1; then
	result pass "TAP parser"
else
	result fail "TAP parser" "see $out/ktap.log"
	cat "$out/ktap.log"
fi

make -s -C tools/qbulkstat OUT="$PWD/$out" test > "$out/qbulkstat-unit.tap" 2>&1
tap_results "qbulkstat unit" "$out/qbulkstat-unit.tap"
grep -q '^1\.\.' "$out/qbulkstat-unit.tap" ||
	result fail "qbulkstat unit" "see $out/qbulkstat-unit.tap"
make -s -C tools/qbulkstat OUT="$PWD/$out" test-cli > "$out/qbulkstat-cli.tap" 2>&1
tap_results "qbulkstat command line" "$out/qbulkstat-cli.tap"
grep -q '^1\.\.' "$out/qbulkstat-cli.tap" ||
	result fail "qbulkstat command line" "see $out/qbulkstat-cli.tap"

# The man page: groff takes it without a warning, and it is what its RST
# source makes.
man=tools/qbulkstat/qbulkstat.8
groff -man -ww -z "$man" > "$out/man.log" 2>&1
if [ -s "$out/man.log" ]; then
	result fail "qbulkstat man page" "groff: see $out/man.log"
	cat "$out/man.log"
elif ! rst2man tools/qbulkstat/Documentation/qbulkstat.rst | cmp -s - "$man"; then
	result fail "qbulkstat man page" "not made from its RST source: make -C tools/qbulkstat man"
else
	result pass "qbulkstat man page"
fi

# Its install target puts the tool and the man page under DESTDIR/PREFIX.
dest=$PWD/$out/install
rm -rf "$dest"
if make -s -C tools/qbulkstat OUT="$PWD/$out" PREFIX=/usr DESTDIR="$dest" \
	install > "$out/install.log" 2>&1 &&
	"$dest/usr/sbin/qbulkstat" --help > /dev/null &&
	cmp -s "$man" "$dest/usr/share/man/man8/qbulkstat.8"; then
	result pass "qbulkstat install"
else
	result fail "qbulkstat install" "see $out/install.log"
fi

# 2. The debug kernel, booted.
step "build the debug kernel" bash scripts/build.sh debug qbulk
step "install the kselftests" bash scripts/ksft.sh
step "build qbulkstat" make -s -C tools/qbulkstat OUT="$PWD/$BUILD"
# A selected test that is not installed would run nothing and pass.
for t in "$@"; do
	[ "$t" = -t ] || [ "$t" = tools:qbulkstat ] ||
		grep -qxF -- "$t" "$BUILD/ksft/kselftest-list.txt" ||
		{ result fail "kselftest: $t" "not in tests/kselftests.list"; finish; }
done
phase "boot and test"
# KUnit's results and every warning must reach kernel.log (scripts/vm.sh).
export QBULK_LOGLEVEL=7
# About 20 minutes on 2 cores. Each test has 1200 s (tests/guest.sh): the
# limit lets one of them time out on a host twice as slow and the rest
# still run.
bash scripts/vm.sh -t 3900 -o "$out/vm" -- bash tests/guest.sh "$@"
echo "guest exit code: $?"
# One more boot for the test that needs DMA mappings to fail, on igb and
# on virtio-net, which maps its buffers only with an IOMMU platform
# (tests/guest.sh runs it on each in turn).
dma_test=drivers/net/hw:tx_doorbell_dma.py
if [ $# -eq 0 ] || [[ " $* " == *" $dma_test "* ]]; then
	phase "boot with a small bounce buffer pool and test"
	QBULK_APPEND="swiotlb=512,force" QBULK_VIRTIO_OPTS=iommu_platform=on \
		bash scripts/vm.sh -o "$out/vm-swiotlb" \
		-- bash tests/guest.sh -t "$dma_test"
	echo "guest exit code: $?"
fi

phase "results"
for vm in "$out"/vm*/; do
	[ -f "$vm/times" ] && sed "s|^|${vm%/}: |" "$vm/times"
done

# 3. Results. KUnit suites print KTAP in the kernel log at boot; each
# suite of tests/kunit.list must report its cases, none skipped.
declare -A kunit_want kunit_got
while read -r suite count; do
	kunit_want[$suite]=$count
	kunit_got[$suite]=0
done < <(grep -v -E '^[[:space:]]*(#|$)' tests/kunit.list)
while IFS=$'\t' read -r status path detail; do
	suite=${path%% / *}
	if [ -z "${kunit_want[$suite]:-}" ]; then
		result fail "kunit: $path" "suite not in tests/kunit.list"
		continue
	fi
	kunit_got[$suite]=$((kunit_got[$suite] + 1))
	case $status in
	PASS) result pass "kunit: $path" ;;
	SKIP) result fail "kunit: $path" "skipped: $detail" ;;
	*) result fail "kunit: $path" "$detail" ;;
	esac
done < <(cases "$out/vm/kernel.log")
for suite in "${!kunit_want[@]}"; do
	[ "${kunit_got[$suite]}" = "${kunit_want[$suite]}" ] ||
		result fail "kunit: $suite" \
			"${kunit_got[$suite]} of ${kunit_want[$suite]} cases reported"
done

# The series' own kselftests, as COLLECTION:TEST: those it adds.
own=$(git -C "$TREE" diff --name-only --diff-filter=A base qbulk \
	-- tools/testing/selftests |
	sed -E 's|^tools/testing/selftests/(.*)/([^/]*)$|\1:\2|')

# ksft_results TAP [NIC]: one result per case of each kselftest in a
# runner's TAP output, named after NIC if given; a skip of one of the
# series' own tests fails
ksft_results() {
	local status path detail test last=

	while IFS=$'\t' read -r status path detail; do
		test=${path%% / *}
		[ "$test" = "$last" ] || ran=$((ran + 1))
		last=$test
		test=$(sed -E 's/^selftests: (.*): /\1:/' <<< "$test")
		path+=${2:+" ($2)"}
		case $status in
		PASS) result pass "kselftest: $path" ;;
		SKIP)
			if grep -qxF "$test" <<< "$own"; then
				result fail "kselftest: $path" "skipped: $detail"
			else
				result skip "kselftest: $path" "$detail"
			fi ;;
		*) result fail "kselftest: $path" "$detail" ;;
		esac
	done < <(cases "$1")
}

# All but the DMA test, which only the boot for it runs; the driver
# tests (tests/guest.sh) are named after their NIC.
want=$(grep -v -x -F "$dma_test" "$BUILD/ksft/kselftest-list.txt" | grep -c .)
ran=0
ksft_results "$out/vm/ksft.tap"
for nic in igb virtio; do
	ksft_results "$out/vm/ksft-$nic.tap" "$nic"
done
[ $# -gt 0 ] || [ "$ran" = "$want" ] ||
	result fail "kselftest" "$ran of $want tests reported a result"
if [ -d "$out/vm-swiotlb" ]; then
	for nic in igb virtio; do
		ran=0
		ksft_results "$out/vm-swiotlb/ksft-$nic.tap" "$nic"
		[ "$ran" = 1 ] ||
			result fail "kselftest: $dma_test ($nic)" "no result"
	done
fi

tap_results "qbulkstat in the VM" "$out/vm/tools.tap"
[ $# -gt 0 ] || grep -q '^1\.\.' "$out/vm/tools.tap" 2>/dev/null ||
	result fail "qbulkstat in the VM" "no results"

for vm in "$out"/vm*/; do
	vm=${vm%/}
	if grep -E "$splat" "$vm/kernel.log" > "$vm/splats" 2>&1; then
		result fail "guest log: ${vm##*/}" \
			"kernel splat, see $vm/kernel.log"
		head -20 "$vm/splats"
	elif [ ! -s "$vm/kernel.log" ]; then
		result fail "guest log: ${vm##*/}" "no kernel log"
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
