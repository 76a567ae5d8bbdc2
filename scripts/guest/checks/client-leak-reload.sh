# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# last: after a leak, the kernel is not the one the other checks expect
# Not on the test kernels: leaves caches allocated until reboot (and kmemleak would report the leak)
# A client leaks objects with cmstat loaded with accounting=0, which cannot
# see them: at unload cmstat leaves the caches that hold them allocated.
# Loading cmstat again must work, with one message, no kernel warning or
# stack dump, and caches of names of their own: no two caches of one name
# in /proc/slabinfo (the slab allocator would give the new cache the
# leaked one's /sys/kernel/slab directory), each in /sys/kernel/slab.
# Leaves cmstat loaded, with its default parameters.
rmmod cmstat || exit 1
insmod /lib/cmstat/cmstat.ko accounting=0 || exit 1
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
dmesg -c > /dev/null
fail=0
echo "orphan 5" > $d/misuse || exit 1
rmmod cmstat_client_test && rmmod cmstat || exit 1
left=$(dmesg | grep -c 'cmstat: cache .* still holds objects')
echo "caches left allocated: $left"
[ "$left" -gt 0 ] || { echo "nothing leaked: nothing checked"; fail=1; }
for round in 1 2; do
	if ! insmod /lib/cmstat/cmstat.ko 2>/tmp/err; then
		echo "load $round after the leak failed: $(cat /tmp/err)"
		fail=1
		break
	fi
	names=$(awk '$1 ~ /^cmstat-/ { print $1 }' /proc/slabinfo)
	echo "load $round: $(echo "$names" | wc -l) cmstat caches in /proc/slabinfo"
	dups=$(echo "$names" | sort | uniq -d | tr '\n' ' ')
	[ -z "$dups" ] || { echo "two caches of one name: $dups"; fail=1; }
	for n in $names; do
		[ -e "/sys/kernel/slab/$n" ] ||
			{ echo "cache $n not in /sys/kernel/slab"; fail=1; }
	done
	# The new caches work.
	insmod /lib/cmstat/cmstat_client_test.ko &&
		dd if=/dev/zero of=$d/buf bs=100 count=1 2>/dev/null &&
		rmmod cmstat_client_test || fail=1
	[ $round = 2 ] || rmmod cmstat || fail=1
done
dmesg | grep -E 'cmstat: .*(named|cannot)' | sed 's/^\[ *[0-9.]*\] //'
dmesg | grep -E 'WARNING|Call Trace|duplicate filename|failed with error' && fail=1
grep -q '^cmstat ' /proc/modules || insmod /lib/cmstat/cmstat.ko
rm -f /tmp/err
exit $fail
