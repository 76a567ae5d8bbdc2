// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_nest_test: writer sections nested in sections of their own
 * context, as a client module nests them, on every kernel (the stock ones
 * have no KUnit).  Each case is a writer thread on the first CPU whose
 * sections move an amount from counter B to counter A of a set, so that
 * A + B is 0 in every consistent snapshot, with something nested inside
 * each section between its two adds:
 *
 *	alloc_in_section	cmstat_alloc() and cmstat_free() (depth 2)
 *	depths_2_and_3		a section of its own, the outer one opened
 *				under a raw spinlock (depth 2), the inner
 *				right inside it (depth 3), with an
 *				allocation and a free inside that
 *	large_free_under_lock	a large cmstat_free() in a section under a
 *				raw spinlock
 *
 * while this module's init, on the last CPU, takes NEST_SNAPSHOTS
 * snapshots and checks each.  Then the writer stops, and the totals must
 * equal what it moved, and no sequence counter of any CPU may be left
 * odd.  The same unsynchronised sum as the control: it must see torn
 * sums, or the case could not see them either.
 *
 * Prints KTAP through cmstat_ktap.h, whose parameter "failed" counts the
 * cases that failed (scripts/guest/checks/client-nesting.sh).
 */

#include "cmstat_ktap.h"

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/spinlock.h>

#include <cmstat/alloc.h>
#include <cmstat/counters.h>
#include <cmstat/testing.h>

#define NEST_SNAPSHOTS	300
#define NEST_LARGE	(3 * PAGE_SIZE)
/* Between a section's two adds, around what is nested: a reader's window. */
#define NEST_LINGER_US	5

enum { CTR_A, CTR_B, NR_NEST_COUNTERS };

struct nest_case {
	void (*update)(struct nest_case *c, u64 k);
	struct cmstat_counters *set;
	struct cmstat_heap *heap;
	raw_spinlock_t lock;
	void *large;		/* allocated for large_free_under_lock */
	u64 moved;		/* what the writer moved, its own tally */
	bool stop;
	struct completion started;	/* its first update is done */
};

static void nest_add(struct cmstat_section *sec, struct nest_case *c,
		     unsigned int idx, s64 delta)
{
	cmstat_section_add(cmstat_section_slot(sec, c->set), idx, delta);
}

/*
 * One section moving @k from B to A, with @inner run between the adds.
 * Return: whether it was opened.
 */
static bool nest_section(struct nest_case *c, u64 k,
			 void (*inner)(struct nest_case *c))
{
	struct cmstat_section sec;

	if (!cmstat_section_begin(&sec, cmstat_counters_group(c->set)))
		return false;
	nest_add(&sec, c, CTR_A, k);
	udelay(NEST_LINGER_US);
	inner(c);
	udelay(NEST_LINGER_US);
	nest_add(&sec, c, CTR_B, -k);
	cmstat_section_end(&sec);
	return true;
}

static void nest_alloc_free(struct nest_case *c)
{
	void *obj = cmstat_alloc(c->heap, 64, GFP_ATOMIC);

	/* Refused where PREEMPT_RT's allocator cannot run: still a section. */
	if (obj)
		cmstat_free(c->heap, obj, 64);
}

static void alloc_in_section(struct nest_case *c, u64 k)
{
	if (nest_section(c, k, nest_alloc_free))
		c->moved += k;
}

static void nest_inner_section(struct nest_case *c)
{
	if (nest_section(c, 1, nest_alloc_free))
		c->moved += 1;
}

static void depths_2_and_3(struct nest_case *c, u64 k)
{
	raw_spin_lock(&c->lock);
	if (nest_section(c, k, nest_inner_section))
		c->moved += k;
	raw_spin_unlock(&c->lock);
}

static void nest_large_free(struct nest_case *c)
{
	cmstat_free(c->heap, c->large, NEST_LARGE);
	c->large = NULL;
}

static void large_free_under_lock(struct nest_case *c, u64 k)
{
	c->large = cmstat_alloc(c->heap, NEST_LARGE, GFP_KERNEL);
	if (!c->large)
		return;
	raw_spin_lock(&c->lock);
	if (nest_section(c, k, nest_large_free))
		c->moved += k;
	raw_spin_unlock(&c->lock);
	/* Accounting off: the section did not run, and the object is ours. */
	if (c->large)
		cmstat_free(c->heap, c->large, NEST_LARGE);
}

static int nest_writer(void *arg)
{
	struct nest_case *c = arg;
	unsigned long n = 0;

	/* Pairs with WRITE_ONCE() in nest_run(): when to stop, nothing else. */
	while (!READ_ONCE(c->stop)) {
		c->update(c, n % 7 + 1);
		if (!n)
			complete(&c->started);
		if (++n % 64 == 0)
			cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Whether every sequence counter of every CPU is even: no section open. */
static bool nest_counters_at_rest(void)
{
	unsigned int cpu, idx;

	for_each_possible_cpu(cpu)
		for (idx = 0; idx < CMSTAT_NR_SEQ; idx++)
			if (READ_ONCE(per_cpu(cmstat_cpu_seq, cpu).seq[idx]) & 1)
				return false;
	return true;
}

/*
 * Sections of other modules (the kernel's own allocations through cmstat,
 * if any) may be open at any instant, and on a busy host a vCPU inside
 * one may be descheduled for a long while: look many times, by count.
 * A counter a nested section left odd stays odd for good, so the bound
 * costs a passing run nothing.
 */
static bool nest_at_rest(void)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (nest_counters_at_rest())
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

static struct cmstat_heap *nest_heap;

/* Run one case: the writer makes its sections with @update. */
static void nest_run(struct ktap_test *kt,
		     void (*update)(struct nest_case *c, u64 k))
{
	struct nest_case cs = { .update = update, .heap = nest_heap }, *c = &cs;
	unsigned long snapshots = 0, torn = 0, control_torn = 0;
	u64 t[NR_NEST_COUNTERS];
	struct task_struct *w;
	bool exact, rest;

	if (num_online_cpus() < 2 || !cmstat_accounting_enabled()) {
		ktap_skip(kt, "needs 2 CPUs and accounting");
		return;
	}
	c->set = cmstat_counters_alloc(NULL, NR_NEST_COUNTERS);
	if (IS_ERR(c->set)) {
		ktap_fail(kt, "cmstat_counters_alloc: %pe", c->set);
		return;
	}
	raw_spin_lock_init(&c->lock);
	init_completion(&c->started);
	w = kthread_create(nest_writer, c, "cmstat_nest");
	if (IS_ERR(w)) {
		cmstat_counters_free(c->set);
		ktap_fail(kt, "kthread_create: %pe", w);
		return;
	}
	kthread_bind(w, cpumask_first(cpu_online_mask));
	wake_up_process(w);
	/*
	 * Snapshots start once the writer writes: on a busy host its thread
	 * may not run for a while, and snapshots of nothing prove nothing.
	 */
	wait_for_completion(&c->started);
	while (snapshots < NEST_SNAPSHOTS) {
		if (cmstat_counters_read(c->set, t, NULL))
			continue;
		snapshots++;
		torn += t[CTR_A] + t[CTR_B] != 0;
		cmstat_counters_sum_racy(c->set, t);
		control_torn += t[CTR_A] + t[CTR_B] != 0;
		cond_resched();
	}
	WRITE_ONCE(c->stop, true);
	kthread_stop(w);
	rest = nest_at_rest();
	exact = !cmstat_counters_read(c->set, t, NULL) &&
		t[CTR_A] == c->moved && t[CTR_A] + t[CTR_B] == 0;
	cmstat_counters_free(c->set);
	ktap_diag(kt, "snapshots=%lu torn=%lu control_torn=%lu moved=%llu",
		  snapshots, torn, control_torn, c->moved);
	KTAP_EXPECT(kt, !torn);
	KTAP_EXPECT(kt, control_torn);
	KTAP_EXPECT(kt, exact);
	KTAP_EXPECT(kt, rest);
}

static void alloc_in_section_case(struct ktap_test *t)
{
	nest_run(t, alloc_in_section);
}

static void depths_2_and_3_case(struct ktap_test *t)
{
	nest_run(t, depths_2_and_3);
}

static void large_free_under_lock_case(struct ktap_test *t)
{
	nest_run(t, large_free_under_lock);
}

static const struct ktap_case nest_cases[] = {
	{ "alloc_in_section", alloc_in_section_case },
	{ "depths_2_and_3", depths_2_and_3_case },
	{ "large_free_under_lock", large_free_under_lock_case },
};

static int __init nest_init(void)
{
	int err;

	nest_heap = cmstat_heap_create("nest_test");
	if (IS_ERR(nest_heap))
		return PTR_ERR(nest_heap);
	/* The reader keeps to the last CPU, the writer to the first. */
	set_cpus_allowed_ptr(current, cpumask_of(cpumask_last(cpu_online_mask)));
	err = ktap_run(nest_cases, ARRAY_SIZE(nest_cases));
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	cmstat_heap_destroy(nest_heap);
	return err;
}

static void __exit nest_exit(void)
{
}

module_init(nest_init);
module_exit(nest_exit);
MODULE_DESCRIPTION("cmstat: writer sections nested as a client nests them");
MODULE_LICENSE("GPL");
/* The control's unsynchronised sum: cmstat_counters_sum_racy(). */
CMSTAT_IMPORT_TESTING();
