#!/bin/bash
# 'make mutants': each sabotage patch of tests/mutants/ is applied on top of
# the series, the debug kernel rebuilt (incrementally, with ccache) and
# booted with only the tests its "Tests:" line names (and the properties
# of its "Virtio:" line on the sending virtio-net NIC); the mutant is caught
# when one of their cases fails (a KUnit case of a named suite, a case of a
# named kselftest), or the kernel splats where make check would see it.
# First, the control: the series without a mutant, booted once in the same
# way for each set of tests and properties the mutants name. A case that
# does not pass there fails the run, and a mutant counts as caught only by
# a case that passed in its control. The tree is restored after each
# mutant, whatever happens. Results go to results/mutants/: NAME.txt per
# mutant, control-N.txt per control, report.md for all of them. Fails
# unless every control passed and every mutant ran and was caught.
#   mutants.sh [NAME...]   only these mutants (file names without .patch)
#   mutants.sh --report    only write report.md from the last results
set -uo pipefail
cd "$(dirname "$0")/.." || exit
. scripts/lib.sh

dir=results/mutants
mkdir -p "$dir"

# cases TESTS VM: each case of TESTS that VM reported, as
# "RESULT<TAB>CASE<TAB>DETAIL": a KUnit case of a named suite, or a case of
# a named kselftest (ksft.tap, and ksft-NIC.tap for the driver tests on NIC)
cases() {
	local status path detail test tap nic

	while IFS=$'\t' read -r status path detail; do
		[[ " $1 " == *" kunit:${path%% / *} "* ]] &&
			printf '%s\t%s\t%s\n' "$status" "kunit: $path" "$detail"
	done < <(/usr/bin/python3 scripts/ktap.py "$2/kernel.log" 2>/dev/null)
	for tap in "$2"/ksft*.tap; do
		nic=${tap##*/ksft}
		nic=${nic#-}
		nic=${nic%.tap}
		while IFS=$'\t' read -r status path detail; do
			test=$(sed -E 's/^selftests: (.*): /\1:/' <<< "${path%% / *}")
			[[ " $1 " == *" $test "* ]] &&
				printf '%s\t%s\t%s\n' "$status" \
					"kselftest: $path${nic:+ ($nic)}" "$detail"
		done < <(/usr/bin/python3 scripts/ktap.py "$tap" 2>/dev/null)
	done
}

# boot PATCH VM: boot the debug kernel with the tests PATCH names, in the
# way it names (the DMA test's bounce buffers, the virtio-net properties)
boot() {
	local t tests ksft=() append=''

	tests=$(sed -n 's/^Tests: //p' "$1")
	for t in $tests; do
		case $t in
		kunit:*) ;;
		*tx_doorbell_dma.py) ksft+=(-t "$t") append="swiotlb=512,force" ;;
		*) ksft+=(-t "$t") ;;
		esac
	done
	# No kselftest named: guest.sh selects none, KUnit runs at boot.
	[ ${#ksft[@]} -gt 0 ] || ksft=(-t none)
	QBULK_LOGLEVEL=7 QBULK_APPEND=$append \
		QBULK_VIRTIO_OPTS=$(sed -n 's/^Virtio: //p' "$1") \
		bash scripts/vm.sh \
		-t 3000 -o "$2" -- bash tests/guest.sh "${ksft[@]}" \
		> "$2/guest.log" 2>&1
}

# fingerprint TESTS: a hash of what a boot with TESTS runs of the series:
# its kernel code (the KUnit suites with it; not the selftests, the
# documentation or MAINTAINERS) and each named kselftest with the files
# it shares with others, as the tree's branch qbulk has them. Commit
# messages, and tests that the boot does not run, are not in it.
fingerprint() {
	local t paths=()

	for t in $1; do
		case $t in
		net:*)
			# with its own helpers: dequeue_bulk_tx.py beside
			# dequeue_bulk.sh
			paths+=("tools/testing/selftests/net/${t#net:}"
				"tools/testing/selftests/net/$(basename "${t#net:}" .sh)_*"
				tools/testing/selftests/net/lib.sh
				tools/testing/selftests/net/lib
				tools/testing/selftests/net/bulk_lib.sh) ;;
		drivers/net/hw:*)
			paths+=("tools/testing/selftests/drivers/net/hw/${t#*:}"
				tools/testing/selftests/drivers/net/hw/lib
				tools/testing/selftests/drivers/net/lib
				tools/testing/selftests/net/lib) ;;
		esac
	done
	{
		git -C "$TREE" diff base qbulk -- . ':!tools/testing' \
			':!Documentation' ':!MAINTAINERS'
		[ ${#paths[@]} = 0 ] || git -C "$TREE" diff base qbulk -- "${paths[@]}"
	} | md5sum | cut -c1-12
}

# control_of PATCH: the control that boots as PATCH does
control_of() {
	sed -n 's/^\(Tests\|Virtio\): //p' "$1" | md5sum | cut -c1-8
}

# control PATCH: boot the series as PATCH would be booted, once per
# distinct control; $dir/control-ID.txt lists the cases that passed, and
# the run fails if any case of the tests did not pass or the kernel
# splatted
control() {
	local id vm txt start=$SECONDS

	id=$(control_of "$1")
	txt=$dir/control-$id.txt
	vm=$BUILD/mutants/control-$id
	[ ! -d "$vm" ] || return 0
	mkdir -p "$vm"
	echo "control $id: $(sed -n 's/^Tests: //p' "$1")"
	boot "$1" "$vm"
	cases "$(sed -n 's/^Tests: //p' "$1")" "$vm" > "$vm/cases"
	{
		echo "commit: $(git rev-parse --short HEAD)"
		echo "series: $(fingerprint "$(sed -n 's/^Tests: //p' "$1")")"
		sed -n 's/^\(Tests\|Virtio\): /\L\1: /p' "$1"
		echo "time: $((SECONDS - start)) s"
		awk -F '\t' '$1 == "PASS" { print "pass: " $2 }' "$vm/cases"
		awk -F '\t' '$1 != "PASS" { print "not passed: " $2 " (" $1 ")" }' \
			"$vm/cases"
		grep -E -m 1 "$splat" "$vm/kernel.log" | sed 's/^/splat: /'
	} > "$txt"
	if grep -q '^pass: ' "$txt" && ! grep -q '^\(not passed\|splat\): ' "$txt"
	then
		echo "control $id: $(grep -c '^pass: ' "$txt") cases passed"
	else
		echo "control $id: failed, see $txt"
		return 1
	fi
}

# verdict PATCH VM: what caught mutant PATCH booted in VM, one line per
# case that failed there and passed in the control, or the splat
verdict() {
	local control

	control=$dir/control-$(control_of "$1").txt

	cases "$(sed -n 's/^Tests: //p' "$1")" "$2" |
		awk -F '\t' -v control="$control" '
			BEGIN {
				while ((getline line < control) > 0)
					if (sub(/^pass: /, "", line))
						passed[line] = 1
			}
			$1 == "FAIL" && ($2 in passed) {
				print $2 ($3 == "" ? "" : " (" $3 ")")
			}'
	grep -E -m 1 "$splat" "$2/kernel.log" 2>/dev/null | sed 's/^/splat: /'
}

# tests_changed PATCH: whether PATCH changes the kselftests, which the
# VM runs from their install (scripts/ksft.sh) and not from the tree
tests_changed() {
	grep -q '^+++ b/tools/testing/selftests/' "$1"
}

# run PATCH: one mutant, its result in $dir/NAME.txt
run() {
	local patch=$1 name tests vm start=$SECONDS result

	name=$(basename "$patch" .patch)
	tests=$(sed -n 's/^Tests: //p' "$patch")
	vm=$BUILD/mutants/$name
	rm -rf "$vm"
	mkdir -p "$vm"
	echo "mutant $name: $(sed -n 's/^Promise: //p' "$patch")"
	if ! git -C "$TREE" apply "$PWD/$patch"; then
		result="does not apply"
	elif tests_changed "$patch" &&
		! bash scripts/ksft.sh > "$vm/ksft.log" 2>&1; then
		result="its kselftests do not install (see $vm/ksft.log)"
	elif ! bash scripts/build.sh debug qbulk > "$vm/build.log" 2>&1; then
		result="does not build (see $vm/build.log)"
	else
		boot "$patch" "$vm"
		verdict "$patch" "$vm" > "$vm/caught"
		if [ -s "$vm/caught" ]; then
			result=caught
		else
			result=missed
		fi
	fi
	git -C "$TREE" checkout -q -- .
	! tests_changed "$patch" || bash scripts/ksft.sh > /dev/null 2>&1 ||
		die "the kselftests do not install again after $name"
	{
		echo "result: $result"
		echo "commit: $(git rev-parse --short HEAD)"
		echo "series: $(fingerprint "$tests")"
		echo "tests: $tests"
		echo "control: control-$(control_of "$patch")"
		echo "time: $((SECONDS - start)) s"
		sed 's/^/by: /' "$vm/caught" 2>/dev/null
	} > "$dir/$name.txt"
	echo "mutant $name: $result in $((SECONDS - start)) s"
	[ "$result" = caught ]
}

# ran_on TXT PATCH: the commit a mutant's last run was on, and whether
# what it ran of the series (fingerprint) or the mutant changed since; a
# run from before fingerprints counts any change of the patches
ran_on() {
	local commit series

	commit=$(sed -n 's/^commit: //p' "$1" 2>/dev/null)
	series=$(sed -n 's/^series: //p' "$1" 2>/dev/null)
	if [ -z "$commit" ]; then
		echo "not stamped"
	elif ! git diff --quiet "$commit" HEAD -- "$2" 2>/dev/null; then
		echo "$commit (mutant changed since)"
	elif [ -n "$series" ] && [ -d "$TREE/.git" ]; then
		if [ "$series" = "$(fingerprint "$(sed -n 's/^Tests: //p' "$2")")" ]
		then
			echo "$commit"
		else
			echo "$commit (series changed since)"
		fi
	elif git diff --quiet "$commit" HEAD -- 'patches/*.patch' 2>/dev/null
	then
		echo "$commit"
	else
		echo "$commit (series changed since)"
	fi
}

# result_of TXT: a mutant's last result, and whether a control vetted it
result_of() {
	if [ ! -f "$1" ]; then
		echo "not run"
	elif grep -q '^control: ' "$1"; then
		sed -n 's/^result: //p' "$1"
	else
		echo "$(sed -n 's/^result: //p' "$1") (no control)"
	fi
}

# report: the table of every mutant of tests/mutants/ and its last result
report() {
	local patch name txt

	echo "# Mutants: sabotages of the series and the tests that catch them"
	echo
	echo "Made by \`make mutants\` (scripts/mutants.sh), Linux $VERSION, debug"
	echo "kernel under QEMU TCG; written at commit $(git rev-parse --short HEAD)."
	echo "Each mutant was built and booted on its own, on the series of the"
	echo "commit its row names; a row whose series or mutant changed since says"
	echo "so, and rows from before the stamp say \"not stamped\". The series"
	echo "counts as changed when the kernel code or the tests the row runs"
	echo "changed (commit messages and other tests do not), or, for a row from"
	echo "before that rule, when any patch did."
	echo
	echo "| mutant | promise broken | tests | result | ran on | caught by | time |"
	echo "|---|---|---|---|---|---|---|"
	for patch in tests/mutants/*.patch; do
		name=$(basename "$patch" .patch)
		txt=$dir/$name.txt
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" \
			"$(sed -n 's/^Promise: //p' "$patch")" \
			"$(sed -n 's/^Tests: //p' "$patch")" \
			"$(result_of "$txt")" \
			"$(ran_on "$txt" "$patch")" \
			"$(sed -n 's/^by: //p' "$txt" 2>/dev/null | head -3 |
				sed 's/|/\\|/g' | paste -s -d ';' | sed 's/;/; /g')" \
			"$(sed -n 's/^time: //p' "$txt" 2>/dev/null)"
	done
	echo
	echo "The controls: the series without a mutant, booted as the mutants"
	echo "that name them are. A mutant counts as caught only by a case that"
	echo "passed in its control."
	echo
	echo "| control | tests | virtio | ran on | cases passed | not passed |"
	echo "|---|---|---|---|---|---|"
	for txt in "$dir"/control-*.txt; do
		[ -f "$txt" ] || continue
		printf '| %s | %s | %s | %s | %s | %s |\n' \
			"$(basename "$txt" .txt)" \
			"$(sed -n 's/^tests: //p' "$txt")" \
			"$(sed -n 's/^virtio: //p' "$txt")" \
			"$(sed -n 's/^commit: //p' "$txt")" \
			"$(grep -c '^pass: ' "$txt")" \
			"$(sed -n 's/^\(not passed\|splat\): //p' "$txt" |
				sed 's/|/\\|/g' | paste -s -d ';' | sed 's/;/; /g')"
	done
	echo
	for patch in tests/mutants/*.patch; do
		grep -q '^Note: ' "$patch" || continue
		echo "- $(basename "$patch" .patch): $(sed -n 's/^Note: //p' "$patch")"
	done
}

if [ "${1:-}" = --report ]; then
	report > "$dir/report.md"
	exit
fi

bash scripts/tree.sh || exit
bash scripts/ksft.sh || exit
git -C "$TREE" diff --quiet || die "$TREE has changes no commit holds"
trap 'git -C "$TREE" checkout -q -- .' EXIT

if [ $# -gt 0 ]; then
	mutants=("${@/%/.patch}")
	mutants=("${mutants[@]/#/tests/mutants/}")
else
	mutants=(tests/mutants/*.patch)
fi

for patch in "${mutants[@]}"; do
	[ -f "$patch" ] || die "no mutant $patch"
done
bash scripts/build.sh debug qbulk > "$BUILD/mutants-control-build.log" 2>&1 ||
	die "the series does not build: see $BUILD/mutants-control-build.log"
rm -rf "$BUILD"/mutants/control-*
controls=0
for patch in "${mutants[@]}"; do
	control "$patch" || controls=$((controls + 1))
done
if [ "$controls" != 0 ]; then
	report > "$dir/report.md"
	die "$controls controls failed: the series fails the mutants' tests; see $dir/control-*.txt"
fi
failed=0
for patch in "${mutants[@]}"; do
	run "$patch" || failed=$((failed + 1))
done
report > "$dir/report.md"
echo "mutants: ${#mutants[@]} run, $failed not caught; see $dir/report.md"
[ "$failed" = 0 ]
