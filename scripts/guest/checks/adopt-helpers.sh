# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# The kernel's allocating helpers whose memory a module frees with kfree(),
# kvfree() or kfree_const() (kmemdup_nul(), kstrdup_const(), strndup_user(),
# vmemdup_user(), memdup_array_user() and the rest), called by a module
# adopted with the one line (tests/client/cmstat_adopt_helpers_test.c):
# each object counts on the module's heap while held, and not once freed.
# The module prints KTAP and its load fails if a case fails.
. /etc/cmstat-check.sh
dmesg -c > /dev/null
fail=0
insmod /lib/cmstat/cmstat_adopt_helpers_test.ko || fail=1
dmesg | sed -n 's/^.*cmstat_adopt_helpers_test: //p'
[ "$fail" = 1 ] || rmmod cmstat_adopt_helpers_test || fail=1
exit $fail
