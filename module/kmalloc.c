// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat's kmalloc() family (include/cmstat/kmalloc.h): the frees without
 * a size, which ask owner.c what the object is, and the allocations of
 * the family that are not inline.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "internal.h"

/* Bytes a large allocation holds: whole pages, as it got them. */
static size_t cmstat_large_held(const struct cmstat_owner *owner)
{
	if (owner->vmalloc)
		return PAGE_ALIGN(owner->size);
	return cmstat_alloc_held_bytes(owner->size);
}

/*
 * What freeing @obj, which @owner says what it is, adds to its heap's
 * site rows: read before the object goes.
 */
static void cmstat_owner_site(struct cmstat_heap *heap, const void *obj,
			      struct cmstat_owner *owner)
{
	switch (owner->kind) {
	case CMSTAT_OWNER_CLASS:
		owner->site = cmstat_site_count_of(heap, obj,
						   cmstat_class_sizes[owner->class],
						   true);
		break;
	case CMSTAT_OWNER_CACHE:
		owner->site = __cmstat_cache_site(owner->cc, obj);
		break;
	case CMSTAT_OWNER_LARGE:
		owner->site = cmstat_large_site(heap, obj, owner->col,
						cmstat_large_held(owner), true);
		break;
	case CMSTAT_OWNER_FOREIGN:
		owner->site = __CMSTAT_NO_SITE;
		break;
	}
}

/*
 * Whether a free of @obj without a size may go ahead, and what it is.
 * Memory cmstat did not allocate may always be freed, and is counted
 * nowhere (said once with debug_free=1, which asks for such reports).
 * With debug_free=1 a free of cmstat's memory is checked as any free is,
 * but for its size.  An object of a typed cache belongs to the cache's
 * heap, whatever @heap says.
 */
static bool cmstat_unsized_check(struct cmstat_heap *heap, const void *obj,
				 struct cmstat_owner *owner,
				 unsigned long caller)
{
	bool ok;

	cmstat_owner_of(obj, owner);
	switch (owner->kind) {
	case CMSTAT_OWNER_FOREIGN:
		if (cmstat_debug_free_enabled())
			pr_notice_once("debug_free: %pS freed memory cmstat did not allocate, through heap %s: freed, not counted\n",
				       (void *)caller, cmstat_heap_name(heap));
		ok = true;
		break;
	case CMSTAT_OWNER_CACHE:
		ok = cmstat_debug_untrack(owner->cc->heap, obj, 0);
		break;
	default:
		ok = cmstat_debug_untrack(heap, obj, 0);
	}
	/* Its tag, once debug_free has said that it is still allocated. */
	if (ok)
		cmstat_owner_site(heap, obj, owner);
	return ok;
}

/* Count the free of @obj, checked, as what @owner says it is. */
static void cmstat_unsized_count(struct cmstat_heap *heap,
				 const struct cmstat_owner *owner)
{
	const struct cmstat_cache *cc = owner->cc;

	switch (owner->kind) {
	case CMSTAT_OWNER_CLASS:
		cmstat_account(heap, CMSTAT_HC_CLASS_FREES + owner->class,
			       CMSTAT_HC_REQUESTED_FREE_BYTES,
			       cmstat_class_sizes[owner->class], -1, 0,
			       owner->site);
		break;
	case CMSTAT_OWNER_CACHE:
		cmstat_account(cc->heap,
			       cmstat_cache_mallocs_idx(cc) + CMSTAT_HEAP_CACHES,
			       CMSTAT_HC_CACHE_FREE_BYTES, cc->size, -1, 0,
			       owner->site);
		break;
	case CMSTAT_OWNER_LARGE:
		cmstat_account(heap, CMSTAT_HC_LARGE_FREES,
			       CMSTAT_HC_REQUESTED_FREE_BYTES, owner->size,
			       CMSTAT_HC_LARGE_FREE_BYTES,
			       cmstat_large_held(owner), owner->site);
		break;
	case CMSTAT_OWNER_FOREIGN:
		break;
	}
}

/*
 * The size class of @obj, or -1 if it is not a class's object in its
 * home slot: for cmstat_kfree(), whose common case that is, and which
 * leaves the rest, NULL and ZERO_SIZE_PTR among them, to
 * cmstat_kfree_from().
 */
static __always_inline int cmstat_class_of_obj(const void *obj)
{
	struct folio *folio;

	if (!cmstat_in_linear_map(obj))
		return -1;
	folio = cmstat_linear_folio(obj);
	if (!folio_test_slab(folio))
		return -1;
	return cmstat_class_at_home(cmstat_folio_slab_cache(folio));
}

/* cmstat_kfree(), zeroing first if @sensitive, for @caller. */
static void cmstat_kfree_from(struct cmstat_heap *heap, const void *obj,
			      bool sensitive, unsigned long caller)
{
	struct cmstat_owner owner;

	if (ZERO_OR_NULL_PTR(obj) ||
	    !cmstat_unsized_check(heap, obj, &owner, caller))
		return;
	if (sensitive)	/* as kvfree_sensitive() */
		memzero_explicit((void *)obj, owner.kind == CMSTAT_OWNER_LARGE ?
					      owner.size : ksize(obj));
	if (owner.kind == CMSTAT_OWNER_LARGE)
		cmstat_large_release(obj);
	else if (__cmstat_atomic_rt())
		__cmstat_free_later(obj);
	else
		kvfree(obj);	/* anything kfree() frees, and vmalloc()'s */
	cmstat_unsized_count(heap, &owner);
}

/* cmstat_kfree() of a class object of a heap with site rows. */
static noinline void cmstat_kfree_sited(struct cmstat_heap *heap,
					const void *obj, unsigned int class)
{
	__cmstat_account(&heap->slots, 0,
			 CMSTAT_COUNTER_SLOT(CMSTAT_HC_CLASS_FREES + class),
			 CMSTAT_HC_REQUESTED_FREE_BYTES, cmstat_class_sizes[class],
			 cmstat_site_count_of(heap, obj,
					      cmstat_class_sizes[class], true));
	__cmstat_kfree(obj);
	barrier();	/* not a tail call either: see cmstat_kfree() */
}

/**
 * cmstat_kfree() - free memory without its size
 * @heap: the heap it was allocated from
 * @obj: the memory; NULL and ZERO_SIZE_PTR are no-ops
 *
 * kfree() for a heap.  It frees anything kfree() frees (and cmstat_kvmalloc()'s
 * memory), and counts what it frees by what the object is: a size class's
 * object in @heap's class, a typed cache's in the cache's own heap, a
 * large allocation by its recorded size.  Memory cmstat did not allocate
 * (a string the kernel kstrdup()ed, another module's kmalloc()) is freed
 * and counted nowhere; with debug_free=1, cmstat says so once, naming the
 * caller.  Objects of cmstat_alloc() are freed with cmstat_free(): their
 * requested bytes were counted exactly, and this would give back their
 * whole class.  Any context.
 */
void cmstat_kfree(struct cmstat_heap *heap, const void *obj)
{
	int class = cmstat_class_of_obj(obj);
	/* Read only once known to be a class: unsigned, never sign-extended. */
	unsigned int c = class;

	/*
	 * A size class's object, counted inline: the common case, first.
	 * Counted first: then nothing is kept across kfree().  A heap with
	 * site rows goes to its own function, a tail call, which costs the
	 * rest a compare.
	 */
	if (likely(class >= 0) &&
	    static_branch_likely(&cmstat_inline_accounting)) {
		if (unlikely(__cmstat_heap_has_sites(heap))) {
			cmstat_kfree_sited(heap, obj, c);
			return;
		}
		__cmstat_account(&heap->slots, 0,
				 CMSTAT_COUNTER_SLOT(CMSTAT_HC_CLASS_FREES + c),
				 CMSTAT_HC_REQUESTED_FREE_BYTES,
				 cmstat_class_sizes[c], __CMSTAT_NO_SITE);
		__cmstat_kfree(obj);
		/*
		 * Not a tail call, so that kfree()'s tracepoint names this
		 * function as the call site: a tail call would name whoever
		 * called it, or kernel code, if the module's caller of
		 * kfree() was itself a tail call (an adopted ->free_inode),
		 * and the adoption check traces module call sites only.
		 */
		barrier();
		return;
	}
	cmstat_kfree_from(heap, obj, false, _RET_IP_);
}
EXPORT_SYMBOL_GPL(cmstat_kfree);

/**
 * cmstat_kfree_const() - kfree_const() for a heap
 * @heap: the heap it was allocated from
 * @obj: memory cmstat_kfree() frees, or a string in the kernel's .rodata,
 *	which is left alone; NULL is a no-op
 *
 * For what kstrdup_const() gives a module adopted (include/cmstat/adopt.h),
 * or the kernel gives it.  What is not cmstat's goes to the kernel's own
 * kfree_const(), which alone can tell the kernel's .rodata: a module
 * cannot (__start_rodata is not exported).  Any context.
 */
void cmstat_kfree_const(struct cmstat_heap *heap, const void *obj)
{
	struct cmstat_owner owner;

	if (ZERO_OR_NULL_PTR(obj))
		return;
	/* Neither direct map nor vmalloc(): the kernel image, on arm64. */
	if (!is_vmalloc_addr(obj) && !virt_addr_valid(obj)) {
		kfree_const(obj);
		return;
	}
	cmstat_owner_of(obj, &owner);
	if (owner.kind == CMSTAT_OWNER_FOREIGN)
		kfree_const(obj);
	else
		cmstat_kfree_from(heap, obj, false, _RET_IP_);
}
EXPORT_SYMBOL_GPL(cmstat_kfree_const);

/**
 * cmstat_kfree_sensitive() - cmstat_kfree(), zeroing the memory first
 * @heap: the heap it was allocated from
 * @obj: the memory, or NULL
 *
 * kfree_sensitive() for a heap.
 */
void cmstat_kfree_sensitive(struct cmstat_heap *heap, const void *obj)
{
	cmstat_kfree_from(heap, obj, true, _RET_IP_);
}
EXPORT_SYMBOL_GPL(cmstat_kfree_sensitive);

/**
 * __cmstat_kfree_deferred() - count a free that kfree_rcu() will do
 * @heap: the heap
 * @obj: the object, not NULL
 *
 * For cmstat_kfree_rcu().  Not for direct use.
 *
 * Return: whether the caller may hand @obj to kfree_rcu(): false only when
 * debug_free=1 refuses the free.
 */
bool __cmstat_kfree_deferred(struct cmstat_heap *heap, const void *obj)
{
	struct cmstat_owner owner;

	if (!cmstat_unsized_check(heap, obj, &owner, _RET_IP_))
		return false;
	if (owner.kind == CMSTAT_OWNER_LARGE)
		cmstat_large_forget(obj);
	cmstat_unsized_count(heap, &owner);
	return true;
}
EXPORT_SYMBOL_GPL(__cmstat_kfree_deferred);

/**
 * __cmstat_kfree_rcu() - cmstat_kfree_rcu(), out of line
 * @heap: the heap
 * @obj: the object, not NULL
 * @head_offset: where its struct rcu_head is in it
 *
 * Counts the free now, and has the memory freed after a grace period
 * (cmstat_free_rcu()).  Not for direct use.
 */
void __cmstat_kfree_rcu(struct cmstat_heap *heap, const void *obj,
			size_t head_offset)
{
	struct cmstat_owner owner;

	if (!cmstat_unsized_check(heap, obj, &owner, _RET_IP_))
		return;
	cmstat_free_rcu(obj, head_offset, owner.kind == CMSTAT_OWNER_LARGE);
	cmstat_unsized_count(heap, &owner);
}
EXPORT_SYMBOL_GPL(__cmstat_kfree_rcu);

/**
 * cmstat_kmalloc_node() - cmstat_kmalloc() on a NUMA node
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags
 * @node: the node, or NUMA_NO_NODE
 *
 * Return: as cmstat_alloc().
 */
void *cmstat_kmalloc_node(struct cmstat_heap *heap, size_t size, gfp_t gfp,
			  int node)
{
	return cmstat_alloc_from(heap, size, gfp, node, CMSTAT_AF_UNSIZED,
				 _RET_IP_, NULL);
}
EXPORT_SYMBOL_GPL(cmstat_kmalloc_node);

/*
 * cmstat_kvmalloc_node() for @caller, as the kernel's kvmalloc_node()
 * (mm/util.c): vmalloc() only beyond a page, and only for a @gfp that may
 * sleep, as vmalloc() may; else what cmstat_kmalloc() gives is all there
 * is.  Every path counts what happened, once: an allocation that the
 * fallback follows counts no failure of its own.  A zone modifier that
 * cmstat's caches refuse (GFP_DMA32, __GFP_HIGHMEM) goes straight to
 * vmalloc(), where the fallback is taken, if vmalloc() honours it (see
 * compat.h): a GFP_DMA32 that 6.19's vmalloc() would drop gets no
 * fallback, and is refused as cmstat_kmalloc() refuses it.  vmalloc() is
 * given only the flags it takes.
 */
static void *cmstat_kvalloc_from(struct cmstat_heap *heap, size_t size,
				 gfp_t gfp, int node, unsigned long caller,
				 struct cmstat_site *site)
{
	bool fallback = size > PAGE_SIZE && gfpflags_allow_blocking(gfp) &&
			!__cmstat_atomic_rt() && cmstat_vmalloc_serves_zone(gfp);
	gfp_t first = gfp;
	void *obj;

	if (size > PAGE_SIZE)
		first = (gfp | __GFP_NOWARN | __GFP_NORETRY) & ~__GFP_NOFAIL;
	if (size <= CMSTAT_ALLOC_MAX &&
	    !(fallback && cmstat_gfp_zone_refused(size, gfp))) {
		obj = cmstat_alloc_from(heap, size, first, node,
					CMSTAT_AF_UNSIZED |
					(fallback ? CMSTAT_AF_QUIET : 0),
					caller, site);
		if (obj || !fallback)
			return obj;
	} else if (!fallback) {
		/* Beyond kmalloc(), and vmalloc() may sleep. */
		__cmstat_alloc_failed(heap);
		return NULL;
	}
	if (size > INT_MAX)
		obj = NULL;
	else if (site)	/* whose macro tagged its line for profiling */
		obj = cmstat_vmalloc_noprof(size, gfp & CMSTAT_VMALLOC_GFP);
	else
		obj = __vmalloc(size, gfp & CMSTAT_VMALLOC_GFP);
	return cmstat_large_done(heap, obj, size, true, gfp, 0, site);
}

/**
 * cmstat_kvmalloc_node() - cmstat_kvmalloc() on a NUMA node
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags; vmalloc() serves only a @gfp that may sleep
 *	(GFP_KERNEL or a superset)
 * @node: the node for cmstat_kmalloc_node(), or NUMA_NO_NODE; vmalloc()
 *	takes pages from any
 *
 * As kvmalloc_node(): beyond a page, the first try neither retries nor
 * warns, and its failure is not counted, as vmalloc() follows.  A @gfp
 * that may not sleep gets no vmalloc(): NULL when cmstat_kmalloc() fails
 * or @size is beyond %CMSTAT_ALLOC_MAX.  GFP_DMA32 and __GFP_HIGHMEM,
 * which cmstat_kmalloc() refuses, go to vmalloc() at once beyond a page;
 * GFP_DMA32 only before 6.19, whose vmalloc() ignores it.
 * The vmalloc()ed memory counts as a large allocation holding whole
 * pages.
 *
 * Return: the memory, or NULL (counted in failed_allocs, once).
 */
void *cmstat_kvmalloc_node(struct cmstat_heap *heap, size_t size, gfp_t gfp,
			   int node)
{
	return cmstat_kvalloc_from(heap, size, gfp, node, _RET_IP_, NULL);
}
EXPORT_SYMBOL_GPL(cmstat_kvmalloc_node);

/**
 * __cmstat_kvmalloc_node_at() - cmstat_kvmalloc_node() for a call site
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags
 * @node: the node, or NUMA_NO_NODE
 * @site: the call site's descriptor
 *
 * What cmstat_kvmalloc_node() and its family become in a module built with
 * CMSTAT_SITES: what it allocates counts in @site's row (vmalloc()ed
 * memory unattributed on a 32-bit kernel).  Not for direct use.
 *
 * Return: as cmstat_kvmalloc_node().
 */
void *__cmstat_kvmalloc_node_at(struct cmstat_heap *heap, size_t size,
				gfp_t gfp, int node, struct cmstat_site *site)
{
	return cmstat_kvalloc_from(heap, size, gfp, node, _RET_IP_, site);
}
EXPORT_SYMBOL_GPL(__cmstat_kvmalloc_node_at);

/*
 * The bytes @obj may hold, as @owner says: a class object of @heap's but
 * for its site tag; 0 for vmalloc() memory that is not cmstat's, whose
 * size only vmalloc's private records know.
 */
static size_t cmstat_owner_size(struct cmstat_heap *heap, const void *obj,
				const struct cmstat_owner *owner)
{
	switch (owner->kind) {
	case CMSTAT_OWNER_CLASS:
		return cmstat_class_sizes[owner->class] -
		       __cmstat_tag_bytes(heap);
	case CMSTAT_OWNER_CACHE:
		return owner->cc->size;
	case CMSTAT_OWNER_LARGE:
		return owner->size;
	default:
		return is_vmalloc_addr(obj) ? 0 : ksize(obj);
	}
}

/*
 * cmstat_krealloc(), or cmstat_kvrealloc() for @kv, for @caller.  Memory
 * that moves is a new allocation, @site's, as allocation profiling counts
 * a moved krealloc() at its caller; an object resized in place stays in
 * the row that allocated it, and counts nothing.
 */
static void *cmstat_realloc_from(struct cmstat_heap *heap, const void *obj,
				 size_t new_size, gfp_t gfp, bool kv,
				 unsigned long caller, struct cmstat_site *site)
{
	struct cmstat_owner owner;
	size_t old_size = 0;
	void *new;

	if (!ZERO_OR_NULL_PTR(obj)) {
		if (!new_size) {
			cmstat_kfree_from(heap, obj, false, caller);
			return ZERO_SIZE_PTR;
		}
		cmstat_owner_of(obj, &owner);
		old_size = cmstat_owner_size(heap, obj, &owner);
		if (owner.kind == CMSTAT_OWNER_CLASS && new_size <= old_size) {
			if (want_init_on_alloc(gfp) || want_init_on_free())
				memset((char *)obj + new_size, 0,
				       old_size - new_size);
			return (void *)obj;
		}
		if (!old_size) {
			pr_err_once("%ps resized vmalloc() memory cmstat did not allocate: its size is unknown here; left as it was\n",
				    (void *)caller);
			return NULL;
		}
	}
	if (kv)
		new = cmstat_kvalloc_from(heap, new_size, gfp, NUMA_NO_NODE,
					  caller, site);
	else
		new = cmstat_alloc_from(heap, new_size, gfp, NUMA_NO_NODE,
					CMSTAT_AF_UNSIZED, caller, site);
	if (!new || !old_size)
		return new;
	memcpy(new, obj, min(old_size, new_size));
	cmstat_kfree_from(heap, obj, false, caller);
	return new;
}

/**
 * cmstat_krealloc() - resize memory without its size
 * @heap: the heap it was allocated from, and the new memory's
 * @obj: memory to resize, cmstat's or not; NULL or ZERO_SIZE_PTR to
 *	allocate anew
 * @new_size: bytes wanted; 0 frees @obj
 * @gfp: allocation flags
 *
 * krealloc() for a heap.  An object of a size class that still fits its
 * class stays where it is (the bytes past @new_size are zeroed with
 * init_on_alloc or init_on_free, as krealloc() does); anything else moves
 * to a new cmstat_kmalloc() allocation, and the old memory goes through
 * cmstat_kfree(), counted or not as it says.  vmalloc() memory that cmstat
 * did not allocate is left as it was, as cmstat_kvrealloc() says.
 *
 * Return: the memory; ZERO_SIZE_PTR when @new_size is 0; NULL, with @obj
 * left as it was, on failure.
 */
void *cmstat_krealloc(struct cmstat_heap *heap, const void *obj,
		      size_t new_size, gfp_t gfp)
{
	return cmstat_realloc_from(heap, obj, new_size, gfp, false, _RET_IP_,
				   NULL);
}
EXPORT_SYMBOL_GPL(cmstat_krealloc);

/**
 * __cmstat_krealloc_at() - cmstat_krealloc() for a call site
 * @heap: the heap it was allocated from, and the new memory's
 * @obj: memory to resize, or NULL or ZERO_SIZE_PTR
 * @new_size: bytes wanted; 0 frees @obj
 * @gfp: allocation flags
 * @site: the call site's descriptor
 *
 * What cmstat_krealloc() and cmstat_krealloc_array() become in a module
 * built with CMSTAT_SITES: memory that moves, or is allocated anew, counts
 * in @site's row, and the old object's free in the row of the site that
 * allocated it; an object resized in place stays in that row.  Not for
 * direct use.
 *
 * Return: as cmstat_krealloc().
 */
void *__cmstat_krealloc_at(struct cmstat_heap *heap, const void *obj,
			   size_t new_size, gfp_t gfp, struct cmstat_site *site)
{
	return cmstat_realloc_from(heap, obj, new_size, gfp, false, _RET_IP_,
				   site);
}
EXPORT_SYMBOL_GPL(__cmstat_krealloc_at);

/**
 * cmstat_kvrealloc() - resize memory that may be vmalloc()ed
 * @heap: the heap it was allocated from, and the new memory's
 * @obj: memory to resize, cmstat's or not; NULL or ZERO_SIZE_PTR to
 *	allocate anew
 * @new_size: bytes wanted; 0 frees @obj
 * @gfp: GFP_KERNEL or a superset, as for cmstat_kvmalloc()
 *
 * kvrealloc() for a heap, in its form since Linux 6.12: no old size, which
 * cmstat knows.  As cmstat_krealloc(), but memory that moves goes to a new
 * cmstat_kvmalloc() allocation.  vmalloc() memory that cmstat did not
 * allocate has a size cmstat cannot learn: it is left as it was, with a
 * message naming the caller, and NULL returned.
 *
 * Return: as cmstat_krealloc().
 */
void *cmstat_kvrealloc(struct cmstat_heap *heap, const void *obj,
		       size_t new_size, gfp_t gfp)
{
	return cmstat_realloc_from(heap, obj, new_size, gfp, true, _RET_IP_,
				   NULL);
}
EXPORT_SYMBOL_GPL(cmstat_kvrealloc);

/**
 * __cmstat_kvrealloc_at() - cmstat_kvrealloc() for a call site
 * @heap: the heap it was allocated from, and the new memory's
 * @obj: memory to resize, or NULL or ZERO_SIZE_PTR
 * @new_size: bytes wanted; 0 frees @obj
 * @gfp: as for cmstat_kvrealloc()
 * @site: the call site's descriptor
 *
 * What cmstat_kvrealloc() becomes in a module built with CMSTAT_SITES: as
 * __cmstat_krealloc_at(), and memory that moves to vmalloc() counts as
 * cmstat_kvmalloc()'s does.  Not for direct use.
 *
 * Return: as cmstat_kvrealloc().
 */
void *__cmstat_kvrealloc_at(struct cmstat_heap *heap, const void *obj,
			    size_t new_size, gfp_t gfp,
			    struct cmstat_site *site)
{
	return cmstat_realloc_from(heap, obj, new_size, gfp, true, _RET_IP_,
				   site);
}
EXPORT_SYMBOL_GPL(__cmstat_kvrealloc_at);

/* cmstat_kmemdup() for @caller and @site. */
static void *cmstat_memdup_from(struct cmstat_heap *heap, const void *src,
				size_t len, gfp_t gfp, unsigned long caller,
				struct cmstat_site *site)
{
	void *p = cmstat_alloc_from(heap, len, gfp, NUMA_NO_NODE,
				    CMSTAT_AF_UNSIZED, caller, site);

	if (p && len)
		memcpy(p, src, len);
	return p;
}

/**
 * cmstat_kmemdup() - duplicate memory into a heap
 * @heap: heap to account the copy in
 * @src: the memory
 * @len: its length
 * @gfp: allocation flags
 *
 * kmemdup() for a heap; free the copy with cmstat_kfree().
 *
 * Return: the copy, or NULL.
 */
void *cmstat_kmemdup(struct cmstat_heap *heap, const void *src, size_t len,
		     gfp_t gfp)
{
	return cmstat_memdup_from(heap, src, len, gfp, _RET_IP_, NULL);
}
EXPORT_SYMBOL_GPL(cmstat_kmemdup);

/**
 * __cmstat_kmemdup_at() - cmstat_kmemdup() for a call site
 * @heap: heap to account the copy in
 * @src: the memory
 * @len: its length
 * @gfp: allocation flags
 * @site: the call site's descriptor
 *
 * What cmstat_kmemdup() and cmstat_kmemdup_array() become in a module
 * built with CMSTAT_SITES: the copy counts in @site's row.  Not for direct
 * use.
 *
 * Return: as cmstat_kmemdup().
 */
void *__cmstat_kmemdup_at(struct cmstat_heap *heap, const void *src,
			  size_t len, gfp_t gfp, struct cmstat_site *site)
{
	return cmstat_memdup_from(heap, src, len, gfp, _RET_IP_, site);
}
EXPORT_SYMBOL_GPL(__cmstat_kmemdup_at);

/* A copy of @len bytes of @s and a NUL, for @caller and @site. */
static char *cmstat_strdup_len(struct cmstat_heap *heap, const char *s,
			       size_t len, gfp_t gfp, unsigned long caller,
			       struct cmstat_site *site)
{
	char *p = cmstat_alloc_from(heap, len + 1, gfp, NUMA_NO_NODE,
				    CMSTAT_AF_UNSIZED, caller, site);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

/**
 * cmstat_kstrndup() - duplicate at most @max bytes of a string into a heap
 * @heap: heap to account the copy in
 * @s: the string, or NULL
 * @max: most bytes to copy, the NUL aside
 * @gfp: allocation flags
 *
 * Return: the copy, NUL-terminated; NULL for a NULL @s or on failure.
 */
char *cmstat_kstrndup(struct cmstat_heap *heap, const char *s, size_t max,
		      gfp_t gfp)
{
	return s ? cmstat_strdup_len(heap, s, strnlen(s, max), gfp, _RET_IP_,
				     NULL) : NULL;
}
EXPORT_SYMBOL_GPL(cmstat_kstrndup);

/**
 * __cmstat_kstrndup_at() - cmstat_kstrndup() for a call site
 * @heap: heap to account the copy in
 * @s: the string, or NULL
 * @max: most bytes to copy, the NUL aside
 * @gfp: allocation flags
 * @site: the call site's descriptor
 *
 * What cmstat_kstrndup() becomes in a module built with CMSTAT_SITES: the
 * copy counts in @site's row.  Not for direct use.
 *
 * Return: as cmstat_kstrndup().
 */
char *__cmstat_kstrndup_at(struct cmstat_heap *heap, const char *s,
			   size_t max, gfp_t gfp, struct cmstat_site *site)
{
	return s ? cmstat_strdup_len(heap, s, strnlen(s, max), gfp, _RET_IP_,
				     site) : NULL;
}
EXPORT_SYMBOL_GPL(__cmstat_kstrndup_at);

/**
 * cmstat_kstrdup() - duplicate a string into a heap
 * @heap: heap to account the copy in
 * @s: the string, or NULL
 * @gfp: allocation flags
 *
 * kstrdup() for a heap; free the copy with cmstat_kfree().
 *
 * Return: the copy; NULL for a NULL @s or on failure.
 */
char *cmstat_kstrdup(struct cmstat_heap *heap, const char *s, gfp_t gfp)
{
	return s ? cmstat_strdup_len(heap, s, strlen(s), gfp, _RET_IP_, NULL) :
		   NULL;
}
EXPORT_SYMBOL_GPL(cmstat_kstrdup);

/**
 * __cmstat_kstrdup_at() - cmstat_kstrdup() for a call site
 * @heap: heap to account the copy in
 * @s: the string, or NULL
 * @gfp: allocation flags
 * @site: the call site's descriptor
 *
 * What cmstat_kstrdup() becomes in a module built with CMSTAT_SITES: the
 * copy counts in @site's row.  Not for direct use.
 *
 * Return: as cmstat_kstrdup().
 */
char *__cmstat_kstrdup_at(struct cmstat_heap *heap, const char *s, gfp_t gfp,
			  struct cmstat_site *site)
{
	return s ? cmstat_strdup_len(heap, s, strlen(s), gfp, _RET_IP_, site) :
		   NULL;
}
EXPORT_SYMBOL_GPL(__cmstat_kstrdup_at);

/* cmstat_kvasprintf() for @caller and @site. */
static __printf(3, 0) char *
cmstat_vasprintf_from(struct cmstat_heap *heap, gfp_t gfp, const char *fmt,
		      va_list ap, unsigned long caller, struct cmstat_site *site)
{
	unsigned int len;
	va_list aq;
	char *p;

	va_copy(aq, ap);
	len = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	p = cmstat_alloc_from(heap, len + 1, gfp, NUMA_NO_NODE,
			      CMSTAT_AF_UNSIZED, caller, site);
	if (p)
		vsnprintf(p, len + 1, fmt, ap);
	return p;
}

/**
 * cmstat_kvasprintf() - format a string into a heap
 * @heap: heap to account the string in
 * @gfp: allocation flags
 * @fmt: the format
 * @ap: its arguments
 *
 * kvasprintf() for a heap.
 *
 * Return: the string, or NULL.
 */
char *cmstat_kvasprintf(struct cmstat_heap *heap, gfp_t gfp, const char *fmt,
			va_list ap)
{
	return cmstat_vasprintf_from(heap, gfp, fmt, ap, _RET_IP_, NULL);
}
EXPORT_SYMBOL_GPL(cmstat_kvasprintf);

/**
 * __cmstat_kvasprintf_at() - cmstat_kvasprintf() for a call site
 * @heap: heap to account the string in
 * @gfp: allocation flags
 * @site: the call site's descriptor
 * @fmt: the format
 * @ap: its arguments
 *
 * What cmstat_kvasprintf() becomes in a module built with CMSTAT_SITES:
 * the string counts in @site's row.  Not for direct use.
 *
 * Return: as cmstat_kvasprintf().
 */
char *__cmstat_kvasprintf_at(struct cmstat_heap *heap, gfp_t gfp,
			     struct cmstat_site *site, const char *fmt,
			     va_list ap)
{
	return cmstat_vasprintf_from(heap, gfp, fmt, ap, _RET_IP_, site);
}
EXPORT_SYMBOL_GPL(__cmstat_kvasprintf_at);

/**
 * cmstat_kasprintf() - format a string into a heap
 * @heap: heap to account the string in
 * @gfp: allocation flags
 * @fmt: the format, then its arguments
 *
 * kasprintf() for a heap; free it with cmstat_kfree().
 *
 * Return: the string, or NULL.
 */
char *cmstat_kasprintf(struct cmstat_heap *heap, gfp_t gfp, const char *fmt,
		       ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = cmstat_vasprintf_from(heap, gfp, fmt, ap, _RET_IP_, NULL);
	va_end(ap);
	return p;
}
EXPORT_SYMBOL_GPL(cmstat_kasprintf);

/**
 * __cmstat_kasprintf_at() - cmstat_kasprintf() for a call site
 * @heap: heap to account the string in
 * @gfp: allocation flags
 * @site: the call site's descriptor
 * @fmt: the format, then its arguments
 *
 * What cmstat_kasprintf() becomes in a module built with CMSTAT_SITES:
 * the string counts in @site's row.  Not for direct use.
 *
 * Return: as cmstat_kasprintf().
 */
char *__cmstat_kasprintf_at(struct cmstat_heap *heap, gfp_t gfp,
			    struct cmstat_site *site, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = cmstat_vasprintf_from(heap, gfp, fmt, ap, _RET_IP_, site);
	va_end(ap);
	return p;
}
EXPORT_SYMBOL_GPL(__cmstat_kasprintf_at);
