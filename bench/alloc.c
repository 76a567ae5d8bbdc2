// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: one allocation and its free, back to back, per size: through
 * cmstat (whose accounting is on or off as cmstat was loaded), through a
 * kmem_cache of exactly that size made the way cmstat makes its class
 * caches, and through kmalloc().
 */

#include <linux/compiler.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include <cmstat/alloc.h>
#include <cmstat/counters.h>

#include "bench.h"

static const unsigned int alloc_sizes[] = {
	8, 64, 256, 1024, 4096, 16384, 65536,
};

struct alloc_case {
	struct cmstat_heap *heap;
	struct kmem_cache *cache;
	size_t size;
};

static void *alloc_cmstat(struct alloc_case *c)
{
	return cmstat_alloc(c->heap, c->size, GFP_KERNEL);
}

static void free_cmstat(struct alloc_case *c, void *p)
{
	cmstat_free(c->heap, p, c->size);
}

static void *alloc_cache(struct alloc_case *c)
{
	return kmem_cache_alloc(c->cache, GFP_KERNEL);
}

static void free_cache(struct alloc_case *c, void *p)
{
	kmem_cache_free(c->cache, p);
}

static void *alloc_kmalloc(struct alloc_case *c)
{
	return kmalloc(c->size, GFP_KERNEL);
}

static void free_kmalloc(struct alloc_case *c, void *p)
{
	kfree(p);
}

/* Return: 0, or -ENOMEM if any allocation failed (nothing is reported). */
static int time_pairs(struct alloc_case *c, const char *name,
		      void *(*alloc)(struct alloc_case *),
		      void (*free)(struct alloc_case *, void *),
		      unsigned long iters)
{
	u64 start = ktime_get_ns();
	char size[12];
	unsigned long i;
	void *p;

	for (i = 0; i < iters; i++) {
		p = alloc(c);
		if (!p)
			return -ENOMEM;
		/* Keep the compiler from pairing the two calls away. */
		OPTIMIZER_HIDE_VAR(p);
		free(c, p);
	}
	snprintf(size, sizeof(size), "%zu", c->size);
	cmstat_bench_report("alloc", name, size, ktime_get_ns() - start, iters);
	return 0;
}

/*
 * With accounting off only cmstat is timed: the other cases do not depend
 * on it, and are timed once per run, in the load with accounting on.
 */
static int time_size(struct alloc_case *c, unsigned long iters)
{
	/* As cmstat's class caches: aligned like kmalloc would align it. */
	unsigned int align = min_t(u32, c->size & -c->size, PAGE_SIZE);
	int err;

	if (!cmstat_accounting_enabled())
		return time_pairs(c, "cmstat_off", alloc_cmstat, free_cmstat,
				  iters);
	c->cache = kmem_cache_create("cmstat_bench", c->size, align, 0, NULL);
	if (!c->cache)
		return -ENOMEM;
	err = time_pairs(c, "cmstat_on", alloc_cmstat, free_cmstat, iters);
	if (!err)
		err = time_pairs(c, "kmem_cache", alloc_cache, free_cache, iters);
	if (!err)
		err = time_pairs(c, "kmalloc", alloc_kmalloc, free_kmalloc, iters);
	kmem_cache_destroy(c->cache);
	return err;
}

/**
 * cmstat_bench_allocs() - time alloc + free pairs for each size
 * @iters: pairs per size and case
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
	for (i = 0; i < ARRAY_SIZE(alloc_sizes) && !err; i++) {
		c.size = alloc_sizes[i];
		err = time_size(&c, iters);
	}
	cmstat_heap_destroy(c.heap);
	return err;
}
