#!/bin/bash
# 'make postings': the queue rendered as the mails 'git send-email' sends,
# one folder per posting in build/postings/: subjects [PATCH TREE vV i/n]
# (no vV on the first version), the poster (git config user.name and
# user.email) as author, in every Signed-off-by: and in the MAINTAINERS
# entries the series adds, To: the lists and Cc: the people that the base
# tree's get_maintainer.pl names.
# Each rendered posting must pass the posting rules and checkpatch
# --strict (tests/checkpatch.allow applies); a placeholder identity is
# refused before anything is written.
#   postings.sh [V]   version V of the postings (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

version=${1:-1}
out=$BUILD/postings
# a first posting carries no version, as git format-patch -v1 would not
tag=" v$version"
[ "$version" != 1 ] || tag=""
name=$(git config user.name || true)
email=$(git config user.email || true)
poster="$name <$email>"

placeholder_identity "$name" "$email" &&
	die "'$poster' is not a poster's identity: set git config user.name and user.email to yours"
[ -n "$(postings)" ] || die "$PATCHES/ has no postings"
bash scripts/tree.sh

# get_maintainer.pl reads the base's MAINTAINERS: the entries the series
# adds name the poster, who is Cc'd anyway.
maintainers=$(mktemp)
trap 'rm -f "$maintainers"' EXIT
git -C "$TREE" show base:MAINTAINERS > "$maintainers"

# get_maintainer ARGS... PATCHES...: one address per line
get_maintainer() {
	(cd "$TREE" && ./scripts/get_maintainer.pl --mpath "$maintainers" \
		--no-rolestats --nogit --nogit-fallback --no-tree "$@")
}

# headers FIELD ADDRESS...: "FIELD: a, b" folded one address a line
headers() {
	local field=$1

	shift
	[ $# -gt 0 ] || return 0
	printf '%s: %s' "$field" "$1"
	shift
	[ $# -eq 0 ] || printf ',\n %s' "$@"
	echo
}

rm -rf "$out"
failed=0
for posting in $(postings); do
	dir=$out/$posting
	mkdir -p "$dir"
	cp "$PATCHES/$posting"/*.patch "$dir/"
	mapfile -t patches < <(find "$(realpath "$dir")" -name '0*.patch' \
		! -name '0000-*' | sort)
	mapfile -t to < <(get_maintainer --no-m --no-r "${patches[@]}")
	mapfile -t cc < <(get_maintainer --no-l "${patches[@]}" |
		grep -vxF "$poster" || true)
	hdrs=$(headers To "${to[@]}"; headers Cc "${cc[@]}")
	for f in "$dir"/0*.patch; do
		sed -i -E \
			-e "1,/^\$/s/^Subject: \[PATCH ([a-z-]+) /Subject: [PATCH \\1$tag /" \
			-e "s/$AUTHOR_NAME <$AUTHOR_EMAIL>/$poster/g" \
			-e "s/^$AUTHOR_NAME \(([0-9]+)\):\$/$name (\\1):/" "$f"
		awk -v hdrs="$hdrs" '{ print } NR == 3 && hdrs != "" { print hdrs }' \
			"$f" > "$f.new"
		mv "$f.new" "$f"
		[[ $f == */0000-* ]] ||
			git interpret-trailers --in-place \
				--trailer "Signed-off-by: $poster" "$f"
	done
	if ! posting_rules "$dir" rendered; then
		failed=1
	fi
	for f in "${patches[@]}"; do
		findings=$(checkpatch_findings "$f")
		[ -z "$findings" ] || {
			echo "$posting: checkpatch: $findings"
			failed=1
		}
	done
	echo "postings: $posting: $((${#patches[@]})) patches, To: ${#to[@]}, Cc: ${#cc[@]}"
done
[ "$failed" = 0 ] || die "the postings in $out break the rules above"
echo "postings: ready in $out; send each with git send-email --dry-run first"
