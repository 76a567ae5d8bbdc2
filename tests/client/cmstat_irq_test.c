// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_irq_test: cmstat called from a client's interrupt handlers, on
 * every kernel (the stock ones have no KUnit):
 *
 *	softirq_gfp_kernel	a tasklet raised in a task section on this
 *				CPU allocates with GFP_KERNEL, a client bug:
 *				cmstat says so once, naming the tasklet's
 *				function, and accounts the softirq deeper
 *				than the section (its sequence counter must
 *				not move meanwhile, or the section would look
 *				closed to readers).  On PREEMPT_RT the
 *				tasklet's thread runs after the section.
 *				Skipped on kernels with
 *				CONFIG_DEBUG_ATOMIC_SLEEP, whose report of
 *				the sleep would fail it.
 *	hardirq			a hard hrtimer allocates with GFP_ATOMIC and
 *				frees four objects: sized, unsized, typed and
 *				large.  Served and counted; on PREEMPT_RT,
 *				whose allocators may sleep, refused, counted
 *				in failed_allocs and reported once naming the
 *				handler, and the four frees counted at once
 *				and their memory handed on.
 *
 * Each runs twice: the second time no message may come again.  Prints
 * KTAP through cmstat_ktap.h, whose parameter "failed" counts the cases
 * that failed.
 * only=NAME runs one case (scripts/guest/checks/client-softirq-gfp.sh and
 * client-hardirq.sh).
 */

#include "cmstat_ktap.h"

#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/counters.h>
#include <cmstat/kmalloc.h>

#define IRQ_ROUNDS	2

static struct cmstat_heap *irq_heap;

static struct tasklet_struct softirq_tasklet;
static void *softirq_obj;
static bool softirq_ran, softirq_in_softirq;

static void softirq_fn(struct tasklet_struct *t)
{
	softirq_in_softirq = in_serving_softirq();
	softirq_obj = cmstat_alloc(irq_heap, 64, GFP_KERNEL);
	softirq_ran = true;
}

static u32 this_cpu_seq(unsigned long idx)
{
	return this_cpu_read(cmstat_cpu_seq.seq[idx]);
}

/*
 * The sequence counters deeper than @idx, summed: a softirq run by
 * local_bh_enable() keeps one more preemption count while it runs, so
 * its sections are two deep or more, not one.
 */
static u32 this_cpu_seq_deeper(unsigned long idx)
{
	u32 sum = 0;

	while (++idx < CMSTAT_NR_SEQ)
		sum += this_cpu_seq(idx);
	return sum;
}

/* One round of softirq_gfp_kernel, in a section of @set's. */
static void softirq_round(struct ktap_test *t, struct cmstat_counters *set)
{
	bool rt = IS_ENABLED(CONFIG_PREEMPT_RT), nested, allocated;
	u32 task_moved, soft_moved;
	struct cmstat_section sec;

	softirq_ran = false;
	softirq_obj = NULL;
	if (!cmstat_section_begin_task(&sec, cmstat_counters_group(set))) {
		ktap_skip(t, "accounting off: no section");
		return;
	}
	/*
	 * Preemption is off: all of this runs on one CPU.  The tasklet's
	 * section is deeper than ours.
	 */
	task_moved = this_cpu_seq(sec.seq);
	soft_moved = this_cpu_seq_deeper(sec.seq);
	local_bh_disable();
	tasklet_schedule(&softirq_tasklet);
	local_bh_enable();	/* runs the tasklet, in serving-softirq context */
	nested = softirq_ran;
	task_moved = this_cpu_seq(sec.seq) - task_moved;
	soft_moved = this_cpu_seq_deeper(sec.seq) - soft_moved;
	cmstat_section_add(cmstat_section_slot(&sec, set), 0, 1);
	cmstat_section_end(&sec);
	tasklet_kill(&softirq_tasklet);	/* had it not run nested */
	allocated = softirq_obj;
	cmstat_free(irq_heap, softirq_obj, 64);
	ktap_diag(t,
		  "nested in the task section: %d, in softirq context: %d, allocated: %d; task counter moved by %u, softirq counter by %u",
		  nested, softirq_in_softirq, allocated, task_moved, soft_moved);
	KTAP_EXPECT(t, nested == !rt);
	KTAP_EXPECT(t, softirq_in_softirq);
	KTAP_EXPECT(t, allocated);
	KTAP_EXPECT(t, task_moved == 0);
	KTAP_EXPECT(t, !!soft_moved == !rt);
}

static void softirq_gfp_kernel_case(struct ktap_test *t)
{
	struct cmstat_counters *set;
	int i;

	/* The kernel's own report of the sleep would fail the case. */
	if (IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP)) {
		ktap_skip(t, "CONFIG_DEBUG_ATOMIC_SLEEP reports the client's bug");
		return;
	}
	set = cmstat_counters_alloc(NULL, 1);
	if (!KTAP_EXPECT(t, !IS_ERR(set)))
		return;
	for (i = 0; i < IRQ_ROUNDS && !t->skip; i++)
		softirq_round(t, set);
	cmstat_counters_free(set);
	if (!t->skip)
		KTAP_EXPECT(t, ktap_console_lines("may sleep, from interrupt context",
						  "softirq_fn") == 1);
}

#define HARD_LARGE_SIZE	(3 * PAGE_SIZE)
static struct cmstat_cache *hard_cache;
static void *hard_sized, *hard_unsized, *hard_typed, *hard_large;
static void *hard_obj;
static bool hard_in_hardirq;

/* A driver's interrupt handler: ktap_run_in_hardirq() runs it. */
static void hard_handler(void *unused)
{
	hard_obj = cmstat_alloc(irq_heap, 64, GFP_ATOMIC);
	cmstat_free(irq_heap, hard_sized, 64);
	cmstat_kfree(irq_heap, hard_unsized);
	cmstat_cache_free(hard_cache, hard_typed);
	cmstat_free(irq_heap, hard_large, HARD_LARGE_SIZE);
}

/* The four objects the timer frees. */
static bool hard_prepare(void)
{
	hard_sized = cmstat_alloc(irq_heap, 64, GFP_KERNEL);
	hard_unsized = cmstat_kmalloc(irq_heap, 100, GFP_KERNEL);
	hard_typed = cmstat_cache_alloc(hard_cache, GFP_KERNEL);
	hard_large = cmstat_alloc(irq_heap, HARD_LARGE_SIZE, GFP_KERNEL);
	if (hard_sized && hard_unsized && hard_typed && hard_large)
		return true;
	cmstat_free(irq_heap, hard_sized, 64);
	cmstat_kfree(irq_heap, hard_unsized);
	cmstat_cache_free(hard_cache, hard_typed);
	cmstat_free(irq_heap, hard_large, HARD_LARGE_SIZE);
	return false;
}

/* How the heap's counts moved from @b to @a, as the timer must move them. */
static void hard_moved(struct ktap_test *t, const struct cmstat_heap_stats *b,
		       const struct cmstat_heap_stats *a, unsigned long handed_on)
{
	bool rt = IS_ENABLED(CONFIG_PREEMPT_RT);

	ktap_diag(t,
		  "in hard interrupt context: %d, allocation: %s; mallocs moved by %lld, frees by %lld, cache_frees by %lld, failed_allocs by %lld, live_objects by %lld; frees handed on: %lu",
		  hard_in_hardirq, hard_obj ? "served" : "refused",
		  a->mallocs - b->mallocs, a->frees - b->frees,
		  a->cache_frees - b->cache_frees,
		  a->failed_allocs - b->failed_allocs,
		  a->live_objects - b->live_objects, handed_on);
	KTAP_EXPECT(t, hard_in_hardirq);
	KTAP_EXPECT(t, !!hard_obj == !rt);
	KTAP_EXPECT(t, a->mallocs - b->mallocs == !rt);
	KTAP_EXPECT(t, a->frees - b->frees == 4);
	KTAP_EXPECT(t, a->cache_frees - b->cache_frees == 1);
	KTAP_EXPECT(t, a->failed_allocs - b->failed_allocs == rt);
	KTAP_EXPECT(t, (s64)(a->live_objects - b->live_objects) == (rt ? -4 : -3));
	KTAP_EXPECT(t, handed_on == (rt ? 4 : 0));
}

static void hard_round(struct ktap_test *t, struct cmstat_heap_stats *before,
		       struct cmstat_heap_stats *after)
{
	unsigned long handed_on;
	bool prepared = hard_prepare(), read;

	if (!KTAP_EXPECT(t, prepared))
		return;
	read = KTAP_EXPECT(t, !cmstat_heap_read(irq_heap, before));
	handed_on = cmstat_frees_handed_on();
	hard_in_hardirq = ktap_run_in_hardirq(hard_handler, NULL);
	handed_on = cmstat_frees_handed_on() - handed_on;
	if (read && KTAP_EXPECT(t, !cmstat_heap_read(irq_heap, after)))
		hard_moved(t, before, after, handed_on);
	cmstat_free(irq_heap, hard_obj, 64);
}

static void hardirq_case(struct ktap_test *t)
{
	struct cmstat_heap_stats *before, *after;
	int i;

	before = kmalloc(sizeof(*before), GFP_KERNEL);
	after = kmalloc(sizeof(*after), GFP_KERNEL);
	hard_cache = cmstat_cache_create(irq_heap, "irq_test_hard", 48, 0, 0,
					 NULL);
	if (KTAP_EXPECT(t, before && after && hard_cache))
		for (i = 0; i < IRQ_ROUNDS; i++)
			hard_round(t, before, after);
	/* Waits for the frees handed on: leaves no object in the cache. */
	cmstat_cache_destroy(hard_cache);
	kfree(after);
	kfree(before);
	KTAP_EXPECT(t, ktap_console_lines("PREEMPT_RT", "hard_handler") ==
		    IS_ENABLED(CONFIG_PREEMPT_RT));
}

static const struct ktap_case irq_cases[] = {
	{ "softirq_gfp_kernel", softirq_gfp_kernel_case },
	{ "hardirq", hardirq_case },
};

static int __init irq_test_init(void)
{
	int err;

	irq_heap = cmstat_heap_create("irq_test");
	if (IS_ERR(irq_heap))
		return PTR_ERR(irq_heap);
	tasklet_setup(&softirq_tasklet, softirq_fn);
	err = ktap_run(irq_cases, ARRAY_SIZE(irq_cases));
	tasklet_kill(&softirq_tasklet);
	cmstat_heap_destroy(irq_heap);
	return err;
}

static void __exit irq_test_exit(void)
{
}

module_init(irq_test_init);
module_exit(irq_test_exit);

MODULE_DESCRIPTION("cmstat: called from a client's softirq and hard interrupt handlers");
MODULE_LICENSE("GPL");
