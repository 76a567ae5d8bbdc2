# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# On Debian's own kernel: the sample client's workload on two heaps, its
# snapshots through debugfs (checked by the viewer's --check), the sysfs
# epoch and totals, the viewer's table; then both modules unload and
# cmstat's files go with them.
insmod /lib/cmstat/cmstat_demo.ko objects=3000 workers=2 heaps=2 || exit 1
sleep 2
cat /sys/kernel/debug/cmstat/stats /sys/kernel/debug/cmstat/heaps/*/stats \
	/sys/kernel/debug/cmstat/all/stats | cmstat --check ||
	{ echo "debugfs: the snapshots break an identity"; exit 1; }
echo 1 > /sys/kernel/cmstat/epoch || exit 1
e=$(cat /sys/kernel/cmstat/epoch) live=$(cat /sys/kernel/cmstat/all/live_objects)
echo "sysfs: epoch $e, live objects $live"
[ "$e" -gt 0 ] && [ "$live" -gt 0 ] || exit 1
cmstat || exit 1
rmmod cmstat_demo && rmmod cmstat || exit 1
[ ! -e /sys/kernel/cmstat ] || { echo "/sys/kernel/cmstat left after unload"; exit 1; }
insmod /lib/cmstat/cmstat.ko
