# SPDX-License-Identifier: GPL-2.0
# kernels: debug rt stock
# cmstat_kfree_rcu() of large allocations, which cmstat records by
# address, from a hard hrtimer and under a raw spinlock.  On PREEMPT_RT
# the record's lock may sleep there: cmstat counts the free at once and
# hands the rest on, the record forgotten before the memory can be
# allocated again, and the memory kept until RCU readers are done.  The
# test kernel's lockdep and atomic-sleep checks catch a sleeping lock
# taken there.  Then allocations and frees of the same size, which may
# reuse the addresses, must each be counted.
# The case "rt_rcu" of tests/client/cmstat_rt_test.c.
. /etc/cmstat-check.sh
ktap_module cmstat_rt_test only=rt_rcu
