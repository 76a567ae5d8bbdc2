// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat debug_free mode: track every live object so that a free with the
 * wrong size, into the wrong heap, or of memory cmstat did not allocate is
 * reported instead of corrupting a cache and the statistics.
 *
 * Off by default; switched on at load time (debug_free=1), when the static
 * key makes the hooks live.  A hash table under one spinlock: slow, and
 * meant for finding client bugs, not for production.  A raw one: frees
 * come from any context, on PREEMPT_RT too, and nothing under it sleeps,
 * allocates or prints.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "internal.h"

struct cmstat_debug_obj {
	struct hlist_node node;
	const void *obj;
	struct cmstat_heap *heap;
	size_t size;
};

static DEFINE_HASHTABLE(cmstat_debug_objs, 12);
static DEFINE_RAW_SPINLOCK(cmstat_debug_lock);	/* protects the table */
static unsigned long cmstat_invalid_frees;	/* under cmstat_debug_lock */

/* Read by the inline fast path of include/cmstat/alloc.h too. */
DEFINE_STATIC_KEY_FALSE(cmstat_debug_free_key);
EXPORT_SYMBOL_GPL(cmstat_debug_free_key);

/**
 * cmstat_debug_invalid_frees() - frees the debug_free mode refused
 *
 * Return: how many frees debug_free=1 reported and refused since load;
 * always 0 without it.
 */
unsigned long cmstat_debug_invalid_frees(void)
{
	unsigned long flags, n;

	raw_spin_lock_irqsave(&cmstat_debug_lock, flags);
	n = cmstat_invalid_frees;
	raw_spin_unlock_irqrestore(&cmstat_debug_lock, flags);
	return n;
}
EXPORT_SYMBOL_GPL(cmstat_debug_invalid_frees);

/**
 * cmstat_debug_free_enabled() - whether cmstat was loaded with debug_free=1
 *
 * Return: true if frees are checked against the live objects.
 */
bool cmstat_debug_free_enabled(void)
{
	return static_branch_unlikely(&cmstat_debug_free_key);
}
EXPORT_SYMBOL_GPL(cmstat_debug_free_enabled);

int __cmstat_debug_track(struct cmstat_heap *heap, const void *obj,
			 size_t size, gfp_t gfp)
{
	struct cmstat_debug_obj *rec;
	unsigned long flags;

	/* Same context as the allocation; the record needs no zeroing. */
	rec = kmalloc(sizeof(*rec), gfp & ~__GFP_ZERO);
	if (!rec)
		return -ENOMEM;
	rec->obj = obj;
	rec->heap = heap;
	rec->size = size;
	raw_spin_lock_irqsave(&cmstat_debug_lock, flags);
	hash_add(cmstat_debug_objs, &rec->node, (unsigned long)obj);
	raw_spin_unlock_irqrestore(&cmstat_debug_lock, flags);
	return 0;
}

static struct cmstat_debug_obj *cmstat_debug_find(const void *obj)
{
	struct cmstat_debug_obj *rec;

	hash_for_each_possible(cmstat_debug_objs, rec, node, (unsigned long)obj)
		if (rec->obj == obj)
			return rec;
	return NULL;
}

/* What a refused free's report says of the object's allocation. */
struct cmstat_debug_was {
	char heap[CMSTAT_HEAP_NAME_MAX + 1];	/* "" if not allocated */
	size_t size;
};

/*
 * Report one refused free; never prints the address.  @was is copied from
 * the object's record under the lock: as soon as it is dropped, a rightful
 * free may free the record, and then its heap (an orphan's last object).
 */
static void cmstat_debug_report(const char *what, struct cmstat_heap *heap,
				size_t size, const struct cmstat_debug_was *was)
{
	if (was->heap[0])
		pr_err_ratelimited("debug_free: %s: freed into heap %s with size %zu, allocated from heap %s with size %zu; not freed\n",
				   what, cmstat_heap_name(heap), size,
				   was->heap, was->size);
	else
		pr_err_ratelimited("debug_free: %s: freed into heap %s with size %zu; not freed\n",
				   what, cmstat_heap_name(heap), size);
}

/*
 * Check a free (or a resize in place, to @new_size) of @obj against its
 * record: drop the record for a free, or give it the new size.
 */
static bool cmstat_debug_check(struct cmstat_heap *heap, const void *obj,
			       size_t size, size_t new_size)
{
	struct cmstat_debug_was was = { };
	struct cmstat_debug_obj *rec;
	const char *bad = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&cmstat_debug_lock, flags);
	rec = cmstat_debug_find(obj);
	if (!rec)
		bad = "object not allocated by cmstat (or freed twice)";
	else if (rec->heap != heap)
		bad = "wrong heap";
	else if (size && rec->size != size)	/* 0: an unsized free */
		bad = "wrong size";
	if (bad) {
		cmstat_invalid_frees++;
		if (rec) {
			strscpy(was.heap, cmstat_heap_name(rec->heap),
				sizeof(was.heap));
			was.size = rec->size;
		}
	} else if (new_size) {
		rec->size = new_size;
		rec = NULL;
	} else {
		hash_del(&rec->node);
	}
	raw_spin_unlock_irqrestore(&cmstat_debug_lock, flags);

	if (bad) {
		cmstat_debug_report(bad, heap, size, &was);
		return false;
	}
	__cmstat_kfree(rec);
	return true;
}

bool __cmstat_debug_untrack(struct cmstat_heap *heap, const void *obj,
			    size_t size)
{
	return cmstat_debug_check(heap, obj, size, 0);
}

bool __cmstat_debug_resize(struct cmstat_heap *heap, const void *obj,
			   size_t old_size, size_t new_size)
{
	return cmstat_debug_check(heap, obj, old_size, new_size);
}

void __init cmstat_debug_init(bool enable)
{
	if (enable)
		static_branch_enable(&cmstat_debug_free_key);
}

/*
 * At unload: drop the records of objects nobody freed, and say so.  On a
 * failed load there are none.
 */
void cmstat_debug_exit(void)
{
	struct cmstat_debug_obj *rec;
	struct hlist_node *tmp;
	unsigned long left = 0;
	unsigned int bkt;

	hash_for_each_safe(cmstat_debug_objs, bkt, tmp, rec, node) {
		hash_del(&rec->node);
		kfree(rec);
		left++;
	}
	if (left)
		pr_warn("debug_free: %lu objects were never freed\n", left);
}
