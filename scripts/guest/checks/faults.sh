# SPDX-License-Identifier: GPL-2.0
# kernels: debug-busy kcsan
# failslab and fail_page_alloc fail 10% of the sample client's allocations
# (its worker kthreads only: task-filter) while the last CPU goes offline
# and online from the shell; afterwards the heap's statistics equal the
# counts the client kept itself.  On the debug kernel without kmemleak
# (debug-busy): with it, beside two CPU hogs, this took 289 s against 26 s
# without, in two VMs side by side, most of it in the first CPU offline
# while the client's four workers allocated.
fs=/sys/kernel/debug/failslab fp=/sys/kernel/debug/fail_page_alloc
last=$(($(grep -c ^processor /proc/cpuinfo) - 1))
online=/sys/devices/system/cpu/cpu$last/online
insmod /lib/cmstat/cmstat_demo.ko objects=200 workers=4 || exit 1
for d in $fs $fp; do
	# The filter first: only then may the probability apply.  The init
	# resets the probability to 0 after every check, whatever happens.
	echo Y > $d/task-filter && echo N > $d/ignore-gfp-wait &&
	echo 1 > $d/interval && echo -1 > $d/times && echo 0 > $d/verbose &&
	echo 10 > $d/probability || exit 1
done
for c in /proc/[0-9]*/comm; do
	case "$(cat "$c" 2>/dev/null)" in
	cmstat_demo/*) echo 1 > "${c%comm}make-it-fail" ;;
	esac
done
cycles=0
while [ $cycles -lt 2 ]; do
	echo 0 > $online && sleep 1 && echo 1 > $online && sleep 1 || break
	cycles=$((cycles + 1))
done
rmmod cmstat_demo || exit 1
for d in $fs $fp; do echo 0 > $d/probability; done
stats=$(dmesg | grep 'cmstat_demo: heap demo after freeing everything' | tail -n1)
truth=$(dmesg | grep 'cmstat_demo: ground truth' | tail -n1)
get() { echo "$1" | sed -n "s/.* $2=\([0-9]*\).*/\1/p"; }
for k in mallocs frees failed_allocs; do
	echo "$k: stats $(get "$stats" $k), ground truth $(get "$truth" $k)"
done
echo "hotplug cycles $cycles; live_bytes after: $(get "$stats" live_bytes)"
[ "$cycles" = 2 ] && [ "$(get "$truth" failed_allocs)" -gt 0 ] &&
	[ "$(get "$stats" live_bytes)" = 0 ] &&
	for k in mallocs frees failed_allocs; do
		[ "$(get "$stats" $k)" = "$(get "$truth" $k)" ] || exit 1
	done
