# SPDX-License-Identifier: GPL-2.0
# kernels: debug rt stock
# Frees of NULL are no-ops in every context, as kfree(NULL) is, and so is
# the free of nothing behind a cmstat_realloc() in place: from a hard
# hrtimer and under a raw spinlock, where PREEMPT_RT makes cmstat hand
# frees on.  With accounting=0 cmstat_free() and cmstat_cache_free() of
# NULL, and with debug_free=1 a resize in place, reach the free itself.
. /etc/cmstat-check.sh
want='in hard interrupt context: yes; resized in place: 2 of 2; frees handed on: 0'
judge() {
	echo "$1" | grep -qF "$want" || { echo "expected: $want"; return 1; }
}
client_each_load rt_null judge
