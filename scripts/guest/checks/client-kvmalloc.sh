# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# cmstat_kvmalloc() as the kernel's kvmalloc() (mm/util.c): beyond
# KMALLOC_MAX_SIZE a gfp that may not sleep gets NULL, not vmalloc(),
# which may sleep (with preemption off the debug kernel reports the
# sleep, which fails the case); GFP_DMA32 and __GFP_HIGHMEM beyond a page,
# which cmstat's caches refuse, are served by vmalloc() with no failure
# counted (GFP_DMA32 from its zone, and only before 6.19, whose vmalloc()
# ignores it); every refusal moves failed_allocs once.  The case
# "kvmalloc" of tests/client/cmstat_alloc_test.c.  cmstat is loaded
# afresh at the end: its one-time message of a refused zone is
# client-dma.sh's to see.
. /etc/cmstat-check.sh
fail=0
ktap_module cmstat_alloc_test only=kvmalloc || fail=1
rmmod cmstat && insmod /lib/cmstat/cmstat.ko || exit 1
exit $fail
