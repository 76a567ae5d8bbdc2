# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# last: cmstat stays loaded after it, for good
# A driver destroys a heap that still holds objects, frees one with
# kfree() (the statistics never see it) and unloads.  cmstat refuses to
# unload, with no kernel warning.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
echo "orphan 3" > $d/misuse && echo kfree > $d/misuse || exit 1
rmmod cmstat_client_test || exit 1
echo "an orphan heap holds objects: cmstat pinned" > /tmp/cmstat-pinned
! rmmod cmstat 2>/dev/null || { echo "cmstat unloaded with an orphan heap"; exit 1; }
grep -q '^cmstat ' /proc/modules
