# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the cmstat scripts: paths, logging, package installs,
# the kernel source tree and the stock Debian kernels.  Sourced, not run.
# shellcheck disable=SC2034 # its variables are for the scripts sourcing it

CMSTAT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CMSTAT_CACHE=${CMSTAT_CACHE:-$HOME/.cache/cmstat}
JOBS=${JOBS:-$(($(nproc) + 1))}

log() { printf '[cmstat] %s\n' "$*" >&2; }

die() { printf '[cmstat] error: %s\n' "$*" >&2; exit 1; }

# harness ARG...: the parts of the host side written as a program
# (scripts/harness/__main__.py lists them), in Debian's python3, which
# HOST_PKGS installs.
harness() { /usr/bin/python3 "$CMSTAT_ROOT/scripts/harness" "$@"; }

# pkg_installed PKG: true when dpkg has PKG fully installed.
pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# ensure_pkgs PKG...: apt-get install only the packages that are missing.
ensure_pkgs() {
	local missing=() p
	for p in "$@"; do
		pkg_installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || die "apt-get update failed"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}

# Packages every build or VM run needs.
HOST_PKGS=(make gcc bc flex bison libelf-dev libssl-dev cpio xz-utils kmod
	perl python3 python3-drgn pyflakes3 qemu-system-x86 busybox-static sparse shellcheck
	linux-source-6.12)

# What building and checking the Debian packages needs (scripts/deb.sh,
# scripts/deb-check.sh): systemd for systemd-analyze, prometheus for
# promtool.
DEB_PKGS=(build-essential dpkg-dev debhelper dh-dkms lintian dkms man-db groff-base systemd
	prometheus strace xz-utils)

# stock_abi SERIES: the Debian kernel ABI name ("6.12.117+deb12-amd64") that
# the headers meta package of SERIES (6.12, 6.12-rt or 6.1) points at;
# installs the headers for it as a side effect.
stock_abi() {
	local meta
	case "$1" in
	6.12) meta=linux-headers-6.12-amd64 ;;
	6.12-rt) meta=linux-headers-6.12-rt-amd64 ;;
	6.1) meta=linux-headers-amd64 ;;
	*) die "unknown stock kernel series '$1'" ;;
	esac
	ensure_pkgs "$meta"
	dpkg-query -W -f='${Depends}' "$meta" |
		grep -o 'linux-headers-[^ ,]*' | head -n1 | sed 's/^linux-headers-//'
}

# download_deb DIR PKG [APT-OPTION...]: PKG's .deb into DIR, with apt, as
# root.
download_deb() {
	local dir=$1 pkg=$2
	shift 2
	(cd "$dir" && apt-get "$@" download -qq -o APT::Sandbox::User=root "$pkg" >&2)
}

# fresh_deb DIR PKG: DIR emptied, and PKG's .deb in DIR/deb; once more
# after an apt-get update, for a stale package list.
fresh_deb() {
	rm -rf "$1" && mkdir -p "$1/deb"
	download_deb "$1/deb" "$2" ||
		{ apt-get update -qq >&2 && download_deb "$1/deb" "$2"; } ||
		die "cannot download $2"
}

# stock_kernel_dir ABI: unpack Debian's unsigned image for ABI (downloaded
# with apt, not installed, so the host's /boot is left alone) and print the
# directory holding boot/vmlinuz-ABI.
stock_kernel_dir() {
	local dir="$CMSTAT_CACHE/stock/$1" pkg="linux-image-$1-unsigned"
	if [ ! -e "$dir/.done" ]; then
		fresh_deb "$dir" "$pkg"
		dpkg-deb -x "$dir"/deb/*.deb "$dir/root" || die "cannot unpack $pkg"
		rm -rf "$dir/deb"
		touch "$dir/.done"
	fi
	echo "$dir/root"
}

# stock_vmlinux ABI: the vmlinux with debug info of Debian's kernel ABI,
# from its -dbg package (about 1 GB, downloaded once; only vmlinux, a
# third of it unpacked, is kept), for drgn.
stock_vmlinux() {
	local dir="$CMSTAT_CACHE/dbg/$1" pkg="linux-image-$1-dbg"
	if [ ! -e "$dir/.done" ]; then
		fresh_deb "$dir" "$pkg"
		dpkg-deb --fsys-tarfile "$dir"/deb/*.deb |
			tar -xO "./usr/lib/debug/boot/vmlinux-$1" >"$dir/vmlinux" ||
			die "cannot unpack vmlinux-$1 from $pkg"
		rm -rf "$dir/deb"
		touch "$dir/.done"
	fi
	echo "$dir/vmlinux"
}

# The cross compiler and emulator of the arm64 VM.
ARM64_PKGS=(gcc-aarch64-linux-gnu qemu-system-arm)

# debian_apt NAME ARCH SUITE...: the apt options that fetch Debian's ARCH
# packages of SUITE... (main; a -security suite from the security archive)
# through a private sources list, package lists and cache under
# $CMSTAT_CACHE/NAME/apt, checked against Debian's keyring: the host's
# sources, pins, keys, package lists and status are neither read nor
# changed.
debian_apt() {
	local dir=$CMSTAT_CACHE/$1/apt arch=$2 suite url list
	shift 2
	list=$(for suite in "$@"; do
		url=http://deb.debian.org/debian
		[ "${suite%-security}" = "$suite" ] || url+=-security
		echo "deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
			"$url $suite main"
	done)
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts"
	if [ "$(cat "$dir/sources.list" 2>/dev/null)" != "$list" ]; then
		echo "$list" >"$dir/sources.list.$$" && mv "$dir/sources.list.$$" "$dir/sources.list"
	fi
	echo "-o APT::Architecture=$arch -o APT::Architectures=$arch" \
		"-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=$dir/parts" \
		"-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=$dir/parts" \
		"-o Dir::State::Lists=$dir/lists -o Dir::State::Status=/dev/null" \
		"-o Dir::Cache=$dir/cache -o APT::Sandbox::User=root"
}

# arm64_apt: debian_apt's options for bookworm's arm64 packages, in
# $CMSTAT_CACHE/arm64/apt.
arm64_apt() {
	debian_apt arm64 arm64 bookworm bookworm-updates bookworm-security
}

# arm64_stock_dir ABI: Debian's arm64 kernel of the host's stock 6.12 ABI
# (ABI is its arm64 name, "6.12.117+deb12-arm64"), unpacked once into
# $CMSTAT_CACHE/arm64/ABI; prints that directory, which holds
# boot/vmlinuz-ABI, busybox (busybox-static:arm64) and the headers,
# usr/src/linux-headers-ABI.  The headers use the host's own
# linux-headers-*-common (arch-independent) and amd64 linux-kbuild (host
# tools), linked in beside them where the package expects them.
arm64_stock_dir() {
	local abi=$1 dir="$CMSTAT_CACHE/arm64/$1" ver=${1%-arm64} pkg opts
	if [ ! -e "$dir/.done" ]; then
		log "fetching Debian's arm64 kernel $abi"
		opts=$(arm64_apt)
		# shellcheck disable=SC2086 # arm64_apt's words are separate options
		apt-get $opts update -qq >&2 || die "apt-get update (arm64) failed"
		rm -rf "$dir" && mkdir -p "$dir/deb" "$dir/usr/lib" "$dir/bb"
		for pkg in "linux-image-$abi-unsigned" "linux-headers-$abi" busybox-static; do
			# shellcheck disable=SC2086
			download_deb "$dir/deb" "$pkg" $opts || die "cannot download $pkg:arm64"
		done
		# The image's modules are not needed: only boot/.
		if ! { dpkg-deb --fsys-tarfile "$dir"/deb/linux-image-*.deb | tar -x -C "$dir" ./boot &&
			dpkg-deb -x "$dir"/deb/linux-headers-*.deb "$dir" &&
			dpkg-deb -x "$dir"/deb/busybox-static_*.deb "$dir/bb"; }; then
			die "cannot unpack the arm64 packages"
		fi
		mv "$dir/bb/bin/busybox" "$dir/busybox"
		ln -s "/usr/src/linux-headers-$ver-common" "$dir/usr/src/"
		ln -s "/usr/lib/linux-kbuild-$ver" "$dir/usr/lib/"
		rm -rf "$dir/deb" "$dir/bb"
		touch "$dir/.done"
	fi
	echo "$dir"
}

# arm64_stock_modules ABI: the modules of Debian's arm64 kernel ABI,
# unpacked once beside its image (arm64_stock_dir), for the adoption
# check's dependencies; prints their directory.
arm64_stock_modules() {
	local abi=$1 dir opts
	dir=$(arm64_stock_dir "$abi")
	if [ ! -e "$dir/.modules" ]; then
		opts=$(arm64_apt)
		rm -rf "$dir/deb" && mkdir -p "$dir/deb"
		# shellcheck disable=SC2086 # arm64_apt's words are separate options
		download_deb "$dir/deb" "linux-image-$abi-unsigned" $opts ||
			die "cannot download linux-image-$abi-unsigned:arm64"
		dpkg-deb --fsys-tarfile "$dir"/deb/linux-image-*.deb | tar -x -C "$dir" ./lib/modules ||
			die "cannot unpack the modules of $abi"
		rm -rf "$dir/deb" && touch "$dir/.modules"
	fi
	echo "$dir/lib/modules/$abi"
}

# problem_lines LOG DIR: the warnings and errors of a build log, one each,
# without the directory DIR the module was built in.
problem_lines() {
	grep -iE 'warning:|error:' "$1" | sed "s|$2/||g" | sort -u
}

# build_problems LOG: how many compiler, sparse and modpost warnings and
# errors a build log has ("warning:", "ERROR: modpost: ...").
build_problems() {
	grep -ciE 'warning:|error:' "$1" || true
}

# build_verdict NAME LOG OK: the KTAP result NAME of a build whose make
# succeeded if OK is 1, its log LOG: any warning or error fails it too, and
# the first twenty are diagnostics (or, if there are none, the log's end).
build_verdict() {
	local name=$1 log=$2 ok=$3 problems
	[ "$(build_problems "$log")" = 0 ] || ok=0
	if [ "$ok" != 1 ]; then
		problems=$(grep -iE 'warning:|error:' "$log" | head -n 20)
		ktap_diag "${problems:-$(tail -n 10 "$log")}"
	fi
	ktap_result "$name" "$ok" "log $log"
}

# What a build of the modules needs from the tree.
TREE_FILES=(Kbuild Makefile dkms.conf dkms-symvers.sh include module bench samples
	tests kunit)

# copy_tree DIR: the sources into DIR, emptied first.
copy_tree() {
	rm -rf "$1" && mkdir -p "$1"
	cp -r "${TREE_FILES[@]/#/$CMSTAT_ROOT/}" "$1/"
}

# build_tree DIR KDIR [MAKEARG...]: copy the sources into DIR and build the
# modules there against KDIR; the log is DIR.log, make's status DIR.rc.
build_tree() {
	local dir=$1 kdir=$2 rc=0
	shift 2
	copy_tree "$dir"
	make -C "$dir" KDIR="$kdir" "$@" >"$dir.log" 2>&1 || rc=$?
	echo "$rc" >"$dir.rc"
	return "$rc"
}

# stock_612_tree NAME: build the tree against Debian's stock 6.12 headers
# in $BUILDDIR/NAME-<abi> (for the demo and the benchmarks, which boot that
# kernel); sets STOCK_ABI, STOCK_KDIR, STOCK_KERNEL (its vmlinuz) and
# STOCK_TREE.
stock_612_tree() {
	STOCK_ABI=$(stock_abi 6.12)
	STOCK_KDIR=/usr/src/linux-headers-$STOCK_ABI
	STOCK_KERNEL=$(stock_kernel_dir "$STOCK_ABI")/boot/vmlinuz-$STOCK_ABI
	STOCK_TREE=$BUILDDIR/$1-$STOCK_ABI
	build_tree "$STOCK_TREE" "$STOCK_KDIR" ||
		{ tail -n 20 "$STOCK_TREE.log"; die "build against $STOCK_KDIR failed"; }
}

# kernel_source [SERIES]: unpack Debian's linux-source-SERIES (6.12 by
# default; 6.1) once per package version and print the tree's path.
kernel_source() {
	local series=${1:-6.12} ver dir
	ensure_pkgs "linux-source-$series"
	ver=$(dpkg-query -W -f='${Version}' "linux-source-$series")
	dir="$CMSTAT_CACHE/src/$ver"
	if [ ! -e "$dir/.done" ]; then
		log "unpacking linux-source-$series $ver"
		rm -rf "$dir" && mkdir -p "$dir"
		tar -xJf "/usr/src/linux-source-$series.tar.xz" -C "$dir" --strip-components=1 ||
			die "cannot unpack linux-source-$series"
		touch "$dir/.done"
	fi
	echo "$dir"
}
