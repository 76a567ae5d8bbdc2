# SPDX-License-Identifier: GPL-2.0
# kernels: debug rt stock
# Frees of NULL are no-ops in every context, as kfree(NULL) is, and so is
# the free of nothing behind a cmstat_realloc() in place: from a hard
# hrtimer and under a raw spinlock, where PREEMPT_RT makes cmstat hand
# frees on.  With accounting=0 cmstat_free() and cmstat_cache_free() of
# NULL, and with debug_free=1 a resize in place, reach the free itself.
# The case "rt_null" of tests/client/cmstat_rt_test.c.
. /etc/cmstat-check.sh
ktap_each_load cmstat_rt_test only=rt_null
