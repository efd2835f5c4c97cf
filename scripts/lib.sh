# Shared settings and helpers, sourced by the scripts from the repo root.
# shellcheck shell=bash disable=SC2034

# The kernel the series is applied to (base/linux-$KERNEL.pin): 7.3, the
# queue in patches/, or 6.12, the same queue with the fix-ups of
# backports/6.12/ (apply_backport).
KERNEL=${KERNEL:-7.3}
[ -f "base/linux-$KERNEL.pin" ] || {
	echo "no base/linux-$KERNEL.pin: KERNEL is 7.3 or 6.12" >&2
	exit 1
}
# shellcheck source=base/linux-7.3.pin
. "base/linux-$KERNEL.pin"
SUITE=${SUITE:-}
PATCHES=patches
FIXUPS=
[ "$KERNEL" = 7.3 ] || FIXUPS=backports/$KERNEL
# What 'make export' writes and the round trip compares: the queue on
# 7.3, the fix-ups on an older kernel.
QUEUE=${FIXUPS:-$PATCHES}

BUILD=build
TREE=$BUILD/linux-$KERNEL
BASE_TREE=$BUILD/linux-$KERNEL-base
# The series with bench/veth-packet-unit.patch on top, for make bench
VARIANT_TREE=$BUILD/linux-$KERNEL-pkt
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

# queue_sum DIR...: a checksum of the patch and fix-up files in DIRs
queue_sum() {
	find "$@" -name '0*.patch' -o -name '0*.diff' | sort | xargs cat |
		sha256sum | cut -d' ' -f1
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
# apply, in order, to 'base' alone: in an index of their own on 7.3 (the
# tree's checkout is left alone), by backport_patch in a worktree of
# their own on an older kernel
applies_on_base() {
	local index wt p rc=0

	if [ -n "$FIXUPS" ]; then
		wt=$(mktemp -d)
		git -C "$TREE" worktree add -q --detach "$wt" base || return
		for p in $(series_entries "$1" | grep -v '^0000-'); do
			(backport_patch "$wt" "${1##*/}/$p") || { rc=1; break; }
		done
		git -C "$TREE" worktree remove --force "$wt"
		return "$rc"
	fi
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

# apply_series DIR: the queue on the tree DIR: apply_queue on 7.3,
# apply_backport on an older kernel
apply_series() {
	if [ -n "$FIXUPS" ]; then
		apply_backport "$1"
	else
		apply_queue "$1"
	fi
}

# apply_queue DIR: reset branch qbulk of the git tree DIR to 'base' and
# apply the queue on it. Each posting ends at a branch posting/NAME, the
# last one at qbulk too; its cover letter's subject and text become that
# branch's description, from which export_series writes it back. A queue
# without postings keeps its cover letter on qbulk.
apply_queue() {
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

# fixup_of PATCH: the fix-up file of PATCH (POSTING/FILE of the queue)
fixup_of() {
	echo "$FIXUPS/${1%.patch}.diff"
}

# am_3way DIR PATCH: PATCH committed on the tree DIR by 'git am -3',
# whose merge base is the file the patch was made against (the 7.3
# tree's objects are an alternate of DIR's). A conflict is committed as
# it stands, markers included, for the patch's fix-up to resolve.
am_3way() {
	local dir=$1 patch=$2 f

	git -C "$dir" am -q -3 --committer-date-is-author-date "$patch" \
		> /dev/null 2>&1 && return
	git -C "$dir" diff --name-only --diff-filter=U | while read -r f; do
		if [ -e "$dir/$f" ]; then
			git -C "$dir" add -f -- "$f"
		else
			git -C "$dir" rm -q --cached -- "$f"
		fi
	done
	GIT_EDITOR=true git -C "$dir" am -q --continue
}

# backport_note DIR COMMIT: what the message of COMMIT adds to its
# patch's: a last paragraph "[ KERNEL: ... ]", the text of its fix-up
# before the diff
backport_note() {
	git -C "$1" log -1 --format=%B "$2" |
		awk '/^\[ [0-9.]+: /, 0'
}

# backport_patch DIR PATCH: PATCH (POSTING/FILE of patches/) on the tree
# DIR by am_3way, then its fix-up (fixup_of), if it has one: the fix-up
# resolves what the merge left, and adapts what must differ on this
# kernel; its text before the diff is added to the message. Fails if
# the fix-up no longer applies, or if a conflict is left, naming PATCH.
backport_patch() {
	local dir=$1 p=$2 fix

	am_3way "$dir" "$PWD/$PATCHES/$p"
	fix=$(fixup_of "$p")
	if [ -f "$fix" ]; then
		git -C "$dir" apply -q --allow-empty --index "$PWD/$fix" ||
			die "$p: its fix-up $fix no longer applies; fix the patch's commit on $TREE and export"
		{
			git -C "$dir" log -1 --format=%B
			echo
			sed '/^diff --git /,$d' "$fix"
		} | GIT_COMMITTER_DATE=$(git -C "$dir" log -1 --format=%aD) \
			git -C "$dir" commit -q --amend -F - --cleanup=whitespace
	fi
	# (grep reads all: with -q, git's SIGPIPE would fail the pipe)
	! git -C "$dir" show --format= HEAD |
		grep -E '^\+(<<<<<<<|>>>>>>>)( |$)' > /dev/null ||
		die "$p: does not apply to $KERNEL; resolve the conflict in $TREE, commit --amend and export"
}

# backport_objects DIR: the 7.3 tree's objects as an alternate of the
# tree DIR's, for am_3way's merge bases
backport_objects() {
	[ -d "$BUILD/linux-7.3/.git/objects" ] ||
		die "no $BUILD/linux-7.3: its objects are the merge bases (make tree KERNEL=7.3)"
	realpath --relative-to="$1/.git/objects" \
		"$BUILD/linux-7.3/.git/objects" > "$1/.git/objects/info/alternates"
}

# apply_backport DIR: reset branch qbulk of the tree DIR to 'base' and
# apply the queue of patches/ on it by backport_patch, each posting
# ending at posting/NAME as on 7.3. Stops at the first patch that fails,
# the tree left there.
apply_backport() {
	local dir=$1 p

	backport_objects "$dir"
	git -C "$dir" am --abort 2>/dev/null || true
	git -C "$dir" checkout -q -f -B qbulk base
	for p in $(series_patches); do
		backport_patch "$dir" "$p"
		[ "${p%/*}" = "$p" ] || git -C "$dir" branch -f "posting/${p%/*}"
	done
}

# export_backport DIR OUT: the fix-ups that turn each patch of patches/,
# applied by am_3way, into its commit on branch qbulk of DIR, written to
# OUT as fixup_of names them; those of the patches past the end of a
# branch that stopped at a conflict, as they are. The tree is left at
# qbulk.
export_backport() {
	local dir=$1 out=$2 commit p f note diff i
	local -a commits patches

	mapfile -t commits < <(git -C "$dir" rev-list --reverse base..qbulk)
	mapfile -t patches < <(series_patches)
	[ "${#commits[@]}" -le "${#patches[@]}" ] ||
		die "branch qbulk of $dir has more commits than patches/ patches"
	git -C "$dir" checkout -q --detach base
	for i in "${!patches[@]}"; do
		p=${patches[i]}
		commit=${commits[i]:-}
		# Past the end of a branch that stopped at a conflict: as is
		if [ -z "$commit" ]; then
			f=$(fixup_of "$p")
			[ ! -f "$f" ] || install -D -m 644 "$f" "$out/${p%.patch}.diff"
			continue
		fi
		am_3way "$dir" "$PWD/$PATCHES/$p"
		f=$out/${p%.patch}.diff
		note=$(backport_note "$dir" "$commit")
		diff=$(git -C "$dir" diff --full-index HEAD "$commit")
		if [ -n "$note$diff" ]; then
			mkdir -p "${f%/*}"
			printf '%s\n' ${note:+"$note"} ${diff:+"$diff"} > "$f"
		fi
		git -C "$dir" checkout -q --detach "$commit"
	done
	git -C "$dir" checkout -q qbulk
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
	if [ -n "$FIXUPS" ]; then
		export_backport "$dir" "$out"
		return
	fi
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
