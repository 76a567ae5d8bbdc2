// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: the alloc + free pairs of a module built with
 * CMSTAT_SITES (include/cmstat/site.h), in a heap with site rows, set
 * beside alloc.c's in the same run: the sized pair and the unsized one.
 * This file is built with CMSTAT_SITES (bench/Kbuild); the loops are
 * alloc.c's, over a heap this file creates, so each is one call site.
 */

#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/ktime.h>

#include <cmstat/alloc.h>
#include <cmstat/kmalloc.h>

#include "bench.h"

/* @iters pairs of @size, sized or not.  Return: 0, or -ENOMEM. */
static __always_inline int sited_pairs(struct cmstat_heap *heap,
				       unsigned long iters, size_t size,
				       bool unsized)
{
	unsigned long i;
	void *p;

	for (i = 0; i < iters; i++) {
		p = unsized ? cmstat_kmalloc(heap, size, GFP_KERNEL) :
			      cmstat_alloc(heap, size, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		/* Keep the compiler from pairing the two away. */
		OPTIMIZER_HIDE_VAR(p);
		if (unsized)
			cmstat_kfree(heap, p);
		else
			cmstat_free(heap, p, size);
	}
	return 0;
}

/* The loop of each kind, compiled with its kind and @size constants. */
static __always_inline int sited_by_kind(struct cmstat_heap *heap,
					 unsigned long iters, size_t size,
					 bool unsized)
{
	return unsized ? sited_pairs(heap, iters, size, true) :
			 sited_pairs(heap, iters, size, false);
}

#define SITED_SIZE(s)							\
static noinline int sited_##s(struct cmstat_heap *heap,			\
			      unsigned long iters, bool unsized)	\
{									\
	return sited_by_kind(heap, iters, s, unsized);			\
}

SITED_SIZE(8)
SITED_SIZE(256)

/**
 * cmstat_bench_sites() - time the pairs of a module built with sites
 * @group: the group to report them in
 * @iters: pairs per case
 * @unsized: whether to time the unsized pair too
 *
 * At 8 and 256 B, as "sites_alloc_free" and "sites_kmalloc_kfree".
 *
 * Return: 0, a cmstat_heap_create() error, or -ENOMEM.
 */
int cmstat_bench_sites(const char *group, unsigned long iters, bool unsized)
{
	static const struct {
		size_t size;
		int (*fn)(struct cmstat_heap *heap, unsigned long iters,
			  bool unsized);
	} sizes[] = { { 8, sited_8 }, { 256, sited_256 } };
	struct cmstat_heap *heap = cmstat_heap_create("cmstat_bench_sites");
	unsigned int i, kind;
	char size[12];
	int err = 0;
	u64 start;

	if (IS_ERR(heap))
		return PTR_ERR(heap);
	for (i = 0; i < ARRAY_SIZE(sizes) && !err; i++) {
		for (kind = 0; kind < 1 + unsized && !err; kind++) {
			start = ktime_get_ns();
			err = sizes[i].fn(heap, iters, kind);
			snprintf(size, sizeof(size), "%zu", sizes[i].size);
			if (!err)
				cmstat_bench_report(group, kind ?
						    "sites_kmalloc_kfree" :
						    "sites_alloc_free", size,
						    ktime_get_ns() - start,
						    iters);
		}
	}
	cmstat_heap_destroy(heap);
	return err;
}
