# SPDX-License-Identifier: GPL-2.0
# A driver destroys a heap that still holds objects and keeps them.
# cmstat's reaper takes a snapshot 1, 2, 4 and 8 s later, to release the
# orphan if they were freed, and then stops: a leak that lasts costs no
# more snapshots.  The stats file's epoch counts every snapshot taken, its
# own reads among them.  The sleeps follow the guest's clock, as the
# reaper does, so a busy host delays both alike.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
epoch() { sed -n 's/^epoch //p' /sys/kernel/debug/cmstat/stats; }
dmesg -c > /dev/null
echo "orphan 2" > $d/misuse || exit 1
e0=$(epoch)
sleep 20
e1=$(epoch)
sleep 15
e2=$(epoch)
early=$((e1 - e0 - 1))
late=$((e2 - e1 - 1))
echo "reaper snapshots: $early in the 20 s after the orphan appeared, $late in the 15 s after"
n=$(dmesg | grep -c 'heap client-orphan destroyed with 2 live objects')
echo "reports of the orphan: $n"
echo "orphan_free 2" > $d/misuse || exit 1
rmmod cmstat_client_test || exit 1
[ "$early" -ge 1 ] && [ "$early" -le 4 ] && [ "$late" = 0 ] && [ "$n" = 1 ]
