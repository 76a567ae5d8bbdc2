// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat allocation and free, out of line: what the inline fast path of
 * include/cmstat/alloc.h leaves to cmstat.ko (sizes of no class, failures,
 * debug_free's bookkeeping), and the whole of it for callers that need a
 * symbol.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

/*
 * One writer section on the heap's counters, from any context: a class
 * allocation or free moves its count and the requested bytes, a large one
 * also the pages held (@held_idx, or -1 for none), and each its site's
 * row as @site says (cmstat_site_count_of()).
 */
void cmstat_account(struct cmstat_heap *heap, unsigned int count_idx,
		    unsigned int requested_idx, size_t size, int held_idx,
		    size_t held, struct cmstat_site_count site)
{
	struct cmstat_section sec;
	u64 __percpu *slot;

	if (!cmstat_section_begin(&sec, &cmstat_heap_group))
		return;
	slot = __cmstat_slot(&sec, heap->slots);
	cmstat_section_add(slot, count_idx, 1);
	cmstat_section_add(slot, requested_idx, size);
	if (held_idx >= 0)
		cmstat_section_add(slot, held_idx, held);
	__cmstat_site_count(&sec, site);
	cmstat_section_end(&sec);
}

/**
 * __cmstat_alloc_failed() - count a failed allocation, out of line
 * @heap: the heap
 *
 * For the inline cmstat_alloc().  Not for direct use.
 */
void __cmstat_alloc_failed(struct cmstat_heap *heap)
{
	struct cmstat_section sec;

	if (!cmstat_section_begin(&sec, &cmstat_heap_group))
		return;
	cmstat_section_add(__cmstat_slot(&sec, heap->slots),
			   CMSTAT_HC_FAILED_ALLOCS, 1);
	cmstat_section_end(&sec);
}
EXPORT_SYMBOL_GPL(__cmstat_alloc_failed);

/**
 * __cmstat_alloc_tail() - the end of an allocation, out of line
 * @heap: the heap
 * @obj: what the class's cache returned, or NULL
 * @class: the class
 * @size: requested bytes
 * @gfp: allocation flags
 *
 * For the inline cmstat_alloc(): counts a failure, or with debug_free=1
 * tracks the object and accounts it.  Not for direct use.
 *
 * Return: @obj, or NULL if it could not be tracked (then it is freed).
 */
void *__cmstat_alloc_tail(struct cmstat_heap *heap, void *obj,
			  unsigned int class, size_t size, gfp_t gfp)
{
	if (obj && cmstat_debug_track(heap, obj, size, gfp)) {
		kfree(obj);
		obj = NULL;
	}
	if (!obj) {
		__cmstat_alloc_failed(heap);
		return NULL;
	}
	cmstat_account(heap, CMSTAT_HC_CLASS_MALLOCS + class,
		       CMSTAT_HC_REQUESTED_ALLOC_BYTES, size, -1, 0,
		       cmstat_site_count_of(heap, obj,
					    cmstat_class_sizes[class], false));
	return obj;
}
EXPORT_SYMBOL_GPL(__cmstat_alloc_tail);

/**
 * __cmstat_free_tail() - a free with debug_free=1, out of line
 * @heap: the heap
 * @obj: the memory
 * @class: the class of @size
 * @size: the size passed to the allocation
 *
 * For the inline cmstat_free(): checks the free against the live objects,
 * and frees and accounts it if it is right.  Not for direct use.
 */
void __cmstat_free_tail(struct cmstat_heap *heap, const void *obj,
			unsigned int class, size_t size)
{
	struct cmstat_site_count site;

	if (ZERO_OR_NULL_PTR(obj) || !cmstat_debug_untrack(heap, obj, size))
		return;
	site = cmstat_site_count_of(heap, obj, cmstat_class_sizes[class], true);
	__cmstat_kfree(obj);
	cmstat_account(heap, CMSTAT_HC_CLASS_FREES + class,
		       CMSTAT_HC_REQUESTED_FREE_BYTES, size, -1, 0, site);
}
EXPORT_SYMBOL_GPL(__cmstat_free_tail);

/**
 * __cmstat_gfp_blocking_in_irq() - report an allocation that may sleep,
 *	from interrupt context
 * @caller: an address in the function that allocated
 *
 * For the inline cmstat_alloc(), which accounts the allocation in the
 * context it runs in all the same.  Once: the kernel itself says nothing
 * of it without CONFIG_DEBUG_ATOMIC_SLEEP, and an allocation that does
 * not need to reclaim succeeds.  Not for direct use.
 */
void __cmstat_gfp_blocking_in_irq(unsigned long caller)
{
	pr_warn_once("%pS: an allocation that may sleep, from interrupt context: accounted there; use GFP_ATOMIC\n",
		     (void *)caller);
}
EXPORT_SYMBOL_GPL(__cmstat_gfp_blocking_in_irq);

/**
 * __cmstat_alloc_refused_rt() - refuse an allocation PREEMPT_RT cannot
 *	serve
 * @heap: the heap it was for
 * @caller: an address in the function that allocated
 *
 * Where __cmstat_atomic_rt() is true: the slab allocator would take a
 * sleeping lock there.  Counted as a failure, and reported once: the
 * kernel itself says nothing of it without CONFIG_DEBUG_ATOMIC_SLEEP.
 * Not for direct use.
 *
 * Return: NULL.
 */
void *__cmstat_alloc_refused_rt(struct cmstat_heap *heap,
				unsigned long caller)
{
	pr_err_once("%pS: an allocation with preemption or interrupts disabled, where PREEMPT_RT's allocators may sleep: refused\n",
		    (void *)caller);
	__cmstat_alloc_failed(heap);
	return NULL;
}
EXPORT_SYMBOL_GPL(__cmstat_alloc_refused_rt);

/*
 * Whether cmstat refuses @gfp for @size: a zone modifier other than
 * GFP_DMA above the largest class, which the page allocator honours (see
 * __CMSTAT_GFP_ZONES in include/cmstat/alloc.h).  Refused, once with a
 * message naming @caller, and counted as a failure.
 */
static bool cmstat_gfp_refused(struct cmstat_heap *heap, size_t size,
			       gfp_t gfp, unsigned long caller)
{
	gfp_t zones = gfp & __CMSTAT_GFP_ZONES;

	if (likely(!cmstat_gfp_zone_refused(size, gfp)))
		return false;
	pr_warn_once("%pS: %zu bytes with %pGg refused: cmstat serves GFP_DMA above %u bytes only, and never GFP_DMA32 or __GFP_HIGHMEM\n",
		     (void *)caller, size, &zones, CMSTAT_MAX_CLASS_SIZE);
	__cmstat_alloc_failed(heap);
	return true;
}

/*
 * __cmstat_alloc(), or __cmstat_kmalloc() with CMSTAT_AF_UNSIZED, on
 * @node, for a caller named by @caller.  A large allocation is recorded
 * (owner.c), for the frees that come without its size.  A failure is
 * counted unless CMSTAT_AF_QUIET: the caller has another way to go.  In a
 * heap with site rows a class object has room for its tag, and is tagged
 * with @site's column, or unattributed for a NULL @site (cmstat.ko's own
 * callers, which do not know theirs); a large one keeps the column in its
 * record.
 */
void *cmstat_alloc_from(struct cmstat_heap *heap, size_t size, gfp_t gfp,
			int node, unsigned int how, unsigned long caller,
			struct cmstat_site *site)
{
	void *obj;

	if (unlikely(!size))
		return ZERO_SIZE_PTR;
	if (__cmstat_atomic_rt())
		return __cmstat_alloc_refused_rt(heap, caller);
	if (cmstat_gfp_refused(heap, size, gfp, caller))
		return NULL;
	if (size <= CMSTAT_MAX_CLASS_SIZE - __cmstat_tag_bytes(heap)) {
		size_t tag = __cmstat_tag_bytes(heap);
		unsigned int class = __cmstat_class_lookup(size + tag);
		struct kmem_cache *s = cmstat_class_caches[class];
		int col;

		/* A @site's macro tagged its line for allocation profiling. */
		if (site)
			obj = cmstat_slab_alloc_node_noprof(s, gfp, node);
		else
			obj = kmem_cache_alloc_node(s, gfp, node);
		if (!obj && (how & CMSTAT_AF_QUIET))
			return NULL;
		if (obj && tag) {
			col = site ? __cmstat_site_col(heap, site) : -1;
			*__cmstat_site_tag(obj, cmstat_class_sizes[class]) =
				CMSTAT_SITE_TAG_MAGIC |
				max(col, CMSTAT_SITE_UNATTRIBUTED);
		}
		return __cmstat_alloc_tail(heap, obj, class,
					   how & CMSTAT_AF_UNSIZED ?
					   cmstat_class_sizes[class] : size,
					   gfp);
	}
	if (size > CMSTAT_ALLOC_MAX)
		obj = NULL;
	else if (site)	/* whose macro tagged its line for profiling */
		obj = cmstat_kmalloc_node_noprof(size, gfp, node);
	else
		obj = kmalloc_node(size, gfp, node);
	return cmstat_large_done(heap, obj, size, false, gfp, how, site);
}

/**
 * cmstat_large_done() - the end of a large allocation
 * @heap: the heap
 * @obj: what the page allocator or vmalloc() gave, or NULL
 * @size: the bytes asked for
 * @vmalloc: whether vmalloc() gave it: it then holds whole pages, not a
 *	power-of-two block of them
 * @gfp: the allocation's flags
 * @how: CMSTAT_AF_QUIET not to count a failure
 * @site: the call site's descriptor, or NULL
 *
 * Records @obj, with @site's column in a heap with site rows, for the
 * frees (which come without a size, or without a site), tracks it with
 * debug_free=1, and counts it; if any of that fails, frees it.
 *
 * Return: @obj, or NULL.
 */
void *cmstat_large_done(struct cmstat_heap *heap, void *obj, size_t size,
			bool vmalloc, gfp_t gfp, unsigned int how,
			struct cmstat_site *site)
{
	int col = CMSTAT_SITE_UNATTRIBUTED;
	size_t held;

	if (obj && site && __cmstat_heap_has_sites(heap))
		col = max(__cmstat_site_col(heap, site),
			  CMSTAT_SITE_UNATTRIBUTED);
	if (obj && cmstat_large_record(obj, size, vmalloc, col, gfp)) {
		kvfree(obj);
		obj = NULL;
	}
	if (obj && cmstat_debug_track(heap, obj, size, gfp)) {
		cmstat_large_forget(obj);
		kvfree(obj);
		obj = NULL;
	}
	if (!obj) {
		if (!(how & CMSTAT_AF_QUIET))
			__cmstat_alloc_failed(heap);
		return NULL;
	}
	held = vmalloc ? PAGE_ALIGN(size) : cmstat_alloc_held_bytes(size);
	cmstat_account(heap, CMSTAT_HC_LARGE_MALLOCS,
		       CMSTAT_HC_REQUESTED_ALLOC_BYTES, size,
		       CMSTAT_HC_LARGE_ALLOC_BYTES, held,
		       cmstat_large_site(heap, obj, col, held, false));
	return obj;
}

/**
 * __cmstat_alloc() - allocate memory from a heap, out of line
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags
 *
 * cmstat_alloc() as a function, for callers that need a symbol; the inline
 * cmstat_alloc() calls it for sizes of no class and for zone modifiers.
 *
 * Return: as cmstat_alloc().
 */
void *__cmstat_alloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
{
	return cmstat_alloc_from(heap, size, gfp, NUMA_NO_NODE, 0, _RET_IP_,
				 NULL);
}
EXPORT_SYMBOL_GPL(__cmstat_alloc);

/**
 * __cmstat_kmalloc() - cmstat_kmalloc(), out of line
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags
 *
 * The inline cmstat_kmalloc() calls it for sizes of no class and for zone
 * modifiers.
 *
 * Return: as cmstat_alloc().
 */
void *__cmstat_kmalloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
{
	return cmstat_alloc_from(heap, size, gfp, NUMA_NO_NODE,
				 CMSTAT_AF_UNSIZED, _RET_IP_, NULL);
}
EXPORT_SYMBOL_GPL(__cmstat_kmalloc);

/**
 * __cmstat_alloc_at() - allocate for a call site, out of line
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags
 * @node: the node, or NUMA_NO_NODE
 * @unsized: whether the memory may be freed without its size
 *	(cmstat_kmalloc()'s family), or not (cmstat_alloc()'s)
 * @site: the call site's descriptor
 *
 * What cmstat_kmalloc_node() and its family, and the inline allocations'
 * sizes of no class, become in a module built with CMSTAT_SITES: a class
 * object counts in @site's row.  Not for direct use.
 *
 * Return: as cmstat_alloc().
 */
void *__cmstat_alloc_at(struct cmstat_heap *heap, size_t size, gfp_t gfp,
			int node, bool unsized, struct cmstat_site *site)
{
	return cmstat_alloc_from(heap, size, gfp, node,
				 unsized ? CMSTAT_AF_UNSIZED : 0, _RET_IP_,
				 site);
}
EXPORT_SYMBOL_GPL(__cmstat_alloc_at);

/*
 * Free a large allocation of @size, found cmstat's, and count it, in the
 * column its record names.
 */
static void cmstat_free_large(struct cmstat_heap *heap, const void *obj,
			      size_t size)
{
	size_t held = cmstat_alloc_held_bytes(size);
	/* Read while @obj is allocated: its record, and its node. */
	struct cmstat_site_count site =
		cmstat_large_site(heap, obj, cmstat_large_col(obj), held, true);

	cmstat_large_release(obj);
	cmstat_account(heap, CMSTAT_HC_LARGE_FREES,
		       CMSTAT_HC_REQUESTED_FREE_BYTES, size,
		       CMSTAT_HC_LARGE_FREE_BYTES, held, site);
}

/*
 * Free @obj, of @size, whose free was checked (debug_free), and count it:
 * in its class, or as a large free.
 */
static void cmstat_free_checked(struct cmstat_heap *heap, const void *obj,
				size_t size)
{
	size_t tag = __cmstat_tag_bytes(heap);
	struct cmstat_site_count site;
	unsigned int class;

	if (!size || size > CMSTAT_MAX_CLASS_SIZE - tag) {
		cmstat_free_large(heap, obj, size);
		return;
	}
	class = __cmstat_class_lookup(size + tag);
	site = cmstat_site_count_of(heap, obj, cmstat_class_sizes[class], true);
	/* Whatever @size says: kfree() finds the object's own slab. */
	__cmstat_kfree(obj);
	cmstat_account(heap, CMSTAT_HC_CLASS_FREES + class,
		       CMSTAT_HC_REQUESTED_FREE_BYTES, size, -1, 0, site);
}

/**
 * __cmstat_free() - free memory from a heap, out of line
 * @heap: the heap it was allocated from
 * @obj: the memory; NULL and ZERO_SIZE_PTR are no-ops
 * @size: the size passed to the allocation
 *
 * cmstat_free() as a function, for callers that need a symbol; the inline
 * cmstat_free() calls it for sizes of no class.
 */
void __cmstat_free(struct cmstat_heap *heap, const void *obj, size_t size)
{
	if (ZERO_OR_NULL_PTR(obj) || !cmstat_debug_untrack(heap, obj, size))
		return;
	cmstat_free_checked(heap, obj, size);
}
EXPORT_SYMBOL_GPL(__cmstat_free);

/*
 * An object resized in place, within its class: one section moves it out
 * of the class's count and the requested bytes, and back in, so that no
 * snapshot sees it gone.
 */
static void cmstat_account_resize(struct cmstat_heap *heap, const void *obj,
				  unsigned int class, size_t old_size,
				  size_t new_size)
{
	struct cmstat_site_count site;
	struct cmstat_section sec;
	u64 __percpu *slot;

	site = cmstat_site_count_of(heap, obj, cmstat_class_sizes[class], true);
	if (!cmstat_section_begin(&sec, &cmstat_heap_group))
		return;
	slot = __cmstat_slot(&sec, heap->slots);
	cmstat_section_add(slot, CMSTAT_HC_CLASS_FREES + class, 1);
	cmstat_section_add(slot, CMSTAT_HC_REQUESTED_FREE_BYTES, old_size);
	cmstat_section_add(slot, CMSTAT_HC_CLASS_MALLOCS + class, 1);
	cmstat_section_add(slot, CMSTAT_HC_REQUESTED_ALLOC_BYTES, new_size);
	__cmstat_site_add(&sec, site.heap, site.col, true, 1, site.held);
	__cmstat_site_add(&sec, site.heap, site.col, false, 1, site.held);
	if (site.col >= 0) {
		__cmstat_node_add(&sec, site.heap, site.nid, true, 1, site.held);
		__cmstat_node_add(&sec, site.heap, site.nid, false, 1, site.held);
	}
	cmstat_section_end(&sec);
}

/*
 * cmstat_realloc() for @caller, whose call site is @site, or NULL: the
 * memory a resize moves to is an allocation at @site, as allocation
 * profiling counts a krealloc() that moves at its caller.
 */
static void *cmstat_realloc_from(struct cmstat_heap *heap, const void *obj,
				 size_t old_size, size_t new_size, gfp_t gfp,
				 unsigned long caller, struct cmstat_site *site)
{
	size_t tag = __cmstat_tag_bytes(heap);
	void *new;

	if (ZERO_OR_NULL_PTR(obj))
		return cmstat_alloc_from(heap, new_size, gfp, NUMA_NO_NODE, 0,
					 caller, site);
	if (!new_size) {
		__cmstat_free(heap, obj, old_size);
		return ZERO_SIZE_PTR;
	}
	if (new_size > CMSTAT_ALLOC_MAX) {
		__cmstat_alloc_failed(heap);
		return NULL;
	}
	if (cmstat_gfp_refused(heap, new_size, gfp, caller))
		return NULL;
	if (old_size && old_size <= CMSTAT_MAX_CLASS_SIZE - tag &&
	    new_size <= CMSTAT_MAX_CLASS_SIZE - tag &&
	    __cmstat_class_lookup(old_size + tag) ==
	    __cmstat_class_lookup(new_size + tag)) {
		unsigned int class = __cmstat_class_lookup(new_size + tag);
		size_t from = min(old_size, new_size);

		if (!cmstat_debug_resize(heap, obj, old_size, new_size))
			return NULL;
		/*
		 * The whole class size is the object's (kmem_cache_alloc()),
		 * for KASAN too; but for its site tag.
		 */
		if (want_init_on_alloc(gfp))
			memset((char *)obj + from, 0,
			       cmstat_class_sizes[class] - tag - from);
		cmstat_account_resize(heap, obj, class, old_size, new_size);
		return (void *)obj;
	}
	new = cmstat_alloc_from(heap, new_size, gfp, NUMA_NO_NODE, 0, caller,
				site);
	if (!new)
		return NULL;
	/* Checked before it is read: @old_size may be wrong. */
	if (!cmstat_debug_untrack(heap, obj, old_size)) {
		__cmstat_free(heap, new, new_size);
		return NULL;
	}
	memcpy(new, obj, min(old_size, new_size));
	cmstat_free_checked(heap, obj, old_size);
	return new;
}

/**
 * cmstat_realloc() - resize memory from a heap
 * @heap: the heap it was allocated from, and the new memory's
 * @obj: memory from cmstat_alloc() (or the like) on @heap, of @old_size;
 *	NULL or ZERO_SIZE_PTR to allocate anew
 * @old_size: the size passed to its allocation (or its last resize)
 * @new_size: bytes wanted; 0 frees @obj
 * @gfp: allocation flags, as for cmstat_alloc()
 *
 * krealloc() for cmstat objects, sized as cmstat_free() is.  Within the
 * same size class the object stays where it is and @obj comes back; else
 * (and above %CMSTAT_MAX_CLASS_SIZE always) the contents up to the smaller
 * size move to a new allocation and @obj is freed.  The statistics count
 * a free of @old_size and an allocation of @new_size either way, in the
 * same class at once when in place.  With __GFP_ZERO (or init_on_alloc),
 * the bytes past @new_size in the object are zeroed, as krealloc() does,
 * and past @old_size when it grows.  Not krealloc() itself on a cmstat
 * object: it frees the object behind the statistics' back, so it counts
 * as live for ever (see Documentation/allocator.rst).  With debug_free=1,
 * a resize with the wrong size or heap is refused as cmstat_free() refuses
 * a free.  Process or interrupt context, as cmstat_alloc() with @gfp.
 *
 * Return: the memory, of @new_size bytes; ZERO_SIZE_PTR when @new_size is
 * 0 (@obj freed); NULL, with @obj left as it was, when the allocation fails
 * or cmstat_alloc() would refuse @new_size or @gfp (counted in
 * failed_allocs), or debug_free=1 refuses the resize.
 */
void *cmstat_realloc(struct cmstat_heap *heap, const void *obj,
		     size_t old_size, size_t new_size, gfp_t gfp)
{
	return cmstat_realloc_from(heap, obj, old_size, new_size, gfp,
				   _RET_IP_, NULL);
}
EXPORT_SYMBOL_GPL(cmstat_realloc);

/**
 * __cmstat_realloc_at() - cmstat_realloc() for a call site, out of line
 * @heap: as for cmstat_realloc()
 * @obj: as for cmstat_realloc()
 * @old_size: as for cmstat_realloc()
 * @new_size: as for cmstat_realloc()
 * @gfp: as for cmstat_realloc()
 * @site: the call site's descriptor
 *
 * What cmstat_realloc() becomes in a module built with CMSTAT_SITES: the
 * memory a resize moves to counts in @site's row.  Not for direct use.
 *
 * Return: as cmstat_realloc().
 */
void *__cmstat_realloc_at(struct cmstat_heap *heap, const void *obj,
			  size_t old_size, size_t new_size, gfp_t gfp,
			  struct cmstat_site *site)
{
	return cmstat_realloc_from(heap, obj, old_size, new_size, gfp,
				   _RET_IP_, site);
}
EXPORT_SYMBOL_GPL(__cmstat_realloc_at);

/* Whether the inline fast path accounts: cmstat_alloc_init() decides. */
DEFINE_STATIC_KEY_TRUE(cmstat_inline_accounting);
EXPORT_SYMBOL_GPL(cmstat_inline_accounting);

/* The inline accounting runs only with accounting on and debug_free off. */
void __init cmstat_alloc_init(void)
{
	if (!cmstat_accounting_enabled() || cmstat_debug_free_enabled())
		static_branch_disable(&cmstat_inline_accounting);
	if (nr_node_ids > CMSTAT_NODES_MAX)
		pr_info("node rows count up to %u node ids, this kernel has %u: the heaps' site rows come without them\n",
			CMSTAT_NODES_MAX, nr_node_ids);
	else if (nr_node_ids > 1)
		static_branch_enable(&cmstat_by_node_key);
}
