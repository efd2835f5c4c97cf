#!/bin/bash
# Install everything qbulk needs on a Debian 12 machine. Idempotent.
# QEMU comes from bookworm-backports: bookworm's 7.2 has no igb device.
# Only the named package is taken from backports; nothing else is upgraded.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

[ "$(id -u)" = 0 ] || { echo "setup: run as root" >&2; exit 1; }

# Backports come from the mirror the machine already uses for bookworm.
src=/etc/apt/sources.list.d/qbulk-backports.sources
if [ ! -f "$src" ]; then
	uri=$(debian_uri)
	[ -n "$uri" ] || die "no bookworm source in apt"
	cat > "$src" <<EOF
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q

# Kernel source and build tools, the VM, and what the guest tests run.
apt-get install -y -q --no-install-recommends \
	linux-source-6.12 xz-utils git make gcc bc bison flex libelf-dev \
	libssl-dev cpio ccache python3 perl kmod \
	iproute2 ethtool iputils-ping busybox-static socat procps \
	trace-cmd jq gawk clang llvm libbpf-dev shellcheck \
	python3-ply python3-git python3-yaml python3-matplotlib python3-pyroute2 \
	libtracefs-dev libtraceevent-dev pkg-config python3-docutils groff-base
bpo=bookworm-backports
apt-get install -y -q --no-install-recommends \
	qemu-system-x86/$bpo qemu-system-common/$bpo qemu-system-data/$bpo \
	seabios/$bpo
