// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: the alloc + free pairs of a module built with
 * CMSTAT_SITES (include/cmstat/site.h), in a heap with site rows, set
 * beside alloc.c's in the same run: the sized pair and the unsized one.
 * This file is built with CMSTAT_SITES (bench/Kbuild); the loops are
 * alloc.c's, over a heap this file creates, so each is one call site; and
 * a typed cache's pair, beside alloc.c's typed_alloc_free.
 * Then the reader's side: a cut of such a heap with one site and with
 * thousands, of which one was written since the last cut.
 */

#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/kmalloc.h>

#include "bench.h"

/*
 * @iters pairs of a typed cache of @heap: its objects carry the tag past
 * the client's.  Return: 0, or -ENOMEM.
 */
static noinline int sited_typed_pairs(struct cmstat_cache *cc,
				      unsigned long iters)
{
	unsigned long i;
	void *p;

	for (i = 0; i < iters; i++) {
		p = cmstat_cache_alloc(cc, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		OPTIMIZER_HIDE_VAR(p);
		cmstat_cache_free(cc, p);
	}
	return 0;
}

/*
 * As "sites_typed_alloc_free": a typed cache of @size in @heap, whose
 * usercopy region is alloc.c's typed cache's, aligned as the slab
 * allocator aligns it: alloc.c's, aligned at its size, would have no room
 * for the tag but a whole alignment more, and count unattributed (see
 * CMSTAT_CACHE_TAG_COST_MAX).  Return: as sited_typed_pairs().
 */
static int sited_typed(struct cmstat_heap *heap, const char *group,
		       size_t size, unsigned long iters)
{
	struct cmstat_cache *cc;
	char name[12];
	u64 start;
	int err;

	cc = cmstat_cache_create_usercopy(heap, "cmstat_bench_sites_typed",
					  size, 0, 0, 0, size, NULL);
	if (!cc)
		return -ENOMEM;
	start = ktime_get_ns();
	err = sited_typed_pairs(cc, iters);
	snprintf(name, sizeof(name), "%zu", size);
	if (!err)
		cmstat_bench_report(group, "sites_typed_alloc_free", name,
				    ktime_get_ns() - start, iters);
	cmstat_cache_destroy(cc);
	return err;
}

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
 * At 8 and 256 B, as "sites_alloc_free" and "sites_kmalloc_kfree", and
 * a typed cache's pair as "sites_typed_alloc_free".
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
		if (!err)
			err = sited_typed(heap, group, sizes[i].size, iters);
	}
	cmstat_heap_destroy(heap);
	return err;
}

/* Sites bound in the heaps of the cuts: one, and thousands. */
static const unsigned int site_cut_sites[] = { 1, 4000 };

/* Small and constant, as reader.c's writes between two cuts. */
#define SITE_CUT_SIZE	64

/* One pair at @site, as its call would make it. */
static void site_cut_write(struct cmstat_heap *heap, struct cmstat_site *site)
{
	void *obj = __cmstat_site_hooks(__cmstat_alloc_inline(heap,
							       SITE_CUT_SIZE,
							       GFP_KERNEL,
							       false, site));

	cmstat_free(heap, obj, SITE_CUT_SIZE);
}

/*
 * Bind @n sites of @heap, each by a pair.  The counter sets past the first
 * come from a work item: a site that finds no column yet waits for it, up
 * to 60,000 tries of a millisecond or more, which only a hang exhausts.
 * Return: 0, or -EBUSY.
 */
static int site_cut_bind(struct cmstat_heap *heap, struct cmstat_site *sites,
			 unsigned int n)
{
	unsigned int i, tries;

	for (i = 0; i < n; i++) {
		sites[i] = (struct cmstat_site){
			.function = __func__, .file = __FILE__, .line = i + 1,
		};
		for (tries = 0; ; tries++) {
			site_cut_write(heap, &sites[i]);
			/*
			 * Written with smp_store_release() by
			 * __cmstat_site_bind(), which our own pair ran on
			 * this CPU: no ordering needed, only a whole load.
			 */
			if (READ_ONCE(sites[i].binding) >> CMSTAT_SITE_COL_BITS ==
			    heap->site_key)
				break;
			if (tries == 60000)
				return -EBUSY;
			usleep_range(1000, 2000);
		}
	}
	return 0;
}

/*
 * @iters cuts of @heap, each after one pair at its first site, untimed:
 * cmstat_heap_read() (totals only), or cmstat_heap_sites_read() into
 * @rows, which has room for every row.
 */
static void site_cut_time(struct cmstat_heap *heap, struct cmstat_site *site,
			  struct cmstat_site_stats *rows, unsigned int nr_rows,
			  struct cmstat_heap_stats *st, const char *name,
			  unsigned long iters)
{
	u64 total = 0, start;
	unsigned long i;
	char cpus[12];

	for (i = 0; i < iters; i++) {
		site_cut_write(heap, site);
		start = ktime_get_ns();
		/* No signal for a kthread, no module refused: it cannot fail. */
		WARN_ON_ONCE(rows ? cmstat_heap_sites_read(heap, rows, nr_rows,
							   st) < 0 :
			     cmstat_heap_read(heap, st));
		total += ktime_get_ns() - start;
	}
	snprintf(cpus, sizeof(cpus), "%u", num_online_cpus());
	cmstat_bench_report("reader", name, cpus, total, iters);
}

/**
 * cmstat_bench_site_cuts() - time cuts of a heap with site rows
 * @iters: cuts per case
 *
 * As "sites_N_heap_read" (cmstat_heap_read()) and "sites_N_rows_read"
 * (cmstat_heap_sites_read()), N the sites bound, each cut after one pair
 * at one site: the first follows the activity, the second copies every
 * row.
 *
 * Return: 0, a cmstat_heap_create() error, -ENOMEM or -EBUSY.
 */
int cmstat_bench_site_cuts(unsigned long iters)
{
	unsigned int n = site_cut_sites[ARRAY_SIZE(site_cut_sites) - 1];
	struct cmstat_site *sites = kcalloc(n, sizeof(*sites), GFP_KERNEL);
	struct cmstat_site_stats *rows = kvcalloc(n + 1, sizeof(*rows),
						  GFP_KERNEL);
	struct cmstat_heap_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);
	struct cmstat_heap *heap;
	unsigned int i;
	char name[32];
	int err = -ENOMEM;

	for (i = 0; sites && rows && st && i < ARRAY_SIZE(site_cut_sites); i++) {
		n = site_cut_sites[i];
		heap = cmstat_heap_create("cmstat_bench_site_cuts");
		err = PTR_ERR_OR_ZERO(heap);
		if (err)
			break;
		err = site_cut_bind(heap, sites, n);
		if (!err) {
			/* The binding's writes folded: the first cut finds none. */
			WARN_ON_ONCE(cmstat_heap_read(heap, st));
			snprintf(name, sizeof(name), "sites_%u_heap_read", n);
			site_cut_time(heap, sites, NULL, 0, st, name, iters);
			snprintf(name, sizeof(name), "sites_%u_rows_read", n);
			site_cut_time(heap, sites, rows, n + 1, st, name, iters);
		}
		cmstat_heap_destroy(heap);
	}
	kfree(st);
	kvfree(rows);
	kfree(sites);
	return err;
}
