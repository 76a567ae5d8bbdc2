# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# A driver that frees with the wrong size, or into the wrong heap: the
# memory goes back where it came from (KASAN and the console scan would
# see anything else), the statistics go wrong, and cmstat says so once per
# heap, naming it, with no kernel warning.  Twice each, to see "once".
# The case "wrong_size_and_heap" of tests/client/cmstat_alloc_test.c.
. /etc/cmstat-check.sh
fail=0
ktap_module cmstat_alloc_test only=wrong_size_and_heap || fail=1
# The heaps' broken counts stay in cmstat's totals of all heaps: the next
# check starts from a fresh cmstat.
rmmod cmstat && insmod /lib/cmstat/cmstat.ko || exit 1
exit $fail
