# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# A typed cache destroyed right after cmstat_kfree_rcu() of its objects,
# while kfree_rcu() still holds them: kmem_cache_destroy() waits for them
# from 6.12 on, and before (Debian's 6.1) it WARNs "Slab cache still has
# objects" (a panic_on_warn host panics) unless cmstat waits first.  The
# cache must go, with no warning.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
dmesg -c > /dev/null
fail=0
echo "cache_rcu 16" > $d/misuse || fail=1
dmesg | grep -E 'still has objects|cmstat: ' | sed 's/^\[ *[0-9.]*\] /dmesg: /'
dmesg | grep -qE 'still has objects|WARNING|left allocated' && fail=1
if grep -q '^client_rcu ' /proc/slabinfo 2>/dev/null || [ -e /sys/kernel/slab/client_rcu ]; then
	echo "the cache client_rcu is still there"
	fail=1
else
	echo "the cache client_rcu is gone"
fi
rmmod cmstat_client_test || exit 1
exit $fail
