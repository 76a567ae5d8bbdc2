// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat allocation and free: pick the class, get the memory from its
 * kmem_cache (or from the page allocator above the largest class), and
 * account it in one writer section.
 */

#include <linux/overflow.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * One writer section on the heap's own set.  A class allocation or free
 * moves its class's count and the requested bytes; the bytes held are the
 * class size times the count, derived when read.
 */
static __always_inline void cmstat_account_class(struct cmstat_heap *heap,
						 unsigned int count_idx,
						 unsigned int requested_idx,
						 size_t size)
{
	struct cmstat_section sec;
	u64 __percpu *slot;

	if (!cmstat_section_begin(&sec, &cmstat_heap_group))
		return;
	slot = cmstat_section_slot(&sec, heap->stats);
	cmstat_section_add(slot, count_idx, 1);
	cmstat_section_add(slot, requested_idx, size);
	cmstat_section_end(&sec);
}

/* A large allocation or free also moves the whole pages it holds. */
static __always_inline void cmstat_account_large(struct cmstat_heap *heap,
						 unsigned int count_idx,
						 unsigned int requested_idx,
						 unsigned int held_idx,
						 size_t size)
{
	struct cmstat_section sec;
	u64 __percpu *slot;

	if (!cmstat_section_begin(&sec, &cmstat_heap_group))
		return;
	slot = cmstat_section_slot(&sec, heap->stats);
	cmstat_section_add(slot, count_idx, 1);
	cmstat_section_add(slot, requested_idx, size);
	cmstat_section_add(slot, held_idx, cmstat_class_held_bytes(-1, size));
	cmstat_section_end(&sec);
}

static void cmstat_account_failure(struct cmstat_heap *heap)
{
	struct cmstat_section sec;

	if (!cmstat_section_begin(&sec, &cmstat_heap_group))
		return;
	cmstat_section_add(cmstat_section_slot(&sec, heap->stats),
			   HC_FAILED_ALLOCS, 1);
	cmstat_section_end(&sec);
}

/**
 * cmstat_alloc() - allocate memory from a heap
 * @heap: heap to account the allocation in
 * @size: bytes wanted; at most %CMSTAT_ALLOC_MAX
 * @gfp: passed to the slab or page allocator as is, so GFP_ATOMIC works
 *	from interrupt context; __GFP_ZERO zeroes the memory
 *
 * Sizes up to %CMSTAT_MAX_CLASS_SIZE are rounded up to their size class
 * and served by the class's kmem_cache; larger ones by kmalloc(), which
 * takes them from the page allocator in whole power-of-two page blocks.
 * The memory is aligned as kmalloc() would align it.
 *
 * Return: the memory; ZERO_SIZE_PTR for @size 0, as kmalloc() (not
 * counted, and freeing it is a no-op); NULL on failure or when @size is
 * above %CMSTAT_ALLOC_MAX, counted in failed_allocs, without a warning.
 */
void *cmstat_alloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
{
	int class = cmstat_class_of(size);
	void *obj;

	if (unlikely(!size))
		return ZERO_SIZE_PTR;
	if (likely(class >= 0))
		obj = kmem_cache_alloc(cmstat_class_caches[class], gfp);
	else if (size <= CMSTAT_ALLOC_MAX)
		obj = kmalloc(size, gfp);
	else
		obj = NULL;

	if (unlikely(obj && cmstat_debug_track(heap, obj, size, gfp))) {
		kfree(obj);
		obj = NULL;
	}
	if (unlikely(!obj)) {
		cmstat_account_failure(heap);
		return NULL;
	}
	if (likely(class >= 0))
		cmstat_account_class(heap, HC_CLASS_MALLOCS + class,
				     HC_REQUESTED_ALLOC_BYTES, size);
	else
		cmstat_account_large(heap, HC_LARGE_MALLOCS,
				     HC_REQUESTED_ALLOC_BYTES,
				     HC_LARGE_ALLOC_BYTES, size);
	return obj;
}
EXPORT_SYMBOL_GPL(cmstat_alloc);

/**
 * cmstat_zalloc() - allocate zeroed memory from a heap
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags
 *
 * Return: as cmstat_alloc().
 */
void *cmstat_zalloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
{
	return cmstat_alloc(heap, size, gfp | __GFP_ZERO);
}
EXPORT_SYMBOL_GPL(cmstat_zalloc);

/**
 * cmstat_alloc_array() - allocate an array from a heap
 * @heap: heap to account the allocation in
 * @n: number of elements
 * @size: bytes per element
 * @gfp: allocation flags
 *
 * Free it with cmstat_free_array() and the same @n and @size.
 *
 * Return: as cmstat_alloc() for @n * @size bytes; NULL, counted as a
 * failure, if the product overflows.
 */
void *cmstat_alloc_array(struct cmstat_heap *heap, size_t n, size_t size,
			 gfp_t gfp)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes))) {
		cmstat_account_failure(heap);
		return NULL;
	}
	return cmstat_alloc(heap, bytes, gfp);
}
EXPORT_SYMBOL_GPL(cmstat_alloc_array);

/**
 * cmstat_free() - free memory from cmstat_alloc() or cmstat_zalloc()
 * @heap: the heap it was allocated from
 * @obj: the memory; NULL and ZERO_SIZE_PTR are no-ops
 * @size: the size passed to the allocation
 *
 * A sized free: the size names the class the statistics move, so cmstat
 * keeps no per-object header.  The memory goes back through kfree(), which
 * finds the object's slab (or pages) by itself.  Any context, like the
 * allocation.
 *
 * Freeing with another size or into another heap than the allocation used
 * is a contract violation.  It cannot damage memory, only the statistics:
 * cmstat reports the heap whose statistics it broke, once, in the kernel
 * log.  With the module parameter debug_free=1, cmstat tracks every live
 * object, reports such a free (and a double free, or a free of memory it
 * did not allocate) as it happens, counts it
 * (cmstat_debug_invalid_frees()), and leaves the object allocated and the
 * statistics alone.
 */
void cmstat_free(struct cmstat_heap *heap, const void *obj, size_t size)
{
	int class;

	if (unlikely(ZERO_OR_NULL_PTR(obj)))
		return;
	if (unlikely(!cmstat_debug_untrack(heap, obj, size)))
		return;
	/* Whatever @size says: a wrong one must not reach a wrong cache. */
	kfree(obj);
	class = cmstat_class_of(size);
	if (likely(class >= 0))
		cmstat_account_class(heap, HC_CLASS_FREES + class,
				     HC_REQUESTED_FREE_BYTES, size);
	else
		cmstat_account_large(heap, HC_LARGE_FREES,
				     HC_REQUESTED_FREE_BYTES,
				     HC_LARGE_FREE_BYTES, size);
}
EXPORT_SYMBOL_GPL(cmstat_free);
