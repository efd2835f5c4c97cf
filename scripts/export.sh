#!/bin/bash
# Regenerate the queue of $KERNEL ($QUEUE in scripts/lib.sh) from branch
# 'qbulk' of its kernel tree: on 7.3, one folder per posting, each from
# the branch posting/NAME before it to its own (the last one to qbulk),
# with the branch description as cover letter 0000 and a series file in
# order; on 6.12, the fix-ups of backports/6.12/ (export_backport).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

[ -d "$TREE/.git" ] || die "no tree at $TREE (make tree)"
[ -n "$(git -C "$TREE" rev-list base..qbulk)" ] || die "no commits on qbulk"
left=$(uncommitted "$TREE")
[ -z "$left" ] ||
	die "files no commit holds would be left out; commit them (git add -f for a new one):
$left"
if [ -z "$FIXUPS" ]; then
	branches=$(postings | sed 's|^|posting/|')
	for branch in ${branches:-qbulk}; do
		[ -n "$(git -C "$TREE" config "branch.$branch.description")" ] ||
			die "no cover letter: git -C $TREE branch --edit-description $branch"
	done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export_series "$TREE" "$tmp"
for name in $(postings); do
	rm -rf "${QUEUE:?}/$name"
done
rm -f "$QUEUE"/0*.patch
mkdir -p "$QUEUE"
cp -r "$tmp"/. "$QUEUE/"
echo "export: $(find "$QUEUE" -name '0*.patch' -o -name '0*.diff' | wc -l) files in $QUEUE/"
