# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# A typed cache destroyed right after cmstat_kfree_rcu() of its objects,
# while kfree_rcu() still holds them: kmem_cache_destroy() waits for them
# from 6.12 on, and before (Debian's 6.1) it WARNs "Slab cache still has
# objects" (a panic_on_warn host panics) unless cmstat waits first.  The
# cache must go, with no warning: the case "cache_rcu_destroy" of
# tests/client/cmstat_alloc_test.c, then the slab cache looked for.
. /etc/cmstat-check.sh
fail=0
ktap_module cmstat_alloc_test only=cache_rcu_destroy || fail=1
if grep -q '^alloc_test_rcu ' /proc/slabinfo 2>/dev/null ||
	[ -e /sys/kernel/slab/alloc_test_rcu ]; then
	echo "the cache alloc_test_rcu is still there"
	fail=1
fi
exit $fail
