# Shared settings and helpers, sourced by the scripts from the repo root.
# shellcheck shell=bash disable=SC2034

# The kernel the series is applied to: 7.3, the primary queue in patches/,
# or 6.12, the backport queue in backports/6.12/ (base/linux-$KERNEL.pin).
KERNEL=${KERNEL:-7.3}
[ -f "base/linux-$KERNEL.pin" ] || {
	echo "no base/linux-$KERNEL.pin: KERNEL is 7.3 or 6.12" >&2
	exit 1
}
# shellcheck source=base/linux-7.3.pin
. "base/linux-$KERNEL.pin"
SUITE=${SUITE:-}
PATCHES=patches
[ "$KERNEL" = 7.3 ] || PATCHES=backports/$KERNEL

BUILD=build
TREE=$BUILD/linux-$KERNEL
BASE_TREE=$BUILD/linux-$KERNEL-base
AUTHOR_NAME="qbulk maintainers"
AUTHOR_EMAIL="qbulk@example.org"

# debian_uri: the mirror this machine uses for bookworm
debian_uri() {
	# shellcheck disable=SC2016 # apt's own field syntax
	apt-get indextargets --format '$(REPO_URI)' \
		'Codename: bookworm' 'Component: main' | awk 'NR == 1'
}

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# series_entries DIR: the entries of DIR/series, in order
series_entries() {
	grep -v -E '^[[:space:]]*(#|$)' "$1/series"
}

# The postings of the queue in order: the folders of the patches that
# $PATCHES/series lists as FOLDER/FILE (or FOLDER/ alone, for a new
# posting before its first export). A queue whose series lists its own
# files (the 6.12 backport) has none.
postings() {
	series_entries "$PATCHES" | awk -F / 'NF > 1 && !seen[$1]++ { print $1 }'
}

# posting_tree NAME: the tree a posting folder N-TREE-TOPIC is sent to
posting_tree() {
	local tree=${1#*-}

	case $tree in
	net-next-*) echo net-next ;;
	iwl-net-*) echo iwl-net ;;
	iwl-next-*) echo iwl-next ;;
	net-*) echo net ;;
	*) return 1 ;;
	esac
}

# The patches of the queue in order, cover letters excluded, as paths
# under $PATCHES: POSTING/FILE, or FILE in a queue without postings.
series_patches() {
	series_entries "$PATCHES" | grep -v -E '(^|/)0000-|/$'
}

# queue_sum DIR: a checksum of the patch files of a queue laid out in DIR
queue_sum() {
	find "$1" -name '0*.patch' | sort | xargs cat | sha256sum | cut -d' ' -f1
}

# Kernel output directory for a flavour (debug|plain) and source (qbulk|base).
kernel_out() {
	echo "$BUILD/out-$KERNEL-$2-$1"
}

# config_fragments FLAVOUR SOURCE: the kconfig fragments of a VM kernel,
# one per line: config/vm.config (+ vm-KERNEL.config) + FLAVOUR, and the
# options the series adds when SOURCE is qbulk
config_fragments() {
	echo config/vm.config
	echo "config/$1.config"
	[ ! -f "config/vm-$KERNEL.config" ] || echo "config/vm-$KERNEL.config"
	[ "$2" != qbulk ] || echo config/qbulk.config
}

# kernel_config TREE OUT FLAVOUR SOURCE [MAKE ARGS...]: OUT/.config from
# tinyconfig and config_fragments, with MAKE ARGS (CC=, ARCH=). Fails if
# Kconfig dropped an option the fragments set, which it does without a
# word when the option's dependencies are unmet; with ARCH=i386 only
# CONFIG_64BIT is let go, with KCONFIG_ANY=1 every option.
kernel_config() {
	local tree=$1 out=$2 missing
	local -a fragments

	mapfile -t fragments < <(config_fragments "$3" "$4")
	shift 4
	mkdir -p "$out"
	make -s -C "$tree" O="$out" "$@" tinyconfig
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"${fragments[@]}" > /dev/null
	make -s -C "$tree" O="$out" "$@" olddefconfig
	[ -z "${KCONFIG_ANY:-}" ] || return 0
	missing=$(grep -h '^CONFIG_' "${fragments[@]}" |
		while read -r line; do
			want=${line%%=*}
			val=${line#*=}
			if [ "$val" = n ]; then
				grep -q "^$want=" "$out/.config" && echo "$want"
			else
				grep -qxF "$line" "$out/.config" || echo "$want"
			fi
		done) || true
	[[ " $* " != *" ARCH=i386 "* ]] || missing=${missing//CONFIG_64BIT/}
	[ -z "${missing//[[:space:]]/}" ] ||
		die "options not set as asked: $missing"
}

# checkpatch_findings PATCH [OPTIONS...]: what checkpatch --strict (and
# OPTIONS) finds in the file PATCH, but for those tests/checkpatch.allow
# accepts, as "FILE: TYPE: MESSAGE"
checkpatch_findings() {
	local patch

	patch=$(realpath "$1")
	shift
	# checkpatch exits 1 when it finds anything, accepted or not: only
	# a failure of its own counts (callers may run with pipefail)
	(cd "$TREE" && { ./scripts/checkpatch.pl --strict --quiet --terse \
		--showfile "$@" "$patch"; [ $? -le 1 ]; }) |
		sed -E '/^total: /d; s/^([^:]*):[0-9]+: /\1: /' |
		awk 'NR == FNR {
			if (!/^#/ && NF) { n = $1; sub(/^[0-9]+ /, ""); allow[$0] = n }
			next
		}
		($0 in allow) && allow[$0]-- > 0 { next }
		{ print }' tests/checkpatch.allow -
}

# placeholder_identity NAME EMAIL: whether NAME <EMAIL> cannot sign off a
# patch: empty, the queue's own identity, or an address that reaches
# nobody (reserved domains, no-reply addresses)
placeholder_identity() {
	[ -z "$1" ] || [ "$1" = "$AUTHOR_NAME" ] || [[ $2 != ?*@?*.?* ]] ||
		[[ ${2,,} =~ (noreply|no-reply|@(.*\.)?example\.(com|net|org)$|\.(example|invalid|test|localhost|local)$) ]]
}

# patch_lines PATCH: the patch's subject (unfolded), and its Fixes: and
# Signed-off-by: lines, each as "subject|fixes|signoff TEXT"
patch_lines() {
	awk '
		hdr == 0 && /^Subject: / { subj = substr($0, 10); folded = 1; next }
		hdr == 0 && folded && /^[ \t]/ { sub(/^[ \t]+/, " "); subj = subj $0; next }
		hdr == 0 && /^$/ { hdr = 1; print "subject " subj; next }
		hdr == 0 { folded = 0; next }
		hdr == 1 && /^---$/ { exit }
		hdr == 1 && /^Fixes:/ { print "fixes " $0 }
		hdr == 1 && /^Signed-off-by:/ { print "signoff " substr($0, 16) }
	' "$1"
}

# posting_rules DIR [rendered]: the rules netdev applies to a posting,
# checked on the posting folder DIR (N-TREE-TOPIC): a cover letter, 1 to
# 15 patches, each subject [PATCH TREE i/n] (with vN once rendered), a
# Fixes: tag of the form 'Fixes: <12 hex> ("subject")' on every patch of
# a fix tree (net, iwl-net) and on none of a feature tree; once rendered,
# a Signed-off-by: on every patch and none of a placeholder identity.
# Prints each broken rule; fails if any.
posting_rules() {
	local dir=$1 rendered=${2:-} posting tree n=0 f kind text v='' bad=0
	local fixes sob

	posting=$(basename "$dir")
	say() { echo "$posting: $*"; bad=1; }
	tree=$(posting_tree "$posting") || {
		say "the folder name names no tree (net, net-next, iwl-net, iwl-next)"
		return 1
	}
	[ -z "$rendered" ] || v=' v[0-9]+'
	[ -f "$dir/0000-cover-letter.patch" ] || say "no cover letter"
	for f in "$dir"/0*.patch; do
		[ -f "$f" ] || continue
		[[ $f == */0000-* ]] && continue
		n=$((n + 1))
		fixes=0 sob=0
		while read -r kind text; do
			case $kind in
			subject)
				[[ $text =~ ^\[PATCH\ $tree$v\ [0-9]+/[0-9]+\]\  ]] ||
					say "${f##*/}: subject not [PATCH $tree${v:+ vN} i/n]: $text" ;;
			fixes)
				fixes=$((fixes + 1))
				[[ $text =~ ^Fixes:\ [0-9a-f]{12}\ \(\".+\"\)$ ]] ||
					say "${f##*/}: malformed: $text" ;;
			signoff)
				sob=$((sob + 1))
				local who=${text% <*} mail=${text##*<}
				! placeholder_identity "$who" "${mail%>}" ||
					say "${f##*/}: placeholder sign-off: $text" ;;
			esac
		done < <(patch_lines "$f")
		case $tree in
		net | iwl-net) [ "$fixes" -gt 0 ] ||
			say "${f##*/}: no Fixes: tag in a fix posting" ;;
		*) [ "$fixes" = 0 ] ||
			say "${f##*/}: a fix (Fixes: tag) in a $tree posting" ;;
		esac
		[ -z "$rendered" ] || [ "$sob" -gt 0 ] ||
			say "${f##*/}: no Signed-off-by:"
	done
	[ "$n" -gt 0 ] || say "no patches"
	[ "$n" -le 15 ] || say "$n patches, more than netdev's 15"
	return "$bad"
}

# applies_on_base DIR: whether the patches of the posting folder DIR
# apply, in order, to 'base' alone (in an index of their own: the tree's
# checkout is left alone)
applies_on_base() {
	local index p rc=0

	index=$(mktemp)
	GIT_INDEX_FILE=$index git -C "$TREE" read-tree base
	for p in $(series_entries "$1" | grep -v '^0000-'); do
		GIT_INDEX_FILE=$index git -C "$TREE" apply --cached \
			"$(realpath "$1/$p")" || { rc=1; break; }
	done
	rm -f "$index"
	return "$rc"
}

# cover_description COVER: the subject and text of a cover letter, as
# the branch description export_series writes it back from
cover_description() {
	awk -v author="$AUTHOR_NAME" '
		BEGIN { hdr = 1 }
		hdr && /^Subject: / {
			sub(/^Subject: \[PATCH[^]]*\] /, ""); subj = $0; folded = 1
			next
		}
		hdr && folded && /^ / { subj = subj $0; next }
		hdr && /^$/ { hdr = 0; print subj; print ""; next }
		hdr { folded = 0; next }
		index($0, author " (") == 1 { exit }
		{ print }
	' "$1"
}

# apply_series DIR: reset branch qbulk of the git tree DIR to 'base' and
# apply the queue on it. Each posting ends at a branch posting/NAME, the
# last one at qbulk too; its cover letter's subject and text become that
# branch's description, from which export_series writes it back. A queue
# without postings keeps its cover letter on qbulk.
apply_series() {
	local dir=$1 p name

	git -C "$dir" am --abort 2>/dev/null || true
	git -C "$dir" checkout -q -B qbulk base
	for p in $(series_patches); do
		git -C "$dir" am -q --committer-date-is-author-date \
			"$PWD/$PATCHES/$p"
		name=${p%/*}
		[ "$name" = "$p" ] || git -C "$dir" branch -f "posting/$name"
	done
	for name in $(postings); do
		git -C "$dir" config "branch.posting/$name.description" \
			"$(cover_description "$PATCHES/$name/0000-cover-letter.patch")"
	done
	[ -f "$PATCHES/0000-cover-letter.patch" ] || return 0
	git -C "$dir" config branch.qbulk.description \
		"$(cover_description "$PATCHES/0000-cover-letter.patch")"
}

# uncommitted DIR: what in the kernel tree DIR no commit holds: changed
# files, and new ones, which Debian's .gitignore hides from 'git status';
# Python's byte code and checkpatch's cache excepted.
uncommitted() {
	git -C "$1" status --porcelain --untracked-files=no
	git -C "$1" ls-files --others |
		sed -E '/(^|\/)__pycache__\/|^\.checkpatch-camelcase\./d; s/^/?? /'
}

# format_range DIR OUT RANGE [OPTIONS...]: RANGE of the git tree DIR as
# patch files in OUT, with a cover letter from the description of RANGE's
# last branch. The output depends only on the commits.
format_range() {
	local dir=$1 out=$2 range=$3 date

	shift 3
	mkdir -p "$out"
	# A fixed abbreviation: git sizes it by the object count otherwise.
	git -C "$dir" -c core.abbrev=12 format-patch -q -o "$out" \
		--zero-commit --no-signature --base=base --cover-letter \
		--cover-from-description=subject "$@" "$range"
	# The cover letter is dated now; date it as the newest patch instead.
	date=$(git -C "$dir" log -1 --format=%aD "${range#*..}")
	sed -i "3s/^Date: .*/Date: $date/" "$out/0000-cover-letter.patch"
	{
		echo "# qbulk patch queue, applied in this order; 0000 is the cover letter."
		(cd "$out" && ls -- *.patch)
	} > "$out/series"
}

# export_series DIR OUT: write branch qbulk of DIR as the queue in OUT:
# one folder per posting of $PATCHES/series, each from the posting before
# it (or 'base') to its branch posting/NAME, the last one to qbulk.
export_series() {
	local dir=$1 out prev=base name last

	out=$(cd "$2" && pwd)
	last=$(postings | tail -n 1)
	if [ -z "$last" ]; then
		format_range "$dir" "$out" base..qbulk
		return
	fi
	git -C "$dir" branch -f "posting/$last" qbulk
	for name in $(postings); do
		format_range "$dir" "$out/$name" "$prev..posting/$name" \
			--subject-prefix="PATCH $(posting_tree "$name")"
		prev=posting/$name
	done
	{
		echo "# The patches of the postings, in the order they are applied and"
		echo "# sent; each posting's folder has its cover letter and series."
		for name in $(postings); do
			series_entries "$out/$name" | grep -v '^0000-' |
				sed "s|^|$name/|"
		done
	} > "$out/series"
}

# What in a guest's kernel log is a splat: make check fails on one, and
# make mutants counts one as caught.
splat='WARNING:|BUG:|Oops|Kernel panic|KASAN|UBSAN|general protection'
splat+='|possible (circular|recursive) locking|inconsistent lock state'
splat+='|suspicious RCU usage|NETDEV WATCHDOG|INFO: task .* blocked'
splat+='|rcu: .*self-detected stall|rcu: INFO: .* detected stalls'
splat+='|unregister_netdevice: waiting for|page_pool_release_retry\(\) stalled'

# hms SECONDS: the time as 1m05s
hms() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# progress LABEL NAME CMD...: run CMD and, while it runs, the time spent
# against the last successful run's (kept as $BUILD/times/NAME), on
# stderr: one line updated in place on a terminal, else a line a minute
# (a CI log).
progress() {
	local label=$1 file=$BUILD/times/$2 start=$SECONDS last="" pid el
	local next=60 rc=0

	shift 2
	[ -s "$file" ] && last=" of about $(hms "$(cat "$file")") last time"
	"$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		el=$((SECONDS - start))
		if [ -t 2 ]; then
			printf '\r%s: %s%s ' "$label" "$(hms "$el")" "$last" >&2
		elif ((el >= next)); then
			echo "$label: $(hms "$el")$last" >&2
			next=$((next + 60))
		fi
	done
	wait "$pid" || rc=$?
	if [ -t 2 ]; then
		printf '\r\033[K' >&2
	fi
	((rc == 0)) || return "$rc"
	mkdir -p "${file%/*}"
	echo $((SECONDS - start)) > "$file"
	echo "$label: done in $(hms $((SECONDS - start)))" >&2
}
