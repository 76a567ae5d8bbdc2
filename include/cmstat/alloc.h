/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmstat size-class allocator: named heaps whose every allocation and free
 * is accounted in one consistent writer section, so any snapshot of a
 * heap's statistics is exact and self-consistent.
 *
 * The memory comes from the kernel's slab allocator (one kmem_cache per
 * size class, shared by all heaps) and, above the largest class, from the
 * page allocator through kmalloc().  Documentation/allocator.rst has the
 * class table and the contract.
 */
#ifndef _CMSTAT_ALLOC_H
#define _CMSTAT_ALLOC_H

#include <linux/gfp.h>
#include <linux/slab.h>
#include <linux/types.h>

/**
 * CMSTAT_NR_CLASSES - number of size classes
 *
 * The classes go from 8 B to %CMSTAT_MAX_CLASS_SIZE; rounding a request up
 * to its class wastes at most 1/9 of the object from 128 B up.
 */
#define CMSTAT_NR_CLASSES	74

/**
 * CMSTAT_MAX_CLASS_SIZE - the largest size class, in bytes
 *
 * Larger allocations come from the page allocator, in whole pages.
 */
#define CMSTAT_MAX_CLASS_SIZE	32768

/**
 * CMSTAT_ALLOC_MAX - the largest allocation, in bytes
 *
 * What kmalloc() can get from the page allocator (4 MiB on x86-64).
 */
#define CMSTAT_ALLOC_MAX	KMALLOC_MAX_SIZE

/**
 * CMSTAT_HEAP_NAME_MAX - the longest heap name, without the terminating NUL
 */
#define CMSTAT_HEAP_NAME_MAX	31

struct cmstat_heap;

/**
 * struct cmstat_class_stats - one size class in a snapshot
 * @size_bytes: the class's object size
 * @mallocs: objects allocated in this class, cumulative
 * @frees: objects freed in this class, cumulative
 * @live_objects: @mallocs - @frees
 */
struct cmstat_class_stats {
	u64 size_bytes;
	u64 mallocs;
	u64 frees;
	u64 live_objects;
};

/**
 * struct cmstat_heap_stats - one consistent snapshot of a heap's statistics
 * @epoch: number of this snapshot of this heap's (or all heaps') counters
 * @live_bytes: bytes held now, as the allocator holds them (class size, or
 *	whole pages above the largest class)
 * @live_requested_bytes: bytes callers asked for and still hold; the gap to
 *	@live_bytes is internal fragmentation
 * @alloc_bytes: bytes held by allocations, cumulative
 * @free_bytes: bytes released by frees, cumulative
 * @requested_alloc_bytes: bytes callers asked for, cumulative
 * @requested_free_bytes: requested bytes of freed objects, cumulative
 * @mallocs: successful allocations (classes and large), cumulative
 * @frees: frees (classes and large), cumulative
 * @live_objects: @mallocs - @frees
 * @large_mallocs: allocations above %CMSTAT_MAX_CLASS_SIZE, cumulative
 * @large_frees: frees of those, cumulative
 * @large_live_objects: @large_mallocs - @large_frees
 * @large_alloc_bytes: bytes held by large allocations, cumulative
 * @large_free_bytes: bytes released by large frees, cumulative
 * @large_live_bytes: @large_alloc_bytes - @large_free_bytes
 * @failed_allocs: allocations that returned NULL (no memory, or a size
 *	above the maximum), cumulative
 * @classes: per size class, smallest first
 *
 * Every snapshot satisfies, exactly:
 * @live_bytes == sum of class size * class live objects + @large_live_bytes,
 * @live_objects == sum of class live objects + @large_live_objects,
 * @live_requested_bytes <= @live_bytes, and every derived value is
 * non-negative.  cmstat_heap_stats_valid() checks all of it.
 */
struct cmstat_heap_stats {
	u64 epoch;
	u64 live_bytes;
	u64 live_requested_bytes;
	u64 alloc_bytes;
	u64 free_bytes;
	u64 requested_alloc_bytes;
	u64 requested_free_bytes;
	u64 mallocs;
	u64 frees;
	u64 live_objects;
	u64 large_mallocs;
	u64 large_frees;
	u64 large_live_objects;
	u64 large_alloc_bytes;
	u64 large_free_bytes;
	u64 large_live_bytes;
	u64 failed_allocs;
	struct cmstat_class_stats classes[CMSTAT_NR_CLASSES];
};

struct cmstat_heap *cmstat_heap_create(const char *name);
void cmstat_heap_destroy(struct cmstat_heap *heap);
const char *cmstat_heap_name(const struct cmstat_heap *heap);

void *cmstat_alloc(struct cmstat_heap *heap, size_t size, gfp_t gfp);
void *cmstat_zalloc(struct cmstat_heap *heap, size_t size, gfp_t gfp);
void *cmstat_alloc_array(struct cmstat_heap *heap, size_t n, size_t size,
			 gfp_t gfp);
void cmstat_free(struct cmstat_heap *heap, const void *obj, size_t size);

int cmstat_heap_read(struct cmstat_heap *heap, struct cmstat_heap_stats *st);
int cmstat_heaps_read(struct cmstat_heap *const *heaps, unsigned int n,
		      struct cmstat_heap_stats *st,
		      struct cmstat_heap_stats *all);
int cmstat_heaps_read_all(struct cmstat_heap_stats *st);
bool cmstat_heap_stats_valid(const struct cmstat_heap_stats *st);

size_t cmstat_class_size(unsigned int class);
int cmstat_size_to_class(size_t size);
size_t cmstat_alloc_held_bytes(size_t size);
unsigned long cmstat_debug_invalid_frees(void);
bool cmstat_debug_free_enabled(void);

/**
 * cmstat_free_array() - free an array from cmstat_alloc_array()
 * @heap: the heap it was allocated from
 * @obj: the array, or NULL
 * @n: number of elements, as passed to cmstat_alloc_array()
 * @size: element size, as passed to cmstat_alloc_array()
 */
static inline void cmstat_free_array(struct cmstat_heap *heap, const void *obj,
				     size_t n, size_t size)
{
	/* Cannot overflow: the allocation it frees checked the product. */
	cmstat_free(heap, obj, n * size);
}

#endif /* _CMSTAT_ALLOC_H */
