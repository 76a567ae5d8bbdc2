// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat's exported readers of heap statistics: a heap's own counters or a
 * cut of every heap (heap.c), derived into struct cmstat_heap_stats
 * (stats.c).  debugfs.c and sysfs.c are the other readers.
 */

#include <linux/slab.h>

#include "internal.h"

/**
 * cmstat_heap_read() - take a consistent snapshot of a heap's statistics
 * @heap: the heap
 * @st: filled with the snapshot
 *
 * @heap is the caller's handle: valid from cmstat_heap_create() until
 * cmstat_heap_destroy() returns, and not to be read after (an orphan's
 * handle is only for freeing its objects).  cmstat cannot tell a
 * destroyed heap from another, so it does not try.  Process context;
 * sleeps, killably (see cmstat_group_read(): every heap's counters
 * written since the last read are folded).
 *
 * Return: 0; -EINVAL if @heap is NULL or an error pointer; -ENOMEM,
 * -EINTR or -EDEADLK (see cmstat_group_read()), with @st untouched.
 */
int cmstat_heap_read(struct cmstat_heap *heap, struct cmstat_heap_stats *st)
{
	u64 *c, epoch;
	int err;

	if (IS_ERR_OR_NULL(heap))
		return -EINVAL;
	err = cmstat_read_refused(_RET_IP_);
	if (err)
		return err;
	c = kmalloc_array(CMSTAT_HC_NR, sizeof(u64), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	err = cmstat_heap_counters(heap, c, &epoch);
	if (!err) {
		struct cmstat_heap_priv *hp = cmstat_heap_priv(heap);

		cmstat_check_counters(hp->name, c, &hp->flags);
		cmstat_derive(c, epoch, st);
	}
	kfree(c);
	return err;
}
EXPORT_SYMBOL_GPL(cmstat_heap_read);

/**
 * cmstat_heaps_read() - snapshots of several heaps, and of all, at one cut
 * @heaps: the heaps
 * @n: how many
 * @st: @n snapshots, filled in the order of @heaps
 * @all: if not NULL, filled with all heaps together at the same cut
 *
 * Every allocation and free is in all of the snapshots or in none: what one
 * heap's snapshot counts, the others' and @all count as of the same
 * instant, and @all is the sum of every heap, live, destroyed while
 * holding objects, or destroyed.  Each of @heaps must be a valid handle,
 * as for cmstat_heap_read().  Process context; sleeps, killably.
 *
 * Return: 0; -EINVAL if one of @heaps is NULL, an error pointer, or, as
 * far as cmstat can tell, not a live heap; as cmstat_heap_read().
 */
int cmstat_heaps_read(struct cmstat_heap *const *heaps, unsigned int n,
		      struct cmstat_heap_stats *st,
		      struct cmstat_heap_stats *all)
{
	u64 *c, epoch;
	unsigned int i;
	int err;

	err = cmstat_read_refused(_RET_IP_);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		if (IS_ERR_OR_NULL(heaps[i]))
			return -EINVAL;
	/* The heaps' counters, one after the other, then all heaps'. */
	c = kvmalloc_array(n + 1, CMSTAT_HC_NR * sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	err = cmstat_heaps_counters(heaps, n, c, c + n * CMSTAT_HC_NR, &epoch);
	for (i = 0; i < n && !err; i++) {
		struct cmstat_heap_priv *hp = cmstat_heap_priv(heaps[i]);

		cmstat_check_counters(hp->name, c + i * CMSTAT_HC_NR, &hp->flags);
		cmstat_derive(c + i * CMSTAT_HC_NR, epoch, &st[i]);
	}
	if (all && !err)
		cmstat_derive(c + n * CMSTAT_HC_NR, epoch, all);
	kvfree(c);
	return err;
}
EXPORT_SYMBOL_GPL(cmstat_heaps_read);

/**
 * cmstat_heaps_read_all() - snapshot of all heaps together
 * @st: filled with the snapshot
 *
 * One instant across every heap: live ones, destroyed ones that still hold
 * objects, and the totals of those destroyed.  Process context; sleeps.
 *
 * Return: 0, or as cmstat_heap_read(), with @st untouched.
 */
int cmstat_heaps_read_all(struct cmstat_heap_stats *st)
{
	int err = cmstat_read_refused(_RET_IP_);

	if (err)
		return err;
	return cmstat_heaps_read(NULL, 0, NULL, st);
}
EXPORT_SYMBOL_GPL(cmstat_heaps_read_all);
