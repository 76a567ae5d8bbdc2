# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# Files held open while their heap is destroyed: the debugfs one goes on
# showing the cut it was opened with, the heap as it was then (it holds
# the heap's id, not the heap); the sysfs one fails its next read.  The
# console scan catches any KASAN report.
insmod /lib/cmstat/cmstat_demo.ko objects=100 || exit 1
exec 3< /sys/kernel/debug/cmstat/heaps/demo/stats
exec 4< /sys/kernel/cmstat/heaps/demo/live_bytes
rmmod cmstat_demo || exit 1
fail=0
if cat <&3 > /tmp/held.out 2>&1 && grep -qx 'heap demo' /tmp/held.out &&
	cmstat --check /tmp/held.out > /dev/null; then
	echo "debugfs read: the heap as it was when the file was opened"
else
	echo "debugfs read failed, or not the heap's snapshot"
	fail=1
fi
rm -f /tmp/held.out
if cat <&4 >/dev/null 2>&1; then echo "sysfs read succeeded"; fail=1; fi
exec 3<&- 4<&-
[ ! -e /sys/kernel/cmstat/heaps/demo ] || { echo "sysfs dir left"; fail=1; }
[ ! -e /sys/kernel/debug/cmstat/heaps/demo ] || { echo "debugfs dir left"; fail=1; }
echo "sysfs read after destroy failed, directories gone"
exit $fail
