# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# Not on the test kernels: GFP_KERNEL from a softirq makes CONFIG_DEBUG_ATOMIC_SLEEP (the debug kernel) print a BUG
# A client allocates with GFP_KERNEL from a softirq (a tasklet) raised in
# a task section: a bug the stock kernel stays silent about, and cmstat
# says so once, naming the client's function.  The softirq runs nested in
# the section, on the same CPU, and cmstat must account it deeper: the
# task section's sequence counter must not move while the softirq runs
# (it would make the task section look closed to readers), a deeper one
# must.  On PREEMPT_RT softirqs run in threads, which a section,
# preemption disabled, keeps out: the tasklet runs after it, in task
# context, and no softirq counter moves.  The case "softirq_gfp_kernel"
# of tests/client/cmstat_irq_test.c.
. /etc/cmstat-check.sh
ktap_module cmstat_irq_test only=softirq_gfp_kernel
