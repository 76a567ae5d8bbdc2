// SPDX-License-Identifier: GPL-2.0
/*
 * Frees handed on from where PREEMPT_RT's allocators cannot take them.
 *
 * PREEMPT_RT's slab and page allocators take sleeping locks: they may be
 * called only where the caller could be preempted, never from a hard
 * interrupt handler or a hard hrtimer, nor under a raw spinlock or
 * preempt_disable() (__cmstat_atomic_rt() in include/cmstat/alloc.h).
 * cmstat's frees are promised in any context, as every other kernel
 * allows them.  There the free is counted at once, by its caller, and
 * its memory handed to a work item, which frees it in process context:
 * schedule_work() takes only raw spinlocks, so any context may call it.
 * The list link is the object's first word: every slab object and page
 * block holds a pointer.  Allocations cannot be handed on: cmstat refuses
 * them there (alloc.c).
 */
#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/workqueue.h>

#include "internal.h"

static LLIST_HEAD(cmstat_later_slab);	/* kvfree() each */
static LLIST_HEAD(cmstat_later_large);	/* recorded: forgotten, then freed */
static atomic_long_t cmstat_later_count;

static void cmstat_later_run(struct work_struct *work)
{
	struct llist_node *node, *next;

	llist_for_each_safe(node, next, llist_del_all(&cmstat_later_slab))
		kvfree(node);
	llist_for_each_safe(node, next, llist_del_all(&cmstat_later_large)) {
		cmstat_large_forget(node);
		kvfree(node);
	}
}

static DECLARE_WORK(cmstat_later_work, cmstat_later_run);

/*
 * A list that was empty has no run of the work to come that will empty
 * it (each run takes the lists whole first): queue one.
 */
static void cmstat_later(struct llist_head *list, const void *obj)
{
	atomic_long_inc(&cmstat_later_count);
	if (llist_add((struct llist_node *)obj, list))
		schedule_work(&cmstat_later_work);
}

/**
 * __cmstat_free_later() - free a slab object (or vmalloc() memory) later
 * @obj: the object, already counted as freed
 *
 * For __cmstat_kfree(), where __cmstat_atomic_rt() says the allocator
 * cannot take it now.  Not for direct use.
 */
void __cmstat_free_later(const void *obj)
{
	cmstat_later(&cmstat_later_slab, obj);
}
EXPORT_SYMBOL_GPL(__cmstat_free_later);

/**
 * cmstat_large_release() - forget and free a large allocation
 * @obj: memory recorded by cmstat_large_record(), already counted as freed
 *
 * At once, or, where __cmstat_atomic_rt() says the allocator (and the
 * record's lock) cannot be taken now, from the work item.
 */
void cmstat_large_release(const void *obj)
{
	if (__cmstat_atomic_rt()) {
		cmstat_later(&cmstat_later_large, obj);
		return;
	}
	cmstat_large_forget(obj);
	kvfree(obj);
}

/**
 * cmstat_frees_handed_on() - frees whose memory went back later
 * Return: how many frees since load came where PREEMPT_RT's allocators
 * could not take them; always 0 on other kernels.
 */
unsigned long cmstat_frees_handed_on(void)
{
	return atomic_long_read(&cmstat_later_count);
}
EXPORT_SYMBOL_GPL(cmstat_frees_handed_on);

/*
 * Wait until every free handed on so far is done: before a cache that
 * may hold such an object is destroyed, and at unload.  May sleep.
 */
void cmstat_free_later_flush(void)
{
	flush_work(&cmstat_later_work);
}
