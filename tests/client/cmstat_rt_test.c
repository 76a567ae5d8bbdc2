// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_rt_test: frees where PREEMPT_RT's allocators cannot take them,
 * from a hard hrtimer (hard interrupt context there) and under a raw
 * spinlock, as a driver's hard interrupt handler or a path under a raw
 * lock frees, on every kernel (the stock ones have no KUnit):
 *
 *	rt_typed	objects of typed caches with a constructor (24 and
 *			4 bytes) and with SLAB_TYPESAFE_BY_RCU: the RCU ones
 *			hold their value after the free, the constructor's
 *			pattern is there when they come back
 *	rt_null		frees of NULL and resizes in place: nothing handed on
 *	rt_rcu		cmstat_kfree_rcu() of a large allocation, read under
 *			RCU after; then that size allocated and freed again,
 *			every one counted
 *
 * On PREEMPT_RT cmstat counts such a free at once and hands its memory on
 * to be freed later; elsewhere it hands nothing on.  Prints KTAP through
 * cmstat_ktap.h, whose parameter "failed" counts the cases that failed.
 * only=NAME runs one case (scripts/guest/checks/client-rt-*.sh, with
 * cmstat loaded as by default, with accounting=0 and with debug_free=1).
 */

#include "cmstat_ktap.h"

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/kmalloc.h>

static struct cmstat_heap *rt_heap;

/* Each case runs the same work twice: the timer's half, then the lock's. */
static DEFINE_RAW_SPINLOCK(rt_lock);
static void (*rt_work)(unsigned int half);
static bool rt_in_hardirq;

/* The timer's half: ktap_run_in_hardirq() runs it. */
static void rt_hardirq_half(void *unused)
{
	rt_work(0);
}

/*
 * Run rt_work's two halves: from the hard timer, then under the lock.
 * Return: the frees cmstat handed on meanwhile.
 */
static unsigned long rt_run(void (*work)(unsigned int half))
{
	unsigned long handed_on = cmstat_frees_handed_on();

	rt_work = work;
	rt_in_hardirq = ktap_run_in_hardirq(rt_hardirq_half, NULL);
	raw_spin_lock(&rt_lock);
	work(1);
	raw_spin_unlock(&rt_lock);
	return cmstat_frees_handed_on() - handed_on;
}

/*
 * Wait for every free cmstat handed on: a typed cache's destroy does
 * (Documentation/allocator.rst, PREEMPT_RT).
 */
static void rt_wait_handed_on(void)
{
	cmstat_cache_destroy(cmstat_cache_create(rt_heap, "rt_test_wait",
						 8, 0, 0, NULL));
}

/*
 * rt_typed: typed caches whose objects keep a state across their free:
 * a constructor's pattern in the first word (objects of 24 bytes, and of
 * 4), and a value in the first word of a SLAB_TYPESAFE_BY_RCU cache's,
 * which lockless readers may read after the free.  Of RT_TYPED objects of
 * each, every third stays allocated (so that their slabs stay, and the
 * freed ones can come back); the timer frees half of the others, the
 * lock the rest, and reads the RCU ones after.  Then, the frees done,
 * allocations from the constructor caches must all hold the pattern.
 */
#define RT_TYPED	96
#define RT_FREED	(RT_TYPED * 2 / 3)
#define RT_REALLOCS	1024
#define RT_MAGIC	0x5a17c0de0ddc0de5ULL
#define RT_MAGIC32	0x5a17c0deU
#define RT_GONE		0xdeadfa11deadfa11ULL
enum { RT_CTOR, RT_TINY, RT_RCU, RT_CACHES };
static struct cmstat_cache *rt_caches[RT_CACHES];
static void *rt_objs[RT_CACHES][RT_TYPED];
static unsigned int rt_rcu_changed;

static void rt_ctor(void *obj)
{
	*(u64 *)obj = RT_MAGIC;
}

static void rt_tiny_ctor(void *obj)
{
	*(u32 *)obj = RT_MAGIC32;
}

static bool rt_kept(unsigned int i)
{
	return i % 3 == 2;
}

static void rt_typed_free(unsigned int half)
{
	unsigned int c, i, from = half * RT_TYPED / 2;

	rcu_read_lock();	/* as a lockless reader would be */
	for (c = 0; c < RT_CACHES; c++)
		for (i = from; i < from + RT_TYPED / 2; i++)
			if (!rt_kept(i))
				cmstat_cache_free(rt_caches[c], rt_objs[c][i]);
	for (i = from; i < from + RT_TYPED / 2; i++)
		if (!rt_kept(i) &&
		    READ_ONCE(*(u64 *)rt_objs[RT_RCU][i]) != RT_GONE)
			rt_rcu_changed++;
	rcu_read_unlock();
}

static bool rt_has_pattern(unsigned int c, const void *obj)
{
	if (c == RT_TINY)
		return *(const u32 *)obj == RT_MAGIC32;
	return *(const u64 *)obj == RT_MAGIC;
}

/*
 * Allocate from cache @c until the freed objects are back: every object
 * must hold the constructor's pattern, and on PREEMPT_RT, whose frees
 * were handed on, some must have come back, or nothing was checked
 * (KASAN's quarantine keeps them on the debug kernel, not PREEMPT_RT).
 */
static void rt_typed_realloc(struct ktap_test *t, unsigned int c,
			     const char *what, void **objs)
{
	unsigned int i, j, n, back = 0, bad = 0;

	for (n = 0; n < RT_REALLOCS && back < RT_FREED; n++) {
		objs[n] = cmstat_cache_alloc(rt_caches[c], GFP_KERNEL);
		if (!objs[n])
			break;
		if (!rt_has_pattern(c, objs[n]))
			bad++;
		for (j = 0; j < RT_TYPED; j++)
			if (!rt_kept(j) && objs[n] == rt_objs[c][j])
				back++;
	}
	ktap_diag(t,
		  "%s: %u freed, %u came back in %u allocations, %u without the pattern",
		  what, RT_FREED, back, n, bad);
	KTAP_EXPECT(t, !bad);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		KTAP_EXPECT(t, back);
	for (i = 0; i < n; i++)
		cmstat_cache_free(rt_caches[c], objs[i]);
}

static void rt_typed_destroy(void)
{
	unsigned int c, i;

	for (c = 0; c < RT_CACHES; c++) {
		if (!rt_caches[c])
			continue;
		for (i = 0; i < RT_TYPED; i++)
			if (rt_kept(i))
				cmstat_cache_free(rt_caches[c], rt_objs[c][i]);
		cmstat_cache_destroy(rt_caches[c]);
		rt_caches[c] = NULL;
	}
}

static int rt_typed_prepare(void)
{
	unsigned int c, i;

	rt_caches[RT_CTOR] = cmstat_cache_create(rt_heap, "rt_test_ctor",
						 24, 0, 0, rt_ctor);
	rt_caches[RT_TINY] = cmstat_cache_create(rt_heap, "rt_test_tiny",
						 4, 0, 0, rt_tiny_ctor);
	rt_caches[RT_RCU] = cmstat_cache_create(rt_heap, "rt_test_rcu",
						24, 0, SLAB_TYPESAFE_BY_RCU,
						NULL);
	for (c = 0; c < RT_CACHES; c++) {
		if (!rt_caches[c])
			goto fail;
		for (i = 0; i < RT_TYPED; i++) {
			rt_objs[c][i] = cmstat_cache_alloc(rt_caches[c],
							   GFP_KERNEL);
			if (!rt_objs[c][i])
				goto fail;
		}
	}
	for (i = 0; i < RT_TYPED; i++)
		*(u64 *)rt_objs[RT_RCU][i] = RT_GONE;
	return 0;
fail:
	/* Free what was allocated: the kept ones here, the rest below. */
	for (c = 0; c < RT_CACHES; c++)
		for (i = 0; rt_caches[c] && i < RT_TYPED && rt_objs[c][i]; i++)
			if (!rt_kept(i))
				cmstat_cache_free(rt_caches[c], rt_objs[c][i]);
	rt_typed_destroy();
	return -ENOMEM;
}

static void rt_typed_case(struct ktap_test *t)
{
	unsigned long handed_on;
	void **objs;
	int err;

	objs = kmalloc_array(RT_REALLOCS, sizeof(*objs), GFP_KERNEL);
	memset(rt_objs, 0, sizeof(rt_objs));
	if (!KTAP_EXPECT(t, objs))
		goto out;
	err = rt_typed_prepare();
	if (!KTAP_EXPECT(t, !err))
		goto out;
	rt_rcu_changed = 0;
	handed_on = rt_run(rt_typed_free);
	rt_wait_handed_on();
	ktap_diag(t,
		  "in hard interrupt context: %d; frees handed on: %lu; SLAB_TYPESAFE_BY_RCU: %u freed, %u changed when read after the free",
		  rt_in_hardirq, handed_on, RT_FREED, rt_rcu_changed);
	KTAP_EXPECT(t, rt_in_hardirq);
	KTAP_EXPECT(t, !!handed_on == IS_ENABLED(CONFIG_PREEMPT_RT));
	KTAP_EXPECT(t, !rt_rcu_changed);
	/* Their slabs to the node's lists, for any CPU to allocate from. */
	cmstat_cache_shrink(rt_caches[RT_CTOR]);
	cmstat_cache_shrink(rt_caches[RT_TINY]);
	rt_typed_realloc(t, RT_CTOR, "constructor, 24 bytes", objs);
	rt_typed_realloc(t, RT_TINY, "constructor, 4 bytes", objs);
	rt_typed_destroy();
out:
	kfree(objs);
}

/*
 * rt_null: frees of NULL, which are no-ops (the kfree(NULL) idiom), and
 * a cmstat_realloc() in place, which frees nothing, in each half.  What
 * goes out of line depends on how cmstat was loaded: the check loads it
 * with accounting=0 and with debug_free=1 too.
 */
static struct cmstat_cache *rt_null_cache;
static void *rt_null_objs[2];
static size_t rt_null_sizes[2];

static void rt_null_free(unsigned int half)
{
	cmstat_free(rt_heap, NULL, 64);
	cmstat_kfree(rt_heap, NULL);
	cmstat_cache_free(rt_null_cache, NULL);
	if (cmstat_realloc(rt_heap, rt_null_objs[half], 64, 60,
			   GFP_ATOMIC) == rt_null_objs[half])
		rt_null_sizes[half] = 60;
}

static void rt_null_case(struct ktap_test *t)
{
	unsigned long handed_on;

	rt_null_cache = cmstat_cache_create(rt_heap, "rt_test_null", 32, 0, 0,
					    NULL);
	rt_null_objs[0] = cmstat_alloc(rt_heap, 64, GFP_KERNEL);
	rt_null_objs[1] = cmstat_alloc(rt_heap, 64, GFP_KERNEL);
	rt_null_sizes[0] = 64;
	rt_null_sizes[1] = 64;
	if (KTAP_EXPECT(t, rt_null_cache && rt_null_objs[0] && rt_null_objs[1])) {
		handed_on = rt_run(rt_null_free);
		ktap_diag(t,
			  "in hard interrupt context: %d; resized in place: %u of 2; frees handed on: %lu",
			  rt_in_hardirq,
			  (rt_null_sizes[0] == 60) + (rt_null_sizes[1] == 60),
			  handed_on);
		KTAP_EXPECT(t, rt_in_hardirq);
		KTAP_EXPECT(t, rt_null_sizes[0] == 60 && rt_null_sizes[1] == 60);
		KTAP_EXPECT(t, !handed_on);
	}
	cmstat_free(rt_heap, rt_null_objs[0], rt_null_sizes[0]);
	cmstat_free(rt_heap, rt_null_objs[1], rt_null_sizes[1]);
	cmstat_cache_destroy(rt_null_cache);
}

/*
 * rt_rcu: cmstat_kfree_rcu() of large allocations (above the largest
 * class: recorded by address), each read in an RCU read-side critical
 * section that began before its free, whose value must hold until the
 * section ends.  Then the frees handed on done, as many allocations and
 * frees of the same size, which may reuse the addresses: every one must
 * be counted, so the large counts come back where they were.
 */
#define RT_BIG_SIZE	(CMSTAT_MAX_CLASS_SIZE + PAGE_SIZE)
#define RT_BIG_AGAIN	8
struct rt_big {
	u64 val;	/* first: where a link written into it would go */
	struct rcu_head rcu;
};

static struct rt_big *rt_bigs[2];
static unsigned int rt_big_changed;

static void rt_rcu_free(unsigned int half)
{
	struct rt_big *big = rt_bigs[half];

	rcu_read_lock();
	cmstat_kfree_rcu(rt_heap, big, rcu);
	if (READ_ONCE(big->val) != RT_GONE)
		rt_big_changed++;
	rcu_read_unlock();
}

/* The large counts moved from @b to @a as rt_rcu_case() must move them. */
static void rt_rcu_moved(struct ktap_test *t, const struct cmstat_heap_stats *b,
			 const struct cmstat_heap_stats *a)
{
	ktap_diag(t,
		  "large_mallocs moved by %lld, large_frees by %lld, large_live_objects by %lld",
		  a->large_mallocs - b->large_mallocs,
		  a->large_frees - b->large_frees,
		  a->large_live_objects - b->large_live_objects);
	KTAP_EXPECT(t, a->large_mallocs - b->large_mallocs == RT_BIG_AGAIN);
	KTAP_EXPECT(t, a->large_frees - b->large_frees == RT_BIG_AGAIN + 2);
	KTAP_EXPECT(t, (s64)(a->large_live_objects - b->large_live_objects) == -2);
}

static void rt_rcu_case(struct ktap_test *t)
{
	struct cmstat_heap_stats *before, *after;
	unsigned long handed_on;
	unsigned int i;
	void *p;

	before = kmalloc(sizeof(*before), GFP_KERNEL);
	after = kmalloc(sizeof(*after), GFP_KERNEL);
	for (i = 0; i < 2; i++) {
		rt_bigs[i] = cmstat_kmalloc(rt_heap, RT_BIG_SIZE, GFP_KERNEL);
		if (rt_bigs[i])
			rt_bigs[i]->val = RT_GONE;
	}
	if (!KTAP_EXPECT(t, before && after && rt_bigs[0] && rt_bigs[1]) ||
	    !KTAP_EXPECT(t, !cmstat_heap_read(rt_heap, before))) {
		cmstat_kfree(rt_heap, rt_bigs[0]);
		cmstat_kfree(rt_heap, rt_bigs[1]);
		goto out;
	}
	rt_big_changed = 0;
	handed_on = rt_run(rt_rcu_free);
	rt_wait_handed_on();
	for (i = 0; i < RT_BIG_AGAIN; i++) {
		p = cmstat_kmalloc(rt_heap, RT_BIG_SIZE, GFP_KERNEL);
		cmstat_kfree(rt_heap, p);
	}
	ktap_diag(t,
		  "in hard interrupt context: %d; frees handed on: %lu; changed under RCU: %u of 2",
		  rt_in_hardirq, handed_on, rt_big_changed);
	KTAP_EXPECT(t, rt_in_hardirq);
	KTAP_EXPECT(t, handed_on == (IS_ENABLED(CONFIG_PREEMPT_RT) ? 2 : 0));
	KTAP_EXPECT(t, !rt_big_changed);
	if (KTAP_EXPECT(t, !cmstat_heap_read(rt_heap, after)))
		rt_rcu_moved(t, before, after);
out:
	kfree(after);
	kfree(before);
}

static const struct ktap_case rt_cases[] = {
	{ "rt_typed", rt_typed_case },
	{ "rt_null", rt_null_case },
	{ "rt_rcu", rt_rcu_case },
};

static int __init rt_test_init(void)
{
	int err;

	rt_heap = cmstat_heap_create("rt_test");
	if (IS_ERR(rt_heap))
		return PTR_ERR(rt_heap);
	err = ktap_run(rt_cases, ARRAY_SIZE(rt_cases));
	cmstat_heap_destroy(rt_heap);
	return err;
}

static void __exit rt_test_exit(void)
{
}

module_init(rt_test_init);
module_exit(rt_test_exit);

MODULE_DESCRIPTION("cmstat: frees from hard interrupt context and under raw spinlocks");
MODULE_LICENSE("GPL");
