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
 *
 * Allocation and free are inline, as kmalloc() is: the client's own code
 * calls kmem_cache_alloc() and kfree(), so tracepoints and kmemleak name
 * it, and with a size known at compile time the class and its cache are
 * too.  Large sizes, debug_free, failures and accounting=0's bookkeeping
 * stay out of line, in cmstat.ko.
 */
#ifndef _CMSTAT_ALLOC_H
#define _CMSTAT_ALLOC_H

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/gfp.h>
#include <linux/jump_label.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/types.h>

#include <cmstat/compat.h>
#include <cmstat/counters.h>
#include <cmstat/site.h>

/**
 * CMSTAT_NR_CLASSES - number of size classes
 *
 * The classes go from 8 B to %CMSTAT_MAX_CLASS_SIZE: eight per doubling up
 * to 32 KiB, so that rounding a request up to its class wastes at most 1/9
 * of the object from 128 B up; then 64, 128 and 256 KiB.
 */
#define CMSTAT_NR_CLASSES	77

/**
 * CMSTAT_MAX_CLASS_SIZE - the largest size class, in bytes
 *
 * Larger allocations come from the page allocator, in whole pages.
 */
#define CMSTAT_MAX_CLASS_SIZE	262144

/**
 * CMSTAT_ALLOC_MAX - the largest allocation, in bytes
 *
 * What kmalloc() can get from the page allocator (4 MiB on x86-64).
 */
#define CMSTAT_ALLOC_MAX	KMALLOC_MAX_SIZE

/**
 * CMSTAT_HEAP_NAME_MAX - the longest heap name, without the terminating NUL
 *
 * A module's name fits: an adopted module's heap is named after it.
 */
#define CMSTAT_HEAP_NAME_MAX	(MODULE_NAME_LEN - 1)

/**
 * CMSTAT_HEAP_CACHES - typed caches a heap can have at once
 *
 * Each has a column of the heap's counters (two counters), so that its
 * allocations are in the same snapshots as everything else.  A destroyed
 * cache's column goes to the next one created.
 */
#define CMSTAT_HEAP_CACHES	32

/*
 * A heap's typed caches by their slab cache (struct cmstat_heap's
 * @by_slab): open addressing, linear probing from hash_ptr() of the slab
 * pointer, over twice as many slots as a heap has caches, so that at most
 * half are live.  A slot's @slab is CMSTAT_SLAB_EMPTY (never used, or
 * cleared: a lookup ends there), CMSTAT_SLAB_GONE (its cache was
 * destroyed: a lookup goes on) or a live typed cache's slab cache; never
 * NULL, so that no lookup of NULL matches.  module/heap.c writes it.
 */
#define CMSTAT_HEAP_BY_SLAB_BITS	6
#define CMSTAT_HEAP_BY_SLAB		BIT(CMSTAT_HEAP_BY_SLAB_BITS)
static_assert(CMSTAT_HEAP_BY_SLAB == 2 * CMSTAT_HEAP_CACHES);
#define CMSTAT_SLAB_EMPTY		((struct kmem_cache *)1)
#define CMSTAT_SLAB_GONE		((struct kmem_cache *)2)

struct cmstat_cache;

/**
 * struct cmstat_heap_by_slab - a slot of a heap's table of typed caches
 * @slab: the key: a typed cache's slab cache, %CMSTAT_SLAB_EMPTY or
 *	%CMSTAT_SLAB_GONE
 * @cc: the typed cache whose slab cache @slab is
 */
struct cmstat_heap_by_slab {
	struct kmem_cache *slab;
	struct cmstat_cache *cc;
};

/**
 * struct cmstat_heap - a named heap, as its clients see it
 * @slots: its counters' per-CPU slots, for the inline fast path
 * @by_slab: its typed caches by their slab cache, for
 *	cmstat_heap_cache_of(): what include/cmstat/adopt.h's
 *	kmem_cache_alloc() and the rest look a module's cache up in
 * @site_key: unique to a heap with site rows (include/cmstat/site.h),
 *	%CMSTAT_SITE_KEY_NONE for one without
 * @site_slots: the slots of its site counter sets, by column / 256; NULL
 *	for a set not allocated yet
 * @node_slots: the slots of its node rows, %CMSTAT_SC_NR counters per
 *	node id, with site rows on a kernel of more than one node
 *	(cmstat_by_node_key); NULL otherwise
 *
 * Clients hold a pointer from cmstat_heap_create() and touch nothing in
 * it: only cmstat's inline allocation functions read @slots, and in a heap
 * with site rows @site_slots and @node_slots.  This is all
 * of the heap that they compile against.  cmstat.ko embeds it in its own
 * struct cmstat_heap_priv (module/internal.h) with the heap's name, files,
 * list and flags: so those stay out of the modversions CRCs of every
 * exported function that takes a heap, and can change without breaking
 * client modules.  Embedded, not pointed to as percpu_ref points to its
 * percpu_ref_data: the fast path loads @slots from the handle itself, as
 * before, and genksyms, which follows pointers into every structure whose
 * definition it sees, never meets the private one through this.
 */
struct cmstat_heap {
	u64 __percpu *slots;
	struct cmstat_heap_by_slab by_slab[CMSTAT_HEAP_BY_SLAB];
	unsigned long site_key;
	u64 __percpu *site_slots[CMSTAT_SITE_SETS];
	u64 __percpu *node_slots;
};

/*
 * The site key of a heap without site rows: no binding ever holds it, so
 * a site of a module built with CMSTAT_SITES always asks cmstat.ko, which
 * says the heap has no sites.
 */
#define CMSTAT_SITE_KEY_NONE	(ULONG_MAX >> CMSTAT_SITE_COL_BITS)

/**
 * CMSTAT_CACHE_NAME_MAX - the longest typed cache name cmstat shows,
 *	without the terminating NUL
 *
 * The slab allocator gets the whole name; cmstat's files show this much.
 */
#define CMSTAT_CACHE_NAME_MAX	47

/*
 * A heap's counters, cumulative only: everything "live", and the bytes held
 * by class allocations (class size times count), is derived when read.  So
 * an allocation or a free in a size class moves two counters: its class's
 * count and the requested bytes; a large one three; one in a typed cache
 * its column's count and the cache bytes.
 */
enum {
	CMSTAT_HC_REQUESTED_ALLOC_BYTES,
	CMSTAT_HC_REQUESTED_FREE_BYTES,
	CMSTAT_HC_LARGE_MALLOCS,
	CMSTAT_HC_LARGE_FREES,
	CMSTAT_HC_LARGE_ALLOC_BYTES,
	CMSTAT_HC_LARGE_FREE_BYTES,
	CMSTAT_HC_FAILED_ALLOCS,
	CMSTAT_HC_CACHE_ALLOC_BYTES,	/* object size times allocations */
	CMSTAT_HC_CACHE_FREE_BYTES,
	CMSTAT_HC_RETIRED_CACHE_MALLOCS,	/* of typed caches destroyed */
	CMSTAT_HC_RETIRED_CACHE_FREES,
	CMSTAT_HC_CLASS_MALLOCS,
	CMSTAT_HC_CLASS_FREES = CMSTAT_HC_CLASS_MALLOCS + CMSTAT_NR_CLASSES,
	CMSTAT_HC_CACHE_MALLOCS = CMSTAT_HC_CLASS_FREES + CMSTAT_NR_CLASSES,
	CMSTAT_HC_CACHE_FREES = CMSTAT_HC_CACHE_MALLOCS + CMSTAT_HEAP_CACHES,
	CMSTAT_HC_NR = CMSTAT_HC_CACHE_FREES + CMSTAT_HEAP_CACHES,
};

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
 * @epoch: number of the snapshot: of all heaps at one instant, whatever was
 *	read of it
 * @live_bytes: bytes held now, as the allocator holds them (class size, or
 *	whole pages above the largest class)
 * @live_requested_bytes: bytes callers asked for and still hold; the gap to
 *	@live_bytes is internal fragmentation
 * @alloc_bytes: bytes held by allocations, cumulative
 * @free_bytes: bytes released by frees, cumulative
 * @requested_alloc_bytes: bytes callers asked for, cumulative
 * @requested_free_bytes: requested bytes of freed objects, cumulative
 * @mallocs: successful allocations (classes, large and typed caches),
 *	cumulative
 * @frees: frees (classes, large and typed caches), cumulative
 * @live_objects: @mallocs - @frees
 * @large_mallocs: allocations above %CMSTAT_MAX_CLASS_SIZE, cumulative
 * @large_frees: frees of those, cumulative
 * @large_live_objects: @large_mallocs - @large_frees
 * @large_alloc_bytes: bytes held by large allocations, cumulative
 * @large_free_bytes: bytes released by large frees, cumulative
 * @large_live_bytes: @large_alloc_bytes - @large_free_bytes
 * @failed_allocs: allocations that returned NULL (no memory, a size
 *	above the maximum, or a context PREEMPT_RT cannot serve), cumulative
 * @cache_mallocs: allocations from the heap's typed caches, cumulative
 * @cache_frees: frees into them, cumulative
 * @cache_live_objects: @cache_mallocs - @cache_frees
 * @cache_alloc_bytes: object size times allocations, cumulative
 * @cache_free_bytes: object size times frees, cumulative
 * @cache_live_bytes: @cache_alloc_bytes - @cache_free_bytes
 * @classes: per size class, smallest first
 *
 * The heap's totals (@mallocs, @live_bytes, the requested bytes, ...)
 * count its typed caches too, each object as its cache's object size,
 * requested and held.  Every snapshot satisfies, exactly:
 * @live_bytes == sum of class size * class live objects + @large_live_bytes
 * + @cache_live_bytes,
 * @live_objects == sum of class live objects + @large_live_objects +
 * @cache_live_objects,
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
	u64 cache_mallocs;
	u64 cache_frees;
	u64 cache_live_objects;
	u64 cache_alloc_bytes;
	u64 cache_free_bytes;
	u64 cache_live_bytes;
	struct cmstat_class_stats classes[CMSTAT_NR_CLASSES];
};

/**
 * struct cmstat_cache_stats - one typed cache in a snapshot
 * @epoch: as in struct cmstat_heap_stats
 * @size_bytes: its object size
 * @mallocs: objects allocated from it, cumulative
 * @frees: objects freed into it, cumulative
 * @live_objects: @mallocs - @frees
 * @live_bytes: @size_bytes * @live_objects
 */
struct cmstat_cache_stats {
	u64 epoch;
	u64 size_bytes;
	u64 mallocs;
	u64 frees;
	u64 live_objects;
	u64 live_bytes;
};

/**
 * struct cmstat_cache - a typed cache of a heap, as its clients see it
 * @slab: the slab cache that holds its objects
 * @heap: the heap whose statistics count them
 * @slots: @heap's slots, copied: the inline paths load them from here
 * @size: the object size, as given to cmstat_cache_create()
 * @tag_end: in a heap with site rows, where the tag past each object ends
 *	(include/cmstat/site.h), or %CMSTAT_CACHE_UNTAGGED where a tag would
 *	cost more room than the objects may take; 0 in a heap without
 * @mallocs_slot: where the slots of its column's allocation counter start
 *	in @heap's counters: CMSTAT_COUNTER_SLOT() of the counter's index,
 *	so that the inline paths add to it with no arithmetic
 * @frees_slot: the same for its free counter, %CMSTAT_HEAP_CACHES
 *	counters further
 *
 * What the inline cmstat_cache_alloc() and cmstat_cache_free() read, and
 * nothing else: cmstat.ko keeps the name and the rest to itself.  Clients
 * hold a pointer from cmstat_cache_create() and touch nothing in it.
 */
struct cmstat_cache {
	struct kmem_cache *slab;
	struct cmstat_heap *heap;
	u64 __percpu *slots;
	unsigned int size;
	unsigned int tag_end;
	unsigned long mallocs_slot;
	unsigned long frees_slot;
};

/*
 * The tag_end of a typed cache of a heap with site rows whose objects
 * have no tag: counted unattributed.  No tag ends at byte 1.
 */
#define CMSTAT_CACHE_UNTAGGED	1

struct cmstat_heap *cmstat_heap_create(const char *name);
void cmstat_heap_destroy(struct cmstat_heap *heap);
const char *cmstat_heap_name(const struct cmstat_heap *heap);

/*
 * The allocators say what they return, as include/linux/slab.h's do: the
 * object's size (__alloc_size, for FORTIFY_SOURCE and
 * __builtin_dynamic_object_size()) and, for new memory, that it aliases
 * nothing (__malloc, which __alloc_size implies).  cmstat_realloc() and
 * __cmstat_alloc_tail() may return memory the caller already points to,
 * so only the size: __realloc_size, as krealloc().
 */
void *__cmstat_alloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
	__alloc_size(2);
void __cmstat_free(struct cmstat_heap *heap, const void *obj, size_t size);
void *__must_check cmstat_realloc(struct cmstat_heap *heap, const void *obj,
				  size_t old_size, size_t new_size, gfp_t gfp)
	__realloc_size(4);
void *__must_check __cmstat_realloc_at(struct cmstat_heap *heap,
				       const void *obj, size_t old_size,
				       size_t new_size, gfp_t gfp,
				       struct cmstat_site *site)
	__realloc_size(4);
void *__cmstat_alloc_tail(struct cmstat_heap *heap, void *obj,
			  unsigned int class, size_t size, gfp_t gfp)
	__realloc_size(4);
void __cmstat_alloc_failed(struct cmstat_heap *heap);
void __cmstat_free_tail(struct cmstat_heap *heap, const void *obj,
			unsigned int class, size_t size);

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
unsigned long cmstat_frees_handed_on(void);
bool cmstat_debug_free_enabled(void);

/*
 * What the inline fast path reads of cmstat.ko: the group of every heap's
 * counters, the class tables (filled at load, read-only after), and the
 * switch of the inline accounting: on unless cmstat was loaded with
 * accounting=0 or debug_free=1, whose bookkeeping is out of line.
 */
extern struct cmstat_group cmstat_heap_group;
extern const u32 cmstat_class_sizes[CMSTAT_NR_CLASSES];
extern struct kmem_cache *cmstat_class_caches[CMSTAT_NR_CLASSES];
DECLARE_STATIC_KEY_TRUE(cmstat_inline_accounting);
DECLARE_STATIC_KEY_FALSE(cmstat_debug_free_key);
DECLARE_STATIC_KEY_FALSE(cmstat_by_node_key);

/*
 * Sizes up to 1 KiB are looked up by 8-byte granule, up to 32 KiB by
 * 128-byte granule (every class up to 1 KiB is a multiple of 8, above it
 * of 128); above 32 KiB the classes are powers of two.
 */
#define CMSTAT_BY_8_MAX		1024
#define CMSTAT_BY_128_MAX	32768
#define CMSTAT_BY_8_ENTRIES	(CMSTAT_BY_8_MAX / 8 + 1)
#define CMSTAT_BY_128_ENTRIES	(CMSTAT_BY_128_MAX / 128 + 1)
#define CMSTAT_POW2_FIRST	74	/* the 64 KiB class */
extern u8 cmstat_class_by_8[CMSTAT_BY_8_ENTRIES];
extern u8 cmstat_class_by_128[CMSTAT_BY_128_ENTRIES];

/*
 * The class of @size, 1 to %CMSTAT_MAX_CLASS_SIZE, worked out from the
 * table's shape: what the compiler folds for a constant size.  Up to 32 B
 * the classes step by 8, up to 128 B by 16, then eight per doubling, then
 * powers of two.  KUnit checks it against the table for every size.
 * It returns a size_t because sparse folds every branch for a constant,
 * the ones that do not run too, and would flag their narrowing.
 */
static __always_inline size_t __cmstat_class_calc(size_t size)
{
	unsigned int order;

	if (size <= 32)
		return (size - 1) / 8;
	if (size <= 128)
		return 3 + (size - 17) / 16;
	order = fls_long(size - 1);		/* 2^(order - 1) < size <= 2^order */
	if (size <= CMSTAT_BY_128_MAX)
		return 10 + 8 * (order - 8) +
		       (size - (1UL << (order - 1)) - 1) / (1UL << (order - 4));
	return CMSTAT_POW2_FIRST + order - 16;
}

/* The class of @size, 1 to %CMSTAT_MAX_CLASS_SIZE, at run time. */
static __always_inline unsigned int __cmstat_class_lookup(size_t size)
{
	if (size <= CMSTAT_BY_8_MAX)
		return cmstat_class_by_8[(size + 7) / 8];
	if (size <= CMSTAT_BY_128_MAX)
		return cmstat_class_by_128[(size + 127) / 128];
	return CMSTAT_POW2_FIRST + fls_long(size - 1) - 16;
}

static __always_inline unsigned int __cmstat_class(size_t size)
{
	if (__builtin_constant_p(size))
		return __cmstat_class_calc(size);
	return __cmstat_class_lookup(size);
}

/*
 * Whether the caller runs in task context, for the report of a gfp that
 * may block: a client that passes GFP_KERNEL from a softirq has a bug
 * that only CONFIG_DEBUG_ATOMIC_SLEEP reports otherwise.
 */
static __always_inline bool __cmstat_in_task(void)
{
	return likely(!(preempt_count() & (NMI_MASK | HARDIRQ_MASK |
					   SOFTIRQ_OFFSET)));
}

void __cmstat_gfp_blocking_in_irq(unsigned long caller);

/*
 * Whether this is a context PREEMPT_RT's allocators cannot serve: its slab
 * and page allocators take sleeping locks, so they may be called only
 * where the caller could be preempted, never from a hard interrupt
 * handler or hard hrtimer, nor with preemption or interrupts disabled
 * (Documentation/locking/locktypes.rst, "raw_spinlock_t on RT").  There
 * cmstat refuses allocations and hands frees on (module/free_later.c).
 * Constant false on every other kernel.
 */
static __always_inline bool __cmstat_atomic_rt(void)
{
	return IS_ENABLED(CONFIG_PREEMPT_RT) && !preemptible();
}

void *__cmstat_alloc_refused_rt(struct cmstat_heap *heap,
				unsigned long caller);
void __cmstat_free_later(const void *obj);

/*
 * kfree() of a slab object, from any context: handed on where
 * __cmstat_atomic_rt() says the slab allocator cannot take it now.
 */
static __always_inline void __cmstat_kfree(const void *obj)
{
	if (__cmstat_atomic_rt())
		__cmstat_free_later(obj);
	else
		kfree(obj);
}

/*
 * Whether @gfp may block where blocking is a bug: outside task context, or
 * in a PREEMPT_RT softirq, which runs in a task but must not sleep.  For
 * a constant @gfp that cannot block it compiles away.
 */
static __always_inline bool __cmstat_gfp_misplaced(gfp_t gfp)
{
	if (!gfpflags_allow_blocking(gfp))
		return false;
	if (!__cmstat_in_task())
		return true;
	return IS_ENABLED(CONFIG_PREEMPT_RT) && in_serving_softirq();
}

/*
 * The column of @site in @heap's site rows, or -1: @site is NULL (a
 * module built without CMSTAT_SITES, where this folds away) or the heap
 * has none.  A site bound to @heap holds its column; the first allocation
 * from another heap binds it out of line.
 */
static __always_inline int __cmstat_site_col(struct cmstat_heap *heap,
					     struct cmstat_site *site)
{
	unsigned long binding;

	if (!site)
		return -1;
	/*
	 * Pairs with smp_store_release() in __cmstat_site_bind(): the column's
	 * counter set, published before the binding, is seen with it.
	 */
	binding = smp_load_acquire(&site->binding);
	if (likely(binding >> CMSTAT_SITE_COL_BITS == heap->site_key))
		return binding & CMSTAT_SITE_COL_MASK;
	return __cmstat_site_bind(heap, site);
}

/*
 * Whether @heap has site rows: its first counter set comes with it, so
 * one compare with memory tells.  A plain load: the slot is written
 * before cmstat_heap_create_sites() returns the heap, and never again.
 */
static __always_inline bool __cmstat_heap_has_sites(const struct cmstat_heap *heap)
{
	return heap->site_slots[0];
}

/* The unattributed column of @heap, or -1 if it has no site rows. */
static __always_inline int __cmstat_site_unattributed(const struct cmstat_heap *heap)
{
	return __cmstat_heap_has_sites(heap) ? CMSTAT_SITE_UNATTRIBUTED : -1;
}

/*
 * The bytes past the request that a class object of @heap keeps for its
 * tag: every class object of a heap with site rows has one, whoever
 * allocates it.  0, a constant, in a module built without sites.
 */
static __always_inline size_t __cmstat_tag_bytes(const struct cmstat_heap *heap)
{
	return __CMSTAT_SITES_ASKED && __cmstat_heap_has_sites(heap) ?
	       CMSTAT_SITE_TAG_SIZE : 0;
}

/*
 * Whether the inline paths leave @heap to cmstat.ko: in a build that tags
 * (see __CMSTAT_SITES_ASKED), a heap without site rows, whose objects have
 * no tag.  cmstat.ko's paths decide by the heap, so both agree on every
 * object's class; a module built with sites pays one compare with memory
 * for it, and one built without nothing.
 */
static __always_inline bool __cmstat_untagged_heap(const struct cmstat_heap *heap)
{
	return __CMSTAT_SITES_ASKED && unlikely(!__cmstat_heap_has_sites(heap));
}

/* The tag bytes of a class object of this build's inline paths. */
#define __CMSTAT_INLINE_TAG	(__CMSTAT_SITES_ASKED ? CMSTAT_SITE_TAG_SIZE : 0)

/* Where a sited class object of @held bytes keeps its tag. */
static __always_inline u32 *__cmstat_site_tag(const void *obj, size_t held)
{
	return (u32 *)((char *)obj + held - CMSTAT_SITE_TAG_SIZE);
}

/*
 * The column @tag names in @heap, which has site rows.  A tag cmstat did
 * not write (an object allocated by a module built without CMSTAT_SITES,
 * or written past its end) is reported, and counted unattributed.
 */
static __always_inline int __cmstat_site_tag_col(struct cmstat_heap *heap,
						 u32 tag)
{
	unsigned int col = tag & CMSTAT_SITE_COL_MASK;

	/*
	 * A column's set is published before any object is tagged with it
	 * (see __cmstat_site_col()), and the object reached this CPU after.
	 */
	if (unlikely((tag & ~CMSTAT_SITE_COL_MASK) != CMSTAT_SITE_TAG_MAGIC ||
		     !READ_ONCE(heap->site_slots[col / CMSTAT_SITES_PER_SET])))
		return __cmstat_site_tag_bad(heap, tag);
	return col;
}

/*
 * The column in the tag of @obj, a sited class object of @held bytes of
 * @heap; -1 if @heap has no site rows.
 */
static __always_inline int __cmstat_site_col_of(struct cmstat_heap *heap,
						const void *obj, size_t held)
{
	if (__cmstat_site_unattributed(heap) < 0)
		return -1;
	return __cmstat_site_tag_col(heap, *__cmstat_site_tag(obj, held));
}

/*
 * In an open section: @n objects of @held bytes each allocated (or freed,
 * if @free) at column @col of @heap's sites; nothing if @col is -1.
 */
static __always_inline void __cmstat_site_add(const struct cmstat_section *sec,
					      const struct cmstat_heap *heap,
					      int col, bool free,
					      unsigned long n, size_t held)
{
	unsigned int idx = col % CMSTAT_SITES_PER_SET * CMSTAT_SC_NR;
	u64 __percpu *slot;

	if (col < 0)
		return;
	/* Published before @col was bound or tagged: see __cmstat_site_col(). */
	slot = __cmstat_slot(sec, READ_ONCE(heap->site_slots[col /
							CMSTAT_SITES_PER_SET]));
	cmstat_section_add(slot, idx + (free ? CMSTAT_SC_FREES :
					       CMSTAT_SC_MALLOCS), n);
	cmstat_section_add(slot, idx + (free ? CMSTAT_SC_FREE_BYTES :
					       CMSTAT_SC_ALLOC_BYTES), n * held);
}

/*
 * The node of @obj's memory, for a heap's node rows: only asked on a
 * kernel of more than one node, where cmstat_by_node_key is on; 0 where
 * there is one, whose row is the sum of the site rows.
 */
static __always_inline int __cmstat_node_of(const void *obj)
{
	if (static_branch_unlikely(&cmstat_by_node_key))
		return __cmstat_obj_nid(obj);
	return 0;
}

/*
 * In an open section: @n objects of @held bytes each allocated (or freed,
 * if @free) on node @nid, in the node rows of @heap, which has site rows.
 * Nothing on a kernel of one node.
 */
static __always_inline void __cmstat_node_add(const struct cmstat_section *sec,
					      const struct cmstat_heap *heap,
					      int nid, bool free,
					      unsigned long n, size_t held)
{
	unsigned int idx = nid * CMSTAT_SC_NR;
	u64 __percpu *slot;

	if (!static_branch_unlikely(&cmstat_by_node_key))
		return;
	/* Written before the heap was returned, and never again. */
	slot = __cmstat_slot(sec, heap->node_slots);
	cmstat_section_add(slot, idx + (free ? CMSTAT_SC_FREES :
					       CMSTAT_SC_MALLOCS), n);
	cmstat_section_add(slot, idx + (free ? CMSTAT_SC_FREE_BYTES :
					       CMSTAT_SC_ALLOC_BYTES), n * held);
}

/**
 * struct cmstat_site_count - what a section adds to a site's row
 * @heap: the heap whose site rows hold the column
 * @col: the column, or -1 for none
 * @nid: the node of the object's memory (__cmstat_node_of())
 * @held: the object's bytes, as the heap holds them
 * @free: whether the section frees it
 */
struct cmstat_site_count {
	const struct cmstat_heap *heap;
	int col;
	int nid;
	size_t held;
	bool free;
};

#define __CMSTAT_NO_SITE	((struct cmstat_site_count){ .col = -1 })

/*
 * Whether a site's row is counted in a section of its own: never, but in
 * the test builds that break the protocol on purpose (module/mutation.h).
 */
#ifndef __cmstat_site_apart
#define __cmstat_site_apart()		false
#define __cmstat_site_apart_gap()	do { } while (0)
#endif

/*
 * In the open section @sec: what @site says, in the same section as the
 * heap's totals, so that no snapshot sees one without the other.
 */
static __always_inline void __cmstat_site_count(struct cmstat_section *sec,
						struct cmstat_site_count site)
{
	if (site.col < 0)
		return;
	if (__cmstat_site_apart()) {
		cmstat_section_end(sec);
		__cmstat_site_apart_gap();
		__cmstat_section_open(sec, &cmstat_heap_group);
	}
	__cmstat_site_add(sec, site.heap, site.col, site.free, 1, site.held);
	__cmstat_node_add(sec, site.heap, site.nid, site.free, 1, site.held);
}

/*
 * One writer section on a heap's counters: an allocation or free moves one
 * count, whose slots start at @count_slot (CMSTAT_COUNTER_SLOT()), and one
 * byte counter, and the site's row in @site (nothing for
 * __CMSTAT_NO_SITE, which folds away).  The heap's slots are read through
 * @slots once the section is open, where the load folds into the add that
 * finds this generation's.  Straight-line: the generation from the heap
 * group, the sequence counter from the preemption depth, whatever the
 * context and whatever section of the caller's it runs in.  An allocation
 * that may block, from interrupt context, is accounted all the same and
 * reported once (out of line, naming the caller).
 */
static __always_inline void __cmstat_account(u64 __percpu *const *slots,
					     gfp_t gfp,
					     unsigned long count_slot,
					     unsigned int bytes_idx,
					     size_t size,
					     struct cmstat_site_count site)
{
	struct cmstat_section sec;
	u64 __percpu *slot;

	if (unlikely(__cmstat_gfp_misplaced(gfp)))
		__cmstat_gfp_blocking_in_irq(_THIS_IP_);
	__cmstat_section_open(&sec, &cmstat_heap_group);
	slot = __cmstat_slot(&sec, *slots);
	__cmstat_section_add_at(slot, count_slot, 1);
	cmstat_section_add(slot, bytes_idx, size);
	__cmstat_site_count(&sec, site);
	cmstat_section_end(&sec);
}

/*
 * Zone modifiers the class caches cannot honour: they are not DMA caches,
 * and SLUB takes a new slab's pages with the cache's own zone, whatever
 * the caller's flags say (and reports __GFP_DMA32 and __GFP_HIGHMEM with a
 * stack dump, as kmalloc() does).  __cmstat_alloc() refuses them.
 */
#define __CMSTAT_GFP_ZONES	(__GFP_DMA | __GFP_DMA32 | __GFP_HIGHMEM)

void *__cmstat_kmalloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
	__alloc_size(2);

/*
 * cmstat_alloc() and cmstat_kmalloc(): the same but for the requested
 * bytes counted.  A sized allocation counts @size, which its sized free
 * gives back; one that may be freed without a size (@unsized) counts its
 * whole class, which is what cmstat_kfree() can tell of it.  In a module
 * built with CMSTAT_SITES the class has room for the tag past @size, and
 * the object is tagged with @site's column, or unattributed for a NULL
 * @site.
 */
static __always_inline __alloc_size(2) void *
__cmstat_alloc_inline(struct cmstat_heap *heap, size_t size, gfp_t gfp,
		      bool unsized, struct cmstat_site *site)
{
	struct cmstat_site_count count = __CMSTAT_NO_SITE;
	const size_t tag = __CMSTAT_INLINE_TAG;
	unsigned int class;
	size_t requested;
	void *obj;

	if (__cmstat_atomic_rt())
		return __cmstat_alloc_refused_rt(heap, _THIS_IP_);
	/*
	 * 0, large or too large: one test, as an unsigned 0 - 1 is huge.
	 * A zone modifier, out of line too: none, for a constant @gfp.
	 */
	if (size - 1 >= CMSTAT_MAX_CLASS_SIZE - tag ||
	    (gfp & __CMSTAT_GFP_ZONES) || __cmstat_untagged_heap(heap)) {
		if (site)
			return __cmstat_alloc_at(heap, size, gfp, NUMA_NO_NODE,
						 unsized, site);
		return unsized ? __cmstat_kmalloc(heap, size, gfp) :
				 __cmstat_alloc(heap, size, gfp);
	}
	class = __cmstat_class(size + tag);
	requested = unsized ? cmstat_class_sizes[class] : size;
	/* A @site's macro tagged its line for allocation profiling. */
	if (site)
		obj = cmstat_slab_alloc_noprof(cmstat_class_caches[class], gfp);
	else
		obj = kmem_cache_alloc(cmstat_class_caches[class], gfp);
	if (tag && obj) {
		count.heap = heap;
		count.held = cmstat_class_sizes[class];
		count.col = site ? __cmstat_site_col(heap, site) :
			    __cmstat_site_unattributed(heap);
		count.nid = __cmstat_node_of(obj);
		*__cmstat_site_tag(obj, count.held) = CMSTAT_SITE_TAG_MAGIC |
			max(count.col, CMSTAT_SITE_UNATTRIBUTED);
	}
	if (static_branch_likely(&cmstat_inline_accounting)) {
		if (unlikely(!obj)) {
			__cmstat_alloc_failed(heap);
			return NULL;
		}
		__cmstat_account(&heap->slots, gfp,
				 CMSTAT_COUNTER_SLOT(CMSTAT_HC_CLASS_MALLOCS +
						     class),
				 CMSTAT_HC_REQUESTED_ALLOC_BYTES, requested,
				 count);
		return obj;
	}
	if (static_branch_unlikely(&cmstat_debug_free_key))
		return __cmstat_alloc_tail(heap, obj, class, requested, gfp);
	return obj;
}

/**
 * cmstat_alloc() - allocate memory from a heap
 * @heap: heap to account the allocation in
 * @size: bytes wanted; at most %CMSTAT_ALLOC_MAX
 * @gfp: passed to the slab or page allocator as is, so GFP_ATOMIC works
 *	from interrupt context; __GFP_ZERO zeroes the memory.  No zone
 *	modifier but GFP_DMA above %CMSTAT_MAX_CLASS_SIZE: see Return.
 *
 * Sizes up to %CMSTAT_MAX_CLASS_SIZE are rounded up to their size class
 * and served by the class's kmem_cache; larger ones by kmalloc(), which
 * takes them from the page allocator in whole power-of-two page blocks.
 * The memory is aligned as kmalloc() would align it, and may be copied to
 * and from user space whole.  Inline: a constant @size picks its class at
 * compile time, and a constant @gfp costs no test of its zone.
 * __cmstat_alloc() is the same, out of line.
 *
 * The statistics count the allocation in the context it runs in, whatever
 * @gfp says: an allocation that may sleep (GFP_KERNEL) from interrupt
 * context, a bug, is reported once, naming the caller.
 *
 * Return: the memory; ZERO_SIZE_PTR for @size 0, as kmalloc() (not
 * counted, and freeing it is a no-op); NULL on failure or when @size is
 * above %CMSTAT_ALLOC_MAX, counted in failed_allocs, without a warning.
 * NULL too, counted in failed_allocs and reported once naming the caller,
 * for GFP_DMA up to %CMSTAT_MAX_CLASS_SIZE (the class caches are not DMA
 * caches) and for __GFP_DMA32 or __GFP_HIGHMEM at any size (kmalloc()
 * does not honour them either); GFP_DMA above %CMSTAT_MAX_CLASS_SIZE is
 * honoured, by the page allocator.
 */
static __always_inline __alloc_size(2) void *
cmstat_alloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
{
	return __cmstat_alloc_inline(heap, size, gfp, false, NULL);
}

/**
 * cmstat_zalloc() - allocate zeroed memory from a heap
 * @heap: heap to account the allocation in
 * @size: bytes wanted
 * @gfp: allocation flags
 *
 * Return: as cmstat_alloc().
 */
static __always_inline __alloc_size(2) void *
cmstat_zalloc(struct cmstat_heap *heap, size_t size, gfp_t gfp)
{
	return cmstat_alloc(heap, size, gfp | __GFP_ZERO);
}

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
static __always_inline __alloc_size(2, 3) void *
cmstat_alloc_array(struct cmstat_heap *heap, size_t n, size_t size, gfp_t gfp)
{
	/* An overflow saturates to SIZE_MAX: above every class, it fails. */
	return cmstat_alloc(heap, size_mul(n, size), gfp);
}

/**
 * cmstat_free() - free memory from cmstat_alloc() or cmstat_zalloc()
 * @heap: the heap it was allocated from
 * @obj: the memory; NULL and ZERO_SIZE_PTR are no-ops
 * @size: the size passed to the allocation
 *
 * A sized free: the size names the class the statistics move, so cmstat
 * keeps no per-object header.  The memory goes back through kfree(), which
 * finds the object's slab (or pages) by itself.  Any context, like the
 * allocation.  Inline; __cmstat_free() is the same, out of line.
 *
 * Freeing with another size or into another heap than the allocation used
 * is a contract violation.  The memory itself is freed right, only the
 * statistics suffer: cmstat reports the heap whose statistics it broke,
 * once, in the kernel log, when they no longer add up.  A free into the
 * wrong heap can also make a heap look empty while the client still holds
 * its objects; cmstat_heap_destroy() then frees the heap, and the frees
 * through its handle that an orphan allows touch freed memory.  With the
 * module parameter debug_free=1, cmstat tracks every live
 * object, reports such a free (and a double free, or a free of memory it
 * did not allocate) as it happens, counts it
 * (cmstat_debug_invalid_frees()), and leaves the object allocated and the
 * statistics alone.
 */
static __always_inline void cmstat_free(struct cmstat_heap *heap,
					const void *obj, size_t size)
{
	struct cmstat_site_count count = __CMSTAT_NO_SITE;
	const size_t tag = __CMSTAT_INLINE_TAG;
	unsigned int class;

	if (size - 1 >= CMSTAT_MAX_CLASS_SIZE - tag ||
	    __cmstat_untagged_heap(heap)) {
		__cmstat_free(heap, obj, size);
		return;
	}
	class = __cmstat_class(size + tag);
	if (static_branch_likely(&cmstat_inline_accounting)) {
		if (unlikely(ZERO_OR_NULL_PTR(obj)))
			return;
		if (tag) {
			count.heap = heap;
			count.held = cmstat_class_sizes[class];
			count.col = __cmstat_site_col_of(heap, obj, count.held);
			count.nid = __cmstat_node_of(obj);
			count.free = true;
		}
		/* Whatever @size says: kfree() finds the object's own slab. */
		__cmstat_kfree(obj);
		__cmstat_account(&heap->slots, 0,
				 CMSTAT_COUNTER_SLOT(CMSTAT_HC_CLASS_FREES + class),
				 CMSTAT_HC_REQUESTED_FREE_BYTES, size, count);
		return;
	}
	if (static_branch_unlikely(&cmstat_debug_free_key)) {
		__cmstat_free_tail(heap, obj, class, size);
		return;
	}
	__cmstat_kfree(obj);	/* NULL and ZERO_SIZE_PTR: no-ops for it too */
}

/**
 * cmstat_free_array() - free an array from cmstat_alloc_array()
 * @heap: the heap it was allocated from
 * @obj: the array, or NULL
 * @n: number of elements, as passed to cmstat_alloc_array()
 * @size: element size, as passed to cmstat_alloc_array()
 */
static __always_inline void cmstat_free_array(struct cmstat_heap *heap,
					      const void *obj, size_t n,
					      size_t size)
{
	/* As the allocation computed it: an overflow only came with NULL. */
	cmstat_free(heap, obj, size_mul(n, size));
}

/*
 * In a module built with CMSTAT_SITES, each call is its own site: the
 * functions above, documented as they are, become macros that give
 * __cmstat_alloc_inline() this line's descriptor, and allocation
 * profiling this line's tag (see __cmstat_site_hooks()).
 */
#ifdef CMSTAT_SITES
#define cmstat_alloc(heap, size, gfp)					\
	__cmstat_site_hooks(__cmstat_alloc_inline(heap, size, gfp, false, \
						  __CMSTAT_SITE_HERE()))
#define cmstat_zalloc(heap, size, gfp)					\
	__cmstat_site_hooks(__cmstat_alloc_inline(heap, size,		\
						  (gfp) | __GFP_ZERO,	\
						  false,		\
						  __CMSTAT_SITE_HERE()))
#define cmstat_alloc_array(heap, n, size, gfp)				\
	__cmstat_site_hooks(__cmstat_alloc_inline(heap, size_mul(n, size), \
						  gfp, false,		\
						  __CMSTAT_SITE_HERE()))
#define cmstat_realloc(heap, obj, old_size, new_size, gfp)		\
	__cmstat_site_hooks(__cmstat_realloc_at(heap, obj, old_size,	\
						new_size, gfp,		\
						__CMSTAT_SITE_HERE()))
#define cmstat_heap_create(name)	cmstat_heap_create_sites(name)
#endif

#endif /* _CMSTAT_ALLOC_H */
