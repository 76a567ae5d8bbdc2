// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat typed caches (include/cmstat/cache.h): a kmem_cache of the
 * client's, and a column of its heap's counters.
 *
 * The allocation and the free are inline in the client; here is what
 * they leave out of line: creation, destruction, bulk and list_lru
 * allocation, and debug_free's bookkeeping.  A destroyed cache's column
 * is retired in one writer section, its counts moved to the heap's
 * retired totals, so that the heap's cumulative counters never go down
 * and the next cache created gets the column from 0.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

/**
 * cmstat_cache_name() - a typed cache's name
 * @cc: the cache
 *
 * Return: the name as cmstat shows it (see cmstat_cache_create()).
 */
const char *cmstat_cache_name(const struct cmstat_cache *cc)
{
	return cmstat_cache_priv(cc)->name;
}
EXPORT_SYMBOL_GPL(cmstat_cache_name);

/*
 * The bytes the slab allocator gives an object of @size in a cache of
 * @align and @flags: its size aligned as calculate_alignment() of
 * mm/slab_common.c aligns it.
 */
static unsigned int cmstat_slab_stride(unsigned int size, unsigned int align,
				       slab_flags_t flags)
{
	unsigned int ralign;

	if (flags & SLAB_HWCACHE_ALIGN) {
		ralign = cache_line_size();
		while (size <= ralign / 2)
			ralign /= 2;
		align = max(align, ralign);
	}
	align = ALIGN(max_t(unsigned int, align, arch_slab_minalign()),
		      sizeof(void *));
	return ALIGN(size, align);
}

/*
 * A typed cache of a heap with site rows: room for the tag past each
 * object, where it costs at most CMSTAT_CACHE_TAG_COST_MAX bytes an
 * object; else (an alignment the object fills) its objects count
 * unattributed, as cmstat says.
 */
static void cmstat_cache_make_room(struct cmstat_cache_priv *cp,
				   unsigned int align, unsigned int useroffset,
				   unsigned int usersize, slab_flags_t flags)
{
	unsigned int size = cp->cc.size;
	unsigned int tag_end = ALIGN(size, CMSTAT_SITE_TAG_SIZE) +
			       CMSTAT_SITE_TAG_SIZE;
	unsigned int cost;

	cp->cc.tag_end = CMSTAT_CACHE_UNTAGGED;
	/*
	 * Refused by the slab allocator, or a usercopy region past the object,
	 * which it reports: as it would without a tag.
	 */
	if (size > KMALLOC_MAX_SIZE || usersize > size ||
	    useroffset > size - usersize)
		return;
	cost = cmstat_slab_stride(tag_end, align, flags) -
	       cmstat_slab_stride(size, align, flags);
	if (cost > CMSTAT_CACHE_TAG_COST_MAX) {
		pr_info("typed cache %s of heap %s: a site tag would cost %u bytes an object; its objects count unattributed\n",
			cp->name, cmstat_heap_name(cp->cc.heap), cost);
		return;
	}
	cp->cc.tag_end = tag_end;
	cp->obj_size = tag_end;
}

/**
 * cmstat_cache_create_args() - create a typed cache counted by a heap
 * @heap: the heap whose statistics count its objects
 * @name: the slab cache's name
 * @size: the object size
 * @args: as kmem_cache_create() takes them from 6.12 on (struct
 *	kmem_cache_args); before, struct cmstat_kmem_cache_args of
 *	include/cmstat/compat.h, with the fields of
 *	kmem_cache_create_usercopy()
 * @flags: SLAB_* flags
 *
 * The form of cmstat_cache_create() that takes every argument the
 * running kernel's kmem_cache_create() does.  Process context.
 *
 * Return: as cmstat_cache_create().
 */
struct cmstat_cache *
cmstat_cache_create_args(struct cmstat_heap *heap, const char *name,
			 unsigned int size, struct cmstat_kmem_cache_args *args,
			 slab_flags_t flags)
{
	struct cmstat_cache_priv *cp;
	unsigned int slab_size;

	if (IS_ERR_OR_NULL(heap) || !name)
		return NULL;
	cp = kzalloc(sizeof(*cp), GFP_KERNEL);
	if (!cp)
		return NULL;
	strscpy(cp->name, name, sizeof(cp->name));
	cp->cc.heap = heap;
	cp->cc.slots = heap->slots;
	cp->cc.size = size;
	cp->obj_size = size;
	if (__cmstat_heap_has_sites(heap))
		cmstat_cache_make_room(cp, args->align, args->useroffset,
				       args->usersize, flags);
	slab_size = cmstat_later_cache_size(cp->obj_size, args->ctor, flags);
	cp->cc.slab = cmstat_kmem_cache_create(name, slab_size, args,
					       flags | CMSTAT_SLAB_NO_MERGE);
	if (!cp->cc.slab)
		goto err_free;
	if (cmstat_heap_add_cache(heap, cp))
		goto err_destroy;
	cmstat_owner_add_cache(cp);
	return &cp->cc;

err_destroy:
	kmem_cache_destroy(cp->cc.slab);
err_free:
	kfree(cp);
	return NULL;
}
EXPORT_SYMBOL_GPL(cmstat_cache_create_args);

/*
 * Before 6.12, kmem_cache_destroy() does not wait for the frees that
 * kfree_rcu() still holds, and WARNs if it finds their objects in the
 * cache (CMSTAT_DESTROY_WAITS_FOR_KFREE_RCU): wait for them here.  Our
 * statistics showed the cache empty, so whatever the slab allocator
 * still counts there (kmem_cache_shrink(), with CONFIG_SLUB_DEBUG) is a
 * free that kfree_rcu() holds, in a batch it hands to RCU within a few
 * seconds; rcu_barrier() then waits for its grace period.  Bounded by
 * count, in case something else holds objects.  Without
 * CONFIG_SLUB_DEBUG nothing tells, and one rcu_barrier() is all we do.
 *
 * Return: whether the cache may be destroyed.
 */
#define CMSTAT_RCU_DRAIN_TRIES	100
static bool cmstat_cache_drain_rcu(struct kmem_cache *s)
{
	unsigned int tries;

	if (CMSTAT_DESTROY_WAITS_FOR_KFREE_RCU)
		return true;
	for (tries = 0; tries < CMSTAT_RCU_DRAIN_TRIES; tries++) {
		rcu_barrier();
		if (!IS_ENABLED(CONFIG_SLUB_DEBUG) || !kmem_cache_shrink(s))
			return true;
		msleep(100);
	}
	return false;
}

/**
 * cmstat_cache_destroy() - destroy a typed cache
 * @cc: the cache; NULL is a no-op
 *
 * kmem_cache_destroy(), once the frees that kfree_rcu() deferred are
 * done: it waits for them itself from 6.12 on, and cmstat before (for up
 * to 10 s; a cache the slab allocator still finds objects in then is left
 * allocated, with a message, rather than destroyed with a warning).  The
 * cache's counts go to its heap's retired totals, and its column to the
 * next cache created, while no snapshot is taken (cmstat_heap_retire_cache()).
 * A cache whose statistics
 * still show live objects is not destroyed: cmstat says so once, naming
 * it, and leaves it allocated, as kmem_cache_destroy() leaves a cache
 * that holds objects (without its warning).  It and its heap then stay,
 * and cmstat loaded.  Process context; takes a snapshot of the heap, so
 * sleeps, killably: killed, it leaves the cache in place likewise.
 */
void cmstat_cache_destroy(struct cmstat_cache *cc)
{
	struct cmstat_cache_priv *cp;
	s64 live;
	int err;

	if (!cc)
		return;
	cp = cmstat_cache_priv(cc);
	if (cmstat_accounting_enabled()) {
		err = cmstat_read_refused(_RET_IP_) ?:
		      cmstat_heap_retire_cache(cc->heap, cp, &live);
		if (err == -EBUSY) {
			pr_warn("typed cache %s of heap %s destroyed with %lld live objects; left allocated\n",
				cp->name, cmstat_heap_name(cc->heap), live);
			return;
		}
		if (err) {
			pr_warn("typed cache %s of heap %s: destroyed, its statistics unread (%pe); left allocated\n",
				cp->name, cmstat_heap_name(cc->heap),
				ERR_PTR(err));
			return;
		}
	}
	cmstat_heap_unmap_cache(cc->heap, cc);
	cmstat_owner_del_cache(cp);
	cmstat_free_later_flush();	/* objects whose free was handed on */
	if (cmstat_cache_drain_rcu(cc->slab))
		kmem_cache_destroy(cc->slab);
	else
		pr_warn("typed cache %s of heap %s destroyed, but the slab allocator still counts objects in it; left allocated\n",
			cp->name, cmstat_heap_name(cc->heap));
	cmstat_heap_del_cache(cc->heap, cp);
	/* cmstat_owner_of() may still be looking at it. */
	kfree_rcu(cp, rcu);
}
EXPORT_SYMBOL_GPL(cmstat_cache_destroy);

/**
 * cmstat_cache_read() - a consistent snapshot of one typed cache
 * @cc: the cache
 * @st: filled with the snapshot
 *
 * Process context; sleeps, killably, as cmstat_heap_read().
 *
 * Return: 0, or as cmstat_heap_read(), with @st untouched.
 */
int cmstat_cache_read(struct cmstat_cache *cc, struct cmstat_cache_stats *st)
{
	u64 *c, epoch;
	int err;

	if (!cc)
		return -EINVAL;
	err = cmstat_read_refused(_RET_IP_);
	if (err)
		return err;
	c = kmalloc_array(CMSTAT_HC_NR, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	err = cmstat_heap_counters(cc->heap, c, &epoch);
	if (!err)
		cmstat_derive_cache(c, cmstat_cache_mallocs_idx(cc) -
				       CMSTAT_HC_CACHE_MALLOCS,
				    cc->size, epoch, st);
	kfree(c);
	return err;
}
EXPORT_SYMBOL_GPL(cmstat_cache_read);

/*
 * @n allocations from @cc, @objs, tagged with column @col (-1: none), or
 * frees of them into it (@col unused), in one section.  The objects are
 * still allocated: a free's tags and every object's node are read.
 */
static void cmstat_cache_account(struct cmstat_cache *cc, bool free, size_t n,
				 void **objs, int col)
{
	struct cmstat_section sec;
	u64 __percpu *slot;
	size_t i;

	if (!cmstat_section_begin(&sec, &cmstat_heap_group))
		return;
	slot = __cmstat_slot(&sec, cc->slots);
	cmstat_section_add(slot, cmstat_cache_mallocs_idx(cc) +
			   (free ? CMSTAT_HEAP_CACHES : 0), n);
	cmstat_section_add(slot, free ? CMSTAT_HC_CACHE_FREE_BYTES :
					CMSTAT_HC_CACHE_ALLOC_BYTES,
			   n * cc->size);
	if (!free && col >= 0) {
		__cmstat_site_add(&sec, cc->heap, col, false, n, cc->size);
		for (i = 0; i < n && static_branch_unlikely(&cmstat_by_node_key);
		     i++)
			__cmstat_node_add(&sec, cc->heap,
					  __cmstat_obj_nid(objs[i]), false, 1,
					  cc->size);
	}
	for (i = 0; i < n && free && __cmstat_cache_sited(cc); i++)
		__cmstat_site_count(&sec, __cmstat_cache_site(cc, objs[i]));
	cmstat_section_end(&sec);
}

/*
 * Tag @n objects of @cc, just allocated, with @site's column.
 * Return: the column, or -1 for a cache not sited.
 */
static int cmstat_cache_tag_bulk(struct cmstat_cache *cc, size_t n,
				 void **objs, struct cmstat_site *site)
{
	int col = n ? __cmstat_cache_tag(cc, objs[0], site) : -1;
	size_t i;

	for (i = 1; i < n && col >= 0 && cc->tag_end != CMSTAT_CACHE_UNTAGGED;
	     i++)
		*__cmstat_site_tag(objs[i], cc->tag_end) =
			*__cmstat_site_tag(objs[0], cc->tag_end);
	return col;
}

/**
 * __cmstat_cache_alloc_tail_col() - the end of an allocation, out of line
 * @cc: the cache
 * @obj: what its slab cache returned, or NULL
 * @gfp: the allocation's flags
 * @col: the column @obj is tagged with, or -1 for a cache not sited
 *
 * For the inline cmstat_cache_alloc() with debug_free=1.  Not for direct
 * use.
 *
 * Return: @obj, or NULL if it could not be tracked (then it is freed).
 */
void *__cmstat_cache_alloc_tail_col(struct cmstat_cache *cc, void *obj,
				    gfp_t gfp, int col)
{
	if (obj && cmstat_debug_track(cc->heap, obj, cc->size, gfp)) {
		kmem_cache_free(cc->slab, obj);
		obj = NULL;
	}
	if (!obj) {
		__cmstat_alloc_failed(cc->heap);
		return NULL;
	}
	cmstat_cache_account(cc, false, 1, &obj, col);
	return obj;
}
EXPORT_SYMBOL_GPL(__cmstat_cache_alloc_tail_col);

/**
 * __cmstat_cache_free_tail() - a free with debug_free=1, out of line
 * @cc: the cache
 * @obj: the object, or NULL
 *
 * For the inline cmstat_cache_free().  Not for direct use.
 */
void __cmstat_cache_free_tail(struct cmstat_cache *cc, void *obj)
{
	if (!obj || !cmstat_debug_untrack(cc->heap, obj, cc->size))
		return;
	cmstat_cache_account(cc, true, 1, &obj, -1);
	__cmstat_kfree(obj);
}
EXPORT_SYMBOL_GPL(__cmstat_cache_free_tail);

/**
 * __cmstat_cache_alloc_lru_at() - allocate on a list_lru's node, for a
 *	call site
 * @cc: the cache
 * @lru: as for kmem_cache_alloc_lru()
 * @gfp: allocation flags
 * @site: the call site's descriptor, or NULL
 *
 * What cmstat_cache_alloc_lru() becomes in a module built with
 * CMSTAT_SITES.  Not for direct use.
 *
 * Return: as cmstat_cache_alloc().
 */
void *__cmstat_cache_alloc_lru_at(struct cmstat_cache *cc,
				  struct list_lru *lru, gfp_t gfp,
				  struct cmstat_site *site)
{
	void *obj;

	if (__cmstat_atomic_rt())
		return __cmstat_alloc_refused_rt(cc->heap, _RET_IP_);
	/* A @site's macro tagged its line for allocation profiling. */
	if (site)
		obj = cmstat_slab_alloc_lru_noprof(cc->slab, lru, gfp);
	else
		obj = kmem_cache_alloc_lru(cc->slab, lru, gfp);
	return __cmstat_cache_alloc_done(cc, obj, gfp,
					 obj ? __cmstat_cache_tag(cc, obj, site) :
					       -1);
}
EXPORT_SYMBOL_GPL(__cmstat_cache_alloc_lru_at);

/**
 * cmstat_cache_alloc_lru() - allocate an object on a list_lru's node
 * @cc: the cache
 * @lru: as for kmem_cache_alloc_lru(): an inode cache's, by
 *	alloc_inode_sb()
 * @gfp: allocation flags
 *
 * kmem_cache_alloc_lru(), counted in @cc's heap.
 *
 * Return: as cmstat_cache_alloc().
 */
void *cmstat_cache_alloc_lru(struct cmstat_cache *cc, struct list_lru *lru,
			     gfp_t gfp)
{
	return __cmstat_cache_alloc_lru_at(cc, lru, gfp, NULL);
}
EXPORT_SYMBOL_GPL(cmstat_cache_alloc_lru);

/**
 * __cmstat_cache_alloc_bulk_at() - allocate objects in bulk, for a call
 *	site
 * @cc: the cache
 * @gfp: allocation flags
 * @n: how many
 * @objs: filled with them
 * @site: the call site's descriptor, or NULL
 *
 * What cmstat_cache_alloc_bulk() becomes in a module built with
 * CMSTAT_SITES.  Not for direct use.
 *
 * Return: as cmstat_cache_alloc_bulk().
 */
int __cmstat_cache_alloc_bulk_at(struct cmstat_cache *cc, gfp_t gfp, size_t n,
				 void **objs, struct cmstat_site *site)
{
	size_t i;

	if (__cmstat_atomic_rt()) {
		__cmstat_alloc_refused_rt(cc->heap, _RET_IP_);
		return 0;
	}
	if (cmstat_debug_free_enabled()) {
		for (i = 0; i < n; i++) {
			objs[i] = __cmstat_cache_alloc_at(cc, gfp, NUMA_NO_NODE,
							  site);
			if (!objs[i]) {
				cmstat_cache_free_bulk(cc, i, objs);
				return 0;
			}
		}
		return n;
	}
	if (!(site ? cmstat_slab_alloc_bulk_noprof(cc->slab, gfp, n, objs) :
		     kmem_cache_alloc_bulk(cc->slab, gfp, n, objs))) {
		__cmstat_alloc_failed(cc->heap);
		return 0;
	}
	if (n)
		cmstat_cache_account(cc, false, n, objs,
				     cmstat_cache_tag_bulk(cc, n, objs, site));
	return n;
}
EXPORT_SYMBOL_GPL(__cmstat_cache_alloc_bulk_at);

/**
 * cmstat_cache_alloc_bulk() - allocate objects in bulk
 * @cc: the cache
 * @gfp: allocation flags
 * @n: how many
 * @objs: filled with them
 *
 * kmem_cache_alloc_bulk(), counted in one section.  With debug_free=1,
 * one at a time, each tracked.
 *
 * Return: @n, or 0 with none allocated (counted as one failure).
 */
int cmstat_cache_alloc_bulk(struct cmstat_cache *cc, gfp_t gfp, size_t n,
			    void **objs)
{
	return __cmstat_cache_alloc_bulk_at(cc, gfp, n, objs, NULL);
}
EXPORT_SYMBOL_GPL(cmstat_cache_alloc_bulk);

/**
 * cmstat_cache_free_bulk() - free objects in bulk
 * @cc: the cache they came from
 * @n: how many
 * @objs: the objects
 *
 * kmem_cache_free_bulk(), counted in one section, just before: the count
 * reads the node of each object's memory.
 */
void cmstat_cache_free_bulk(struct cmstat_cache *cc, size_t n, void **objs)
{
	size_t i;

	if (cmstat_debug_free_enabled() || __cmstat_atomic_rt()) {
		for (i = 0; i < n; i++)
			cmstat_cache_free(cc, objs[i]);
		return;
	}
	if (n)
		cmstat_cache_account(cc, true, n, objs, -1);
	kmem_cache_free_bulk(cc->slab, n, objs);
}
EXPORT_SYMBOL_GPL(cmstat_cache_free_bulk);
