# SPDX-License-Identifier: GPL-2.0
# A file held open while its heap is destroyed fails its next read (the
# console scan catches any KASAN report).
insmod /lib/cmstat/cmstat_demo.ko objects=100 || exit 1
exec 3< /sys/kernel/debug/cmstat/heaps/demo/stats
exec 4< /sys/kernel/cmstat/heaps/demo/live_bytes
rmmod cmstat_demo || exit 1
fail=0
if cat <&3 >/dev/null 2>&1; then echo "debugfs read succeeded"; fail=1; fi
if cat <&4 >/dev/null 2>&1; then echo "sysfs read succeeded"; fail=1; fi
exec 3<&- 4<&-
[ ! -e /sys/kernel/cmstat/heaps/demo ] || { echo "sysfs dir left"; fail=1; }
[ ! -e /sys/kernel/debug/cmstat/heaps/demo ] || { echo "debugfs dir left"; fail=1; }
echo "reads after destroy failed, directories gone"
exit $fail
