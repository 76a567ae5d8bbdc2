# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# cmstat_kvmalloc() as the kernel's kvmalloc() (mm/util.c): beyond
# KMALLOC_MAX_SIZE a gfp that may not sleep gets NULL, not vmalloc(),
# which may sleep (with preemption off the debug kernel reports the
# sleep); GFP_DMA32 and __GFP_HIGHMEM beyond a page, which cmstat's caches
# refuse, are served by vmalloc() with no failure counted (GFP_DMA32 from
# its zone, and only before 6.19, whose vmalloc() ignores it); every refusal
# moves failed_allocs once.  cmstat is loaded afresh at the end: its
# one-time message of a refused zone is client-dma.sh's to see.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
dmesg -c > /dev/null
fail=0
out=$(cat /sys/kernel/debug/cmstat_client_test/kvmalloc) || fail=1
echo "$out"
echo "$out" | grep -qx '0 wrong' || fail=1
dmesg | grep -E 'sleeping function called|scheduling while atomic|Call Trace' && fail=1
rmmod cmstat_client_test || exit 1
rmmod cmstat && insmod /lib/cmstat/cmstat.ko || exit 1
exit $fail
