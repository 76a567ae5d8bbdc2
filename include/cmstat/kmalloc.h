/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmstat's kmalloc() family: allocations a heap counts that may be freed
 * without a size, by cmstat_kfree(), as kmalloc()'s are by kfree().
 *
 * cmstat_kfree() asks the object's slab which cache it belongs to (see
 * cmstat_slab_cache_of()): a size class's, a typed cache's, or another
 * owner's.  So it frees anything kfree() frees, and counts only what a
 * heap allocated: a string the kernel kstrdup()ed for a module, freed
 * through cmstat_kfree(), is freed right and counted nowhere.
 *
 * Requested bytes.  An unsized free cannot tell how many bytes the
 * allocation asked for, only its class; so the allocations of this family
 * count their whole class as requested, as ksize() would let the caller
 * use, and the identities of struct cmstat_heap_stats stay exact.  In a
 * heap with site rows (include/cmstat/site.h) the class's last four bytes
 * are cmstat's, the object's tag: a caller may use what it asked for,
 * not what ksize() says.  Above
 * the largest class cmstat records each allocation, and counts exactly
 * what was asked.  Objects of cmstat_alloc() (sized) are freed with
 * cmstat_free() and their size; Documentation/allocator.rst has the rules.
 */
#ifndef _CMSTAT_KMALLOC_H
#define _CMSTAT_KMALLOC_H

#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/types.h>

#include <cmstat/alloc.h>
#include <cmstat/compat.h>

void cmstat_kfree(struct cmstat_heap *heap, const void *obj);
void cmstat_kfree_sensitive(struct cmstat_heap *heap, const void *obj);
void cmstat_kfree_const(struct cmstat_heap *heap, const void *obj);
bool __cmstat_kfree_deferred(struct cmstat_heap *heap, const void *obj);
void __cmstat_kfree_rcu(struct cmstat_heap *heap, const void *obj,
			size_t head_offset);
void *__must_check cmstat_krealloc(struct cmstat_heap *heap, const void *obj,
				   size_t new_size, gfp_t gfp)
	__realloc_size(3);
void *__must_check cmstat_kvrealloc(struct cmstat_heap *heap, const void *obj,
				    size_t new_size, gfp_t gfp)
	__realloc_size(3);
void *cmstat_kmalloc_node(struct cmstat_heap *heap, size_t size, gfp_t gfp,
			  int node)
	__alloc_size(2);
void *cmstat_kvmalloc_node(struct cmstat_heap *heap, size_t size, gfp_t gfp,
			   int node)
	__alloc_size(2);
char *cmstat_kstrdup(struct cmstat_heap *heap, const char *s, gfp_t gfp)
	__malloc;
char *cmstat_kstrndup(struct cmstat_heap *heap, const char *s, size_t max,
		      gfp_t gfp)
	__malloc;
void *cmstat_kmemdup(struct cmstat_heap *heap, const void *src, size_t len,
		     gfp_t gfp)
	__alloc_size(3);
__printf(3, 0) char *cmstat_kvasprintf(struct cmstat_heap *heap, gfp_t gfp,
				       const char *fmt, va_list ap)
	__malloc;
__printf(3, 4) char *cmstat_kasprintf(struct cmstat_heap *heap, gfp_t gfp,
				      const char *fmt, ...)
	__malloc;

/* Their forms for a call site: see the end of this header. */
void *__must_check __cmstat_krealloc_at(struct cmstat_heap *heap,
					const void *obj, size_t new_size,
					gfp_t gfp, struct cmstat_site *site)
	__realloc_size(3);
void *__must_check __cmstat_kvrealloc_at(struct cmstat_heap *heap,
					 const void *obj, size_t new_size,
					 gfp_t gfp, struct cmstat_site *site)
	__realloc_size(3);
char *__cmstat_kstrdup_at(struct cmstat_heap *heap, const char *s, gfp_t gfp,
			  struct cmstat_site *site)
	__malloc;
char *__cmstat_kstrndup_at(struct cmstat_heap *heap, const char *s,
			   size_t max, gfp_t gfp, struct cmstat_site *site)
	__malloc;
void *__cmstat_kmemdup_at(struct cmstat_heap *heap, const void *src,
			  size_t len, gfp_t gfp, struct cmstat_site *site)
	__alloc_size(3);
__printf(4, 0) char *__cmstat_kvasprintf_at(struct cmstat_heap *heap,
					    gfp_t gfp,
					    struct cmstat_site *site,
					    const char *fmt, va_list ap)
	__malloc;
__printf(4, 5) char *__cmstat_kasprintf_at(struct cmstat_heap *heap,
					   gfp_t gfp,
					   struct cmstat_site *site,
					   const char *fmt, ...)
	__malloc;

/**
 * cmstat_kmalloc() - allocate memory that cmstat_kfree() may free
 * @heap: heap to account the allocation in
 * @size: bytes wanted; at most %CMSTAT_ALLOC_MAX
 * @gfp: as for cmstat_alloc()
 *
 * cmstat_alloc() whose memory needs no size to free: the class is
 * counted whole in the requested bytes (see the top of this header).
 * Inline.
 *
 * Return: as cmstat_alloc().
 */
static __always_inline __alloc_size(2) void *
cmstat_kmalloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
{
	return __cmstat_alloc_inline(heap, size, gfp, true, NULL);
}

/**
 * cmstat_kzalloc() - cmstat_kmalloc(), zeroed
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags
 *
 * Return: as cmstat_alloc().
 */
static __always_inline __alloc_size(2) void *
cmstat_kzalloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
{
	return cmstat_kmalloc(heap, size, gfp | __GFP_ZERO);
}

/**
 * cmstat_kzalloc_node() - cmstat_kmalloc_node(), zeroed
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags
 * @node: the node, or NUMA_NO_NODE
 *
 * Return: as cmstat_alloc().
 */
static inline __alloc_size(2) void *
cmstat_kzalloc_node(struct cmstat_heap *heap, size_t size, gfp_t gfp, int node)
{
	return cmstat_kmalloc_node(heap, size, gfp | __GFP_ZERO, node);
}

/**
 * cmstat_kmalloc_array() - cmstat_kmalloc() of @n elements of @size
 * @heap: heap to account the allocation in
 * @n: number of elements
 * @size: bytes per element
 * @gfp: allocation flags
 *
 * Return: as cmstat_alloc(); NULL, counted as a failure, on overflow.
 */
static __always_inline __alloc_size(2, 3) void *
cmstat_kmalloc_array(struct cmstat_heap *heap, size_t n, size_t size,
		     gfp_t gfp)
{
	/* An overflow saturates to SIZE_MAX: above every class, it fails. */
	return cmstat_kmalloc(heap, size_mul(n, size), gfp);
}

/**
 * cmstat_kcalloc() - cmstat_kmalloc_array(), zeroed
 * @heap: heap to account the allocation in
 * @n: number of elements
 * @size: bytes per element
 * @gfp: allocation flags
 *
 * Return: as cmstat_kmalloc_array().
 */
static __always_inline __alloc_size(2, 3) void *
cmstat_kcalloc(struct cmstat_heap *heap, size_t n, size_t size, gfp_t gfp)
{
	return cmstat_kmalloc_array(heap, n, size, gfp | __GFP_ZERO);
}

/**
 * cmstat_kmalloc_array_node() - cmstat_kmalloc_array() on a NUMA node
 * @heap: heap to account the allocation in
 * @n: number of elements
 * @size: bytes per element
 * @gfp: allocation flags
 * @node: the node, or NUMA_NO_NODE
 *
 * Return: as cmstat_kmalloc_array().
 */
static inline __alloc_size(2, 3) void *
cmstat_kmalloc_array_node(struct cmstat_heap *heap, size_t n, size_t size,
			  gfp_t gfp, int node)
{
	return cmstat_kmalloc_node(heap, size_mul(n, size), gfp, node);
}

/**
 * cmstat_kcalloc_node() - cmstat_kmalloc_array_node(), zeroed
 * @heap: heap to account the allocation in
 * @n: number of elements
 * @size: bytes per element
 * @gfp: allocation flags
 * @node: the node, or NUMA_NO_NODE
 *
 * Return: as cmstat_kmalloc_array().
 */
static inline __alloc_size(2, 3) void *
cmstat_kcalloc_node(struct cmstat_heap *heap, size_t n, size_t size,
		    gfp_t gfp, int node)
{
	return cmstat_kmalloc_array_node(heap, n, size, gfp | __GFP_ZERO, node);
}

/*
 * cmstat_krealloc_array(), for @site if not NULL (a module built with
 * CMSTAT_SITES).  An overflow returns NULL here, not counted as a failure,
 * with a site or without.
 */
static __always_inline void *__must_check
__cmstat_krealloc_array(struct cmstat_heap *heap, const void *obj, size_t n,
			size_t size, gfp_t gfp, struct cmstat_site *site)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	if (site)
		return __cmstat_krealloc_at(heap, obj, bytes, gfp, site);
	return cmstat_krealloc(heap, obj, bytes, gfp);
}

/**
 * cmstat_krealloc_array() - cmstat_krealloc() to @n elements of @size
 * @heap: the heap it was allocated from, and the new memory's
 * @obj: memory to resize, or NULL
 * @n: number of elements
 * @size: bytes per element
 * @gfp: allocation flags
 *
 * Return: as cmstat_krealloc(); NULL, @obj left as it was, on overflow.
 */
static inline void *__must_check
cmstat_krealloc_array(struct cmstat_heap *heap, const void *obj, size_t n,
		      size_t size, gfp_t gfp)
{
	return __cmstat_krealloc_array(heap, obj, n, size, gfp, NULL);
}

/**
 * cmstat_kmemdup_array() - cmstat_kmemdup() of @n elements of @size
 * @heap: heap to account the copy in
 * @src: the elements
 * @n: number of elements
 * @size: bytes per element
 * @gfp: allocation flags
 *
 * Return: the copy; NULL on failure or overflow.
 */
static inline __alloc_size(3, 4) void *
cmstat_kmemdup_array(struct cmstat_heap *heap, const void *src, size_t n,
		     size_t size, gfp_t gfp)
{
	return cmstat_kmemdup(heap, src, size_mul(n, size), gfp);
}

/**
 * cmstat_kvmalloc() - cmstat_kmalloc(), or virtually contiguous memory
 *	for sizes past it
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags; only GFP_KERNEL or a superset gets vmalloc(),
 *	which may sleep
 *
 * kvmalloc() for a heap: cmstat_kmalloc() first, vmalloc() when that
 * fails or @size is beyond %CMSTAT_ALLOC_MAX, if @size is beyond a page
 * and @gfp may sleep (else NULL, as kvmalloc()).  Free with
 * cmstat_kvfree().
 *
 * Return: the memory, or NULL (counted in failed_allocs).
 */
static inline __alloc_size(2) void *
cmstat_kvmalloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
{
	return cmstat_kvmalloc_node(heap, size, gfp, NUMA_NO_NODE);
}

/**
 * cmstat_kvzalloc() - cmstat_kvmalloc(), zeroed
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: as for cmstat_kvmalloc()
 *
 * Return: as cmstat_kvmalloc().
 */
static inline __alloc_size(2) void *
cmstat_kvzalloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
{
	return cmstat_kvmalloc(heap, size, gfp | __GFP_ZERO);
}

/**
 * cmstat_kvmalloc_array() - cmstat_kvmalloc() of @n elements of @size
 * @heap: heap to account the allocation in
 * @n: number of elements
 * @size: bytes per element
 * @gfp: as for cmstat_kvmalloc()
 *
 * Return: as cmstat_kvmalloc(); NULL, counted as a failure, on overflow.
 */
static inline __alloc_size(2, 3) void *
cmstat_kvmalloc_array(struct cmstat_heap *heap, size_t n, size_t size,
		      gfp_t gfp)
{
	return cmstat_kvmalloc(heap, size_mul(n, size), gfp);
}

/**
 * cmstat_kvcalloc() - cmstat_kvmalloc_array(), zeroed
 * @heap: heap to account the allocation in
 * @n: number of elements
 * @size: bytes per element
 * @gfp: as for cmstat_kvmalloc()
 *
 * Return: as cmstat_kvmalloc_array().
 */
static inline __alloc_size(2, 3) void *
cmstat_kvcalloc(struct cmstat_heap *heap, size_t n, size_t size, gfp_t gfp)
{
	return cmstat_kvmalloc_array(heap, n, size, gfp | __GFP_ZERO);
}

/*
 * cmstat_kvmalloc_node() for @site if not NULL: for helpers that allocate
 * for their caller's site, which a macro at the call site passes them
 * (include/cmstat/adopt.h's), and that allocate as before without one.
 */
static __always_inline __alloc_size(2) void *
__cmstat_kvmalloc_node_site(struct cmstat_heap *heap, size_t size, gfp_t gfp,
			    int node, struct cmstat_site *site)
{
	if (site)
		return __cmstat_kvmalloc_node_at(heap, size, gfp, node, site);
	return cmstat_kvmalloc_node(heap, size, gfp, node);
}

/**
 * cmstat_kvfree() - free memory from cmstat_kvmalloc(), or any
 * @heap: the heap it was allocated from
 * @obj: the memory, or NULL
 *
 * kvfree() for a heap: cmstat_kfree(), which frees vmalloc()'s memory too.
 */
static inline void cmstat_kvfree(struct cmstat_heap *heap, const void *obj)
{
	cmstat_kfree(heap, obj);
}

/**
 * cmstat_kfree_rcu() - free after a grace period, as kfree_rcu()
 * @heap: the heap it was allocated from
 * @ptr: the object, or NULL
 * @rhf: the name of its struct rcu_head member
 *
 * The free is counted now, when the caller gives the object up; the slab
 * allocator gets it back after a grace period, by the kernel's own
 * kfree_rcu().  So a foreign object goes there uncounted, like any
 * cmstat_kfree().  Any context kfree_rcu() allows: on PREEMPT_RT, where
 * cmstat's record of a large allocation cannot be taken (preemption or
 * interrupts off), cmstat waits for the grace period and frees it itself.
 */
#define cmstat_kfree_rcu(heap, ptr, rhf)				\
do {									\
	typeof(ptr) ___cmstat_p = (ptr);				\
									\
	if (___cmstat_p)						\
		__cmstat_kfree_rcu(heap, ___cmstat_p,			\
				   offsetof(typeof(*___cmstat_p), rhf));	\
} while (0)

/**
 * cmstat_kfree_rcu_mightsleep() - free after a grace period, without an
 *	rcu_head, as kfree_rcu_mightsleep()
 * @heap: the heap it was allocated from
 * @ptr: the object, or NULL
 *
 * As cmstat_kfree_rcu(); may sleep, waiting for a grace period.
 */
#define cmstat_kfree_rcu_mightsleep(heap, ptr)				\
do {									\
	typeof(ptr) ___cmstat_p = (ptr);				\
									\
	if (___cmstat_p && __cmstat_kfree_deferred(heap, ___cmstat_p))	\
		cmstat_kvfree_rcu_1(___cmstat_p);			\
} while (0)

/*
 * Each call its own site, with CMSTAT_SITES: see include/cmstat/alloc.h.
 * The _node and kvmalloc() families, the copies, the formatted strings
 * and the resizes pass theirs to cmstat.ko: a class object, vmalloc()ed
 * memory and what is above the largest class count in the site's row (the
 * last two unattributed on a 32-bit kernel).  A resize in place allocates
 * nothing, and its object stays in the row of the site that allocated it.
 */
#ifdef CMSTAT_SITES
#define cmstat_kmalloc(heap, size, gfp)					\
	__cmstat_site_hooks(__cmstat_alloc_inline(heap, size, gfp, true,	\
						  __CMSTAT_SITE_HERE()))
#define cmstat_kzalloc(heap, size, gfp)					\
	__cmstat_site_hooks(__cmstat_alloc_inline(heap, size,		\
						  (gfp) | __GFP_ZERO,	\
						  true,			\
						  __CMSTAT_SITE_HERE()))
#define cmstat_kmalloc_array(heap, n, size, gfp)			\
	__cmstat_site_hooks(__cmstat_alloc_inline(heap, size_mul(n, size), \
						  gfp, true,		\
						  __CMSTAT_SITE_HERE()))
#define cmstat_kcalloc(heap, n, size, gfp)				\
	__cmstat_site_hooks(__cmstat_alloc_inline(heap, size_mul(n, size), \
						  (gfp) | __GFP_ZERO,	\
						  true,			\
						  __CMSTAT_SITE_HERE()))
#define cmstat_kmalloc_node(heap, size, gfp, node)			\
	__cmstat_site_hooks(__cmstat_alloc_at(heap, size, gfp, node, true, \
					      __CMSTAT_SITE_HERE()))
#define cmstat_kzalloc_node(heap, size, gfp, node)			\
	cmstat_kmalloc_node(heap, size, (gfp) | __GFP_ZERO, node)
#define cmstat_kmalloc_array_node(heap, n, size, gfp, node)		\
	cmstat_kmalloc_node(heap, size_mul(n, size), gfp, node)
#define cmstat_kcalloc_node(heap, n, size, gfp, node)			\
	cmstat_kmalloc_node(heap, size_mul(n, size), (gfp) | __GFP_ZERO, node)
#define cmstat_kvmalloc_node(heap, size, gfp, node)			\
	__cmstat_site_hooks(__cmstat_kvmalloc_node_at(heap, size, gfp, node, \
						      __CMSTAT_SITE_HERE()))
#define cmstat_kvmalloc(heap, size, gfp)				\
	cmstat_kvmalloc_node(heap, size, gfp, NUMA_NO_NODE)
#define cmstat_kvzalloc(heap, size, gfp)				\
	cmstat_kvmalloc_node(heap, size, (gfp) | __GFP_ZERO, NUMA_NO_NODE)
#define cmstat_kvmalloc_array(heap, n, size, gfp)			\
	cmstat_kvmalloc_node(heap, size_mul(n, size), gfp, NUMA_NO_NODE)
#define cmstat_kvcalloc(heap, n, size, gfp)				\
	cmstat_kvmalloc_node(heap, size_mul(n, size), (gfp) | __GFP_ZERO, \
			     NUMA_NO_NODE)
#define cmstat_krealloc(heap, obj, new_size, gfp)			\
	__cmstat_site_hooks(__cmstat_krealloc_at(heap, obj, new_size, gfp, \
						 __CMSTAT_SITE_HERE()))
#define cmstat_krealloc_array(heap, obj, n, size, gfp)			\
	__cmstat_site_hooks(__cmstat_krealloc_array(heap, obj, n, size, gfp, \
						    __CMSTAT_SITE_HERE()))
#define cmstat_kvrealloc(heap, obj, new_size, gfp)			\
	__cmstat_site_hooks(__cmstat_kvrealloc_at(heap, obj, new_size, gfp, \
						  __CMSTAT_SITE_HERE()))
#define cmstat_kmemdup(heap, src, len, gfp)				\
	__cmstat_site_hooks(__cmstat_kmemdup_at(heap, src, len, gfp,	\
						__CMSTAT_SITE_HERE()))
#define cmstat_kmemdup_array(heap, src, n, size, gfp)			\
	cmstat_kmemdup(heap, src, size_mul(n, size), gfp)
#define cmstat_kstrdup(heap, s, gfp)					\
	__cmstat_site_hooks(__cmstat_kstrdup_at(heap, s, gfp,		\
						__CMSTAT_SITE_HERE()))
#define cmstat_kstrndup(heap, s, max, gfp)				\
	__cmstat_site_hooks(__cmstat_kstrndup_at(heap, s, max, gfp,	\
						 __CMSTAT_SITE_HERE()))
#define cmstat_kvasprintf(heap, gfp, fmt, ap)				\
	__cmstat_site_hooks(__cmstat_kvasprintf_at(heap, gfp,		\
						   __CMSTAT_SITE_HERE(), \
						   fmt, ap))
#define cmstat_kasprintf(heap, gfp, ...)				\
	__cmstat_site_hooks(__cmstat_kasprintf_at(heap, gfp,		\
						  __CMSTAT_SITE_HERE(),	\
						  __VA_ARGS__))
#endif

#endif /* _CMSTAT_KMALLOC_H */
