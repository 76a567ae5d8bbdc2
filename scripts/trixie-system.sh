#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trixie-system.sh ABI DIR: a whole Debian 13 system for a VM, made as an
# administrator makes one, part of "make check": the Debian 13 root
# (scripts/trixie-lib.sh) with systemd, prometheus-node-exporter, curl,
# DKMS and Debian's kernel ABI installed by apt (once per ABI, cached in
# $CMSTAT_CACHE/trixie/system-ABI), copied to DIR/root; there, our
# Debian packages built (scripts/deb.sh) and installed with
# "apt-get install ./...deb", so that DKMS builds cmstat.ko for ABI; the
# sample client built against the files cmstat-dkms installed; cmstat
# listed in /etc/modules-load.d; and the checks that run at boot
# (scripts/guest/system-check.bash, a systemd unit).  Leaves DIR/disk.img
# (ext4, made from DIR/root by mkfs.ext4 -d, no loop device), DIR/vmlinuz
# and DIR/initrd.img (the initramfs Debian's kernel package made), and the
# DKMS-built cmstat.ko and the client in DIR/vm as deb-cmstat.ko and
# deb-cmstat_demo.ko, with DIR/vm/abi, for the busybox VM of ABI (the
# flavour "next" in scripts/flavours.sh), whose check
# scripts/guest/checks/deb-modules.sh loads them.
#
# Prints one KTAP document, a result per step; logs in DIR/*.log.  Exits
# non-zero if a step failed.
# shellcheck source-path=SCRIPTDIR
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/trixie-lib.sh"

abi=$1
dir=$2
root=$dir/root
# What the system has beyond the build root: an init, D-Bus and udev, what
# Debian's kernel package needs to make its initramfs, DKMS and the
# packages' build dependencies, the exporter the timer writes for, and an
# HTTP client to read it with.
SYSTEM_PKGS=(systemd-sysv dbus udev initramfs-tools zstd dkms build-essential debhelper dh-dkms
	dpkg-dev prometheus-node-exporter curl)
SYSTEM=$TRIXIE_DIR/system-$abi

# in_system LOG COMMAND...: COMMAND in the system copy, output in LOG.
in_system() {
	local log=$1
	shift
	root_run "$root" "$dir" "$@" >"$log" 2>&1
}

# failed NAME LOG WHY: NAME's failed result, with LOG's end; the end of
# the document.
failed() {
	ktap_diag "$(tail -n 15 "$2")"
	ktap_result "$1" 0 "$3, log $2"
	ktap_print
	exit 1
}

# make_system: the build root copied to $SYSTEM, and as a system booted
# from a disk needs: trixie and its backports in its sources, SYSTEM_PKGS,
# and the kernel ABI (image and headers; its postinst makes the
# initramfs), installed by the root's own apt.
make_system() {
	local log=$TRIXIE_DIR/system-$abi.log suite
	# Only the newest kernel's system is kept.
	rm -rf "$TRIXIE_DIR"/system-*/ "$SYSTEM.new"
	cp -a "$TRIXIE_ROOT" "$SYSTEM.new" || return 1
	for suite in trixie trixie-updates trixie-backports; do
		echo "deb http://deb.debian.org/debian $suite main"
	done >"$SYSTEM.new/etc/apt/sources.list"
	echo "deb http://deb.debian.org/debian-security trixie-security main" \
		>>"$SYSTEM.new/etc/apt/sources.list"
	echo "/dev/vda / ext4 defaults 0 1" >"$SYSTEM.new/etc/fstab"
	echo cmstat-trixie >"$SYSTEM.new/etc/hostname"
	if ! root_run "$SYSTEM.new" "$SYSTEM.new/tmp" sh -c "apt-get update -qq &&
		apt-get install -y -qq --no-install-recommends ${SYSTEM_PKGS[*]} &&
		apt-get install -y -qq --no-install-recommends -t trixie-backports \
			linux-image-$abi linux-headers-$abi && apt-get clean" >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		return 1
	fi
	echo "${SYSTEM_PKGS[*]}" >"$SYSTEM.new/.cmstat-system"
	mv "$SYSTEM.new" "$SYSTEM"
}

# check_system: the cached system, made if it is not, or not with
# SYSTEM_PKGS; then copied for this run.
check_system() {
	local start
	if [ "$(cat "$SYSTEM/.cmstat-system" 2>/dev/null)" != "${SYSTEM_PKGS[*]}" ]; then
		start=$(date +%s)
		log "making the Debian 13 system of $abi (apt, minutes)"
		trixie_lock make_system ||
			failed system "$TRIXIE_DIR/system-$abi.log" "cannot install the system"
		log "Debian 13 system made in $(($(date +%s) - start)) s"
	fi
	rm -rf "$dir" && mkdir -p "$dir" && cp -a "$SYSTEM" "$root" ||
		failed system /dev/null "cannot copy $SYSTEM"
	ktap_result system 1 "Debian 13, kernel $abi, systemd $(
		root_run "$root" "$dir" dpkg-query -W -f='${Version}' systemd)"
}

# check_deb_build: the packages built in the system by scripts/deb.sh,
# from the files git knows of (what deb.sh itself copies).
check_deb_build() {
	(cd "$CMSTAT_ROOT" && git ls-files -z -co --exclude-standard) |
		(cd "$CMSTAT_ROOT" && xargs -0 cp --parents -t "$dir/src" 2>/dev/null)
	in_system "$dir/deb.log" bash /build/src/scripts/deb.sh /build/debs ||
		failed deb-build "$dir/deb.log" "scripts/deb.sh failed in Debian 13"
	ktap_result deb-build 1 "$(cd "$dir/debs" && echo cmstat-*.deb)"
}

# check_apt_install: both packages installed by apt from the files, as an
# administrator does; cmstat-dkms's postinst has DKMS build cmstat.ko for
# the system's kernel, ABI.
check_apt_install() {
	local ko
	in_system "$dir/apt-install.log" sh -c 'cd /build/debs &&
		apt-get install -y --no-install-recommends ./cmstat-dkms_*.deb ./cmstat-tools_*.deb' ||
		failed apt-install "$dir/apt-install.log" "apt-get install failed"
	ko=$(cd "$root" && ls "lib/modules/$abi/updates/dkms/"cmstat.ko* 2>/dev/null)
	[ -n "$ko" ] || failed apt-install "$dir/apt-install.log" "DKMS built no cmstat.ko for $abi"
	mkdir -p "$dir/vm" && xz -dcf "$root/$ko" >"$dir/vm/deb-cmstat.ko" && echo "$abi" >"$dir/vm/abi"
	ktap_result apt-install 1 "DKMS built /$ko"
}

# check_client: the sample client built against the files cmstat-dkms
# installed (its Makefile's defaults find them), kept in /root.
check_client() {
	in_system "$dir/client.log" sh -c "cp -r /usr/src/cmstat-*/samples/client /tmp/client &&
		make -C /tmp/client KDIR=/lib/modules/$abi/build && cp /tmp/client/*.ko /root/" ||
		failed client "$dir/client.log" "the sample client did not build"
	cp "$root/root/cmstat_demo.ko" "$dir/vm/deb-cmstat_demo.ko"
	ktap_result client 1 "$(cd "$root/root" && echo ./*.ko)"
}

# system_checks: what runs at boot: cmstat loaded by systemd-modules-load,
# and the checks, a unit of their own after multi-user.target that prints
# to the serial console and powers the VM off when they are done.  No
# login prompt there: its getty would hang the console up under them.
system_checks() {
	ln -s /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
	echo cmstat >"$root/etc/modules-load.d/cmstat.conf"
	cp "$CMSTAT_ROOT/scripts/ktap.sh" "$root/usr/local/lib/cmstat-ktap.sh"
	install -m 755 "$CMSTAT_ROOT/scripts/guest/system-check.bash" \
		"$root/usr/local/sbin/cmstat-system-check"
	cat >"$root/etc/systemd/system/cmstat-system-check.service" <<-EOF
		[Unit]
		Description=cmstat's checks of a whole Debian 13 system
		After=multi-user.target

		[Service]
		Type=oneshot
		ExecStart=/usr/local/sbin/cmstat-system-check
		StandardOutput=tty
		StandardError=inherit
		TTYPath=/dev/ttyS0
		TTYReset=no
		TTYVHangup=no
		ExecStopPost=/usr/bin/systemctl --no-block poweroff

		[Install]
		WantedBy=multi-user.target
	EOF
	ln -s /etc/systemd/system/cmstat-system-check.service \
		"$root/etc/systemd/system/multi-user.target.wants/"
}

# check_image: the disk, and the kernel and initramfs to boot it with.
check_image() {
	local size
	rm -rf "$root/build" "$root/var/cache/apt/archives/"*.deb
	cp "$root/boot/vmlinuz-$abi" "$dir/vmlinuz" && cp "$root/boot/initrd.img-$abi" "$dir/initrd.img" ||
		failed image /dev/null "no /boot/vmlinuz-$abi or /boot/initrd.img-$abi"
	# Room for what the system writes while it runs.
	size=$(($(du -sm "$root" | cut -f1) + 512))
	mkfs.ext4 -q -F -L cmstat-root -d "$root" "$dir/disk.img" "${size}M" >"$dir/mkfs.log" 2>&1 ||
		failed image "$dir/mkfs.log" "mkfs.ext4 -d failed"
	ktap_result image 1 "$size MiB"
}

check_system
mkdir -p "$dir/src" "$dir/debs"
check_deb_build
check_apt_install
check_client
system_checks
check_image
rm -rf "$root"
ktap_print
