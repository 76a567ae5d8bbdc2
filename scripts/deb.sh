#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh [DIR] ("make deb [DEB_DIR=DIR]"): build the Debian packages
# cmstat-dkms and cmstat-tools with dpkg-buildpackage -us -uc -b, in a copy
# of the tree in DIR/cmstat-<version>/ (default DIR: .build/deb), so that
# no build product of the tree gets into a package and nothing is written
# outside DIR (dpkg-buildpackage puts the packages in the parent directory,
# DIR).  The copy holds the files git knows of, committed or not, and new
# files it does not ignore; outside a git checkout, every file but .build/
# and logs/.
# Installs the build dependencies (build-essential, debhelper, dh-dkms) if
# need be.  Prints the packages' paths.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ensure_pkgs build-essential dpkg-dev debhelper dh-dkms
dir=$(mkdir -p "${1:-$CMSTAT_ROOT/.build/deb}" && cd "${1:-$CMSTAT_ROOT/.build/deb}" && pwd)
ver=$(make -s -C "$CMSTAT_ROOT" version)
[ -n "$ver" ] || die "no MODULE_VERSION in module/main.c"
src=$dir/cmstat-$ver
# What an earlier run left in DIR, and nothing else of DIR's.
rm -rf "$src" "$dir/build.log" "$dir"/cmstat*_*_all.deb "$dir"/cmstat_*.buildinfo \
	"$dir"/cmstat_*.changes
mkdir -p "$src"
cd "$CMSTAT_ROOT"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
		[ -e "$f" ] && printf '%s\0' "$f"	# not a deleted file
	done | xargs -0 cp --parents -t "$src"
else
	tar -cf - --exclude=./.build --exclude=./logs . | tar -xf - -C "$src"
fi
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$dir/build.log" 2>&1 ||
	{ tail -n 30 "$dir/build.log" >&2; die "dpkg-buildpackage failed, log $dir/build.log"; }
ls "$dir"/cmstat*_all.deb
