/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cmstat needs of the kernel that differs between the kernels it
 * builds for (Debian's 6.1 and 6.12, and newer): every such difference is
 * here, keyed on LINUX_VERSION_CODE or on what the headers define, and
 * nowhere else.
 */
#ifndef _CMSTAT_COMPAT_H
#define _CMSTAT_COMPAT_H

#include <linux/export.h>
#include <linux/hrtimer.h>
#include <linux/kasan.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/version.h>

/*
 * A cache that the slab allocator never merges with another, nor another
 * into: cmstat tells its objects from others' by the cache their slab
 * records (cmstat_slab_cache_of()), which a merged cache shares with
 * another owner's objects.  Merged, a typed cache's frees would count in
 * another cache's column or heap, live counts would go negative, and its
 * destroy would be refused for good.
 *
 * SLAB_NO_MERGE came in 6.5.  Before it, any flag of SLAB_NEVER_MERGE
 * (mm/slab_common.c) does the same, as find_mergeable() and
 * slab_unmergeable() test them: the cheapest that changes nothing else.
 * SLAB_NOLEAKTRACE only keeps kmemleak from tracking the objects, which
 * without CONFIG_DEBUG_KMEMLEAK (Debian's 6.1) is nothing at all.  With
 * kmemleak, SLAB_FAILSLAB if the kernel has it: it costs nothing either,
 * and only makes the cache one that failslab's cache-filter may fail.
 * Else SLAB_NOLEAKTRACE all the same: kmemleak then neither reports the
 * objects as leaks nor scans them for pointers (a false report, at worst,
 * of memory only they point to), which is better than merging.  A
 * constructor would do too, but turns init_on_alloc's zeroing off, and
 * the debug flags take SLUB's slow path on every allocation.
 */
#if defined(SLAB_NO_MERGE)
#define CMSTAT_SLAB_NO_MERGE	SLAB_NO_MERGE
#elif defined(CONFIG_DEBUG_KMEMLEAK) && defined(CONFIG_FAILSLAB)
#define CMSTAT_SLAB_NO_MERGE	SLAB_FAILSLAB
#else
#define CMSTAT_SLAB_NO_MERGE	SLAB_NOLEAKTRACE
#endif

/*
 * kmem_cache_destroy() waits for the frees that kfree_rcu() still holds
 * from 6.12 on (kvfree_rcu_barrier()).  Before, it finds their objects
 * still in the cache, WARNs ("Slab cache still has objects"), which
 * panics a panic_on_warn host, and leaves the cache: there
 * cmstat_cache_destroy() waits for them itself (module/cache.c).
 */
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
#define CMSTAT_DESTROY_WAITS_FOR_KFREE_RCU	true
#else
#define CMSTAT_DESTROY_WAITS_FOR_KFREE_RCU	false
#endif

/*
 * Slab sheaves (kmem_cache_prefill_sheaf(), kmem_cache_alloc_from_sheaf()),
 * from 6.18 on: what include/cmstat/adopt.h refuses.
 */
#ifdef kmem_cache_alloc_from_sheaf
#define CMSTAT_HAVE_KMEM_CACHE_SHEAVES
#endif

/*
 * Memory allocation profiling's hooks (6.10): kmalloc() and the rest are
 * macros over _noprof functions, which code may call directly, past what
 * include/cmstat/adopt.h routes (tests/adopt-miss does, on purpose).
 */
#ifdef alloc_hooks
#define CMSTAT_HAVE_ALLOC_HOOKS
#endif

/*
 * The call site memory allocation profiling (/proc/allocinfo) counts an
 * allocation at.  A module built with CMSTAT_SITES gives its line to
 * both: each allocation macro of its build wraps its call in the
 * kernel's alloc_hooks(), which tags that line, and the slab allocation
 * under it, inline or in cmstat.ko, calls the _noprof function, which
 * keeps the caller's tag rather than setting its own, so that allocinfo
 * shows the lines cmstat's site rows show.  The _noprof call runs only
 * for a site, so only under such a macro's alloc_hooks().  Without
 * profiling (Debian's stock kernels) alloc_hooks() is the call itself and
 * the _noprof functions are what kmem_cache_alloc() calls; before 6.10
 * there are neither, and these are the plain calls.
 */
#ifdef CMSTAT_HAVE_ALLOC_HOOKS
#define cmstat_slab_alloc_noprof(s, gfp)	kmem_cache_alloc_noprof(s, gfp)
#define cmstat_slab_alloc_node_noprof(s, gfp, node)			\
	kmem_cache_alloc_node_noprof(s, gfp, node)
#define cmstat_slab_alloc_lru_noprof(s, lru, gfp)			\
	kmem_cache_alloc_lru_noprof(s, lru, gfp)
#define cmstat_slab_alloc_bulk_noprof(s, gfp, n, objs)			\
	kmem_cache_alloc_bulk_noprof(s, gfp, n, objs)
#define cmstat_vmalloc_noprof(size, gfp)	__vmalloc_noprof(size, gfp)
#define cmstat_kmalloc_node_noprof(size, gfp, node)			\
	kmalloc_node_noprof(size, gfp, node)
#else
#define cmstat_slab_alloc_noprof(s, gfp)	kmem_cache_alloc(s, gfp)
#define cmstat_slab_alloc_node_noprof(s, gfp, node)			\
	kmem_cache_alloc_node(s, gfp, node)
#define cmstat_slab_alloc_lru_noprof(s, lru, gfp)			\
	kmem_cache_alloc_lru(s, lru, gfp)
#define cmstat_slab_alloc_bulk_noprof(s, gfp, n, objs)			\
	kmem_cache_alloc_bulk(s, gfp, n, objs)
#define cmstat_vmalloc_noprof(size, gfp)	__vmalloc(size, gfp)
#define cmstat_kmalloc_node_noprof(size, gfp, node)			\
	kmalloc_node(size, gfp, node)
#endif
#if defined(CMSTAT_HAVE_ALLOC_HOOKS) && defined(CMSTAT_SITES)
#define __cmstat_site_hooks(call)	alloc_hooks(call)
#else
#define __cmstat_site_hooks(call)	(call)
#endif

/*
 * struct kmem_cache_args came in 6.12, with kmem_cache_create() become a
 * macro that takes it.  Before it, cmstat's typed caches take the fields
 * that kmem_cache_create_usercopy() takes, in a structure of cmstat's own
 * with the same names; from 6.12 on, the kernel's, passed on whole (so
 * fields that later kernels add, like 7.x's sheaf_capacity, reach the slab
 * allocator too).
 */
#ifdef kmem_cache_create
#define CMSTAT_HAVE_KMEM_CACHE_ARGS
#define cmstat_kmem_cache_args	kmem_cache_args

static inline struct kmem_cache *
cmstat_kmem_cache_create(const char *name, unsigned int size,
			 struct kmem_cache_args *args, slab_flags_t flags)
{
	return __kmem_cache_create_args(name, size, args, flags);
}
#else
struct cmstat_kmem_cache_args {
	unsigned int align;
	unsigned int useroffset;
	unsigned int usersize;
	void (*ctor)(void *object);
};

static inline struct kmem_cache *
cmstat_kmem_cache_create(const char *name, unsigned int size,
			 struct cmstat_kmem_cache_args *args,
			 slab_flags_t flags)
{
	return kmem_cache_create_usercopy(name, size, args->align, flags,
					  args->useroffset, args->usersize,
					  args->ctor);
}
#endif

/*
 * What kfree_rcu_mightsleep(ptr) expands to, by the name the kernel gives
 * that form (the same from 6.1 to 7.x): so that it works where a module
 * has kfree_rcu_mightsleep() itself defined as cmstat's, whose expansion
 * may not name it again.  A function, not a macro, so that an adopted
 * module's debug info places the kernel's kvfree_call_rcu() in cmstat's
 * path (scripts/cmstat-adopt-check), not in the module's own code.
 */
static __always_inline void cmstat_kvfree_rcu_1(const void *ptr)
{
	kvfree_rcu_arg_1(ptr);
}

/*
 * The symbol namespace of what cmstat exports for its own benchmark and
 * tests, and not as API (<cmstat/testing.h>): a module that uses it says
 * so with CMSTAT_IMPORT_TESTING(), which modpost holds it to.  A namespace
 * is named by a string literal from 6.13 on, by a bare token before
 * (which the kernel's macros stringify).
 */
#if KERNEL_VERSION(6, 13, 0) <= LINUX_VERSION_CODE
#define CMSTAT_EXPORT_TESTING(sym)	EXPORT_SYMBOL_NS_GPL(sym, "CMSTAT_TESTING")
#define CMSTAT_IMPORT_TESTING()		MODULE_IMPORT_NS("CMSTAT_TESTING")
#else
#define CMSTAT_EXPORT_TESTING(sym)	EXPORT_SYMBOL_NS_GPL(sym, CMSTAT_TESTING)
#define CMSTAT_IMPORT_TESTING()		MODULE_IMPORT_NS(CMSTAT_TESTING)
#endif

/*
 * kfree_rcu() of @ptr, whose rcu_head is @offset bytes in, as a function:
 * kvfree_call_rcu() takes the pointer from 6.3 on, and before it the
 * offset, passed as the callback, which only an offset under 4096 can be
 * (kfree_rcu() refuses others at build time).
 *
 * Return: false if this kernel's kvfree_call_rcu() cannot take @offset.
 */
static inline bool cmstat_kvfree_call_rcu(const void *ptr, size_t offset)
{
	struct rcu_head *head = (struct rcu_head *)((char *)ptr + offset);

#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	/* A struct rcu_head *, or a struct kvfree_rcu_head * on 7.x. */
	kvfree_call_rcu((void *)head, (void *)ptr);
#else
	if (!__is_kvfree_rcu_offset(offset))
		return false;
	kvfree_call_rcu(head, (rcu_callback_t)(unsigned long)offset);
#endif
	return true;
}

/*
 * <net/hotdata.h> (6.9) holds the kernel's skbuff caches, which
 * cmstat/adopt.h must see before it renames struct kmem_cache.
 */
#if KERNEL_VERSION(6, 9, 0) <= LINUX_VERSION_CODE
#define CMSTAT_HAVE_NET_HOTDATA
#endif

/*
 * hex_byte_pack_upper() and the other hexadecimal helpers: <linux/hex.h>,
 * which <linux/kernel.h> no longer includes from 7.0 on (and which 6.1
 * does not have: there <linux/kernel.h> declares them itself).
 */
#if KERNEL_VERSION(7, 0, 0) <= LINUX_VERSION_CODE
#include <linux/hex.h>
#endif

/*
 * virt_to_folio() of @obj, an address in the linear map.  x86-64's
 * virt_to_page() first tells the kernel image's mapping from the linear
 * map's, 6 instructions that the caller's bounds make needless: a linear
 * address there is its physical address plus PAGE_OFFSET.  Other
 * architectures, UML's x86-64 among them, keep virt_to_folio().
 */
static __always_inline struct folio *cmstat_linear_folio(const void *obj)
{
#if defined(CONFIG_X86_64) && !defined(CONFIG_UML)
	unsigned long addr = (unsigned long)kasan_reset_tag(obj);

	return page_folio(pfn_to_page(PHYS_PFN(addr - PAGE_OFFSET)));
#else
	return virt_to_folio(obj);
#endif
}

/* The slab cache of @folio, a slab's: see cmstat_slab_cache_of(). */
static inline struct kmem_cache *cmstat_folio_slab_cache(struct folio *folio)
{
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
	BUILD_BUG_ON(offsetof(struct folio, lru) != sizeof(unsigned long));
	/* Set when the slab was made, before its objects were handed out. */
	return (struct kmem_cache *)READ_ONCE(folio->lru.next);
#else
	return (struct kmem_cache *)READ_ONCE(folio->mapping);
#endif
}

/**
 * cmstat_slab_cache_of() - the slab cache an object belongs to
 * @obj: any address
 *
 * What kfree() and kmem_cache_free() look up, read with the public
 * helpers of <linux/mm.h>: the kmem_cache recorded in the slab of @obj, if
 * @obj is in a slab.  The cache pointer shares a word of the head page
 * with a field of struct folio: folio->lru.next from 6.2 on (mm/slab.h
 * asserts SLAB_MATCH(compound_head, slab_cache), compound_info in 7.x,
 * which struct folio's lru overlays), folio->mapping before (where 6.1's
 * SLUB put slab_cache after slab_list).  cmstat checks it once at load,
 * on its own caches and on kmalloc()'s (cmstat_owner_init()), and refuses
 * to load where it does not hold.
 *
 * A KFENCE object's page records the cache it was allocated from, as a
 * slab's does.  A large kmalloc() (page allocator) is in no slab.  @obj
 * is what kvfree() takes: memory in the direct map or from vmalloc(), and
 * valid for as long as the answer is used (a live object keeps its slab,
 * and the word, in place).  Nothing else is checked, as kfree() checks
 * nothing: its callers' frees are what this serves, at their cost.
 *
 * Return: the cache, or NULL if @obj is not in a slab (vmalloc()'s
 * memory, or the page allocator's).
 */
static inline struct kmem_cache *cmstat_slab_cache_of(const void *obj)
{
	struct folio *folio;

	if (is_vmalloc_addr(obj))
		return NULL;
	folio = virt_to_folio(obj);
	return folio_test_slab(folio) ? cmstat_folio_slab_cache(folio) : NULL;
}

/*
 * hrtimer_setup() came in 6.13, and hrtimer_init(), which left the
 * callback to be set after it, went in 6.15.  For cmstat's tests.
 */
static inline void
cmstat_hrtimer_setup(struct hrtimer *timer,
		     enum hrtimer_restart (*function)(struct hrtimer *),
		     clockid_t clock_id, enum hrtimer_mode mode)
{
#if KERNEL_VERSION(6, 13, 0) <= LINUX_VERSION_CODE
	hrtimer_setup(timer, function, clock_id, mode);
#else
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
#endif
}

/*
 * The workqueue schedule_work() queues on, for cmstat's own delayed work
 * (mod_delayed_work() has no form without one): system_percpu_wq from
 * 6.18 on, system_wq before.  7.3 marks system_wq "will be removed".
 */
#if KERNEL_VERSION(6, 18, 0) <= LINUX_VERSION_CODE
#define cmstat_system_wq	system_percpu_wq
#else
#define cmstat_system_wq	system_wq
#endif

/*
 * What vmalloc() honours of a gfp.  From 6.19 on it takes only the flags
 * of mm/vmalloc.c's GFP_VMALLOC_SUPPORTED (no header exports it; 7.0 adds
 * __GFP_RETRY_MAYFAIL), and warns of and drops any other ("Unexpected
 * gfp ... Fix your code!"): a zone modifier among them, so GFP_DMA32
 * would get memory from any zone.  Before 6.19 vmalloc() takes a zone
 * modifier as the page allocator does, and any flag.
 */
#if KERNEL_VERSION(6, 19, 0) <= LINUX_VERSION_CODE
#if KERNEL_VERSION(7, 0, 0) <= LINUX_VERSION_CODE
#define __CMSTAT_VMALLOC_RETRY	__GFP_RETRY_MAYFAIL
#else
#define __CMSTAT_VMALLOC_RETRY	0
#endif
#define CMSTAT_VMALLOC_GFP						\
	(GFP_KERNEL | GFP_ATOMIC | GFP_NOWAIT | __GFP_NOFAIL | __GFP_ZERO | \
	 __GFP_NORETRY | GFP_NOFS | GFP_NOIO | GFP_KERNEL_ACCOUNT | GFP_USER | \
	 __GFP_NOLOCKDEP | __CMSTAT_VMALLOC_RETRY)
#define CMSTAT_VMALLOC_ZONES	0
#else
#define CMSTAT_VMALLOC_GFP	((__force gfp_t)~0U)
#define CMSTAT_VMALLOC_ZONES	(__GFP_DMA | __GFP_DMA32)
#endif

/* Whether vmalloc() serves the zone of @gfp, if @gfp names one it needs. */
static inline bool cmstat_vmalloc_serves_zone(gfp_t gfp)
{
	return !(gfp & (__GFP_DMA | __GFP_DMA32) & ~CMSTAT_VMALLOC_ZONES);
}

#endif /* _CMSTAT_COMPAT_H */
