# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# A driver destroys a heap that still holds objects and keeps them.
# cmstat's reaper takes a snapshot 1, 2, 4 and 8 s later, to release the
# orphan if they were freed, and then stops: a leak that lasts costs no
# more snapshots.  The stats file's epoch counts every snapshot taken, its
# own reads among them.  Counted over 40 s, twice the 15 s the four tries
# span: however late a busy host makes them, never more than four; the
# reaper that went on (at 1, 3, 7, 15 and 31 s, then every 32 s) took a
# fifth.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
epoch() { sed -n 's/^epoch //p' /sys/kernel/debug/cmstat/stats; }
dmesg -c > /dev/null
echo "orphan 2" > $d/misuse || exit 1
e0=$(epoch)
sleep 40
e1=$(epoch)
reaper=$((e1 - e0 - 1))
echo "reaper snapshots in the 40 s after the orphan appeared: $reaper"
n=$(dmesg | grep -c 'heap client-orphan destroyed with 2 live objects')
echo "reports of the orphan: $n"
echo "orphan_free 2" > $d/misuse || exit 1
rmmod cmstat_client_test || exit 1
[ "$reaper" -ge 1 ] && [ "$reaper" -le 4 ] && [ "$n" = 1 ]
