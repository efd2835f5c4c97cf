#!/bin/bash
# Fetch the pinned base tarball ($TARBALL of base/linux-$KERNEL.pin) when a
# pin names a SUITE that this system does not use: download that one
# source package with an apt state of its own under build/apt (sources,
# lists, cache), check it and take the tarball out of it. Nothing is
# installed and the system's apt state is not touched. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

tarball_ok() {
	[ -f "$TARBALL" ] && echo "$SHA256  $TARBALL" | sha256sum -c --quiet
}

tarball_ok && exit 0
[ -n "${SUITE:-}" ] ||
	die "$TARBALL missing or not the pinned one (make setup installs $PACKAGE)"

apt=$PWD/$BUILD/apt
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$(dirname "$TARBALL")"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
	"$(debian_uri) $SUITE main" > "$apt/sources.list"
opts=(-o Dir::Etc::SourceList="$apt/sources.list"
      -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists="$apt/lists"
      -o Dir::Cache="$apt" -o Dir::Cache::archives="$apt/archives"
      -o APT::Sandbox::User=root)
deb="$apt/archives/${PACKAGE}_${VERSION//:/%3a}_all.deb"
if ! echo "$DEB_SHA256  $deb" | sha256sum -c --quiet 2>/dev/null; then
	echo "fetch: $PACKAGE $VERSION from $SUITE"
	apt-get -q "${opts[@]}" update
	(cd "$apt/archives" && apt-get -q "${opts[@]}" download "$PACKAGE=$VERSION")
	echo "$DEB_SHA256  $deb" | sha256sum -c --quiet ||
		die "$deb does not match the pinned sha256"
fi
dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/${TARBALL##*/}" > "$TARBALL.tmp"
mv "$TARBALL.tmp" "$TARBALL"
tarball_ok || die "$TARBALL does not match the pinned sha256"
echo "fetch: $TARBALL"
