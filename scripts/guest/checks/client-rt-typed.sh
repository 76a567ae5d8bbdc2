# SPDX-License-Identifier: GPL-2.0
# kernels: debug rt stock
# Typed caches whose objects keep a state across their free: a
# constructor's pattern in the first word (of 24-byte objects, and of
# 4-byte ones, smaller than a pointer), and the value a lockless reader
# of a SLAB_TYPESAFE_BY_RCU cache reads after the free.  A client frees
# objects of each from a hard hrtimer and under a raw spinlock.  On
# PREEMPT_RT cmstat hands those frees on to a work item, and nothing it
# does on the way may write into them: the RCU ones read unchanged after
# the free, and the constructed ones come back with their pattern.
# Elsewhere the slab allocator frees them at once, and the same holds.
# With cmstat as loaded by default, with accounting=0 and with
# debug_free=1: each takes another path to the free.
# The case "rt_typed" of tests/client/cmstat_rt_test.c.
. /etc/cmstat-check.sh
ktap_each_load cmstat_rt_test only=rt_typed
