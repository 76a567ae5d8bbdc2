// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit concurrency tests of the cmstat allocator: a kthread on every CPU
 * allocates and frees objects of random sizes (GFP_KERNEL, classes and
 * large) from random heaps of the test, an hrtimer on every CPU does the
 * same from interrupt context (GFP_ATOMIC), and a reader checks every
 * snapshot: its invariants, on one heap and on all heaps; then, with
 * several heaps, that the heaps sum to all at every cut, field by field and
 * class by class, where reading them one by one does not.  At the end the
 * statistics must equal the totals the workers kept themselves.
 *
 * The hrtimer is not marked hard: it expires in hardirq context, but on
 * PREEMPT_RT in its softirq thread, the interrupt context RT lets a driver
 * allocate from (cmstat refuses allocations from a hard one there, as the
 * kernel's allocators must not be called with interrupts off).
 */

#include <kunit/test.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>
#include <cmstat/counters.h>

#include "cmstat_kunit.h"

static unsigned int alloc_stress_snapshots = 300;
module_param(alloc_stress_snapshots, uint, 0444);
MODULE_PARM_DESC(alloc_stress_snapshots,
		 "Snapshots per allocator stress case, over its rounds (default 300)");

/*
 * Each case runs in rounds of alloc_stress_snapshots / STRESS_ROUNDS
 * snapshots, a KUnit case each: under a busy host a snapshot can take ten
 * times as long or more (its IPIs wait for vCPUs the host has
 * descheduled), and a case must finish within KUnit's fixed five minutes.
 */
#define STRESS_ROUNDS	3

static const unsigned int stress_rounds[] = { 1, 2, 3 };
static_assert(ARRAY_SIZE(stress_rounds) == STRESS_ROUNDS);

static void stress_round_desc(const unsigned int *round, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "round=%u", *round);
}

KUNIT_ARRAY_PARAM(stress_rounds, stress_rounds, stress_round_desc);

static unsigned int stress_round_snapshots(void)
{
	return DIV_ROUND_UP(alloc_stress_snapshots, STRESS_ROUNDS);
}

#define RING		32	/* live objects per kthread */
#define IRQ_RING	4	/* live objects per CPU's timer */
#define IRQ_PERIOD_NS	(1000 * NSEC_PER_USEC)	/* slab + KASAN in an interrupt: keep it rare */
#define MAX_HEAPS	4

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
	struct cmstat_heap *heap;
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

/* The workload of one case: its heaps and its workers. */
struct stress_load {
	struct cmstat_heap *heaps[MAX_HEAPS];
	unsigned int nr_heaps;
	struct alloc_worker *workers;
	unsigned int nr_workers;
	struct truth sum;	/* everything, once stopped */
	struct truth irq;	/* the timers' part */
};

static struct stress_load *load;	/* the running one */
/*
 * Set to stop the timers, which poll it and no longer re-arm once they
 * see it; irq_workers_stop() then waits for each (hrtimer_cancel()), which
 * orders whatever it did before.  The workers stop by kthread_stop().
 */
static bool stress_stop;
static DEFINE_PER_CPU(struct irq_worker, irq_workers);

/* Replace @slot's object with a new one of @size; keep the truth. */
static void churn(struct live_obj *slot, size_t size, gfp_t gfp,
		  struct truth *t)
{
	if (slot->ptr) {
		cmstat_free(slot->heap, slot->ptr, slot->size);
		t->frees++;
		slot->ptr = NULL;
	}
	slot->heap = load->heaps[get_random_u32_below(load->nr_heaps)];
	slot->ptr = cmstat_alloc(slot->heap, size, gfp);
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
			cmstat_free(ring[i].heap, ring[i].ptr, ring[i].size);
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
		      HRTIMER_MODE_REL_PINNED);
}

static void add_truth(struct truth *sum, const struct truth *t)
{
	sum->mallocs += t->mallocs;
	sum->frees += t->frees;
	sum->failed += t->failed;
	sum->alloc_bytes += t->alloc_bytes;
}

/*
 * Stop the timers and free what they hold: when the case ends, or at its
 * stop, once the workers are stopped.
 */
static void irq_workers_stop(void *unused)
{
	unsigned int cpu;

	WRITE_ONCE(stress_stop, true);
	for_each_possible_cpu(cpu) {
		struct irq_worker *w = per_cpu_ptr(&irq_workers, cpu);

		hrtimer_cancel(&w->timer);
		drain(w->ring, IRQ_RING, &w->truth);
	}
}

/*
 * Create @nr_heaps heaps, then start the timers and a worker on every
 * CPU.  A worker frees what it holds when it is stopped.
 */
static struct stress_load *stress_start(struct kunit *test,
					unsigned int nr_heaps)
{
	struct stress_load *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	unsigned int i = 0, cpu;
	char name[CMSTAT_HEAP_NAME_MAX + 1];

	if (!cmstat_accounting_enabled())
		kunit_skip(test, "cmstat loaded with accounting=0");
	/* On one, the reader's loop would keep the writers from running. */
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs 2 CPUs: the writers and the reader side by side");
	KUNIT_ASSERT_NOT_NULL(test, l);
	l->workers = kunit_kcalloc(test, num_online_cpus(),
				   sizeof(*l->workers), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l->workers);
	for (l->nr_heaps = 0; l->nr_heaps < nr_heaps; l->nr_heaps++) {
		snprintf(name, sizeof(name), "kunit-stress%u", l->nr_heaps);
		l->heaps[l->nr_heaps] = cmstat_kunit_heap(test, name);
	}
	load = l;

	WRITE_ONCE(stress_stop, false);
	for_each_possible_cpu(cpu) {
		struct irq_worker *w = per_cpu_ptr(&irq_workers, cpu);

		memset(w, 0, sizeof(*w));
		cmstat_hrtimer_setup(&w->timer, irq_worker_fn, CLOCK_MONOTONIC,
				     HRTIMER_MODE_REL_PINNED);
	}
	cmstat_kunit_defer(test, irq_workers_stop, NULL);
	on_each_cpu(irq_worker_start, NULL, 1);
	for_each_online_cpu(cpu) {
		struct alloc_worker *w;
		struct task_struct *t;

		if (i == num_online_cpus())
			break;
		w = &l->workers[i];
		t = kthread_create(alloc_worker_fn, w, "cmstat_alloc/%u", cpu);
		w->task = cmstat_kunit_kthread(test, t);
		kthread_bind(w->task, cpu);
		wake_up_process(w->task);
		l->nr_workers = ++i;
	}
	return l;
}

/* Stop everything, free every object, and add up what the workers did. */
static void stress_stop_all(struct kunit *test, struct stress_load *l)
{
	unsigned int i, cpu;

	WRITE_ONCE(stress_stop, true);
	for (i = 0; i < l->nr_workers; i++) {
		cmstat_kunit_kthread_stop(test, l->workers[i].task);
		add_truth(&l->sum, &l->workers[i].truth);
	}
	kunit_release_action(test, irq_workers_stop, NULL);
	for_each_possible_cpu(cpu) {
		struct irq_worker *w = per_cpu_ptr(&irq_workers, cpu);

		add_truth(&l->sum, &w->truth);
		add_truth(&l->irq, &w->truth);
	}
}

/* The heaps' statistics, summed: they must equal the workers' totals. */
static bool stress_exact(struct kunit *test, struct stress_load *l)
{
	struct cmstat_heap_stats *st = kunit_kcalloc(test, l->nr_heaps,
						     sizeof(*st), GFP_KERNEL);
	struct truth got = { };
	u64 live = 0, free_bytes = 0;
	unsigned int i;

	if (!st || cmstat_heaps_read(l->heaps, l->nr_heaps, st, NULL))
		return false;
	for (i = 0; i < l->nr_heaps; i++) {
		if (!cmstat_heap_stats_valid(&st[i]))
			return false;
		got.mallocs += st[i].mallocs;
		got.frees += st[i].frees;
		got.failed += st[i].failed_allocs;
		got.alloc_bytes += st[i].alloc_bytes;
		free_bytes += st[i].free_bytes;
		live += st[i].live_objects + st[i].live_bytes +
			st[i].live_requested_bytes;
	}
	return !memcmp(&got, &l->sum, sizeof(got)) &&
	       free_bytes == l->sum.alloc_bytes && !live;
}

static void stress_finish(struct kunit *test, struct stress_load *l,
			  const char *what, unsigned long snapshots,
			  unsigned long violations, const char *extra)
{
	bool exact;
	unsigned int i;

	stress_stop_all(test, l);
	exact = stress_exact(test, l);
	kunit_info(test,
		   "cpus=%u heaps=%u snapshots=%lu %s=%lu%s allocs=%llu frees=%llu stats_exact=%d irq_allocs=%llu failed=%llu alloc_bytes=%llu\n",
		   num_online_cpus(), l->nr_heaps, snapshots, what, violations,
		   extra, l->sum.mallocs, l->sum.frees, exact, l->irq.mallocs,
		   l->sum.failed, l->sum.alloc_bytes);
	KUNIT_EXPECT_EQ(test, violations, 0);
	KUNIT_EXPECT_TRUE(test, exact);
	KUNIT_EXPECT_GT(test, l->irq.mallocs, 0);
	for (i = 0; i < l->nr_heaps; i++)
		cmstat_kunit_heap_destroy(test, l->heaps[i]);
	load = NULL;
}

/* Every snapshot of one heap, and of all heaps, keeps the invariants. */
static void alloc_stress_concurrent(struct kunit *test)
{
	struct cmstat_heap_stats *st, *all;
	unsigned long snapshots = 0, violations = 0;
	struct stress_load *l;

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	all = kunit_kzalloc(test, sizeof(*all), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, all);
	l = stress_start(test, 1);

	/* Bounded by count only: a busy host makes it slower, not shorter. */
	while (snapshots < stress_round_snapshots()) {
		if (!cmstat_heap_read(l->heaps[0], st)) {
			snapshots++;
			violations += !cmstat_heap_stats_valid(st);
		}
		if (!cmstat_heaps_read_all(all)) {
			snapshots++;
			violations += !cmstat_heap_stats_valid(all);
		}
	}
	stress_finish(test, l, "violations", snapshots, violations, "");
}

/* @all minus the sum of @n heaps, field by field, class by class, in @d. */
static void all_minus_heaps(const struct cmstat_heap_stats *all,
			    const struct cmstat_heap_stats *st, unsigned int n,
			    struct cmstat_heap_stats *d)
{
	const u64 *a = (const u64 *)all;
	u64 *out = (u64 *)d;
	unsigned int i, j;

	/* The struct is u64s only, so it can be walked as an array. */
	BUILD_BUG_ON(sizeof(*all) % sizeof(u64));
	for (j = 0; j < sizeof(*all) / sizeof(u64); j++) {
		out[j] = a[j];
		for (i = 0; i < n; i++)
			out[j] -= ((const u64 *)&st[i])[j];
	}
}

/* Whether two differences agree, the epoch and class sizes aside. */
static bool same_difference(const struct cmstat_heap_stats *x,
			    const struct cmstat_heap_stats *y)
{
	unsigned int i;

	if (memcmp(&x->live_bytes, &y->live_bytes,
		   offsetof(struct cmstat_heap_stats, classes) -
		   offsetof(struct cmstat_heap_stats, live_bytes)))
		return false;
	for (i = 0; i < CMSTAT_NR_CLASSES; i++)
		if (x->classes[i].mallocs != y->classes[i].mallocs ||
		    x->classes[i].frees != y->classes[i].frees ||
		    x->classes[i].live_objects != y->classes[i].live_objects)
			return false;
	return true;
}

/*
 * With several heaps under load, every cut of the heaps and all heaps
 * together agrees: all minus the heaps is what the rest (other heaps,
 * orphans, the destroyed heaps, none of which move meanwhile) held at the
 * start, in every field and every class, and the snapshots share one
 * epoch.  The control, every fourth time, reads the heaps, and then all,
 * one by one.
 */
static void alloc_stress_heaps_sum(struct kunit *test)
{
	struct cmstat_heap_stats *st, *all, *base, *d;
	unsigned long snapshots = 0, violations = 0, control = 0;
	struct stress_load *l;
	unsigned int i;
	char extra[40];

	st = kunit_kcalloc(test, MAX_HEAPS, sizeof(*st), GFP_KERNEL);
	all = kunit_kzalloc(test, sizeof(*all), GFP_KERNEL);
	base = kunit_kzalloc(test, sizeof(*base), GFP_KERNEL);
	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, all);
	KUNIT_ASSERT_NOT_NULL(test, base);
	KUNIT_ASSERT_NOT_NULL(test, d);
	l = stress_start(test, MAX_HEAPS);
	/* All minus the test's heaps: the rest, which no worker touches. */
	if (cmstat_heaps_read(l->heaps, l->nr_heaps, st, all))
		violations++;
	all_minus_heaps(all, st, l->nr_heaps, base);

	/* Half the cuts of the other case: each costs more, with its control. */
	while (snapshots < stress_round_snapshots() / 2) {
		if (cmstat_heaps_read(l->heaps, l->nr_heaps, st, all))
			continue;
		snapshots++;
		all_minus_heaps(all, st, l->nr_heaps, d);
		for (i = 0; i < l->nr_heaps; i++)
			if (st[i].epoch != all->epoch)
				violations++;
		violations += !same_difference(d, base);

		/* The control costs five reads: one time in four. */
		if (snapshots % 4)
			continue;
		for (i = 0; i < l->nr_heaps; i++)
			cmstat_heap_read(l->heaps[i], &st[i]);
		cmstat_heaps_read_all(all);
		all_minus_heaps(all, st, l->nr_heaps, d);
		control += !same_difference(d, base);
	}
	snprintf(extra, sizeof(extra), " control_violations=%lu", control);
	stress_finish(test, l, "violations", snapshots, violations, extra);
	/* The control must see what the one cut hides, or the check is blind. */
	KUNIT_EXPECT_GT(test, control, 0);
}

/*
 * Very slow: every CPU allocates for tens of seconds, so that a run can
 * leave them out with "speed>very_slow".
 */
static struct kunit_case alloc_stress_cases[] = {
	KUNIT_CASE_PARAM_ATTR(alloc_stress_concurrent, stress_rounds_gen_params,
			      { .speed = KUNIT_SPEED_VERY_SLOW }),
	KUNIT_CASE_PARAM_ATTR(alloc_stress_heaps_sum, stress_rounds_gen_params,
			      { .speed = KUNIT_SPEED_VERY_SLOW }),
	{}
};

static struct kunit_suite alloc_stress_suite = {
	.name = "cmstat_alloc_stress",
	.test_cases = alloc_stress_cases,
};

kunit_test_suite(alloc_stress_suite);
