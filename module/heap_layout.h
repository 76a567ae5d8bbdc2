/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CMSTAT_HEAP_LAYOUT_H
#define _CMSTAT_HEAP_LAYOUT_H

#include <cmstat/alloc.h>

/*
 * A heap's counter set (heap.c), cumulative counters only: everything
 * "live", and the bytes held by class allocations (class size times
 * count), is derived when read.  So an allocation or a free in a size class
 * moves two counters: its class's count and the requested bytes.  In a
 * header of its own because the benchmark module (bench/reader.c) reads
 * sets of the same size.
 */
enum {
	HC_REQUESTED_ALLOC_BYTES,
	HC_REQUESTED_FREE_BYTES,
	HC_LARGE_MALLOCS,
	HC_LARGE_FREES,
	HC_LARGE_ALLOC_BYTES,
	HC_LARGE_FREE_BYTES,
	HC_FAILED_ALLOCS,
	HC_CLASS_MALLOCS,
	HC_CLASS_FREES = HC_CLASS_MALLOCS + CMSTAT_NR_CLASSES,
	HC_NR = HC_CLASS_FREES + CMSTAT_NR_CLASSES,
};

#endif /* _CMSTAT_HEAP_LAYOUT_H */
