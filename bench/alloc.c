// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: one allocation and its free, back to back, per size, in a
 * loop compiled for that size as a constant, as client code mostly is:
 * through cmstat (whose accounting is on or off as cmstat was loaded),
 * through a kmem_cache of exactly that size made the way cmstat makes its
 * class caches, and through kmalloc().  Then, at 8 and 256 B, what costs
 * more or less: cmstat with GFP_ATOMIC, cmstat with a size known only at
 * run time, the raw cache freed with kfree(), as cmstat frees; a typed
 * cache of the same geometry as the raw cache, by cmstat_cache_alloc() and
 * as a module adopted with include/cmstat/adopt.h reaches it (its slab
 * cache looked up in the heap, then the same); and cmstat_kmalloc() freed
 * by the unsized cmstat_kfree(), to set beside the main table's kmalloc().
 */

#include <linux/compiler.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/counters.h>
#include <cmstat/kmalloc.h>

#include "bench.h"

struct alloc_case {
	struct cmstat_heap *heap;
	struct kmem_cache *cache;
	struct cmstat_cache *typed;
	size_t size;
};

enum pair_kind {
	PAIR_CMSTAT,		/* cmstat_alloc() and cmstat_free() */
	PAIR_CMSTAT_ATOMIC,	/* the same with GFP_ATOMIC */
	PAIR_CACHE,		/* kmem_cache_alloc() and kmem_cache_free() */
	PAIR_CACHE_KFREE,	/* kmem_cache_alloc() and kfree() */
	PAIR_KMALLOC,		/* kmalloc() and kfree() */
	PAIR_TYPED,		/* cmstat_cache_alloc() and cmstat_cache_free() */
	PAIR_CMSTAT_UNSIZED,	/* cmstat_kmalloc() and cmstat_kfree() */
	PAIR_ADOPTED,		/* kmem_cache_alloc() and _free() of adopt.h */
};

/*
 * What include/cmstat/adopt.h's kmem_cache_alloc() and kmem_cache_free()
 * do with a module's cache, which the module holds as its slab cache: the
 * typed cache looked up in the heap, then cmstat's; the kernel's for any
 * other cache.
 */
static __always_inline void *adopted_alloc(struct alloc_case *c, gfp_t gfp)
{
	struct kmem_cache *s = READ_ONCE(c->typed)->slab;
	struct cmstat_cache *cc = cmstat_heap_cache_of(c->heap, s);

	if (likely(cc))
		return cmstat_cache_alloc(cc, gfp);
	return kmem_cache_alloc(s, gfp);
}

static __always_inline void adopted_free(struct alloc_case *c, void *p)
{
	struct kmem_cache *s = READ_ONCE(c->typed)->slab;
	struct cmstat_cache *cc = cmstat_heap_cache_of(c->heap, s);

	if (likely(cc))
		cmstat_cache_free(cc, p);
	else
		kmem_cache_free(s, p);
}

static __always_inline void *pair_alloc(struct alloc_case *c,
					enum pair_kind kind, size_t size)
{
	switch (kind) {
	case PAIR_CMSTAT:
		return cmstat_alloc(c->heap, size, GFP_KERNEL);
	case PAIR_CMSTAT_ATOMIC:
		return cmstat_alloc(c->heap, size, GFP_ATOMIC);
	case PAIR_CACHE:
	case PAIR_CACHE_KFREE:
		return kmem_cache_alloc(c->cache, GFP_KERNEL);
	case PAIR_TYPED:
		return cmstat_cache_alloc(c->typed, GFP_KERNEL);
	case PAIR_CMSTAT_UNSIZED:
		return cmstat_kmalloc(c->heap, size, GFP_KERNEL);
	case PAIR_ADOPTED:
		return adopted_alloc(c, GFP_KERNEL);
	default:
		return kmalloc(size, GFP_KERNEL);
	}
}

static __always_inline void pair_free(struct alloc_case *c,
				      enum pair_kind kind, void *p,
				      size_t size)
{
	switch (kind) {
	case PAIR_CMSTAT:
	case PAIR_CMSTAT_ATOMIC:
		cmstat_free(c->heap, p, size);
		break;
	case PAIR_CACHE:
		kmem_cache_free(c->cache, p);
		break;
	case PAIR_TYPED:
		cmstat_cache_free(c->typed, p);
		break;
	case PAIR_CMSTAT_UNSIZED:
		cmstat_kfree(c->heap, p);
		break;
	case PAIR_ADOPTED:
		adopted_free(c, p);
		break;
	default:
		kfree(p);
	}
}

/* @iters pairs.  Return: 0, or -ENOMEM if an allocation failed. */
static __always_inline int pairs(struct alloc_case *c, unsigned long iters,
				 enum pair_kind kind, size_t size)
{
	unsigned long i;
	void *p;

	for (i = 0; i < iters; i++) {
		p = pair_alloc(c, kind, size);
		if (!p)
			return -ENOMEM;
		/* Keep the compiler from pairing the two away. */
		OPTIMIZER_HIDE_VAR(p);
		pair_free(c, kind, p, size);
	}
	return 0;
}

/* A loop per kind, each compiled with its kind and @size constants. */
static __always_inline int pairs_by_kind(struct alloc_case *c,
					 unsigned long iters,
					 enum pair_kind kind, size_t size)
{
	switch (kind) {
	case PAIR_CMSTAT:
		return pairs(c, iters, PAIR_CMSTAT, size);
	case PAIR_CMSTAT_ATOMIC:
		return pairs(c, iters, PAIR_CMSTAT_ATOMIC, size);
	case PAIR_CACHE:
		return pairs(c, iters, PAIR_CACHE, size);
	case PAIR_CACHE_KFREE:
		return pairs(c, iters, PAIR_CACHE_KFREE, size);
	case PAIR_TYPED:
		return pairs(c, iters, PAIR_TYPED, size);
	case PAIR_CMSTAT_UNSIZED:
		return pairs(c, iters, PAIR_CMSTAT_UNSIZED, size);
	case PAIR_ADOPTED:
		return pairs(c, iters, PAIR_ADOPTED, size);
	default:
		return pairs(c, iters, PAIR_KMALLOC, size);
	}
}

/* The loops for one size, written out with the size as a constant. */
#define BENCH_SIZE(s)							\
static noinline int pairs_##s(struct alloc_case *c, unsigned long iters,	\
			      enum pair_kind kind)			\
{									\
	return pairs_by_kind(c, iters, kind, s);			\
}

BENCH_SIZE(8)
BENCH_SIZE(64)
BENCH_SIZE(256)
BENCH_SIZE(1024)
BENCH_SIZE(4096)
BENCH_SIZE(16384)
BENCH_SIZE(65536)
BENCH_SIZE(131072)
BENCH_SIZE(262144)
BENCH_SIZE(524288)
BENCH_SIZE(1048576)

/* cmstat, the size read from memory the compiler cannot see through. */
static noinline int pairs_runtime(struct alloc_case *c, unsigned long iters,
				  enum pair_kind kind)
{
	return pairs(c, iters, PAIR_CMSTAT, READ_ONCE(c->size));
}

typedef int (*pairs_fn)(struct alloc_case *c, unsigned long iters,
			enum pair_kind kind);

struct pairs_size {
	size_t size;
	pairs_fn fn;
};

static const struct pairs_size alloc_sizes[] = {
	{ 8, pairs_8 }, { 64, pairs_64 }, { 256, pairs_256 },
	{ 1024, pairs_1024 }, { 4096, pairs_4096 }, { 16384, pairs_16384 },
	{ 65536, pairs_65536 }, { 131072, pairs_131072 },
	{ 262144, pairs_262144 }, { 524288, pairs_524288 },
	{ 1048576, pairs_1048576 },
};

/* The extra cases' sizes. */
static const struct pairs_size extra_sizes[] = {
	{ 8, pairs_8 }, { 256, pairs_256 },
};

/*
 * Fewer pairs for large sizes: each zeroes its object (init_on_alloc), and
 * under QEMU a megabyte of that is a million instructions.
 */
static unsigned long pairs_for(size_t size, unsigned long iters)
{
	return max(iters / max_t(size_t, size / 4096, 1), 16UL);
}

static int time_pairs(struct alloc_case *c, const char *group,
		      const char *name, pairs_fn fn, enum pair_kind kind,
		      unsigned long iters)
{
	u64 start = ktime_get_ns();
	char size[12];
	int err;

	iters = pairs_for(c->size, iters);
	err = fn(c, iters, kind);
	if (err)
		return err;
	snprintf(size, sizeof(size), "%zu", c->size);
	cmstat_bench_report(group, name, size, ktime_get_ns() - start, iters);
	return 0;
}

/* As cmstat's class caches: aligned like kmalloc would align it. */
static int make_cache(struct alloc_case *c)
{
	c->cache = kmem_cache_create_usercopy("cmstat_bench", c->size,
					      c->size & -c->size, 0, 0,
					      c->size, NULL);
	return c->cache ? 0 : -ENOMEM;
}

/*
 * With accounting off only cmstat is timed: the other cases do not depend
 * on it, and are timed once per run, in the load with accounting on.
 */
static int time_size(struct alloc_case *c, const struct pairs_size *ps,
		     unsigned long iters)
{
	int err;

	c->size = ps->size;
	if (!cmstat_accounting_enabled())
		return time_pairs(c, "alloc", "cmstat_off", ps->fn, PAIR_CMSTAT,
				  iters);
	err = make_cache(c);
	if (!err)
		err = time_pairs(c, "alloc", "cmstat_on", ps->fn, PAIR_CMSTAT,
				 iters);
	if (!err)
		err = time_pairs(c, "alloc", "kmem_cache", ps->fn, PAIR_CACHE,
				 iters);
	if (!err)
		err = time_pairs(c, "alloc", "kmalloc", ps->fn, PAIR_KMALLOC,
				 iters);
	kmem_cache_destroy(c->cache);
	return err;
}

static int time_extra(struct alloc_case *c, const struct pairs_size *ps,
		      unsigned long iters)
{
	int err;

	c->size = ps->size;
	err = make_cache(c);
	if (!err)
		err = time_pairs(c, "alloc_extra", "cmstat_gfp_atomic", ps->fn,
				 PAIR_CMSTAT_ATOMIC, iters);
	if (!err)
		err = time_pairs(c, "alloc_extra", "cmstat_runtime_size",
				 pairs_runtime, PAIR_CMSTAT, iters);
	if (!err)
		err = time_pairs(c, "alloc_extra", "kmem_cache_kfree", ps->fn,
				 PAIR_CACHE_KFREE, iters);
	kmem_cache_destroy(c->cache);
	/* The raw cache's geometry: its alignment and usercopy region. */
	c->typed = cmstat_cache_create_usercopy(c->heap, "cmstat_bench_typed",
						c->size, c->size & -c->size,
						0, 0, c->size, NULL);
	err = err ?: c->typed ? 0 : -ENOMEM;
	if (!err)
		err = time_pairs(c, "alloc_extra", "cmstat_cache", ps->fn,
				 PAIR_TYPED, iters);
	if (!err)
		err = time_pairs(c, "alloc_extra", "cmstat_cache_adopted",
				 ps->fn, PAIR_ADOPTED, iters);
	cmstat_cache_destroy(c->typed);
	if (!err)
		err = time_pairs(c, "alloc_extra", "cmstat_kmalloc_kfree",
				 ps->fn, PAIR_CMSTAT_UNSIZED, iters);
	return err;
}

/**
 * cmstat_bench_allocs() - time alloc + free pairs for each size
 * @iters: pairs per size and case (fewer above 4 KiB)
 *
 * Return: 0, a cmstat_heap_create() error, or -ENOMEM.
 */
int cmstat_bench_allocs(unsigned long iters)
{
	struct alloc_case c = { };
	unsigned int i;
	int err = 0;

	c.heap = cmstat_heap_create("cmstat_bench");
	if (IS_ERR(c.heap))
		return PTR_ERR(c.heap);
	for (i = 0; i < ARRAY_SIZE(alloc_sizes) && !err; i++)
		err = time_size(&c, &alloc_sizes[i], iters);
	for (i = 0; i < ARRAY_SIZE(extra_sizes) && !err &&
	     cmstat_accounting_enabled(); i++)
		err = time_extra(&c, &extra_sizes[i], iters);
	cmstat_heap_destroy(c.heap);
	if (!err && cmstat_accounting_enabled())
		err = cmstat_bench_sites("alloc_extra", iters, true);
	return err;
}

/**
 * cmstat_bench_alloc_budget() - alloc + free pairs, for the budget group
 * @iters: pairs per case
 *
 * At 8 and 256 B, with the size a constant and known only at run time;
 * then a bare kmem_cache, a typed cache of the same geometry, and the
 * typed cache as a module adopted with include/cmstat/adopt.h reaches it,
 * and kmalloc() + kfree() beside cmstat_kmalloc() + cmstat_kfree(); then
 * the sized pair of a module built with CMSTAT_SITES.
 *
 * Return: 0, a cmstat_heap_create() error, or -ENOMEM.
 */
int cmstat_bench_alloc_budget(unsigned long iters)
{
	static const struct {
		const char *name;
		size_t size;
		pairs_fn fn;
	} cases[] = {
		{ "alloc_free", 8, pairs_8 },
		{ "alloc_free", 256, pairs_256 },
		{ "alloc_free_runtime_size", 8, pairs_runtime },
		{ "alloc_free_runtime_size", 256, pairs_runtime },
	};
	static const struct pairs_size cache_sizes[] = {
		{ 8, pairs_8 }, { 256, pairs_256 },
	};
	struct alloc_case c = { };
	unsigned int i;
	int err = 0;

	c.heap = cmstat_heap_create("cmstat_bench");
	if (IS_ERR(c.heap))
		return PTR_ERR(c.heap);
	for (i = 0; i < ARRAY_SIZE(cases) && !err; i++) {
		c.size = cases[i].size;
		err = time_pairs(&c, "budget", cases[i].name, cases[i].fn,
				 PAIR_CMSTAT, iters);
	}
	for (i = 0; i < ARRAY_SIZE(cache_sizes) && !err; i++) {
		c.size = cache_sizes[i].size;
		err = make_cache(&c);
		if (!err)
			err = time_pairs(&c, "budget", "kmem_cache_alloc_free",
					 cache_sizes[i].fn, PAIR_CACHE, iters);
		kmem_cache_destroy(c.cache);
		c.typed = err ? NULL :
			  cmstat_cache_create_usercopy(c.heap, "cmstat_bench_typed",
						       c.size, c.size & -c.size,
						       0, 0, c.size, NULL);
		err = err ?: c.typed ? 0 : -ENOMEM;
		if (!err)
			err = time_pairs(&c, "budget", "typed_alloc_free",
					 cache_sizes[i].fn, PAIR_TYPED, iters);
		if (!err)
			err = time_pairs(&c, "budget", "adopted_alloc_free",
					 cache_sizes[i].fn, PAIR_ADOPTED, iters);
		cmstat_cache_destroy(c.typed);
		if (!err)
			err = time_pairs(&c, "budget", "kmalloc_kfree",
					 cache_sizes[i].fn, PAIR_KMALLOC, iters);
		if (!err)
			err = time_pairs(&c, "budget", "unsized_alloc_free",
					 cache_sizes[i].fn, PAIR_CMSTAT_UNSIZED,
					 iters);
	}
	cmstat_heap_destroy(c.heap);
	return err ?: cmstat_bench_sites("budget", iters, false);
}
