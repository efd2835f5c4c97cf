#!/bin/bash
# posting_rules (scripts/lib.sh) on copies of the queue's postings, each
# broken in one way: every broken rule must fail with its own message,
# and the unbroken copies, stored and rendered, must pass.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
. scripts/lib.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fix=$(postings | while read -r p; do
	[ "$(posting_tree "$p")" != net ] || echo "$p"; done | head -n 1)
feature=$(postings | while read -r p; do
	[ "$(posting_tree "$p")" != net-next ] || echo "$p"; done | head -n 1)
if [ -z "$fix" ] || [ -z "$feature" ]; then
	die "no net and net-next postings"
fi
n=0 bad=0

# copy POSTING [AS]: a fresh copy of POSTING in $tmp (named AS), printed
copy() {
	local dir=$tmp/${2:-$1}

	rm -rf "$dir"
	cp -r "$PATCHES/$1" "$dir"
	echo "$dir"
}

# render DIR: what make postings does to DIR's subjects and sign-offs
render() {
	local f

	sed -i -E '1,/^$/s/^Subject: \[PATCH ([a-z-]+) /Subject: [PATCH \1 v2 /' \
		"$1"/0*.patch
	for f in "$1"/0*.patch; do
		[[ $f == */0000-* ]] || git interpret-trailers --in-place \
			--trailer "Signed-off-by: Jane Poster <jane@poster.dev>" "$f"
	done
}

# expect WANT DIR [rendered]: the rules fail on DIR, saying WANT; with
# WANT empty, they pass
expect() {
	local want=$1 got rc

	shift
	got=$(posting_rules "$@")
	rc=$?
	n=$((n + 1))
	if [ -z "$want" ] && [ "$rc" = 0 ]; then
		echo "ok $n - ${1##*/} passes"
	elif [ -n "$want" ] && [ "$rc" != 0 ] && [[ $got == *"$want"* ]]; then
		echo "ok $n - $want"
	else
		echo "not ok $n - ${want:-${1##*/} passes}: exit $rc, said: $got"
		bad=1
	fi
}

first() { # first DIR: DIR's first patch after the cover letter
	find "$1" -name '0*.patch' ! -name '0000-*' | sort | head -n 1
}

echo "TAP version 13"
for p in $(postings); do
	expect "" "$(copy "$p")"
done
d=$(copy "$fix")
render "$d"
expect "" "$d" rendered

d=$(copy "$feature" 3-net-next-many)
src=$(first "$d")
for i in $(seq 2 16); do
	cp "$src" "$d/$(printf '%04d' "$i")-copy.patch"
done
expect "more than netdev's 15" "$d"

d=$(copy "$fix")
sed -i -E '1,/^$/s/^Subject: \[PATCH net /Subject: [PATCH net-next /' "$(first "$d")"
expect "subject not [PATCH net i/n]" "$d"

d=$(copy "$fix")
sed -i -E '1,/^$/s/^Subject: \[PATCH net /Subject: [PATCH /' "$(first "$d")"
expect "subject not [PATCH net i/n]" "$d"

d=$(copy "$fix" 1-fixes)
expect "names no tree" "$d"

d=$(copy "$fix")
rm "$d/0000-cover-letter.patch"
expect "no cover letter" "$d"

d=$(copy "$fix")
sed -i -E 's/^(Fixes: [0-9a-f]{8})[0-9a-f]{4} /\1 /' "$(first "$d")"
expect "malformed: Fixes:" "$d"

d=$(copy "$fix")
sed -i -E 's/^(Fixes: [0-9a-f]{12}) \("(.*)"\)$/\1 \2/' "$(first "$d")"
expect "malformed: Fixes:" "$d"

d=$(copy "$fix")
sed -i '/^Fixes: /d' "$(first "$d")"
expect "no Fixes: tag in a fix posting" "$d"

d=$(copy "$feature")
sed -i '0,/^---$/s//Fixes: 75957ba36c05 ("dql: Dynamic queue limits")\n---/' \
	"$(first "$d")"
expect "a fix (Fixes: tag) in a net-next posting" "$d"

d=$(copy "$fix")
expect "subject not [PATCH net vN i/n]" "$d" rendered

d=$(copy "$fix")
render "$d"
sed -i '/^Signed-off-by: /d' "$(first "$d")"
expect "no Signed-off-by:" "$d" rendered

d=$(copy "$fix")
render "$d"
sed -i "s/^Signed-off-by: .*/Signed-off-by: $AUTHOR_NAME <$AUTHOR_EMAIL>/" \
	"$(first "$d")"
expect "placeholder sign-off" "$d" rendered

d=$(copy "$fix")
render "$d"
sed -i "s/^Signed-off-by: .*/Signed-off-by: Jane Poster <jane@users.noreply.example>/" \
	"$(first "$d")"
expect "placeholder sign-off" "$d" rendered

echo "1..$n"
exit "$bad"
