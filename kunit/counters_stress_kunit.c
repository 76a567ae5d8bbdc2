// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit concurrency tests of the consistent counters: writers in task,
 * softirq, hardirq and NMI context on every CPU, nesting into each other,
 * while a reader checks an invariant on every snapshot and a control reader
 * with no protocol shows that the check can see inconsistency.  A second
 * case takes a CPU offline and back during the stress.
 *
 * Every update adds k to A, 2k to B and 3k to C in one section, so each
 * consistent snapshot has B == 2 * A and C == A + B, and at the end A equals
 * the sum of what every writer says it added.
 *
 * Sections are a few dozen instructions, so a reader's IPI would rarely
 * land inside one, and the stress could not tell a broken protocol from a
 * working one.  So every 8th task section lingers, with a softirq section
 * (a BH work item) nested in it that lingers too: most of the time an IPI
 * lands inside an open task section, and often inside the softirq section
 * nested in it.  Built with CMSTAT_MUTATIONS (a test-only build of cmstat
 * and of this module, see module/mutation.c), the stress checks that each
 * mutation of the protocol makes it report violations.
 *
 * A third case nests sections in sections of their own context, as
 * clients do: a writer's section, opened at a depth of 1 or (under a raw
 * spinlock) 2, holds an allocation and a free through cmstat's inline
 * paths and, under one more raw spinlock, a section of its own on the
 * same set, four levels deep, and the timers' sections in softirq and
 * hardirq context nest the same way, two levels deep (raising the depth
 * with preempt_disable()).  A writer's every level lingers after the one
 * inside it has ended: a section nested on its outer one's sequence
 * counter would let the reader fold the outer one right there, half done.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#ifdef CONFIG_X86
#include <asm/hardirq.h>
#endif
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#define HAVE_TEST_NMI 1
#else
#define HAVE_TEST_NMI 0
#endif

#include <cmstat/alloc.h>
#include <cmstat/compat.h>
#include <cmstat/counters.h>
#include <cmstat/testing.h>

#include "cmstat_kunit.h"

/*
 * For the whole module: the control reader, cmstat_counters_sum_racy(),
 * and counters_kunit.c's cmstat_group_gen().
 */
CMSTAT_IMPORT_TESTING();

static unsigned int stress_snapshots = 2000;
module_param(stress_snapshots, uint, 0444);
MODULE_PARM_DESC(stress_snapshots,
		 "Consistent snapshots per stress case, over its rounds (default 2000)");

enum { CTR_A, CTR_B, CTR_C, NR_STRESS_COUNTERS };

/* Timer periods: frequent enough to nest often, rare enough for TCG. */
#define HARD_PERIOD_NS	(150 * NSEC_PER_USEC)
#define SOFT_PERIOD_NS	(230 * NSEC_PER_USEC)

/* How long a lingering section waits between its first and second add. */
#define LINGER_US	10

/*
 * What each context added to A, per CPU; only ever added to locally.
 * nmi_refused counts NMI sections that cmstat_section_begin() refused.
 */
struct stress_tally {
	u64 softirq;
	u64 hardirq;
	u64 nmi;
	u64 nmi_refused;
};

struct stress_cpu {
	struct hrtimer hard;
	struct hrtimer soft;
	struct irq_work work;
	struct work_struct bh_work;
	bool nmi_pending;
};

/* Levels of sections nested in one another by the nesting case. */
#define NEST_LEVELS	4

struct stress_writer {
	struct task_struct *task;
	raw_spinlock_t locks[NEST_LEVELS];	/* the nesting case's, its own */
	unsigned long updates;	/* the nesting case's, so far */
	u64 added;		/* what this kthread added to A */
	bool sleeps;		/* between sections: its CPU goes idle */
	bool started;		/* its first section is done */
};

static struct cmstat_counters *stress_set;
/*
 * Set to stop the timers, the irq_work and the NMIs, which poll it and
 * neither re-arm nor queue more once they see it; stress_timers_stop()
 * then waits for each (hrtimer_cancel(), irq_work_sync(), flush_work()),
 * which orders whatever it did before.  The writers stop by kthread_stop().
 */
static bool stress_stop;
/* The nesting case runs: set before its writers and timers start. */
static bool stress_nest;
/* Where the nesting case allocates, inside its sections. */
static struct cmstat_heap *stress_heap;
static DEFINE_PER_CPU(struct stress_tally, stress_tally);
static DEFINE_PER_CPU(struct stress_cpu, stress_cpu);

/*
 * The mutation cmstat was built and loaded with; 0 for none.  In that
 * build kunit/Kbuild passes cmstat's private module/mutation.h, which
 * declares the parameter.
 */
static int stress_mutation(void)
{
#ifdef CMSTAT_MUTATIONS
	return READ_ONCE(cmstat_mutation);
#else
	return 0;
#endif
}

/*
 * One update of the invariant triple.  @mid runs between the A and B adds,
 * inside the section, to make another context nest right there.
 * Return: whether the section was opened (and the update made).
 */
static bool stress_update(u64 k, void (*mid)(void))
{
	struct cmstat_section sec;
	u64 __percpu *slot;

	if (!cmstat_section_begin(&sec, cmstat_counters_group(stress_set)))
		return false;
	slot = cmstat_section_slot(&sec, stress_set);
	cmstat_section_add(slot, CTR_A, k);
	if (mid)
		mid();
	cmstat_section_add(slot, CTR_B, 2 * k);
	cmstat_section_add(slot, CTR_C, 3 * k);
	cmstat_section_end(&sec);
	return true;
}

static void stress_linger(void)
{
	udelay(LINGER_US);
}

static u64 stress_update_nested(u64 k, struct stress_writer *w,
				unsigned int level);
static void stress_queue_irq_work(void);

/*
 * Inside a section of nesting level @level: an allocation and a free, each
 * a section one deeper, then the next level's section, one deeper still,
 * under a lock of the writer @w's own, or preempt_disable() in the
 * timers' (@w NULL).  The innermost of every 64th update of a writer
 * has the hardirq and NMI sections of the irq work nested in it.
 * Return: what the sections nested here added to A.
 */
static u64 stress_nest_inside(struct stress_writer *w, unsigned int level)
{
	void *obj = cmstat_alloc(stress_heap, 64, GFP_ATOMIC);
	u64 added;

	/* Refused where PREEMPT_RT's allocator cannot run: still a section. */
	if (obj)
		cmstat_free(stress_heap, obj, 64);
	if (level == NEST_LEVELS) {
		if (w && w->updates % 64 == 0)
			stress_queue_irq_work();
		return 0;
	}
	if (w) {
		raw_spin_lock_nested(&w->locks[level], level);
		added = stress_update_nested(1, w, level + 1);
		raw_spin_unlock(&w->locks[level]);
	} else {
		preempt_disable();
		added = stress_update_nested(1, w, level + 1);
		preempt_enable();
	}
	return added;
}

/*
 * One update of the invariant triple at nesting level @level, the levels
 * above nested inside it between the A and B adds.  A writer's lingers
 * after them at every level, a softirq's at its outermost: that is where
 * a reader's IPI must land to see a section nested on its outer one's
 * counter.  A hardirq's never does (no IPI lands in one), and lingering
 * there, every 150 us, would starve the CPU on a busy host.  Return: what
 * it and the sections nested in it added to A; 0 if it was not opened.
 */
static u64 stress_update_nested(u64 k, struct stress_writer *w,
				unsigned int level)
{
	struct cmstat_section sec;
	u64 __percpu *slot;
	u64 added;

	if (!cmstat_section_begin(&sec, cmstat_counters_group(stress_set)))
		return 0;
	slot = cmstat_section_slot(&sec, stress_set);
	cmstat_section_add(slot, CTR_A, k);
	added = k + stress_nest_inside(w, level);
	if (w || (level == NEST_LEVELS - 1 && in_serving_softirq()))
		stress_linger();
	cmstat_section_add(slot, CTR_B, 2 * k);
	cmstat_section_add(slot, CTR_C, 3 * k);
	cmstat_section_end(&sec);
	return added;
}

/* A lingering softirq section, nested in a lingering task section. */
static void stress_bh_work(struct work_struct *work)
{
	if (stress_update(1, stress_linger))
		this_cpu_add(stress_tally.softirq, 1);
}

/*
 * Inside a task section: linger, run the BH work item right here (it is
 * queued on this CPU, and local_bh_enable() runs the pending softirq),
 * linger again.
 */
static void stress_linger_nested(void)
{
	stress_linger();
	local_bh_disable();
	queue_work(system_bh_wq, this_cpu_ptr(&stress_cpu.bh_work));
	local_bh_enable();
	stress_linger();
}

#if HAVE_TEST_NMI
static int stress_nmi(unsigned int type, struct pt_regs *regs)
{
	struct stress_cpu *sc = this_cpu_ptr(&stress_cpu);

	if (!READ_ONCE(sc->nmi_pending))
		return NMI_DONE;
	if (stress_update(1, NULL))
		this_cpu_add(stress_tally.nmi, 1);
	else
		this_cpu_add(stress_tally.nmi_refused, 1);
	/* Pairs with READ_ONCE() in stress_wait_nmis(). */
	WRITE_ONCE(sc->nmi_pending, false);
	return NMI_HANDLED;
}

/* Raise an NMI on this CPU, which lands inside the caller's section. */
static void stress_raise_nmi(void)
{
	struct stress_cpu *sc = this_cpu_ptr(&stress_cpu);

	if (READ_ONCE(sc->nmi_pending) || READ_ONCE(stress_stop))
		return;
	WRITE_ONCE(sc->nmi_pending, true);
	apic->send_IPI_self(NMI_VECTOR);
}
#else
static void stress_raise_nmi(void) { }
#endif

/* Hardirq (via self-IPI) nested in a task section; NMI nested in it. */
static DEFINE_PER_CPU(unsigned int, stress_irq_work_calls);

static void stress_irq_work(struct irq_work *work)
{
	/* Every 4th has an NMI nest inside it. */
	if (stress_update(1, (this_cpu_inc_return(stress_irq_work_calls) % 4) ?
			  NULL : stress_raise_nmi))
		this_cpu_add(stress_tally.hardirq, 1);
}

static void stress_queue_irq_work(void)
{
	if (!READ_ONCE(stress_stop))
		irq_work_queue(this_cpu_ptr(&stress_cpu.work));
}

/*
 * The nesting case's timers nest two levels deep, every 256th time: an
 * allocation under KASAN and kmemleak costs a debug kernel under TCG on a
 * busy host a millisecond or more, and levels of them in an interrupt
 * every 150 us left its CPU no time for anything else (a section of its
 * writer's stayed open for minutes).
 */
#define NEST_TIMER_EVERY	256
static DEFINE_PER_CPU(unsigned int, stress_timer_calls);

/* Both timers: the hard one fires in hardirq, the soft one in softirq. */
static enum hrtimer_restart stress_timer(struct hrtimer *t)
{
	bool hard = in_hardirq();
	u64 added;

	if (READ_ONCE(stress_nest) &&
	    this_cpu_inc_return(stress_timer_calls) % NEST_TIMER_EVERY == 0)
		added = stress_update_nested(1, NULL, NEST_LEVELS - 1);
	else
		added = stress_update(1, NULL);
	if (hard)
		this_cpu_add(stress_tally.hardirq, added);
	else
		this_cpu_add(stress_tally.softirq, added);
	if (READ_ONCE(stress_stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(hard ? HARD_PERIOD_NS : SOFT_PERIOD_NS));
	return HRTIMER_RESTART;
}

/*
 * The nesting case's update: every other one under a lock, so that the
 * outermost section is at depth 2, where it and the allocation nested in
 * it, at depth 3, shared a counter before cmstat indexed them by depth
 * (mutation 4).  The timers' sections nest in these, and nest as deep.
 */
static u64 stress_writer_nested(struct stress_writer *w)
{
	u64 k = w->updates % 7 + 1, added;

	if (w->updates++ % 2)
		return stress_update_nested(k, w, 1);
	raw_spin_lock(&w->locks[0]);
	added = stress_update_nested(k, w, 1);
	raw_spin_unlock(&w->locks[0]);
	return added;
}

static int stress_writer_fn(void *arg)
{
	struct stress_writer *w = arg;
	unsigned long n = 0;

	while (!kthread_should_stop()) {
		u64 k = n % 7 + 1;
		void (*mid)(void) = NULL;

		/*
		 * A nested update runs for milliseconds with preemption off
		 * on a debug kernel: let the CPU's other tasks (RCU's
		 * kthread) in every 4th.
		 */
		if (READ_ONCE(stress_nest)) {
			w->added += stress_writer_nested(w);
			if (n % 4 == 3)
				cond_resched();
			goto next;
		}

		/*
		 * Every 64th section has a hardirq nest inside it, every 8th
		 * else a softirq one, but on PREEMPT_RT: softirqs run in
		 * threads there, which cannot run in a section (preemption
		 * is off), and local_bh_disable() may not be called in one.
		 */
		if (n % 64 == 0)
			mid = stress_queue_irq_work;
		else if (n % 8 == 0 && !IS_ENABLED(CONFIG_PREEMPT_RT))
			mid = stress_linger_nested;
		if (stress_update(k, mid))
			w->added += k;
next:
		/* Only when, not what: read by stress_start()'s wait. */
		if (!n)
			WRITE_ONCE(w->started, true);
		if (w->sleeps)
			usleep_range(50, 100);
		else if ((n + 1) % 256 == 0)
			cond_resched();
		n++;
	}
	return 0;
}

static bool stress_consistent(const u64 *t)
{
	return t[CTR_B] == 2 * t[CTR_A] && t[CTR_C] == t[CTR_A] + t[CTR_B];
}

struct stress_run {
	unsigned int nr_writers;
	bool sleepers;		/* writers that sleep between sections */
	struct stress_writer *writers;
	unsigned long snapshots;
	unsigned long violations;
	unsigned long control_violations;
	unsigned long regressions;	/* A went backwards between snapshots */
	u64 last_a;			/* A in the last snapshot */
};

static void stress_init_cpu(unsigned int cpu)
{
	struct stress_cpu *sc = per_cpu_ptr(&stress_cpu, cpu);

	sc->work = IRQ_WORK_INIT_HARD(stress_irq_work);
	INIT_WORK(&sc->bh_work, stress_bh_work);
	sc->nmi_pending = false;
	cmstat_hrtimer_setup(&sc->hard, stress_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
	cmstat_hrtimer_setup(&sc->soft, stress_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_SOFT);
}

/* hrtimer_start() on another CPU's timer: run it there. */
static void stress_arm_timers(void *unused)
{
	struct stress_cpu *sc = this_cpu_ptr(&stress_cpu);

	hrtimer_start(&sc->hard, ns_to_ktime(HARD_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_start(&sc->soft, ns_to_ktime(SOFT_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_SOFT);
}

#if HAVE_TEST_NMI
/*
 * Unregister the NMI handler: when the case ends, or at its stop.  An NMI
 * raised just before the stop may still be on its way.
 */
static void stress_nmi_unregister(void *unused)
{
	unsigned int cpu;
	int i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < 1000 &&
		     READ_ONCE(per_cpu_ptr(&stress_cpu, cpu)->nmi_pending); i++)
			usleep_range(1000, 2000);
	unregister_nmi_handler(NMI_LOCAL, "cmstat_kunit");
}
#endif

/*
 * Stop the timers, and what they and the writers queued: when the case
 * ends, or at its stop, once the writers are stopped.
 */
static void stress_timers_stop(void *unused)
{
	unsigned int cpu;

	WRITE_ONCE(stress_stop, true);
	for_each_possible_cpu(cpu) {
		struct stress_cpu *sc = per_cpu_ptr(&stress_cpu, cpu);

		hrtimer_cancel(&sc->hard);
		hrtimer_cancel(&sc->soft);
		irq_work_sync(&sc->work);
		flush_work(&sc->bh_work);
	}
}

static void stress_start(struct kunit *test, struct stress_run *run)
{
	unsigned int i, l, cpu;

	run->writers = kunit_kcalloc(test, run->nr_writers,
				     sizeof(*run->writers), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, run->writers);
	stress_set = cmstat_kunit_counters(test, NULL, NR_STRESS_COUNTERS);
	/*
	 * With fewer writers than CPUs, the reader (this case's own kthread)
	 * keeps to the last CPU and the writers start at the first.  A writer
	 * on the reader's CPU is never inside its section when the reader
	 * reads, since sections do not sleep: a round of one writer there,
	 * as a busy host's scheduler can arrange, would prove nothing.
	 */
	if (run->nr_writers < num_online_cpus()) {
		cpu = cpumask_last(cpu_online_mask);
		KUNIT_ASSERT_EQ(test,
				set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	}
#if HAVE_TEST_NMI
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, stress_nmi, 0,
						   "cmstat_kunit"), 0);
	cmstat_kunit_defer(test, stress_nmi_unregister, NULL);
#endif
	WRITE_ONCE(stress_stop, false);
	for_each_possible_cpu(cpu) {
		memset(per_cpu_ptr(&stress_tally, cpu), 0,
		       sizeof(struct stress_tally));
		stress_init_cpu(cpu);
	}
	cmstat_kunit_defer(test, stress_timers_stop, NULL);
	on_each_cpu(stress_arm_timers, NULL, 1);

	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < run->nr_writers; i++) {
		struct stress_writer *w = &run->writers[i];
		struct task_struct *t;

		for (l = 0; l < NEST_LEVELS; l++)
			raw_spin_lock_init(&w->locks[l]);
		w->sleeps = run->sleepers;
		t = kthread_create(stress_writer_fn, w, "cmstat_stress/%u", i);
		w->task = cmstat_kunit_kthread(test, t);
		kthread_bind(w->task, cpu);
		wake_up_process(w->task);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	/*
	 * Snapshots start once every writer has written: on a busy host a
	 * writer kthread may not have run yet, and a round read before it
	 * does proves nothing.  KUnit's timeout catches a writer that never
	 * runs.
	 */
	for (i = 0; i < run->nr_writers; i++)
		while (!READ_ONCE(run->writers[i].started))
			usleep_range(100, 200);
}

#if HAVE_TEST_NMI
static void stress_wait_nmis(struct kunit *test)
{
	unsigned int cpu;

	kunit_release_action(test, stress_nmi_unregister, NULL);
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_FALSE(test, per_cpu_ptr(&stress_cpu, cpu)->nmi_pending);
}
#endif

/* Stop every writer; return what they all added to A. */
static u64 stress_stop_all(struct kunit *test, struct stress_run *run,
			   struct stress_tally *sum)
{
	u64 added = 0;
	unsigned int i, cpu;

	WRITE_ONCE(stress_stop, true);
	for (i = 0; i < run->nr_writers; i++) {
		cmstat_kunit_kthread_stop(test, run->writers[i].task);
		added += run->writers[i].added;
	}
	kunit_release_action(test, stress_timers_stop, NULL);
#if HAVE_TEST_NMI
	stress_wait_nmis(test);
#endif
	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		struct stress_tally *t = per_cpu_ptr(&stress_tally, cpu);

		sum->softirq += t->softirq;
		sum->hardirq += t->hardirq;
		sum->nmi += t->nmi;
		sum->nmi_refused += t->nmi_refused;
	}
	return added + sum->softirq + sum->hardirq + sum->nmi;
}

/*
 * Violations after which a mutant round has shown what it must.  Some
 * mutations leave a counter odd at rest, and every read after that waits
 * section_timeout for it: a full round of those outlasts KUnit's case
 * timeout on a slow host, and proves no more.
 */
#define STRESS_MUTANT_SHOWN	4

static bool stress_mutant_shown(const struct stress_run *run)
{
	return stress_mutation() && run->violations >= STRESS_MUTANT_SHOWN &&
	       run->control_violations;
}

/* Take a snapshot and a control sum, and check both. */
static void stress_read_one(struct stress_run *run)
{
	u64 t[NR_STRESS_COUNTERS];

	if (cmstat_counters_read(stress_set, t, NULL))
		return;
	run->snapshots++;
	if (!stress_consistent(t))
		run->violations++;
	if (t[CTR_A] < run->last_a)
		run->regressions++;
	run->last_a = t[CTR_A];

	cmstat_counters_sum_racy(stress_set, t);
	if (!stress_consistent(t))
		run->control_violations++;
	cond_resched();
}

/* Read up to @n snapshots in all; fewer once a mutant round has shown. */
static void stress_read_loop(struct stress_run *run, unsigned long n)
{
	while (run->snapshots < n && !stress_mutant_shown(run))
		stress_read_one(run);
}

/*
 * Whether sections have run in softirq, hardirq and (where the test raises
 * NMIs) NMI context.
 */
static bool stress_every_context_wrote(void)
{
	u64 softirq = 0, hardirq = 0, nmi = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		/*
		 * Racy on purpose, against the writers' this_cpu_add(): only
		 * whether a count moved matters, and stress_stop_all() sums
		 * the exact ones once everything has stopped.
		 */
		struct stress_tally t = data_race(*per_cpu_ptr(&stress_tally, cpu));

		softirq += t.softirq;
		hardirq += t.hardirq;
		nmi += t.nmi + t.nmi_refused;
	}
	return softirq && hardirq && (!HAVE_TEST_NMI || nmi);
}

/* Snapshots per extra round of a mutation that has not shown yet. */
#define STRESS_MORE_SNAPSHOTS	125

static void stress_finish(struct kunit *test, struct stress_run *run,
			  const char *extra)
{
	struct stress_tally sum;
	u64 t[NR_STRESS_COUNTERS], added;
	unsigned int more;
	bool exact;

	/*
	 * A short round (a fast host, or mutation 1's reader that does not
	 * wait) can end before an NMI, one per 256 writer sections, came:
	 * read on, by count, until every context has written.
	 */
	while (!stress_every_context_wrote())
		stress_read_one(run);
	/*
	 * A broken protocol shows sooner or later, but one writer that a
	 * busy host keeps off its CPU for a whole round may hide it: read on,
	 * by count, up to 16 rounds more, until it shows.
	 */
	for (more = 0; stress_mutation() && !run->sleepers &&
	     !run->violations && more < 16; more++)
		stress_read_loop(run, run->snapshots + STRESS_MORE_SNAPSHOTS);
	added = stress_stop_all(test, run, &sum);
	KUNIT_EXPECT_EQ(test, cmstat_counters_read(stress_set, t, NULL), 0);
	exact = t[CTR_A] == added && stress_consistent(t);

	kunit_info(test,
		   "cpus=%u writers=%u mutation=%d snapshots=%lu violations=%lu control_violations=%lu totals_exact=%d softirq=%llu hardirq=%llu nmi=%llu nmi_refused=%llu%s\n",
		   num_online_cpus(), run->nr_writers, stress_mutation(),
		   run->snapshots, run->violations, run->control_violations,
		   exact, sum.softirq, sum.hardirq, sum.nmi, sum.nmi_refused,
		   extra);
	/*
	 * The checks of the test's power need writers that are in a section
	 * most of the time; sleeping writers seldom are, and their round
	 * checks the rest.
	 */
	if (!stress_mutation()) {
		KUNIT_EXPECT_EQ(test, run->violations, 0);
		KUNIT_EXPECT_EQ(test, run->regressions, 0);
		KUNIT_EXPECT_TRUE(test, exact);
	} else if (!run->sleepers) {
		/* A broken protocol must show; the totals may be off too. */
		KUNIT_EXPECT_GT(test, run->violations, 0);
	}
	/* The control must see what the protocol hides, or the check is blind. */
	if (num_online_cpus() >= 2 && !run->sleepers)
		KUNIT_EXPECT_GT(test, run->control_violations, 0);
	/* Every context really wrote. */
	KUNIT_EXPECT_GT(test, sum.softirq, 0);
	KUNIT_EXPECT_GT(test, sum.hardirq, 0);
	/* NMI writers, where per-CPU operations are NMI-safe; else refused. */
	if (HAVE_TEST_NMI) {
		KUNIT_EXPECT_GT(test, CMSTAT_NMI_WRITERS ? sum.nmi :
				sum.nmi_refused, 0);
		KUNIT_EXPECT_EQ(test, CMSTAT_NMI_WRITERS ? sum.nmi_refused :
				sum.nmi, 0);
	}
	cmstat_kunit_counters_free(test, stress_set);
	stress_set = NULL;
}

/*
 * The stress runs in rounds of stress_snapshots / STRESS_ROUNDS snapshots,
 * each a KUnit case of its own: under a busy host a snapshot can take ten
 * times as long or more (its IPIs wait for vCPUs the host has
 * descheduled), and a case must finish within KUnit's fixed five minutes.
 */
#define STRESS_ROUNDS	4

/*
 * The parameters: one round with a single writer kthread, then every
 * round with one per online CPU, then one more round whose writers sleep
 * between sections: their CPUs go idle, and the reader leaves idle CPUs
 * alone (cmstat_cpu_quiescent()), so that path runs under load too.
 */
struct stress_param {
	bool per_cpu;		/* a writer per online CPU, else one */
	bool sleep;		/* writers sleep between sections */
	unsigned int round;	/* 1 to STRESS_ROUNDS */
};

static const struct stress_param stress_params[] = {
	{ .per_cpu = false, .round = 1 },
	{ .per_cpu = true, .round = 1 },
	{ .per_cpu = true, .round = 2 },
	{ .per_cpu = true, .round = 3 },
	{ .per_cpu = true, .round = 4 },
	{ .per_cpu = true, .sleep = true, .round = 1 },
};

static_assert(STRESS_ROUNDS == 4, "stress_params[] has 4 per-CPU rounds");

static unsigned int stress_param_writers(const struct stress_param *p)
{
	return p->per_cpu ? num_online_cpus() : 1;
}

/* Named for what it runs, as the KTAP output shows: "writers=4 round=2". */
static void stress_param_desc(const struct stress_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "writers=%u%s round=%u",
		 stress_param_writers(p), p->sleep ? " sleeping" : "",
		 p->round);
}

KUNIT_ARRAY_PARAM(stress, stress_params, stress_param_desc);

/* Function-call IPIs the CPUs have taken, where the arch counts them. */
static u64 stress_call_ipis(void)
{
	u64 n = 0;
#ifdef CONFIG_X86
	unsigned int cpu;

	for_each_online_cpu(cpu)
		n += per_cpu(irq_stat, cpu).irq_call_count;
#endif
	return n;
}

static void stress_consistency(struct kunit *test)
{
	const struct stress_param *p = test->param_value;
	struct stress_run run = {
		.nr_writers = stress_param_writers(p),
		.sleepers = p->sleep,
	};
	u64 ipis = stress_call_ipis();
	char extra[32];

	stress_start(test, &run);
	stress_read_loop(&run, DIV_ROUND_UP(stress_snapshots, STRESS_ROUNDS));
	ipis = stress_call_ipis() - ipis;
	snprintf(extra, sizeof(extra), " call_ipis=%llu", ipis);
	/*
	 * Every snapshot would IPI every other CPU, were none skipped: with
	 * sleeping writers most are idle when it comes.  Not in a mutant
	 * run, whose round may end after a dozen snapshots, when the
	 * system's other function-call IPIs outnumber the bound.
	 */
	if (run.sleepers && IS_ENABLED(CONFIG_X86) && !stress_mutation())
		KUNIT_EXPECT_LT(test, ipis,
				(u64)run.snapshots * (num_online_cpus() - 1));
	stress_finish(test, &run, extra);
}

/*
 * The nesting case's rounds: together one round of the stress, each a
 * case of its own.  Beside two CPU hogs, the whole round of 500 snapshots
 * took longer than KUnit's five minutes; a quarter of it, which shows a
 * broken protocol as well (a mutant round reads on until it shows), stays
 * well inside them.
 */
static const unsigned int nesting_rounds[] = { 1, 2, 3, 4 };

static_assert(ARRAY_SIZE(nesting_rounds) == STRESS_ROUNDS);

static void nesting_round_desc(const unsigned int *round, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "round=%u", *round);
}

KUNIT_ARRAY_PARAM(nesting, nesting_rounds, nesting_round_desc);

/*
 * Sections nested in sections of their own context, with allocations and
 * frees inside them, a writer per CPU and the timers in softirq and
 * hardirq context.
 */
static void stress_nesting(struct kunit *test)
{
	struct stress_run run = { .nr_writers = num_online_cpus() };

	stress_heap = cmstat_kunit_heap(test, "kunit_nesting");
	WRITE_ONCE(stress_nest, true);
	stress_start(test, &run);
	stress_read_loop(&run, DIV_ROUND_UP(stress_snapshots,
					    STRESS_ROUNDS * STRESS_ROUNDS));
	stress_finish(test, &run, " nested=4");
	WRITE_ONCE(stress_nest, false);
}

#define HOTPLUG_MIN_CYCLES	3

/*
 * Written by hotplug_fn() only, read locklessly by stress_hotplug()'s
 * loop with READ_ONCE(): flags for when to stop, ordering nothing else
 * (kthread_stop() orders the final values).  @online_err is
 * hotplug_online()'s.
 */
struct hotplug_ctl {
	unsigned int cpu;
	unsigned int cycles;
	int err;
	int online_err;
};

static int hotplug_fn(void *arg)
{
	struct hotplug_ctl *h = arg;
	int ret;

	while (!kthread_should_stop()) {
		ret = remove_cpu(h->cpu);
		if (!ret) {
			msleep(20);
			ret = add_cpu(h->cpu);
			if (!ret)
				WRITE_ONCE(h->cycles, h->cycles + 1);
		}
		if (ret && ret != -EBUSY)
			WRITE_ONCE(h->err, ret);
		msleep(100);
	}
	return 0;
}

/* Leave the CPU online whatever happened, once hotplug_fn() has stopped. */
static void hotplug_online(void *arg)
{
	struct hotplug_ctl *h = arg;

	if (!cpu_online(h->cpu))
		h->online_err = add_cpu(h->cpu);
}

static void stress_hotplug(struct kunit *test)
{
	struct stress_run run = { .nr_writers = num_online_cpus() };
	struct hotplug_ctl *h;
	struct task_struct *ht;
	char extra[48];

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs 2 CPUs");

	stress_start(test, &run);
	h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	h->cpu = cpumask_last(cpu_online_mask);
	/* Before the kthread's stop action: it runs after that one. */
	cmstat_kunit_defer(test, hotplug_online, h);
	ht = cmstat_kunit_kthread(test, kthread_create(hotplug_fn, h,
						       "cmstat_hotplug"));
	wake_up_process(ht);
	/*
	 * Each hotplug step holds readers off: fewer snapshots, same checks,
	 * and as many more as it takes for some hotplug cycles to happen
	 * during the stress, however slow the host.
	 */
	stress_read_loop(&run, stress_snapshots / 4);
	while (READ_ONCE(h->cycles) < HOTPLUG_MIN_CYCLES && !READ_ONCE(h->err))
		stress_read_loop(&run, run.snapshots + 1);
	cmstat_kunit_kthread_stop(test, ht);
	kunit_release_action(test, hotplug_online, h);
	KUNIT_EXPECT_EQ(test, h->online_err, 0);

	snprintf(extra, sizeof(extra), " hotplug_cycles=%u", h->cycles);
	stress_finish(test, &run, extra);
	KUNIT_EXPECT_EQ(test, h->err, 0);
	KUNIT_EXPECT_GT(test, h->cycles, 0);
}

static int stress_init(struct kunit *test)
{
	/* A nesting case that failed an assertion may have left it set. */
	WRITE_ONCE(stress_nest, false);
	if (!cmstat_accounting_enabled())
		kunit_skip(test, "cmstat loaded with accounting=0");
	return 0;
}

static struct kunit_case stress_cases[] = {
	KUNIT_CASE_PARAM_ATTR(stress_consistency, stress_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(stress_nesting, nesting_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_SLOW(stress_hotplug),
	{}
};

static struct kunit_suite stress_suite = {
	.name = "cmstat_counters_stress",
	.init = stress_init,
	.test_cases = stress_cases,
};

kunit_test_suite(stress_suite);
