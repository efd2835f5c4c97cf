#!/bin/bash
# Lay out the kernel tree of $KERNEL: the pinned base as commit 'base',
# then the queue applied with 'git am' on branch 'qbulk' (apply_series).
#   tree.sh        build/linux-$KERNEL at base + series. Does nothing if the
#                  branch already matches the queue; refuses to drop
#                  commits or changes that were not exported.
#   tree.sh base   build/linux-$KERNEL-base, a worktree at 'base', for the
#                  base kernel
#   tree.sh pkt    build/linux-$KERNEL-pkt, a worktree at branch qbulk with
#                  bench/veth-packet-unit.patch applied, for make bench
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

stamp=$TREE/.git/qbulk-applied

unpack_base() {
	[ -d "$TREE/.git" ] && return
	echo "tree: unpacking $PACKAGE $VERSION into $TREE"
	bash scripts/fetch.sh
	mkdir -p "$TREE"
	tar -xJf "$TARBALL" -C "$TREE" --strip-components=1
	git -C "$TREE" init -q -b qbulk
	# -f: Debian's .gitignore ignores everything at the top level.
	git -C "$TREE" add -A -f
	# Fixed identity and date: the base commit id is the same everywhere.
	GIT_AUTHOR_DATE=2000-01-01T00:00:00Z \
	GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
		git -C "$TREE" -c user.name="$AUTHOR_NAME" \
		-c user.email="$AUTHOR_EMAIL" commit -q -m "base: $PACKAGE $VERSION"
	git -C "$TREE" tag base
	git -C "$TREE" config user.name "$AUTHOR_NAME"
	git -C "$TREE" config user.email "$AUTHOR_EMAIL"
}

# A checksum of the branch as it would be exported.
branch_sum() {
	local tmp

	tmp=$(mktemp -d)
	export_series "$TREE" "$tmp" 2>/dev/null
	queue_sum "$tmp"
	rm -rf "$tmp"
}

unpack_base
if [ "${1:-}" = base ]; then
	[ -d "$BASE_TREE" ] ||
		git -C "$TREE" worktree add -q --detach "$PWD/$BASE_TREE" base
	exit 0
fi
if [ "${1:-}" = pkt ]; then
	[ -d "$VARIANT_TREE" ] ||
		git -C "$TREE" worktree add -q --detach "$PWD/$VARIANT_TREE" qbulk
	git -C "$VARIANT_TREE" checkout -q --detach -f qbulk
	git -C "$VARIANT_TREE" apply "$PWD/bench/veth-packet-unit.patch"
	exit 0
fi

left=$(uncommitted "$TREE")
[ -z "$left" ] ||
	die "$TREE has files no commit holds; commit them (git add -f for a new one) and 'make export':
$left"
# The stamp: branch qbulk as laid out, and the files it was laid out from
inputs=$(queue_sum "$PATCHES" ${FIXUPS:+"$FIXUPS"})
head=$(git -C "$TREE" rev-parse -q --verify qbulk) || head=none
[ "$(cat "$stamp" 2>/dev/null)" != "$head $inputs" ] || exit 0
if [ -f "$stamp" ] && [ "$(cut -d' ' -f1 "$stamp")" != "$head" ]; then
	# The branch changed since: keep it if it is what the queue holds
	[ "$(branch_sum)" = "$(queue_sum "$QUEUE")" ] ||
		die "branch qbulk has commits not in $QUEUE/; 'make export' first"
	echo "$head $inputs" > "$stamp"
	exit 0
fi
# (no stamp while it applies: a run that stops halfway leaves none)
rm -f "$stamp"
apply_series "$TREE"
echo "$(git -C "$TREE" rev-parse qbulk) $inputs" > "$stamp"
echo "tree: $TREE at $(git -C "$TREE" log --oneline -1)"
