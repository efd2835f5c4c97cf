#!/bin/bash
# 'make mutants': each sabotage patch of tests/mutants/ is applied on top of
# the series, the debug kernel rebuilt (incrementally, with ccache) and
# booted with only the tests its "Tests:" line names (and the properties
# of its "Virtio:" line on the sending virtio-net NIC); the mutant is caught
# when one of their cases fails (a KUnit case of a named suite, a case of a
# named kselftest), or the kernel splats where make check would see it.
# The tree is restored after each mutant, whatever happens. Results go to
# results/mutants/: NAME.txt per mutant, report.md for all of them. Fails
# unless every mutant ran and was caught.
#   mutants.sh [NAME...]   only these mutants (file names without .patch)
#   mutants.sh --report    only write report.md from the last results
set -uo pipefail
cd "$(dirname "$0")/.." || exit
. scripts/lib.sh

dir=results/mutants
mkdir -p "$dir"

# verdict NAME TESTS VM: what caught mutant NAME booted in VM, one line
# per failing case of TESTS, or nothing
verdict() {
	local status path detail test suite tap nic

	while IFS=$'\t' read -r status path detail; do
		[ "$status" = FAIL ] || continue
		suite=${path%% / *}
		[[ " $2 " == *" kunit:$suite "* ]] &&
			echo "kunit: $path${detail:+ ($detail)}"
	done < <(/usr/bin/python3 scripts/ktap.py "$3/kernel.log" 2>/dev/null)
	# ksft.tap, and ksft-NIC.tap for the driver tests on NIC
	for tap in "$3"/ksft*.tap; do
		nic=${tap##*/ksft}
		nic=${nic#-}
		nic=${nic%.tap}
		while IFS=$'\t' read -r status path detail; do
			[ "$status" = FAIL ] || continue
			test=$(sed -E 's/^selftests: (.*): /\1:/' <<< "${path%% / *}")
			[[ " $2 " == *" $test "* ]] &&
				echo "kselftest: $path${nic:+ ($nic)}${detail:+ ($detail)}"
		done < <(/usr/bin/python3 scripts/ktap.py "$tap" 2>/dev/null)
	done
	grep -E -m 1 "$splat" "$3/kernel.log" 2>/dev/null | sed 's/^/splat: /'
}

# run PATCH: one mutant, its result in $dir/NAME.txt
run() {
	local patch=$1 name tests ksft=() t vm start=$SECONDS append='' result

	name=$(basename "$patch" .patch)
	tests=$(sed -n 's/^Tests: //p' "$patch")
	vm=$BUILD/mutants/$name
	rm -rf "$vm"
	mkdir -p "$vm"
	echo "mutant $name: $(sed -n 's/^Promise: //p' "$patch")"
	if ! git -C "$TREE" apply "$PWD/$patch"; then
		result="does not apply"
	elif ! bash scripts/build.sh debug qbulk > "$vm/build.log" 2>&1; then
		result="does not build (see $vm/build.log)"
	else
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
			QBULK_VIRTIO_OPTS=$(sed -n 's/^Virtio: //p' "$patch") \
			bash scripts/vm.sh \
			-t 3000 -o "$vm" -- bash tests/guest.sh "${ksft[@]}" \
			> "$vm/guest.log" 2>&1
		verdict "$name" "$tests" "$vm" > "$vm/caught"
		if [ -s "$vm/caught" ]; then
			result=caught
		else
			result=missed
		fi
	fi
	git -C "$TREE" checkout -q -- .
	{
		echo "result: $result"
		echo "commit: $(git rev-parse --short HEAD)"
		echo "tests: $tests"
		echo "time: $((SECONDS - start)) s"
		sed 's/^/by: /' "$vm/caught" 2>/dev/null
	} > "$dir/$name.txt"
	echo "mutant $name: $result in $((SECONDS - start)) s"
	[ "$result" = caught ]
}

# ran_on TXT PATCH: the commit a mutant's last run was on, and whether the
# series or the mutant changed since
ran_on() {
	local commit

	commit=$(sed -n 's/^commit: //p' "$1" 2>/dev/null)
	if [ -z "$commit" ]; then
		echo "not stamped"
	elif git diff --quiet "$commit" HEAD -- patches "$2" 2>/dev/null; then
		echo "$commit"
	else
		echo "$commit (series changed since)"
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
	echo "so, and rows from before the stamp say \"not stamped\"."
	echo
	echo "| mutant | promise broken | tests | result | ran on | caught by | time |"
	echo "|---|---|---|---|---|---|---|"
	for patch in tests/mutants/*.patch; do
		name=$(basename "$patch" .patch)
		txt=$dir/$name.txt
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" \
			"$(sed -n 's/^Promise: //p' "$patch")" \
			"$(sed -n 's/^Tests: //p' "$patch")" \
			"$(sed -n 's/^result: //p' "$txt" 2>/dev/null || echo "not run")" \
			"$(ran_on "$txt" "$patch")" \
			"$(sed -n 's/^by: //p' "$txt" 2>/dev/null | head -3 |
				sed 's/|/\\|/g' | paste -s -d ';' | sed 's/;/; /g')" \
			"$(sed -n 's/^time: //p' "$txt" 2>/dev/null)"
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
trap 'git -C "$TREE" checkout -q -- .' EXIT

if [ $# -gt 0 ]; then
	mutants=("${@/%/.patch}")
	mutants=("${mutants[@]/#/tests/mutants/}")
else
	mutants=(tests/mutants/*.patch)
fi

failed=0
for patch in "${mutants[@]}"; do
	[ -f "$patch" ] || die "no mutant $patch"
	run "$patch" || failed=$((failed + 1))
done
report > "$dir/report.md"
echo "mutants: ${#mutants[@]} run, $failed not caught; see $dir/report.md"
[ "$failed" = 0 ]
