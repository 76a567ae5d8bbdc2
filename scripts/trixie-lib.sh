# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A Debian 13 (trixie) root, to build the modules as a Debian 13 user
# does: with trixie's gcc-14 (its kernel headers name gcc-14, which
# bookworm lacks), against trixie's 6.12 headers and trixie-backports'
# newest.  All of it is kept in $CMSTAT_CACHE/trixie:
#   apt/    the private package lists of trixie, trixie-updates,
#           trixie-security and trixie-backports (debian_apt)
#   root/   the root, made once by debootstrap; the kernel headers are
#           unpacked into it, once per ABI
# The host's apt configuration and state are left alone, and nothing is
# ever mounted outside a mount namespace of its own.  Sourced after lib.sh.

TRIXIE_DIR=$CMSTAT_CACHE/trixie
TRIXIE_ROOT=$TRIXIE_DIR/root
# What the root has beyond debootstrap's minbase: the compiler the headers
# name, and what kbuild and the packages' linux-kbuild tools need (libelf
# and libssl for objtool and sign-file, pahole).  A change here remakes
# the root.
TRIXIE_PKGS=(gcc-14 make libc6-dev libelf-dev libssl3t64 perl python3 bc kmod pahole)

# trixie_apt: the apt options of the private trixie package lists.
trixie_apt() {
	debian_apt trixie amd64 trixie trixie-updates trixie-security trixie-backports
}

# trixie_apt_update: refresh the private package lists.  Called once per
# run, at its start (scripts/trixie-build.sh), so that a run sees the
# newest trixie-backports kernel of that moment; trixie_headers calls it
# only if there are no lists yet.  When the mirror cannot be reached, the
# lists of an earlier run serve.
trixie_apt_update() {
	local opts stamp=$TRIXIE_DIR/apt/updated
	opts=$(trixie_apt)
	# shellcheck disable=SC2086 # trixie_apt's words are separate options
	if apt-get $opts update -qq >&2; then
		date -u >"$stamp"
	elif [ -e "$stamp" ]; then
		log "apt-get update (trixie) failed: the package lists of $(cat "$stamp") serve"
	else
		die "apt-get update (trixie) failed"
	fi
}

# root_run ROOT DIR COMMAND...: COMMAND chrooted into ROOT, as root, in a
# clean environment, with /proc and /sys mounted (objtool, dpkg's
# maintainer scripts and mkinitramfs read them) and the host's directory
# DIR at /build; the mounts are made in a mount namespace of COMMAND's own,
# so that they go with it, even when it is killed.
root_run() {
	local root=$1 dir=$2
	shift 2
	mkdir -p "$root/build"
	# shellcheck disable=SC2016 # for the inner shell
	unshare --mount --propagation private sh -c '
		root=$1 dir=$2
		shift 2
		mount -t proc proc "$root/proc" && mount -t sysfs sysfs "$root/sys" &&
			mount --bind "$dir" "$root/build" &&
			exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
				LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' \
		sh "$root" "$dir" "$@"
}

# trixie_run DIR COMMAND...: root_run in the Debian 13 root.
trixie_run() {
	root_run "$TRIXIE_ROOT" "$@"
}

# trixie_lock COMMAND...: COMMAND with the root's lock held: one process at
# a time makes the root or unpacks headers into it.
trixie_lock() {
	mkdir -p "$TRIXIE_DIR"
	(flock 9 && "$@") 9>"$TRIXIE_DIR/.lock"
}

# trixie_root_made: the root is finished, and with the packages
# TRIXIE_PKGS names now.
trixie_root_made() {
	[ "$(cat "$TRIXIE_ROOT/.cmstat-done" 2>/dev/null)" = "minbase ${TRIXIE_PKGS[*]}" ]
}

# trixie_make_root: debootstrap's minbase trixie with TRIXIE_PKGS, in
# TRIXIE_ROOT, unless it is made already; whatever an unfinished attempt
# left there is made anew.  Its log is $TRIXIE_DIR/debootstrap.log.
trixie_make_root() {
	local start log=$TRIXIE_DIR/debootstrap.log
	trixie_root_made && return 0
	ensure_pkgs debootstrap
	log "making the Debian 13 root $TRIXIE_ROOT (debootstrap, minutes)"
	start=$(date +%s)
	rm -rf "$TRIXIE_ROOT"
	# In a mount namespace: debootstrap mounts /proc and /sys in the root.
	if ! unshare --mount --propagation private debootstrap --variant=minbase \
		--include="$(IFS=,; echo "${TRIXIE_PKGS[*]}")" \
		--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		trixie "$TRIXIE_ROOT" http://deb.debian.org/debian >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		log "debootstrap failed, log $log"
		return 1
	fi
	rm -f "$TRIXIE_ROOT"/var/cache/apt/archives/*.deb
	echo "minbase ${TRIXIE_PKGS[*]}" >"$TRIXIE_ROOT/.cmstat-done"
	log "Debian 13 root made in $(($(date +%s) - start)) s"
}

# trixie_root: make the root, once, and print its path.
trixie_root() {
	trixie_root_made || trixie_lock trixie_make_root || die "cannot make the Debian 13 root"
	echo "$TRIXIE_ROOT"
}

# trixie_newest_abi SERIES: the newest kernel ABI ("6.12.117+deb13-amd64")
# of SERIES in the package lists: 6.12, trixie's own (with its updates
# and security updates); backports, trixie-backports' newest, whatever
# its version.  The stock flavour: no -rt, no -cloud.
trixie_newest_abi() {
	local opts suites version=.
	case "$1" in
	6.12) suites='^trixie(-updates|-security)?$' version='^6\.12\.' ;;
	backports) suites='^trixie-backports$' ;;
	*) die "unknown trixie kernel series '$1'" ;;
	esac
	opts=$(trixie_apt)
	# madison: "PACKAGE | VERSION | URL SUITE/main amd64 Packages".
	# shellcheck disable=SC2046,SC2086 # separate options, package names
	apt-cache $opts madison $(apt-cache $opts pkgnames linux-headers- |
			grep -E '^linux-headers-[0-9][^-]*-amd64$') |
		awk -F' *[|] *' -v suites="$suites" '{
			split($3, w, " "); sub("/.*", "", w[2])
			if (w[2] ~ suites) { sub(/^ *linux-headers-/, "", $1); print $1 }
		}' | grep -E "$version" | sort -uV | tail -n 1
}

# trixie_unpack_headers ABI: linux-headers-ABI, the -common package and the
# linux-kbuild package it depends on, downloaded and unpacked into the
# root, unless they are already; their paths are those of the packages
# (/usr/src/linux-headers-*, /usr/lib/linux-kbuild-*).  Not installed with
# dpkg: they depend on the kernel image.  A stamp in the root's
# /var/lib/cmstat says they are whole.
trixie_unpack_headers() {
	local abi=$1 stamp=$TRIXIE_ROOT/var/lib/cmstat/headers-$1 debs=$TRIXIE_DIR/debs
	local opts pkgs pkg deb
	[ -e "$stamp" ] && return 0
	opts=$(trixie_apt)
	# shellcheck disable=SC2086 # trixie_apt's words are separate options
	mapfile -t pkgs < <(echo "linux-headers-$abi"
		apt-cache $opts show "linux-headers-$abi" | sed -n '/^$/q; s/^Depends: //p' |
			tr ',' '\n' | awk '$1 ~ /^linux-(headers-.*-common|kbuild-.*)$/ { print $1 }')
	[ ${#pkgs[@]} = 3 ] || { log "linux-headers-$abi: not 3 packages: ${pkgs[*]}"; return 1; }
	log "unpacking ${pkgs[*]} into the Debian 13 root"
	rm -rf "$debs" && mkdir -p "$debs"
	for pkg in "${pkgs[@]}"; do
		# shellcheck disable=SC2086
		download_deb "$debs" "$pkg" $opts || { log "cannot download $pkg"; return 1; }
	done
	# As dpkg does, through the root's /lib -> usr/lib and the like.
	for deb in "$debs"/*.deb; do
		dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$TRIXIE_ROOT" ||
			{ log "cannot unpack $deb"; return 1; }
	done
	rm -rf "$debs"
	[ -e "$TRIXIE_ROOT/usr/src/linux-headers-$abi/Makefile" ] ||
		{ log "no /usr/src/linux-headers-$abi/Makefile in ${pkgs[*]}"; return 1; }
	mkdir -p "${stamp%/*}" && echo "${pkgs[*]}" >"$stamp"
}

# trixie_build_tree DIR ABI [MAKEARG...]: copy the sources into DIR and
# build the modules there, in the root, against the headers of ABI (see
# trixie_headers); as build_tree, the log is DIR.log, make's status DIR.rc.
trixie_build_tree() {
	local dir=$1 abi=$2 rc=0
	shift 2
	copy_tree "$dir"
	trixie_run "$dir" make -C /build KDIR="/usr/src/linux-headers-$abi" "$@" \
		>"$dir.log" 2>&1 || rc=$?
	echo "$rc" >"$dir.rc"
	return "$rc"
}

# trixie_source ABI: the source of the kernel of ABI, Debian 13's
# linux-source of its version, unpacked once per version (as kernel_source
# does for the host's) into $CMSTAT_CACHE/src; prints the tree's path.
trixie_source() {
	local abi=$1 opts version series dir
	opts=$(trixie_apt)
	# shellcheck disable=SC2086 # trixie_apt's words are separate options
	version=$(apt-cache $opts show "linux-headers-$abi" | sed -n 's/^Version: //p' | head -n 1)
	series=$(sed 's/^\([0-9]*\.[0-9]*\).*/\1/' <<<"$abi")
	dir=$CMSTAT_CACHE/src/$version
	if [ ! -e "$dir/.done" ]; then
		log "unpacking linux-source-$series $version"
		rm -rf "$dir" && mkdir -p "$dir/deb"
		# shellcheck disable=SC2086
		download_deb "$dir/deb" "linux-source-$series=$version" $opts ||
			die "cannot download linux-source-$series $version"
		dpkg-deb --fsys-tarfile "$dir"/deb/*.deb |
			tar -xO --wildcards '*/linux-source-*.tar.xz' |
			tar -xJ -C "$dir" --strip-components=1 ||
			die "cannot unpack linux-source-$series $version"
		rm -rf "$dir/deb" && touch "$dir/.done"
	fi
	echo "$dir"
}

# trixie_kernel ABI: Debian's kernel image of ABI, from the private trixie
# package lists, unpacked once into $TRIXIE_DIR/kernel/ABI; prints the
# path of its vmlinuz.  From 7.0 on, linux-binary-ABI holds it, as
# /usr/lib/modules/ABI/vmlinuz; before, linux-image-ABI-unsigned, as
# /boot/vmlinuz-ABI.  Its modules (linux-image-ABI-unsigned has them
# before 7.0, linux-modules-ABI from then on) are unpacked beside it: the
# adoption check's modules need some (configfs, jbd2).
trixie_kernel() {
	local abi=$1 dir=$TRIXIE_DIR/kernel/$1 opts pkg
	if [ ! -e "$dir/.done" ]; then
		opts=$(trixie_apt)
		rm -rf "$dir" && mkdir -p "$dir/deb"
		for pkg in "linux-binary-$abi" "linux-image-$abi-unsigned"; do
			# shellcheck disable=SC2086 # trixie_apt's words are separate options
			download_deb "$dir/deb" "$pkg" $opts 2>/dev/null && break
		done
		dpkg-deb -x "$dir"/deb/*.deb "$dir" 2>/dev/null ||
			die "cannot download or unpack the kernel image of $abi"
		rm -rf "$dir/deb" && touch "$dir/.done"
	fi
	# From 7.x on, the modules have a package of their own.
	if [ ! -e "$dir/.modules" ]; then
		opts=$(trixie_apt)
		mkdir -p "$dir/deb"
		# shellcheck disable=SC2086
		if download_deb "$dir/deb" "linux-modules-$abi" $opts 2>/dev/null; then
			dpkg-deb -x "$dir"/deb/*.deb "$dir" ||
				die "cannot unpack the kernel modules of $abi"
		fi
		rm -rf "$dir/deb" && touch "$dir/.modules"
	fi
	if [ -e "$dir/usr/lib/modules/$abi/vmlinuz" ]; then
		echo "$dir/usr/lib/modules/$abi/vmlinuz"
	else
		echo "$dir/boot/vmlinuz-$abi"
	fi
}

# trixie_headers SERIES: the newest kernel headers of SERIES (see
# trixie_newest_abi) in the root, unpacked once per ABI; prints the ABI.
# Their directory in the root is /usr/src/linux-headers-ABI.
trixie_headers() {
	local abi
	trixie_root >/dev/null || exit 1
	[ -e "$TRIXIE_DIR/apt/updated" ] || trixie_apt_update
	abi=$(trixie_newest_abi "$1") || exit 1
	[ -n "$abi" ] || die "no linux-headers of trixie's $1 kernels in the package lists"
	[ -e "$TRIXIE_ROOT/var/lib/cmstat/headers-$abi" ] ||
		trixie_lock trixie_unpack_headers "$abi" || die "cannot unpack the headers of $abi"
	echo "$abi"
}
