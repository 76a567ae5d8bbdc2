// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit concurrency test of the cmstat allocator: a kthread on every CPU
 * allocates and frees objects of random sizes (GFP_KERNEL, classes and
 * large), a hard hrtimer on every CPU does the same from hardirq context
 * (GFP_ATOMIC), and a reader checks the invariants of every snapshot of the
 * heap and of all heaps.  At the end the statistics must equal the totals
 * the workers kept themselves.
 */

#include <kunit/test.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>
#include <cmstat/counters.h>

static unsigned int alloc_stress_snapshots = 600;
module_param(alloc_stress_snapshots, uint, 0444);
MODULE_PARM_DESC(alloc_stress_snapshots,
		 "Snapshots per allocator stress case (default 600)");

#define RING		32	/* live objects per kthread */
#define IRQ_RING	4	/* live objects per CPU's timer */
#define IRQ_PERIOD_NS	(1000 * NSEC_PER_USEC)	/* slab + KASAN in hardirq: keep it rare */

/* What one worker did, by its own count. */
struct truth {
	u64 mallocs;
	u64 frees;
	u64 failed;
	u64 alloc_bytes;
};

struct live_obj {
	void *ptr;
	size_t size;
};

struct alloc_worker {
	struct task_struct *task;
	struct live_obj ring[RING];
	struct truth truth;
};

struct irq_worker {
	struct hrtimer timer;
	struct live_obj ring[IRQ_RING];
	unsigned int next;
	struct truth truth;
};

static struct cmstat_heap *stress_heap;
static bool stress_stop;
static DEFINE_PER_CPU(struct irq_worker, irq_workers);

/* Replace @slot's object with a new one of @size; keep the truth. */
static void churn(struct live_obj *slot, size_t size, gfp_t gfp,
		  struct truth *t)
{
	if (slot->ptr) {
		cmstat_free(stress_heap, slot->ptr, slot->size);
		t->frees++;
		slot->ptr = NULL;
	}
	slot->ptr = cmstat_alloc(stress_heap, size, gfp);
	if (!slot->ptr) {
		t->failed++;
		return;
	}
	slot->size = size;
	t->mallocs++;
	t->alloc_bytes += cmstat_alloc_held_bytes(size);
}

static void drain(struct live_obj *ring, unsigned int n, struct truth *t)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ring[i].ptr) {
			cmstat_free(stress_heap, ring[i].ptr, ring[i].size);
			ring[i].ptr = NULL;
			t->frees++;
		}
}

/* Mostly small, some medium, one in 64 above the largest class. */
static size_t stress_size(void)
{
	u32 r = get_random_u32();

	if ((r & 63) == 0)
		return CMSTAT_MAX_CLASS_SIZE + 1 + (r >> 6) % 100000;
	if ((r & 7) == 0)
		return 1 + (r >> 6) % CMSTAT_MAX_CLASS_SIZE;
	return 1 + (r >> 6) % 512;
}

static int alloc_worker_fn(void *arg)
{
	struct alloc_worker *w = arg;
	unsigned long n = 0;

	while (!kthread_should_stop()) {
		churn(&w->ring[n % RING], stress_size(), GFP_KERNEL, &w->truth);
		if (++n % 64 == 0)
			cond_resched();
	}
	drain(w->ring, RING, &w->truth);
	return 0;
}

static enum hrtimer_restart irq_worker_fn(struct hrtimer *timer)
{
	struct irq_worker *w = container_of(timer, struct irq_worker, timer);

	churn(&w->ring[w->next++ % IRQ_RING], 1 + get_random_u32_below(2048),
	      GFP_ATOMIC | __GFP_NOWARN, &w->truth);
	if (READ_ONCE(stress_stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(IRQ_PERIOD_NS));
	return HRTIMER_RESTART;
}

static void irq_worker_start(void *unused)
{
	struct irq_worker *w = this_cpu_ptr(&irq_workers);

	hrtimer_start(&w->timer, ns_to_ktime(IRQ_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void add_truth(struct truth *sum, const struct truth *t)
{
	sum->mallocs += t->mallocs;
	sum->frees += t->frees;
	sum->failed += t->failed;
	sum->alloc_bytes += t->alloc_bytes;
}

static void alloc_stress_concurrent(struct kunit *test)
{
	unsigned int i, nr = num_online_cpus(), cpu;
	struct cmstat_heap_stats *st, *all;
	struct alloc_worker *workers;
	unsigned long snapshots = 0, violations = 0;
	struct truth sum = {}, irq = {};
	bool exact;

	if (!cmstat_accounting_enabled())
		kunit_skip(test, "cmstat loaded with accounting=0");
	workers = kunit_kcalloc(test, nr, sizeof(*workers), GFP_KERNEL);
	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	all = kunit_kzalloc(test, sizeof(*all), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, workers);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, all);
	stress_heap = cmstat_heap_create("kunit-stress");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, stress_heap);

	/* No assertion from here on: it would leave timers armed. */
	WRITE_ONCE(stress_stop, false);
	for_each_possible_cpu(cpu) {
		struct irq_worker *w = per_cpu_ptr(&irq_workers, cpu);

		memset(w, 0, sizeof(*w));
		hrtimer_init(&w->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		w->timer.function = irq_worker_fn;
	}
	on_each_cpu(irq_worker_start, NULL, 1);
	i = 0;
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (i == nr)
			break;
		t = kthread_create(alloc_worker_fn, &workers[i],
				   "cmstat_alloc/%u", cpu);
		if (IS_ERR(t)) {
			KUNIT_FAIL(test, "kthread_create: %pe", t);
			break;
		}
		kthread_bind(t, cpu);
		workers[i++].task = t;
		wake_up_process(t);
	}
	nr = i;

	/* Bounded by count only: a busy host makes it slower, not shorter. */
	while (snapshots < alloc_stress_snapshots) {
		if (!cmstat_heap_read(stress_heap, st)) {
			snapshots++;
			violations += !cmstat_heap_stats_valid(st);
		}
		if (!cmstat_heaps_read_all(all)) {
			snapshots++;
			violations += !cmstat_heap_stats_valid(all);
		}
	}

	WRITE_ONCE(stress_stop, true);
	for (i = 0; i < nr; i++) {
		kthread_stop(workers[i].task);
		add_truth(&sum, &workers[i].truth);
	}
	for_each_possible_cpu(cpu) {
		struct irq_worker *w = per_cpu_ptr(&irq_workers, cpu);

		hrtimer_cancel(&w->timer);
		drain(w->ring, IRQ_RING, &w->truth);
		add_truth(&sum, &w->truth);
		add_truth(&irq, &w->truth);
	}

	exact = !cmstat_heap_read(stress_heap, st) &&
		cmstat_heap_stats_valid(st) && st->mallocs == sum.mallocs &&
		st->frees == sum.frees && st->failed_allocs == sum.failed &&
		st->alloc_bytes == sum.alloc_bytes &&
		st->free_bytes == sum.alloc_bytes && st->live_objects == 0 &&
		st->live_bytes == 0 && st->live_requested_bytes == 0;
	kunit_info(test,
		   "cpus=%u snapshots=%lu violations=%lu allocs=%llu frees=%llu stats_exact=%d hardirq_allocs=%llu failed=%llu alloc_bytes=%llu\n",
		   num_online_cpus(), snapshots, violations, sum.mallocs,
		   sum.frees, exact, irq.mallocs, sum.failed, sum.alloc_bytes);
	KUNIT_EXPECT_EQ(test, violations, 0);
	KUNIT_EXPECT_TRUE(test, exact);
	KUNIT_EXPECT_GT(test, irq.mallocs, 0);
	cmstat_heap_destroy(stress_heap);
}

static struct kunit_case alloc_stress_cases[] = {
	KUNIT_CASE_SLOW(alloc_stress_concurrent),
	{}
};

static struct kunit_suite alloc_stress_suite = {
	.name = "cmstat_alloc_stress",
	.test_cases = alloc_stress_cases,
};

kunit_test_suite(alloc_stress_suite);
