# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# With accounting=0 cmstat cannot tell whether a heap still holds objects:
# destroying one must keep the heap for the frees its handle may still do.
# With debug_free=1 a wrong free through that handle is reported with the
# heap's name (KASAN would catch a read of freed memory).
rmmod cmstat || exit 1
insmod /lib/cmstat/cmstat.ko accounting=0 debug_free=1 || exit 1
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
dmesg -c > /dev/null
fail=0
echo "orphan 5" > $d/misuse || fail=1
echo orphan_bad_free > $d/misuse || fail=1
echo "orphan_free 5" > $d/misuse || fail=1
report=$(dmesg | grep 'debug_free: wrong size' | sed 's/^\[ *[0-9.]*\] //')
echo "report: $report"
echo "$report" | grep -q 'heap client-orphan with size' || fail=1
rmmod cmstat_client_test && rmmod cmstat || fail=1
exit $fail
