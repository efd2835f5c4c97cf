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

# The patches of the series in order, cover letter excluded.
series_patches() {
	grep -v -E '^[[:space:]]*(#|$)' "$PATCHES/series" | grep -v '^0000-'
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

# checkpatch_findings PATCH: what checkpatch --strict finds in PATCH (a
# file of $PATCHES), but for those tests/checkpatch.allow accepts, as
# "FILE: TYPE: MESSAGE"
checkpatch_findings() {
	# checkpatch exits 1 when it finds anything, accepted or not: only
	# a failure of its own counts (callers may run with pipefail)
	(cd "$TREE" && { ./scripts/checkpatch.pl --strict --quiet --terse \
		--showfile "$OLDPWD/$PATCHES/$1"; [ $? -le 1 ]; }) |
		sed -E '/^total: /d; s/^([^:]*):[0-9]+: /\1: /' |
		awk 'NR == FNR {
			if (!/^#/ && NF) { n = $1; sub(/^[0-9]+ /, ""); allow[$0] = n }
			next
		}
		($0 in allow) && allow[$0]-- > 0 { next }
		{ print }' tests/checkpatch.allow -
}

# apply_series DIR: reset branch qbulk of the git tree DIR to 'base' and
# apply patches/ on it. The cover letter's subject and text become the
# branch description, from which export_series writes it back.
apply_series() {
	local dir=$1 p desc

	git -C "$dir" am --abort 2>/dev/null || true
	git -C "$dir" checkout -q -B qbulk base
	for p in $(series_patches); do
		git -C "$dir" am -q --committer-date-is-author-date \
			"$PWD/$PATCHES/$p"
	done
	[ -f "$PATCHES/0000-cover-letter.patch" ] || return 0
	desc=$(awk -v author="$AUTHOR_NAME" '
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
	' "$PATCHES/0000-cover-letter.patch")
	git -C "$dir" config branch.qbulk.description "$desc"
}

# uncommitted DIR: what in the kernel tree DIR no commit holds: changed
# files, and new ones, which Debian's .gitignore hides from 'git status';
# Python's byte code and checkpatch's cache excepted.
uncommitted() {
	git -C "$1" status --porcelain --untracked-files=no
	git -C "$1" ls-files --others |
		sed -E '/(^|\/)__pycache__\/|^\.checkpatch-camelcase\./d; s/^/?? /'
}

# export_series DIR OUT: write branch qbulk of DIR as patch files into OUT,
# with the cover letter as 0000. The output depends only on the commits.
export_series() {
	local dir=$1 out date

	out=$(cd "$2" && pwd)
	# A fixed abbreviation: git sizes it by the object count otherwise.
	git -C "$dir" -c core.abbrev=12 format-patch -q -o "$out" \
		--zero-commit --no-signature \
		--base=base --cover-letter --cover-from-description=subject \
		base..qbulk
	# The cover letter is dated now; date it as the newest patch instead.
	date=$(git -C "$dir" log -1 --format=%aD qbulk)
	sed -i "3s/^Date: .*/Date: $date/" "$out/0000-cover-letter.patch"
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
