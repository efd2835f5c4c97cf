#!/bin/bash
# 'make series-check': each patch of the series checked on its own, in
# order, as netdev's CI checks a series: the plain kernel built with W=1
# by gcc and by clang, and by gcc with the drivers and KUnit suites the
# series touches as modules (config/modules.config), incrementally from
# the patch before it, failing on any warning the patch adds to an object
# it rebuilds (scripts/warnings.py);
# the C files it touches built for i386 with W=1, failing on new warnings;
# kernel-doc -none -Wall on the files it touches, failing on new findings;
# checkpatch --strict (tests/checkpatch.allow applies); every selftest it
# adds listed in its directory's Makefile and every CONFIG_ option its
# selftests name present in their config; the posting rules of the
# posting it belongs to (posting_rules in scripts/lib.sh).
#   series-check.sh [FIRST]   start at patch FIRST (from 1), after a run
#                             that stopped before it
# The tree walks the series in a worktree of its own; builds use ccache.
# Results: build/series-check/ (logs), results/series-check-KERNEL/report.md.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
. scripts/lib.sh

first=${1:-1}
dir=$PWD/$BUILD/series-check-$KERNEL
wt=$dir/tree
results=results/series-check-$KERNEL
mkdir -p "$dir/logs" "$results"

bash scripts/tree.sh || exit
command -v clang-19 > /dev/null ||
	apt-get install -y -q --no-install-recommends clang-19 > /dev/null ||
	die "clang-19 is needed (7.3 wants LLVM 17 or later)"
[ -d "$wt" ] || git -C "$TREE" worktree add -q --detach "$wt" base || exit
mapfile -t commits < <(git -C "$TREE" rev-list --reverse base..qbulk)
mapfile -t patches < <(series_patches)
n=${#commits[@]}
[ "$n" = "${#patches[@]}" ] || die "patches/ and branch qbulk differ: make export"

declare -A cc_of=([gcc]="ccache gcc" [clang]="ccache clang-19"
	[modules]="ccache gcc" [i386]="ccache gcc")
declare -A arch_of=([gcc]=x86_64 [clang]=x86_64 [modules]=x86_64
	[i386]=i386)
kinds=(gcc clang modules)

# kbuild KIND LOG [TARGETS...]: configure and build out-KIND at the
# worktree's commit, the log in LOG (kbuild's object lines and warnings)
kbuild() {
	local kind=$1 log=$2 out=$dir/out-$1

	shift 2
	# The series adds Kconfig options: at a commit before them they are
	# dropped, so no option is checked for here.
	KCONFIG_ANY=1 kernel_config "$wt" "$out" plain qbulk \
		ARCH="${arch_of[$kind]}" CC="${cc_of[$kind]}" > "$log" 2>&1 ||
		return 1
	if [ "$kind" = modules ]; then
		"$wt/scripts/kconfig/merge_config.sh" -m -O "$out" \
			"$out/.config" config/modules.config > /dev/null &&
			make -s -C "$wt" O="$out" CC="${cc_of[$kind]}" \
				olddefconfig >> "$log" 2>&1 || return 1
		set -- "${@:-bzImage}" modules
	fi
	make -C "$wt" O="$out" ARCH="${arch_of[$kind]}" CC="${cc_of[$kind]}" \
		W=1 -j"$(nproc)" --output-sync=target "${@:-bzImage}" \
		>> "$log" 2>&1
}

# new_warnings KIND LOG: the warnings LOG adds (scripts/warnings.py)
new_warnings() {
	/usr/bin/python3 scripts/warnings.py "$dir/warnings-$1.json" "$2" "$wt"
}

# kdoc FILES...: kernel-doc's findings on those of FILES that exist, line
# numbers cut
kdoc() {
	local f

	for f in "$@"; do
		[ -f "$wt/$f" ] || continue
		(cd "$wt" && ./scripts/kernel-doc -none -Wall "$f" 2>&1) |
			sed -E 's/(\.[ch]):[0-9]+/\1/; s/ line [0-9]+/ line/'
	done | sort
}

# selftests COMMIT: the selftest files COMMIT adds are in their Makefile,
# the CONFIG_ options of the selftests it touches are in their config
selftests() {
	local commit=$1 f d base cfg opt

	while read -r f; do
		d=${f%/*}
		base=${f##*/}
		case $base in
		*.bpf.c) grep -qE "(\*\.bpf\.c|${base%.c}\.o)" "$wt/$d/Makefile" ||
			echo "$f: not built by $d/Makefile" ;;
		*.sh | *.py)
			[[ $d == */lib/* || $d == */lib ]] && continue
			grep -qw -- "$base" "$wt/$d/Makefile" ||
				echo "$f: not listed in $d/Makefile" ;;
		esac
	done < <(git -C "$wt" diff --name-only --diff-filter=A "$commit~" "$commit" \
		-- tools/testing/selftests)
	while read -r f; do
		d=${f%/*}
		cfg=
		while [[ $d == tools/testing/selftests/* ]]; do
			[ -f "$wt/$d/config" ] && { cfg=$d/config; break; }
			d=${d%/*}
		done
		while read -r opt; do
			[ -n "$cfg" ] && grep -q "^$opt=" "$wt/$cfg" ||
				echo "$f: $opt not in ${cfg:-a config}"
		done < <(grep -ohE 'CONFIG_[A-Z0-9_]+' "$wt/$f" | sort -u)
	done < <(git -C "$wt" diff --name-only --diff-filter=AM "$commit~" "$commit" \
		-- 'tools/testing/selftests/*.sh' 'tools/testing/selftests/*.py')
}

# check NAME LOG CMD...: run CMD into LOG; "ok" if it passed and printed
# nothing, else "FAIL" (the log keeps why)
check() {
	local name=$1 log=$2

	shift 2
	if "$@" > "$log" 2>&1 && [ ! -s "$log" ]; then
		echo ok
	else
		echo "FAIL"
		echo "series-check: $name failed, see $log" >&2
	fi
}

# The state before FIRST: the warnings of every object built there.
start=$SECONDS
git -C "$wt" checkout -q --detach "${commits[first - 1]}~" || exit
for kind in "${kinds[@]}"; do
	progress "series-check: before patch $first, $kind" \
		"series-check-$KERNEL-start-$kind" \
		kbuild "$kind" "$dir/logs/start-$kind.log" ||
		die "the tree before patch $first does not build ($kind): see $dir/logs/start-$kind.log"
	new_warnings "$kind" "$dir/logs/start-$kind.log" > /dev/null
done

rows=$dir/rows
[ "$first" -gt 1 ] || : > "$rows"
sed -i "/^| $first |/,\$d" "$rows" 2>/dev/null
failed=0
for ((i = first; i <= n; i++)); do
	commit=${commits[i - 1]}
	p=${patches[i - 1]}
	t0=$SECONDS
	left=""
	((i > first)) &&
		left=", about $(hms $(((SECONDS - start) * (n - i + 1) / (i - first)))) left"
	echo "series-check: patch $i of $n, $p$left" >&2
	log=$dir/logs/$i
	row=()

	# Files and C objects the patch touches, before it (for i386 and
	# kernel-doc, which have no earlier build to compare with)
	mapfile -t files < <(git -C "$wt" diff --name-only "$commit~" "$commit" |
		grep -E '\.[ch]$' | grep -v -E '^(tools|scripts|Documentation)/')
	# (only those a Makefile names: a file #included by another, as a
	# KUnit suite may be, is no object of its own)
	mapfile -t objs < <(for f in "${files[@]}"; do
		[[ $f == *.c ]] || continue
		o=${f%.c}.o
		git -C "$wt" show "$commit:${f%/*}/Makefile" 2>/dev/null |
			grep -qw -- "${o##*/}" && echo "$o"
	done)
	git -C "$wt" checkout -q --detach "$commit~"
	kdoc "${files[@]}" > "$log-kdoc-before"
	if [ ${#objs[@]} -gt 0 ]; then
		kbuild i386 "$log-i386-before.log" -k "${objs[@]}"
		new_warnings i386 "$log-i386-before.log" > /dev/null
	fi
	git -C "$wt" checkout -q --detach "$commit"

	for kind in "${kinds[@]}"; do
		if progress "series-check: patch $i of $n, $kind" \
			"series-check-$KERNEL-$kind" \
			kbuild "$kind" "$log-$kind.log"; then
			row+=("$(check "patch $i: $kind W=1" "$log-$kind-new" \
				new_warnings "$kind" "$log-$kind.log")")
		else
			row+=("FAIL (build)")
			echo "series-check: patch $i does not build with $kind, see $log-$kind.log" >&2
		fi
	done
	if [ ${#objs[@]} -eq 0 ]; then
		row+=(-)
	elif kbuild i386 "$log-i386.log" "${objs[@]}"; then
		row+=("$(check "patch $i: i386" "$log-i386-new" \
			new_warnings i386 "$log-i386.log")")
	else
		row+=("FAIL (build)")
		echo "series-check: patch $i does not build for i386, see $log-i386.log" >&2
	fi
	kdoc "${files[@]}" > "$log-kdoc-after"
	row+=("$(check "patch $i: kernel-doc" "$log-kdoc-new" \
		comm -13 "$log-kdoc-before" "$log-kdoc-after")")
	row+=("$(check "patch $i: checkpatch" "$log-checkpatch" \
		checkpatch_findings "$PATCHES/$p" --no-signoff)")
	row+=("$(check "patch $i: selftests" "$log-selftests" \
		selftests "$commit")")
	if [[ $p == */* ]]; then
		row+=("$(check "patch $i: posting rules" "$log-rules" \
			posting_rules "$PATCHES/${p%%/*}")")
	else
		row+=(-)
	fi
	[[ " ${row[*]} " != *FAIL* ]] || failed=$((failed + 1))
	cells=$(printf '%s | ' "${row[@]}")
	printf '| %s | %s | %s%s |\n' "$i" "${p%.patch}" "$cells" \
		"$(hms $((SECONDS - t0)))" >> "$rows"
done

{
	echo "# make series-check: each patch on its own"
	echo
	echo "Linux $VERSION, series at commit $(git rev-parse --short HEAD) of"
	echo "this repository; plain config, W=1; gcc $(gcc -dumpversion), also"
	echo "with config/modules.config (modules),"
	echo "$(clang-19 --version | head -1); i386: the C files each patch touches."
	echo "Patches $first to $n in this run, $(hms $((SECONDS - start))) on $(nproc) cores."
	echo
	echo "| patch | file | gcc | clang | modules | i386 | kernel-doc | checkpatch | selftests | posting rules | time |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	cat "$rows"
} > "$results/report.md"
echo "series-check: $n patches, $failed failed; see $results/report.md"
[ "$failed" = 0 ]
