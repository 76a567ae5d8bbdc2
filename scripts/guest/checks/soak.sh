# SPDX-License-Identifier: GPL-2.0
# kernels: debug kcsan
# 10 load/unload cycles of cmstat and the sample client with a workload
# and a checked snapshot in each; the teardown's kmemleak scan and the
# console scan then find nothing.  On the debug kernel every kobject's
# release is delayed by up to 4 s (CONFIG_DEBUG_KOBJECT_RELEASE), so a
# release that runs code of a module already gone shows as an oops; each
# rmmod waits for its module's, so a cycle costs seconds there.  Any leak
# in a cycle shows in kmemleak's scan after ten as after twenty.
cycles=10
rmmod cmstat || exit 1
i=0
while [ $i -lt $cycles ]; do
	insmod /lib/cmstat/cmstat.ko || { echo "cycle $i: insmod cmstat"; exit 1; }
	insmod /lib/cmstat/cmstat_demo.ko objects=300 ||
		{ echo "cycle $i: insmod cmstat_demo"; exit 1; }
	cmstat --check /sys/kernel/debug/cmstat/heaps/demo/stats > /dev/null ||
		{ echo "cycle $i: invariants"; exit 1; }
	rmmod cmstat_demo && rmmod cmstat || { echo "cycle $i: rmmod"; exit 1; }
	i=$((i + 1))
done
insmod /lib/cmstat/cmstat.ko || exit 1
echo "$i load/unload cycles with a workload and a checked snapshot each"
