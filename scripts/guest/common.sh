# SPDX-License-Identifier: GPL-2.0
#
# Sourced first by every guest init (make_initramfs installs it as
# /etc/cmstat-guest.sh): busybox's commands, the file systems the scripts
# use, and "arg NAME", the value of cmstat.NAME= on the kernel command line.

/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp

arg() {
	for w in $(cat /proc/cmdline); do
		case "$w" in cmstat."$1"=*) echo "${w#*=}" ;; esac
	done
}
