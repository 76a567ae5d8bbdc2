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
	# shellcheck disable=SC2013 # its words: /proc/cmdline is one line
	for w in $(cat /proc/cmdline); do
		case "$w" in cmstat."$1"=*) echo "${w#*=}" ;; esac
	done
}

# bench_lines [TAG]: the kernel log's cmstat_bench "sample" and "info"
# lines (with "/TAG" after each sample's group, if TAG is given), and
# anything the kernel warned about as "warning" lines.  The log is
# cleared, so that no run's lines can be pushed out of the ring buffer by
# the next ones.
bench_lines() {
	dmesg -c | sed -nE "s#.*cmstat_bench: sample ([a-z_]+) #sample \\1${1:+/$1} #p
		s/.*cmstat_bench: (info .*)/\\1/p
		/WARNING:|BUG:|Oops|Call Trace/s/^/warning /p"
}

# bench ACCOUNTING GROUPS [RUNS [TAG]]: one load of cmstat (with
# accounting=ACCOUNTING) and cmstat_bench (groups=GROUPS runs=RUNS), and
# its bench_lines.
bench() {
	insmod /lib/cmstat/cmstat.ko accounting="$1" &&
		insmod /lib/cmstat/cmstat_bench.ko groups="$2" runs="${3:-1}" ||
		echo "error: cmstat_bench groups=$2 accounting=$1 failed"
	rmmod cmstat_bench 2>/dev/null
	rmmod cmstat
	bench_lines "${4:-}"
}

# bench_begin: the kernel log quiet and cleared (only the runs' messages
# are of interest), 2 s for the boot's deferred work to finish before
# anything is timed, then the begin line of the bench attachment.
bench_begin() {
	dmesg -n 1
	dmesg -c >/dev/null
	sleep 2
	echo "cmstat-bench-begin"
}

# guest_end TAG: the end line of the attachment TAG, and the VM's end.
guest_end() {
	echo "cmstat-$1-end"
	reboot -f
}
