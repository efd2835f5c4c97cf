#!/bin/bash
# Build a VM kernel: tinyconfig + config/vm.config (+ vm-KERNEL.config)
# + config/FLAVOUR.config.
#   build.sh [debug|plain] [qbulk|base|pkt]
# Output: build/out-KERNEL-SOURCE-FLAVOUR/arch/x86/boot/bzImage. Uses ccache.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

flavour=${1:-debug}
source=${2:-qbulk}
[ -f "config/$flavour.config" ] || die "no flavour '$flavour'"
case $source in
qbulk) tree=$TREE ;;
base) tree=$BASE_TREE ;;
pkt) tree=$VARIANT_TREE ;;
*) die "source is qbulk, base or pkt, not '$source'" ;;
esac
[ -e "$tree/.git" ] || bash scripts/tree.sh "${source/qbulk/}"

out=$PWD/$(kernel_out "$flavour" "$source")
mkdir -p "$out"

# Same paths and stamps everywhere, so ccache hits across clones. Depend
# mode takes the headers from gcc's -MMD output instead of running the
# preprocessor a second time: a cold build costs little more than one
# without ccache.
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
export KBUILD_BUILD_USER=qbulk KBUILD_BUILD_HOST=qbulk
export KBUILD_BUILD_TIMESTAMP="2000-01-01"
kmake() {
	make -s -C "$tree" O="$out" CC="ccache gcc" "$@"
}

kernel_config "$tree" "$out" "$flavour" "$source" CC="ccache gcc"

echo "build: $source/$flavour in $out"
progress "build: $KERNEL $source/$flavour" "build-$KERNEL-$source-$flavour" \
	kmake -j"$(nproc)" bzImage
