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
 * Allocations cannot be handed on: cmstat refuses them there (alloc.c).
 *
 * Each free handed on is one llist_add() of a link kept in memory that
 * the free itself gives up, so that it can neither fail nor wait, however
 * many frees come before the work item runs: no node is allocated (the
 * allocators are what cannot be called here, and kmalloc_nolock() is 6.18
 * on), and a bounded per-CPU store would need a way out when full that
 * has the same problem.  Where the link goes is chosen so that nothing a
 * client, or a lockless reader, can see is written:
 *
 * - a size class's object, cmstat's large allocation, vmalloc() memory,
 *   or memory cmstat did not allocate: its first word.  None has a
 *   constructed state or readers after the free: the class caches have
 *   no constructor and no SLAB_TYPESAFE_BY_RCU, and kfree()d memory is
 *   dead (an object of another owner's constructor or RCU-typesafe cache
 *   goes back through its own kmem_cache_free(), not cmstat_kfree());
 * - a typed cache's object: its first word too, unless the cache has a
 *   constructor or SLAB_TYPESAFE_BY_RCU (the slab allocator never writes
 *   into those objects: the constructed state must survive the free, and
 *   a lockless reader may still look at it) or objects under a word.
 *   Those caches get one more word per object on PREEMPT_RT, past the
 *   client's object and its site tag (cmstat_later_cache_size()), as the
 *   slab allocator gives them a free pointer of their own: the link goes
 *   there;
 * - a large allocation given to cmstat_kfree_rcu(): RCU readers may still
 *   read all of it, so the link goes in its rcu_head, which the caller
 *   gave up with it, as to kfree_rcu().  The work item forgets the record
 *   first, then waits a grace period, then frees: the address cannot be
 *   allocated and recorded again before it is forgotten.
 */
#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "internal.h"

static LLIST_HEAD(cmstat_later_slab);	/* linked at the start: kvfree() */
static LLIST_HEAD(cmstat_later_past);	/* linked past a typed object */
static LLIST_HEAD(cmstat_later_large);	/* recorded: forgotten, then freed */
static LLIST_HEAD(cmstat_later_rcu);	/* the same, a grace period between */
static atomic_long_t cmstat_later_count;

/*
 * The rcu_head of memory given to cmstat_kfree_rcu(): the link and the
 * memory it is in, at any offset.
 */
struct cmstat_later_rcu {
	struct llist_node node;
	const void *obj;
};

static_assert(sizeof(struct cmstat_later_rcu) <= sizeof(struct rcu_head));

/* The start of the typed cache object whose last word is @link. */
static void *cmstat_later_past_obj(struct llist_node *link)
{
	unsigned int size = kmem_cache_size(cmstat_slab_cache_of(link));

	return (char *)(link + 1) - size;
}

static void cmstat_later_run(struct work_struct *work)
{
	struct cmstat_later_rcu *later, *tmp;
	struct llist_node *node, *next;

	llist_for_each_safe(node, next, llist_del_all(&cmstat_later_slab))
		kvfree(node);
	llist_for_each_safe(node, next, llist_del_all(&cmstat_later_past))
		kfree(cmstat_later_past_obj(node));
	llist_for_each_safe(node, next, llist_del_all(&cmstat_later_large)) {
		cmstat_large_forget(node);
		kvfree(node);
	}
	node = llist_del_all(&cmstat_later_rcu);
	if (!node)
		return;
	llist_for_each_entry(later, node, node)	/* a no-op if not large */
		cmstat_large_forget(later->obj);
	synchronize_rcu();	/* for readers from before cmstat_kfree_rcu() */
	llist_for_each_entry_safe(later, tmp, node, node)
		kvfree(later->obj);
}

static DECLARE_WORK(cmstat_later_work, cmstat_later_run);

/*
 * A list that was empty has no run of the work to come that will empty
 * it (each run takes the lists whole first): queue one.  llist_add()'s
 * cmpxchg orders the link (and a cmstat_later_rcu's obj) before the node
 * is seen: it pairs with llist_del_all()'s xchg in cmstat_later_run().
 */
static void cmstat_later(struct llist_head *list, struct llist_node *link)
{
	atomic_long_inc(&cmstat_later_count);
	if (llist_add(link, list))
		schedule_work(&cmstat_later_work);
}

/**
 * cmstat_later_cache_size() - the size to make a typed cache's objects
 * @size: the client's object size, with a sited heap's tag
 * @ctor: whether the cache has a constructor
 * @flags: its SLAB_* flags
 *
 * On PREEMPT_RT, room past the client's object for a free's link where
 * the object itself may not take it (see the top of this file).
 *
 * Return: @size, or more on PREEMPT_RT.
 */
unsigned int cmstat_later_cache_size(unsigned int size, bool ctor,
				     slab_flags_t flags)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT) || size > KMALLOC_MAX_SIZE)
		return size;	/* the slab allocator refuses the latter */
	if (ctor || (flags & SLAB_TYPESAFE_BY_RCU))
		return ALIGN(size, sizeof(struct llist_node)) +
		       sizeof(struct llist_node);
	return max_t(unsigned int, size, sizeof(struct llist_node));
}

/**
 * __cmstat_free_later() - free a slab object (or vmalloc() memory) later
 * @obj: the object, already counted as freed; NULL and ZERO_SIZE_PTR are
 *	no-ops, as for kfree()
 *
 * For __cmstat_kfree(), where __cmstat_atomic_rt() says the allocator
 * cannot take it now.  Not for direct use.
 */
void __cmstat_free_later(const void *obj)
{
	struct cmstat_owner owner;
	unsigned int size;

	if (unlikely(ZERO_OR_NULL_PTR(obj)))
		return;
	cmstat_owner_of(obj, &owner);
	if (owner.kind == CMSTAT_OWNER_CACHE) {
		/* Made larger than the client's object (and tag) for the link. */
		size = kmem_cache_size(owner.cc->slab);
		if (size != cmstat_cache_priv(owner.cc)->obj_size) {
			cmstat_later(&cmstat_later_past,
				     (void *)((char *)obj + size -
					      sizeof(struct llist_node)));
			return;
		}
	}
	cmstat_later(&cmstat_later_slab, (struct llist_node *)obj);
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
		cmstat_later(&cmstat_later_large, (struct llist_node *)obj);
		return;
	}
	cmstat_large_forget(obj);
	kvfree(obj);
}

/**
 * cmstat_free_rcu() - free after a grace period, as kfree_rcu()
 * @obj: the memory, counted as freed
 * @head_offset: where its rcu_head is in it: given up with it
 * @large: whether cmstat recorded @obj as a large allocation
 *
 * By the kernel's kfree_rcu(), once a large allocation is forgotten.
 * Where __cmstat_atomic_rt() says the record's lock cannot be taken now,
 * the work item forgets it and, a grace period later, frees it: so that
 * no new allocation at its address is recorded before it is forgotten.
 * There too if this kernel's kfree_rcu() cannot take @head_offset.
 */
void cmstat_free_rcu(const void *obj, size_t head_offset, bool large)
{
	struct cmstat_later_rcu *later;

	if (!large || !__cmstat_atomic_rt()) {
		if (large)
			cmstat_large_forget(obj);
		if (cmstat_kvfree_call_rcu(obj, head_offset))
			return;
	}
	later = (struct cmstat_later_rcu *)((char *)obj + head_offset);
	later->obj = obj;
	cmstat_later(&cmstat_later_rcu, &later->node);
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
