#!/bin/bash
# Regenerate the queue of $KERNEL ($PATCHES in scripts/lib.sh) from branch
# 'qbulk' of its kernel tree: one folder per posting, each from the
# branch posting/NAME before it to its own (the last one to qbulk), with
# the branch description as cover letter 0000 and a series file in order.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

[ -d "$TREE/.git" ] || die "no tree at $TREE (make tree)"
[ -n "$(git -C "$TREE" rev-list base..qbulk)" ] || die "no commits on qbulk"
left=$(uncommitted "$TREE")
[ -z "$left" ] ||
	die "files no commit holds would be left out; commit them (git add -f for a new one):
$left"
branches=$(postings | sed 's|^|posting/|')
for branch in ${branches:-qbulk}; do
	[ -n "$(git -C "$TREE" config "branch.$branch.description")" ] ||
		die "no cover letter: git -C $TREE branch --edit-description $branch"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export_series "$TREE" "$tmp"
for name in $(postings); do
	rm -rf "${PATCHES:?}/$name"
done
rm -f "$PATCHES"/0*.patch
cp -r "$tmp"/. "$PATCHES/"
echo "export: $(find "$PATCHES" -name '0*.patch' | wc -l) files in $PATCHES/"
