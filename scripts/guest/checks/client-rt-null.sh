# SPDX-License-Identifier: GPL-2.0
# kernels: debug rt stock
# Frees of NULL are no-ops in every context, as kfree(NULL) is, and so is
# the free of nothing behind a cmstat_realloc() in place: from a hard
# hrtimer and under a raw spinlock, where PREEMPT_RT makes cmstat hand
# frees on.  With accounting=0 cmstat_free() and cmstat_cache_free() of
# NULL, and with debug_free=1 a resize in place, reach the free itself.
d=/sys/kernel/debug/cmstat_client_test
want='in hard interrupt context: yes; resized in place: 2 of 2; frees handed on: 0'
fail=0
for params in "" "accounting=0" "debug_free=1"; do
	if [ -n "$params" ]; then
		rmmod cmstat && insmod /lib/cmstat/cmstat.ko $params || exit 1
	fi
	insmod /lib/cmstat/cmstat_client_test.ko || exit 1
	echo "cmstat ${params:-default}:"
	out=$(cat $d/rt_null) || { echo "reading rt_null failed"; fail=1; }
	echo "$out"
	echo "$out" | grep -qF "$want" || { echo "expected: $want"; fail=1; }
	rmmod cmstat_client_test || exit 1
done
exit $fail
