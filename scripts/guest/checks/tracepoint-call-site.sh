# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# The fast path is inline in the client: the slab's tracepoint names the
# client's function as the call site, not cmstat's.  Read while the client
# is loaded: after rmmod the trace has only its address.
t=/sys/kernel/tracing
mount -t tracefs nodev $t 2>/dev/null
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
echo 1 > $t/events/kmem/kmem_cache_alloc/enable || exit 1
dd if=/dev/zero of=/sys/kernel/debug/cmstat_client_test/buf bs=100 count=1 2>/dev/null
echo 0 > $t/events/kmem/kmem_cache_alloc/enable
site=$(grep -o "kmem_cache_alloc: call_site=buf_write[^ ]* \[cmstat_client_test\]" $t/trace |
	head -n 1)
echo "trace: ${site:-no allocation by buf_write}"
[ -n "$site" ]
