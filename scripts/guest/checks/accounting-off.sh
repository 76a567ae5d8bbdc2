# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# With accounting=0 the allocator still allocates and the numbers stay 0.
rmmod cmstat || exit 1
insmod /lib/cmstat/cmstat.ko accounting=0 || exit 1
insmod /lib/cmstat/cmstat_demo.ko objects=500 || exit 1
kept=$(dmesg | sed -n 's/.*cmstat_demo: kept \([0-9]*\) of 500 .*/\1/p' | tail -n1)
line=$(dmesg | grep 'cmstat_demo: heap demo after load:' | tail -n1)
echo "demo kept ${kept:-?} objects; stats: ${line#*after load: }"
rmmod cmstat_demo && rmmod cmstat && insmod /lib/cmstat/cmstat.ko || exit 1
[ "${kept:-0}" -gt 0 ] &&
	echo "$line" | grep -q 'live_bytes=0 .*live_objects=0 mallocs=0 frees=0 '
