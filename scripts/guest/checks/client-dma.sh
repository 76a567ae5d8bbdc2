# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# A client asks for DMA memory: cmstat's class caches are not DMA caches,
# so GFP_DMA and GFP_DMA32 up to the largest class, and GFP_DMA32 at any
# size, are refused (NULL, counted in failed_allocs, one message naming
# the client's function); GFP_DMA above the largest class comes from the
# DMA zone.  Memory from another zone than asked is the failure this
# catches (SLUB ignores a caller's zone for a cache's objects).  The case
# "dma" of tests/client/cmstat_alloc_test.c.
. /etc/cmstat-check.sh
ktap_module cmstat_alloc_test only=dma
