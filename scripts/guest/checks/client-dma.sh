# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# A client asks for DMA memory: cmstat's class caches are not DMA caches,
# so GFP_DMA and GFP_DMA32 up to the largest class, and GFP_DMA32 at any
# size, are refused (NULL, counted in failed_allocs, one message naming
# the client's function); GFP_DMA above the largest class comes from the
# DMA zone.  Memory from another zone than asked is the failure this
# catches (SLUB ignores a caller's zone for a cache's objects).
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
dmesg -c > /dev/null
out=$(cat $d/dma) || exit 1
echo "$out"
fail=0
if echo "$out" | grep -q 'no ZONE_DMA'; then
	echo "this kernel has no DMA zone: zones not checked"
else
	echo "$out" | grep -E '^GFP_DMA [0-9]+: zone ' | grep -v ': zone DMA$' && fail=1
	echo "$out" | grep -E '^GFP_DMA32 [0-9]+: zone ' | grep -vE ': zone DMA(32)?$' && fail=1
fi
refused=$(echo "$out" | sed -n 's/^refused \([0-9]*\), failed_allocs moved by \([0-9]*\)$/\1 \2/p')
set -- $refused
[ "$1" = "$2" ] || { echo "refusals and failed_allocs differ"; fail=1; }
msg=$(dmesg | grep 'cmstat: .* refused' | sed 's/^\[ *[0-9.]*\] //')
echo "message: ${msg:-none}"
if [ "${1:-0}" -gt 0 ]; then
	[ "$(echo "$msg" | grep -c 'dma_show')" = 1 ] || fail=1
fi
dmesg | grep -E 'Unexpected gfp|Call Trace' && fail=1
rmmod cmstat_client_test || exit 1
exit $fail
