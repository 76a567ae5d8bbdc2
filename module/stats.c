// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat heap statistics: what a heap's cumulative counters (CMSTAT_HC_*)
 * mean, derived into struct cmstat_heap_stats, and the checks of their
 * identities.  Arithmetic on counters only: this file knows no heap and
 * calls nothing in heap.c, which owns the heaps and their cuts and calls
 * it; read.c, debugfs.c and sysfs.c present what the two give.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "internal.h"

#define CMSTAT_FIELD(field) { #field, offsetof(struct cmstat_heap_stats, field) }

const struct cmstat_stats_field cmstat_stats_fields[] = {
	CMSTAT_FIELD(live_bytes),
	CMSTAT_FIELD(live_requested_bytes),
	CMSTAT_FIELD(live_objects),
	CMSTAT_FIELD(alloc_bytes),
	CMSTAT_FIELD(free_bytes),
	CMSTAT_FIELD(requested_alloc_bytes),
	CMSTAT_FIELD(requested_free_bytes),
	CMSTAT_FIELD(mallocs),
	CMSTAT_FIELD(frees),
	CMSTAT_FIELD(large_mallocs),
	CMSTAT_FIELD(large_frees),
	CMSTAT_FIELD(large_live_objects),
	CMSTAT_FIELD(large_alloc_bytes),
	CMSTAT_FIELD(large_free_bytes),
	CMSTAT_FIELD(large_live_bytes),
	CMSTAT_FIELD(failed_allocs),
	CMSTAT_FIELD(cache_mallocs),
	CMSTAT_FIELD(cache_frees),
	CMSTAT_FIELD(cache_live_objects),
	CMSTAT_FIELD(cache_alloc_bytes),
	CMSTAT_FIELD(cache_free_bytes),
	CMSTAT_FIELD(cache_live_bytes),
};

/* A heap's typed caches together: every column, and the retired ones. */
static u64 cmstat_cache_count(const u64 *c, unsigned int first,
			      unsigned int retired)
{
	u64 n = c[retired];
	unsigned int col;

	for (col = 0; col < CMSTAT_HEAP_CACHES; col++)
		n += c[first + col];
	return n;
}

static void cmstat_derive_caches(const u64 *c, struct cmstat_heap_stats *st)
{
	st->cache_mallocs = cmstat_cache_count(c, CMSTAT_HC_CACHE_MALLOCS,
					       CMSTAT_HC_RETIRED_CACHE_MALLOCS);
	st->cache_frees = cmstat_cache_count(c, CMSTAT_HC_CACHE_FREES,
					     CMSTAT_HC_RETIRED_CACHE_FREES);
	st->cache_live_objects = st->cache_mallocs - st->cache_frees;
	st->cache_alloc_bytes = c[CMSTAT_HC_CACHE_ALLOC_BYTES];
	st->cache_free_bytes = c[CMSTAT_HC_CACHE_FREE_BYTES];
	st->cache_live_bytes = st->cache_alloc_bytes - st->cache_free_bytes;
}

/* One typed cache, @column of the counters @c, of object @size. */
void cmstat_derive_cache(const u64 *c, unsigned int column, unsigned int size,
			 u64 epoch, struct cmstat_cache_stats *st)
{
	st->epoch = epoch;
	st->size_bytes = size;
	st->mallocs = c[CMSTAT_HC_CACHE_MALLOCS + column];
	st->frees = c[CMSTAT_HC_CACHE_FREES + column];
	st->live_objects = st->mallocs - st->frees;
	st->live_bytes = st->live_objects * size;
}

/* Fill @st from the cumulative counters @c; derive everything else. */
void cmstat_derive(const u64 *c, u64 epoch, struct cmstat_heap_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	st->epoch = epoch;
	st->requested_alloc_bytes = c[CMSTAT_HC_REQUESTED_ALLOC_BYTES];
	st->requested_free_bytes = c[CMSTAT_HC_REQUESTED_FREE_BYTES];
	st->live_requested_bytes = st->requested_alloc_bytes -
				   st->requested_free_bytes;
	st->large_mallocs = c[CMSTAT_HC_LARGE_MALLOCS];
	st->large_frees = c[CMSTAT_HC_LARGE_FREES];
	st->large_live_objects = st->large_mallocs - st->large_frees;
	st->large_alloc_bytes = c[CMSTAT_HC_LARGE_ALLOC_BYTES];
	st->large_free_bytes = c[CMSTAT_HC_LARGE_FREE_BYTES];
	st->large_live_bytes = st->large_alloc_bytes - st->large_free_bytes;
	st->failed_allocs = c[CMSTAT_HC_FAILED_ALLOCS];
	st->mallocs = st->large_mallocs;
	st->frees = st->large_frees;
	st->alloc_bytes = st->large_alloc_bytes;
	st->free_bytes = st->large_free_bytes;
	for (i = 0; i < CMSTAT_NR_CLASSES; i++) {
		struct cmstat_class_stats *cs = &st->classes[i];

		cs->size_bytes = cmstat_class_size(i);
		cs->mallocs = c[CMSTAT_HC_CLASS_MALLOCS + i];
		cs->frees = c[CMSTAT_HC_CLASS_FREES + i];
		cs->live_objects = cs->mallocs - cs->frees;
		st->mallocs += cs->mallocs;
		st->frees += cs->frees;
		st->alloc_bytes += cs->size_bytes * cs->mallocs;
		st->free_bytes += cs->size_bytes * cs->frees;
	}
	/* A typed cache's object is requested and held whole. */
	cmstat_derive_caches(c, st);
	st->mallocs += st->cache_mallocs;
	st->frees += st->cache_frees;
	st->alloc_bytes += st->cache_alloc_bytes;
	st->free_bytes += st->cache_free_bytes;
	st->requested_alloc_bytes += st->cache_alloc_bytes;
	st->requested_free_bytes += st->cache_free_bytes;
	st->live_requested_bytes = st->requested_alloc_bytes -
				   st->requested_free_bytes;
	st->live_objects = st->mallocs - st->frees;
	st->live_bytes = st->alloc_bytes - st->free_bytes;
}

/* Live objects by counters @c: negative if a client freed more than it had. */
s64 cmstat_counters_live_objects(const u64 *c)
{
	u64 live = c[CMSTAT_HC_LARGE_MALLOCS] - c[CMSTAT_HC_LARGE_FREES];
	unsigned int i;

	for (i = 0; i < CMSTAT_NR_CLASSES; i++)
		live += c[CMSTAT_HC_CLASS_MALLOCS + i] - c[CMSTAT_HC_CLASS_FREES + i];
	live += cmstat_cache_count(c, CMSTAT_HC_CACHE_MALLOCS,
				   CMSTAT_HC_RETIRED_CACHE_MALLOCS);
	live -= cmstat_cache_count(c, CMSTAT_HC_CACHE_FREES,
				   CMSTAT_HC_RETIRED_CACHE_FREES);
	return live;
}

/**
 * cmstat_heap_stats_valid() - check the invariants of a snapshot
 * @st: snapshot from cmstat_heap_read(), cmstat_heaps_read() or
 *	cmstat_heaps_read_all()
 *
 * Return: true if every derived value is non-negative and the byte and
 * object totals equal the sums over the classes and large allocations.
 */
bool cmstat_heap_stats_valid(const struct cmstat_heap_stats *st)
{
	u64 class_bytes = 0, class_objects = 0;
	unsigned int i;

	for (i = 0; i < CMSTAT_NR_CLASSES; i++) {
		const struct cmstat_class_stats *cs = &st->classes[i];

		if (cs->frees > cs->mallocs)
			return false;
		class_bytes += cs->size_bytes * cs->live_objects;
		class_objects += cs->live_objects;
	}
	return st->free_bytes <= st->alloc_bytes &&
	       st->requested_free_bytes <= st->requested_alloc_bytes &&
	       st->large_frees <= st->large_mallocs &&
	       st->large_free_bytes <= st->large_alloc_bytes &&
	       st->cache_frees <= st->cache_mallocs &&
	       st->cache_free_bytes <= st->cache_alloc_bytes &&
	       st->frees <= st->mallocs &&
	       st->live_requested_bytes <= st->live_bytes &&
	       st->live_bytes == class_bytes + st->large_live_bytes +
				 st->cache_live_bytes &&
	       st->live_objects == class_objects + st->large_live_objects +
				   st->cache_live_objects;
}
EXPORT_SYMBOL_GPL(cmstat_heap_stats_valid);

/* The same on counters: the identities hold by derivation, signs do not. */
static bool cmstat_counters_valid(const u64 *c)
{
	u64 live_bytes = c[CMSTAT_HC_LARGE_ALLOC_BYTES] - c[CMSTAT_HC_LARGE_FREE_BYTES];
	unsigned int i;

	for (i = 0; i < CMSTAT_NR_CLASSES; i++) {
		if (c[CMSTAT_HC_CLASS_FREES + i] > c[CMSTAT_HC_CLASS_MALLOCS + i])
			return false;
		live_bytes += cmstat_class_size(i) *
			      (c[CMSTAT_HC_CLASS_MALLOCS + i] - c[CMSTAT_HC_CLASS_FREES + i]);
	}
	for (i = 0; i < CMSTAT_HEAP_CACHES; i++)
		if (c[CMSTAT_HC_CACHE_FREES + i] > c[CMSTAT_HC_CACHE_MALLOCS + i])
			return false;
	if (c[CMSTAT_HC_CACHE_FREE_BYTES] > c[CMSTAT_HC_CACHE_ALLOC_BYTES] ||
	    c[CMSTAT_HC_RETIRED_CACHE_FREES] > c[CMSTAT_HC_RETIRED_CACHE_MALLOCS])
		return false;
	return c[CMSTAT_HC_REQUESTED_FREE_BYTES] <= c[CMSTAT_HC_REQUESTED_ALLOC_BYTES] &&
	       c[CMSTAT_HC_LARGE_FREES] <= c[CMSTAT_HC_LARGE_MALLOCS] &&
	       c[CMSTAT_HC_LARGE_FREE_BYTES] <= c[CMSTAT_HC_LARGE_ALLOC_BYTES] &&
	       c[CMSTAT_HC_REQUESTED_ALLOC_BYTES] - c[CMSTAT_HC_REQUESTED_FREE_BYTES] <=
	       live_bytes;
}

/*
 * A heap's counters that break the identities.  With debug_free=1 every
 * wrong free is refused before it reaches the statistics, so that is a
 * cmstat bug, and warns.  Without it, a client that freed with the wrong
 * size or heap, twice, or memory cmstat never gave it, breaks them too:
 * that is reported once per heap, naming it, not as a kernel warning.
 */
void cmstat_check_counters(const char *name, const u64 *c,
			   unsigned long *flags)
{
	if (cmstat_counters_valid(c))
		return;
	if (WARN_ON_ONCE(cmstat_debug_free_enabled()))
		return;
	if (!test_and_set_bit(CMSTAT_HEAP_MISUSE_REPORTED, flags))
		pr_warn("heap %s: statistics broken by a client: a free with the wrong size or heap, a double free, or a free of memory cmstat did not allocate (debug_free=1 finds it)\n",
			name);
}
