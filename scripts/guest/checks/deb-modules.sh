# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# The Debian packages' modules, when scripts/deb-check.sh put them in this
# VM: the cmstat.ko that DKMS built from cmstat-dkms, and the sample client
# built against the files cmstat-dkms installed.  They load, the viewer
# reads them, and they unload.  For the host (deb-check.sh report), the
# Prometheus text and a copy of the debugfs files (a gzipped tar in
# base64), each as an attachment.
[ -e /lib/cmstat/deb-cmstat.ko ] || { echo "no Debian package modules for this kernel"; exit 4; }
rmmod cmstat && insmod /lib/cmstat/deb-cmstat.ko || exit 1
insmod /lib/cmstat/deb-cmstat_demo.ko objects=3000 workers=2 heaps=2 || exit 1
sleep 2
cmstat || exit 1
# Kernel messages on the console could cut into the attachments: they are
# held back meanwhile, and printed from the kernel's log after.
seen=$(dmesg | wc -l)
level=$(cut -f1 /proc/sys/kernel/printk)
dmesg -n 1
{
	echo "cmstat-deb-prometheus-begin"
	cmstat --prometheus
	echo "cmstat-deb-prometheus-end"
	cp -r /sys/kernel/debug/cmstat /tmp/debugfs-copy
	echo "cmstat-deb-debugfs-begin"
	tar -C /tmp -cf - debugfs-copy | gzip | base64
	echo "cmstat-deb-debugfs-end"
} > /dev/console
dmesg -n "$level"
dmesg | tail -n +$((seen + 1))
rmmod cmstat_demo && rmmod cmstat && insmod /lib/cmstat/cmstat.ko
