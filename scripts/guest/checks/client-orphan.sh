# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# A driver destroys a heap that still holds objects, then frees them
# through the old handle: cmstat stays loaded (one more reference on it)
# while they are allocated, and lets go once the last one is freed.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
refs() { awk '$1 == "cmstat" { print $3 }' /proc/modules; }
r0=$(refs)
echo "orphan 5" > $d/misuse || exit 1
r1=$(refs)
echo "orphan_free 4" > $d/misuse || exit 1
cat /sys/kernel/debug/cmstat/all/stats > /dev/null
r2=$(refs)
echo "orphan_free 1" > $d/misuse || exit 1
# The orphan is released by cmstat's reaper, asynchronously: wait for it,
# as long as a hang would take to notice.
i=0
while [ "$(refs)" != "$r0" ] && [ $i -lt 600 ]; do
	cat /sys/kernel/debug/cmstat/all/stats > /dev/null
	sleep 1
	i=$((i + 1))
done
r3=$(refs)
echo "cmstat references: $r0 before, $r1 with 5 orphaned objects, $r2 with 1, $r3 after the last free (${i} s)"
rmmod cmstat_client_test || exit 1
[ "$r1" = $((r0 + 1)) ] && [ "$r2" = "$r1" ] && [ "$r3" = "$r0" ]
