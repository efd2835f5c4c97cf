#!/bin/bash
# Regenerate the queue of $KERNEL ($PATCHES in scripts/lib.sh) from branch
# 'qbulk' of its kernel tree: one file per commit since 'base', the cover
# letter (the branch description) as 0000, and the series file in order.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

[ -d "$TREE/.git" ] || die "no tree at $TREE (make tree)"
[ -n "$(git -C "$TREE" rev-list base..qbulk)" ] || die "no commits on qbulk"
left=$(uncommitted "$TREE")
[ -z "$left" ] ||
	die "files no commit holds would be left out; commit them (git add -f for a new one):
$left"
[ -n "$(git -C "$TREE" config branch.qbulk.description)" ] ||
	die "no cover letter: git -C $TREE branch --edit-description qbulk"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export_series "$TREE" "$tmp"
rm -f "$PATCHES"/0*.patch
cp "$tmp"/*.patch "$PATCHES/"
{
	echo "# qbulk patch queue, applied in this order; 0000 is the cover letter."
	(cd "$tmp" && ls -- *.patch)
} > "$PATCHES/series"
echo "export: $(grep -c '^0' "$PATCHES/series") files in $PATCHES/"
