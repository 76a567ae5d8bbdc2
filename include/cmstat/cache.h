/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmstat typed caches: kmem_cache_create() and its family, for a heap.
 *
 * A typed cache is a kmem_cache of the caller's own, with its constructor,
 * flags, alignment and usercopy region, whose allocations and frees a
 * heap counts, in a column of the heap's counters: each is a row of the
 * heap's statistics, in the same snapshot as everything else.  Objects
 * are the slab allocator's as they would be without cmstat: the
 * constructor runs once per object, SLAB_TYPESAFE_BY_RCU and SLAB_ACCOUNT
 * (memcg charging) hold, and kfree() or cmstat_kfree() may free them.
 * Documentation/allocator.rst has the contract.
 */
#ifndef _CMSTAT_CACHE_H
#define _CMSTAT_CACHE_H

#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>
#include <cmstat/compat.h>

struct list_lru;

struct cmstat_cache *
cmstat_cache_create_args(struct cmstat_heap *heap, const char *name,
			 unsigned int size, struct cmstat_kmem_cache_args *args,
			 slab_flags_t flags);
void cmstat_cache_destroy(struct cmstat_cache *cc);
int cmstat_cache_read(struct cmstat_cache *cc, struct cmstat_cache_stats *st);
const char *cmstat_cache_name(const struct cmstat_cache *cc);
void *cmstat_cache_alloc_lru(struct cmstat_cache *cc, struct list_lru *lru,
			     gfp_t gfp);
int cmstat_cache_alloc_bulk(struct cmstat_cache *cc, gfp_t gfp, size_t n,
			    void **objs);
void cmstat_cache_free_bulk(struct cmstat_cache *cc, size_t n, void **objs);
void *__cmstat_cache_alloc_lru_at(struct cmstat_cache *cc,
				  struct list_lru *lru, gfp_t gfp,
				  struct cmstat_site *site);
int __cmstat_cache_alloc_bulk_at(struct cmstat_cache *cc, gfp_t gfp, size_t n,
				 void **objs, struct cmstat_site *site);
void *__cmstat_cache_alloc_tail_col(struct cmstat_cache *cc, void *obj,
				    gfp_t gfp, int col);
void __cmstat_cache_free_tail(struct cmstat_cache *cc, void *obj);

/**
 * cmstat_cache_create() - create a typed cache counted by a heap
 * @heap: the heap whose statistics count its objects
 * @name: the slab cache's name, as kmem_cache_create() takes it; cmstat's
 *	files show its first %CMSTAT_CACHE_NAME_MAX characters
 * @size: the object size
 * @align: the objects' alignment, or 0
 * @flags: SLAB_* flags, as kmem_cache_create() takes them
 * @ctor: run once per object, when the slab allocator makes it; or NULL
 *
 * kmem_cache_create() for a heap.  The cache is never merged with another
 * (see CMSTAT_SLAB_NO_MERGE), so that cmstat_kfree() knows its objects.
 * Destroy it with cmstat_cache_destroy() before destroying @heap.
 * Process context; may sleep.
 *
 * Return: the cache, or NULL as kmem_cache_create() (and when @heap has
 * %CMSTAT_HEAP_CACHES typed caches already, with a message naming it).
 */
static inline struct cmstat_cache *
cmstat_cache_create(struct cmstat_heap *heap, const char *name,
		    unsigned int size, unsigned int align, slab_flags_t flags,
		    void (*ctor)(void *))
{
	struct cmstat_kmem_cache_args args = { .align = align, .ctor = ctor };

	return cmstat_cache_create_args(heap, name, size, &args, flags);
}

/**
 * cmstat_cache_create_usercopy() - create a typed cache with a usercopy
 *	region
 * @heap: the heap whose statistics count its objects
 * @name: as for cmstat_cache_create()
 * @size: the object size
 * @align: the objects' alignment, or 0
 * @flags: SLAB_* flags
 * @useroffset: where the region that may be copied to or from user space
 *	starts in the object
 * @usersize: its size
 * @ctor: as for cmstat_cache_create()
 *
 * kmem_cache_create_usercopy() for a heap.
 *
 * Return: as cmstat_cache_create().
 */
static inline struct cmstat_cache *
cmstat_cache_create_usercopy(struct cmstat_heap *heap, const char *name,
			     unsigned int size, unsigned int align,
			     slab_flags_t flags, unsigned int useroffset,
			     unsigned int usersize, void (*ctor)(void *))
{
	struct cmstat_kmem_cache_args args = {
		.align = align,
		.useroffset = useroffset,
		.usersize = usersize,
		.ctor = ctor,
	};

	return cmstat_cache_create_args(heap, name, size, &args, flags);
}

struct cmstat_cache *__cmstat_heap_cache_probe(const struct cmstat_heap *heap,
					       const struct kmem_cache *s);

struct cmstat_cache *cmstat_cache_of_slab(const struct kmem_cache *s);

/**
 * cmstat_heap_cache_of() - the typed cache of a heap whose slab cache this is
 * @heap: the heap
 * @s: a slab cache, any: the kernel's, another heap's, or NULL
 *
 * What include/cmstat/adopt.h's kmem_cache_alloc() and the rest of the
 * family look up first: a module adopted holds its typed caches by their
 * slab caches, real kmem_caches the kernel may take, and hands the
 * kernel's caches to the same calls.  A probe of @heap's table
 * (struct cmstat_heap_by_slab), lock-free, in any context: inline, a hash
 * and one slot's load and compare, which finds a cache in its home slot;
 * out of line, the rest of the probe (a cache of the kernel's, NULL, or a
 * home slot taken by another).  A typed cache is in the table from before
 * cmstat_cache_create() returns its slab cache to after the last use a
 * client may make of it, and out of it before its slab cache is
 * destroyed: a kmem_cache the kernel makes later at the same address is
 * never taken for it.
 *
 * Return: the typed cache, or NULL if @s is not one of @heap's.
 */
static __always_inline struct cmstat_cache *
cmstat_heap_cache_of(const struct cmstat_heap *heap,
		     const struct kmem_cache *s)
{
	const struct cmstat_heap_by_slab *slot =
		&heap->by_slab[hash_ptr(s, CMSTAT_HEAP_BY_SLAB_BITS)];

	/*
	 * Pairs with the smp_store_release() of @slab in
	 * cmstat_heap_map_cache() (module/heap.c): the slot's @cc, and the
	 * cache it points to, were written before it.  No slot's key is
	 * NULL.
	 */
	if (likely(smp_load_acquire(&slot->slab) == s))
		return READ_ONCE(slot->cc);
	return __cmstat_heap_cache_probe(heap, s);
}

/*
 * Whether this build counts @cc's objects in its heap's site rows: a heap
 * with site rows, in a build that asks (see __CMSTAT_SITES_ASKED).  Such
 * a cache's objects carry a tag past the client's object, as a class
 * object does in its last four bytes, which ends at @cc->tag_end:
 * cmstat_cache_create_args() makes the slab's objects that much larger,
 * unless that costs more than %CMSTAT_CACHE_TAG_COST_MAX bytes an object
 * (CMSTAT_CACHE_UNTAGGED: they count unattributed).
 */
static __always_inline bool __cmstat_cache_sited(const struct cmstat_cache *cc)
{
	return __CMSTAT_SITES_ASKED && cc->tag_end;
}

static __always_inline struct cmstat_site_count
__cmstat_cache_count(const struct cmstat_cache *cc, const void *obj, int col,
		     bool free)
{
	return (struct cmstat_site_count){
		.heap = cc->heap,
		.col = col,
		.nid = __cmstat_node_of(obj),
		.held = cc->size,
		.free = free,
	};
}

/*
 * Tag @obj, just allocated from @cc, with @site's column (unattributed
 * for a NULL @site: cmstat.ko's own callers), whatever the accounting:
 * every object of a sited cache has its tag, as every class object of a
 * sited heap has.  Return: the column, or -1 for a cache not sited.
 */
static __always_inline int __cmstat_cache_tag(const struct cmstat_cache *cc,
					      void *obj,
					      struct cmstat_site *site)
{
	int col;

	if (!__cmstat_cache_sited(cc))
		return -1;
	if (cc->tag_end == CMSTAT_CACHE_UNTAGGED)
		return CMSTAT_SITE_UNATTRIBUTED;
	col = site ? __cmstat_site_col(cc->heap, site) :
		     CMSTAT_SITE_UNATTRIBUTED;
	*__cmstat_site_tag(obj, cc->tag_end) =
		CMSTAT_SITE_TAG_MAGIC | max(col, CMSTAT_SITE_UNATTRIBUTED);
	return col;
}

/*
 * What freeing @obj, an object of @cc still allocated, takes from its
 * heap's site and node rows: the column its tag names.  @obj must be of
 * @cc: an object of a smaller cache has no tag at @cc->tag_end.
 */
static __always_inline struct cmstat_site_count
__cmstat_cache_site(const struct cmstat_cache *cc, const void *obj)
{
	int col = CMSTAT_SITE_UNATTRIBUTED;

	if (!__cmstat_cache_sited(cc))
		return __CMSTAT_NO_SITE;
	if (cc->tag_end != CMSTAT_CACHE_UNTAGGED)
		col = __cmstat_site_tag_col(cc->heap,
					    *__cmstat_site_tag(obj, cc->tag_end));
	return __cmstat_cache_count(cc, obj, col, true);
}

/*
 * The accounting of an allocation from @cc that returned @obj, tagged
 * with column @col (-1: none).
 */
static __always_inline void *__cmstat_cache_alloc_done(struct cmstat_cache *cc,
						       void *obj, gfp_t gfp,
						       int col)
{
	if (static_branch_likely(&cmstat_inline_accounting)) {
		if (unlikely(!obj)) {
			__cmstat_alloc_failed(cc->heap);
			return NULL;
		}
		__cmstat_account(&cc->slots, gfp, cc->mallocs_slot,
				 CMSTAT_HC_CACHE_ALLOC_BYTES, cc->size,
				 col < 0 ? __CMSTAT_NO_SITE :
				 __cmstat_cache_count(cc, obj, col, false));
		return obj;
	}
	if (static_branch_unlikely(&cmstat_debug_free_key))
		return __cmstat_cache_alloc_tail_col(cc, obj, gfp, col);
	return obj;
}

/*
 * An allocation from @cc on @node, for @site.  With a site, its macro
 * holds allocation profiling's tag (see __cmstat_site_hooks()), and the
 * slab allocation keeps it.
 */
static __always_inline void *
__cmstat_cache_alloc_at(struct cmstat_cache *cc, gfp_t gfp, int node,
			struct cmstat_site *site)
{
	void *obj;

	if (__cmstat_atomic_rt())
		return __cmstat_alloc_refused_rt(cc->heap, _THIS_IP_);
	if (__builtin_constant_p(node) && node == NUMA_NO_NODE)
		obj = site ? cmstat_slab_alloc_noprof(cc->slab, gfp) :
			     kmem_cache_alloc(cc->slab, gfp);
	else
		obj = site ? cmstat_slab_alloc_node_noprof(cc->slab, gfp, node) :
			     kmem_cache_alloc_node(cc->slab, gfp, node);
	return __cmstat_cache_alloc_done(cc, obj, gfp,
					 obj ? __cmstat_cache_tag(cc, obj, site) :
					       -1);
}

/**
 * cmstat_cache_alloc() - allocate an object from a typed cache
 * @cc: the cache
 * @gfp: as for kmem_cache_alloc(), in any context it allows
 *
 * kmem_cache_alloc(), counted in @cc's heap.  Inline, as cmstat_alloc().
 *
 * Return: the object, or NULL (counted in the heap's failed_allocs).
 */
static __always_inline void *cmstat_cache_alloc(struct cmstat_cache *cc,
						gfp_t gfp)
{
	return __cmstat_cache_alloc_at(cc, gfp, NUMA_NO_NODE, NULL);
}

/**
 * cmstat_cache_zalloc() - allocate a zeroed object from a typed cache
 * @cc: the cache
 * @gfp: as for cmstat_cache_alloc()
 *
 * Return: as cmstat_cache_alloc().
 */
static __always_inline void *cmstat_cache_zalloc(struct cmstat_cache *cc,
						 gfp_t gfp)
{
	return cmstat_cache_alloc(cc, gfp | __GFP_ZERO);
}

/**
 * cmstat_cache_alloc_node() - allocate an object from a typed cache, on a
 *	node
 * @cc: the cache
 * @gfp: as for cmstat_cache_alloc()
 * @node: the NUMA node, or NUMA_NO_NODE
 *
 * Return: as cmstat_cache_alloc().
 */
static __always_inline void *
cmstat_cache_alloc_node(struct cmstat_cache *cc, gfp_t gfp, int node)
{
	return __cmstat_cache_alloc_at(cc, gfp, node, NULL);
}

/**
 * cmstat_cache_free() - free an object into its typed cache
 * @cc: the cache it came from
 * @obj: the object; NULL is a no-op
 *
 * kmem_cache_free(), counted in @cc's heap.  The object goes back by
 * kfree(), which finds its slab by itself, as cmstat_free() does: that
 * skips kmem_cache_free()'s check of the cache (with
 * CONFIG_SLAB_FREELIST_HARDENED), 22 instructions of a pair's 225, which
 * would cost more than cmstat's accounting.  An object of another cache
 * is freed into its own and counted in @cc all the same: a contract
 * violation, reported as any wrong free (see cmstat_free()); in a heap
 * with site rows, its tag is read where @cc's objects keep theirs, past
 * the end of a smaller object.  Any
 * context.  Inline.
 */
static __always_inline void cmstat_cache_free(struct cmstat_cache *cc,
					      void *obj)
{
	if (static_branch_likely(&cmstat_inline_accounting)) {
		struct cmstat_site_count site;

		if (unlikely(!obj))
			return;
		site = __cmstat_cache_site(cc, obj);
		__cmstat_kfree(obj);
		__cmstat_account(&cc->slots, 0, cc->frees_slot,
				 CMSTAT_HC_CACHE_FREE_BYTES, cc->size, site);
		return;
	}
	if (static_branch_unlikely(&cmstat_debug_free_key)) {
		__cmstat_cache_free_tail(cc, obj);
		return;
	}
	__cmstat_kfree(obj);	/* NULL is a no-op for it too */
}

/**
 * cmstat_cache_size() - the object size of a typed cache
 * @cc: the cache
 *
 * kmem_cache_size() for a typed cache: the size it was created with.
 * Not the slab cache's, which holds the site tag past it in a heap with
 * site rows, and on PREEMPT_RT may hold a word more for cmstat (see
 * module/free_later.c).  ksize() of an object counts those bytes too: use
 * this size.
 *
 * Return: the object size, in bytes.
 */
static inline unsigned int cmstat_cache_size(const struct cmstat_cache *cc)
{
	return cc->size;
}

/**
 * cmstat_cache_shrink() - give a typed cache's free slabs back
 * @cc: the cache
 *
 * kmem_cache_shrink() for a typed cache: the statistics do not move, as
 * they count objects, not slabs.  Process context.
 *
 * Return: as kmem_cache_shrink().
 */
static inline int cmstat_cache_shrink(struct cmstat_cache *cc)
{
	return kmem_cache_shrink(cc->slab);
}

/*
 * In a module built with CMSTAT_SITES, each allocation is its call site's,
 * as cmstat_alloc()'s is (include/cmstat/alloc.h): the functions above,
 * documented as they are, become macros that give the allocation this
 * line's descriptor, and allocation profiling this line's tag.
 */
#ifdef CMSTAT_SITES
#define cmstat_cache_alloc(cc, gfp)					\
	__cmstat_site_hooks(__cmstat_cache_alloc_at(cc, gfp, NUMA_NO_NODE, \
						    __CMSTAT_SITE_HERE()))
#define cmstat_cache_zalloc(cc, gfp)					\
	__cmstat_site_hooks(__cmstat_cache_alloc_at(cc, (gfp) | __GFP_ZERO, \
						    NUMA_NO_NODE,	\
						    __CMSTAT_SITE_HERE()))
#define cmstat_cache_alloc_node(cc, gfp, node)				\
	__cmstat_site_hooks(__cmstat_cache_alloc_at(cc, gfp, node,	\
						    __CMSTAT_SITE_HERE()))
#define cmstat_cache_alloc_lru(cc, lru, gfp)				\
	__cmstat_site_hooks(__cmstat_cache_alloc_lru_at(cc, lru, gfp,	\
							__CMSTAT_SITE_HERE()))
#define cmstat_cache_alloc_bulk(cc, gfp, n, objs)			\
	__cmstat_site_hooks(__cmstat_cache_alloc_bulk_at(cc, gfp, n, objs, \
							 __CMSTAT_SITE_HERE()))
#endif

#endif /* _CMSTAT_CACHE_H */
