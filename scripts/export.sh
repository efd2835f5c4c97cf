#!/bin/bash
# Regenerate patches/ from branch 'qbulk' of the kernel tree: one file per
# commit since 'base', the cover letter (the branch description) as 0000,
# and patches/series in order.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

[ -d "$TREE/.git" ] || die "no tree at $TREE (make tree)"
[ -n "$(git -C "$TREE" rev-list base..qbulk)" ] || die "no commits on qbulk"
[ -n "$(git -C "$TREE" config branch.qbulk.description)" ] ||
	die "no cover letter: git -C $TREE branch --edit-description qbulk"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export_series "$TREE" "$tmp"
rm -f patches/0*.patch
cp "$tmp"/*.patch patches/
{
	echo "# qbulk patch queue, applied in this order; 0000 is the cover letter."
	(cd "$tmp" && ls -- *.patch)
} > patches/series
echo "export: $(grep -c '^0' patches/series) files in patches/"
