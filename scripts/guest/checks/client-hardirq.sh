# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# A client's hard interrupt handler (a hard hrtimer) allocates with
# GFP_ATOMIC and frees four objects: sized, unsized, large and typed.
# Elsewhere the allocation is served and counted, and no free is handed
# on.  On PREEMPT_RT, whose allocators may sleep, the allocation is
# refused, counted in failed_allocs and reported once, naming the
# handler; the four frees are counted at once and their memory is handed
# on, and the typed cache's destroy, which waits for it, finds the cache
# empty (else the slab allocator would warn, which fails the case).  The
# case "hardirq" of tests/client/cmstat_irq_test.c.
. /etc/cmstat-check.sh
ktap_module cmstat_irq_test only=hardirq
