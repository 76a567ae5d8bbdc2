// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat consistent per-CPU counters: allocation and the reader.
 *
 * The writers are inline, in include/cmstat/counters.h.  The reader closes
 * the current generation of a group of sets, waits for the sections that
 * may still write to it, and folds it into every set's totals.
 * Documentation/design.rst has the whole argument; the comments here name
 * the pairings.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/context_tracking_state.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/export.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include <cmstat/testing.h>

#include "internal.h"

DEFINE_PER_CPU(struct cmstat_cpu_seq, cmstat_cpu_seq);
EXPORT_PER_CPU_SYMBOL_GPL(cmstat_cpu_seq);

/* Switched off only at load time, see cmstat_accounting_init(). */
DEFINE_STATIC_KEY_TRUE(cmstat_accounting);
EXPORT_SYMBOL_GPL(cmstat_accounting);

/*
 * How long the reader busy-waits for one open section before it starts
 * sleeping between looks: sections are a handful of instructions, so one
 * still open after this long is on a CPU that was interrupted or a vCPU the
 * hypervisor descheduled, and spinning would only burn our own CPU.
 */
#define CMSTAT_WAIT_SPINS	128

/*
 * The reader looks for odd sequence counters four longs at a time: a run
 * of 8 counters on a 64-bit kernel, each long's odd ones in the low bits
 * of its halves (either byte order).  Almost every counter is even
 * almost always, so a CPU's 256 cost 32 tests instead of 256.
 */
#define CMSTAT_SEQ_PER_LONG	(sizeof(unsigned long) / sizeof(u32))
#define CMSTAT_SEQ_RUN		(4 * CMSTAT_SEQ_PER_LONG)
#define CMSTAT_SEQ_ODD		(ULONG_MAX / U32_MAX)	/* bit 0 of each u32 */
static_assert(CMSTAT_NR_SEQ % CMSTAT_SEQ_RUN == 0);

/*
 * Whether a counter of the run from @idx (a multiple of %CMSTAT_SEQ_RUN)
 * of @cs is odd.  Marked loads: the quiescent-CPU test reads another
 * CPU's counters, which only that CPU writes.
 */
static bool cmstat_seq_run_odd(const struct cmstat_cpu_seq *cs,
			       unsigned int idx)
{
	const unsigned long *w = (const unsigned long *)&cs->seq[idx];

	return (READ_ONCE(w[0]) | READ_ONCE(w[1]) | READ_ONCE(w[2]) |
		READ_ONCE(w[3])) & CMSTAT_SEQ_ODD;
}

/**
 * struct cmstat_seq_sample - one CPU's outermost open section at a close
 * @open: a sequence counter was odd
 * @idx: the lowest odd one, where @open
 * @seq: its value then
 * @csd: the reader's IPI that takes the sample on that CPU
 */
struct cmstat_seq_sample {
	bool open;
	unsigned int idx;
	u32 seq;
	call_single_data_t csd;
};

/**
 * struct cmstat_group_state - a group's reader side
 * @gen: generations closed so far; the number of the last snapshot.
 * @closing: a reader closed generation @gen but was interrupted while
 *	waiting for its sections; the next reader finishes that close before
 *	it closes its own.
 * @read_lock: serialises readers, across their wait for open sections;
 *	taken killable.
 * @sets_lock: protects @sets; never held across a wait, so that sets
 *	come and go while a reader waits.
 * @sets: the member sets, through &struct cmstat_set.node.
 * @sample: each CPU's open sections, as their sequence counters stood on
 *	that CPU when the reader closed the last generation.
 * @sampling: the samples a close still waits for, and one more while the
 *	reader sends their IPIs.
 * @sampled: completed by the last of them.
 */
struct cmstat_group_state {
	unsigned long gen;
	bool closing;
	struct mutex read_lock;	/* serialises readers */
	struct mutex sets_lock;	/* protects @sets */
	struct list_head sets;
	struct cmstat_seq_sample __percpu *sample;
	atomic_t sampling;
	struct completion sampled;
};

/**
 * struct cmstat_set - a counter set, as cmstat.ko keeps it
 * @pub: what the inline writers read (include/cmstat/counters.h)
 * @nr: number of counters.
 * @own_group: @pub.group was made for this set alone, and goes with it.
 * @node: in the group's list of sets.
 * @frozen: reader-owned, [@nr]: the totals of every generation folded so
 *	far, over all CPUs.
 * @sum: NULL, or reader-owned [@nr] where every fold of this set also
 *	adds what it folds: a running total of several sets (cmstat's heaps
 *	share one), so that reading it costs what was written, not a pass
 *	over the sets.
 */
struct cmstat_set {
	struct cmstat_counters pub;
	unsigned int nr;
	bool own_group;
	struct list_head node;
	u64 *frozen;
	u64 *sum;
};

static struct cmstat_set *cmstat_set(struct cmstat_counters *set)
{
	return container_of(set, struct cmstat_set, pub);
}

static const struct cmstat_set *cmstat_set_const(const struct cmstat_counters *set)
{
	return container_of(set, const struct cmstat_set, pub);
}

/*
 * After this long, a reader reports the section it waits for, and closes
 * it if the section's CPU is provably outside it: a section left open.
 * Writable, for hosts whose vCPUs may stay descheduled longer, and for
 * tests that hold a section open on purpose.
 */
static unsigned int section_timeout = 5;
module_param(section_timeout, uint, 0644);
MODULE_PARM_DESC(section_timeout,
		 "Seconds a reader waits for one writer section before it reports it, and closes it if its CPU is outside it (left open by a client); at least 1 (default 5)");

/**
 * cmstat_accounting_enabled() - whether writer sections record anything
 *
 * Return: false if cmstat was loaded with accounting=0.
 */
bool cmstat_accounting_enabled(void)
{
	return static_branch_likely(&cmstat_accounting);
}
EXPORT_SYMBOL_GPL(cmstat_accounting_enabled);

static void cmstat_sample_ipi(void *info);

/* Set up a group that lives in memory of the caller's (cmstat's heaps). */
int cmstat_group_init(struct cmstat_group *group)
{
	struct cmstat_group_state *gs;
	unsigned int cpu;

	memset(group, 0, sizeof(*group));
	gs = kzalloc(sizeof(*gs), GFP_KERNEL);
	if (!gs)
		return -ENOMEM;
	gs->sample = alloc_percpu(struct cmstat_seq_sample);
	if (!gs->sample) {
		kfree(gs);
		return -ENOMEM;
	}
	mutex_init(&gs->read_lock);
	mutex_init(&gs->sets_lock);
	INIT_LIST_HEAD(&gs->sets);
	init_completion(&gs->sampled);
	for_each_possible_cpu(cpu)
		INIT_CSD(&per_cpu_ptr(gs->sample, cpu)->csd,
			 cmstat_sample_ipi, gs);
	group->state = gs;
	return 0;
}

void cmstat_group_destroy(struct cmstat_group *group)
{
	struct cmstat_group_state *gs = group->state;

	if (!gs)	/* its cmstat_group_init() failed */
		return;
	group->state = NULL;
	WARN_ON_ONCE(!list_empty(&gs->sets));
	free_percpu(gs->sample);
	mutex_destroy(&gs->sets_lock);
	mutex_destroy(&gs->read_lock);
	kfree(gs);
}

/**
 * cmstat_group_alloc() - allocate a group of counter sets read together
 *
 * Sets allocated in a group share its generation: cmstat_group_read()
 * closes it for all of them with one round of IPIs, so their snapshots are
 * of one instant even when sections write several of them.  Process
 * context; may sleep.
 *
 * Return: the group, or ERR_PTR(-ENOMEM).
 */
struct cmstat_group *cmstat_group_alloc(void)
{
	/*
	 * A cache line of its own (kmalloc() aligns a power-of-two size to
	 * itself): every writer section loads ->slot_off, and no other
	 * object's stores should take that line away.
	 */
	struct cmstat_group *group = kmalloc(L1_CACHE_ALIGN(sizeof(*group)),
					     GFP_KERNEL);

	if (!group)
		return ERR_PTR(-ENOMEM);
	if (cmstat_group_init(group)) {
		kfree(group);
		return ERR_PTR(-ENOMEM);
	}
	return group;
}
EXPORT_SYMBOL_GPL(cmstat_group_alloc);

/**
 * cmstat_group_free() - free a group
 * @group: from cmstat_group_alloc(), with no set left in it; NULL or an
 *	error pointer is a no-op
 *
 * A group that still has sets is left allocated, with a message naming
 * the caller: its sets point into it.
 */
void cmstat_group_free(struct cmstat_group *group)
{
	if (IS_ERR_OR_NULL(group))
		return;
	if (!list_empty(&group->state->sets)) {
		pr_err("%ps freed a group that still has counter sets; left allocated\n",
		       (void *)_RET_IP_);
		return;
	}
	cmstat_group_destroy(group);
	kfree(group);
}
EXPORT_SYMBOL_GPL(cmstat_group_free);

/**
 * cmstat_counters_alloc() - allocate a set of consistent counters
 * @group: the group the set joins, or NULL for a group of its own
 * @nr: number of u64 counters, 1 to %CMSTAT_COUNTERS_MAX
 *
 * All counters start at zero.  Process context; may sleep, but never waits
 * for a reader, nor for a writer section.
 *
 * Return: the set, ERR_PTR(-EINVAL) for a bad @nr or ERR_PTR(-ENOMEM).
 */
struct cmstat_counters *cmstat_counters_alloc(struct cmstat_group *group,
					      unsigned int nr)
{
	struct cmstat_set *s;

	if (nr == 0 || nr > CMSTAT_COUNTERS_MAX)
		return ERR_PTR(-EINVAL);

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->nr = nr;
	s->pub.delta = __alloc_percpu(CMSTAT_RING_SLOTS * (nr + 1) * sizeof(u64),
				      sizeof(u64));
	s->frozen = kcalloc(nr, sizeof(u64), GFP_KERNEL);
	s->own_group = !group;
	if (!group)
		group = cmstat_group_alloc();
	if (!s->pub.delta || !s->frozen || IS_ERR(group)) {
		if (s->own_group)
			cmstat_group_free(group);
		free_percpu(s->pub.delta);
		kfree(s->frozen);
		kfree(s);
		return ERR_PTR(-ENOMEM);
	}
	s->pub.group = group;
	mutex_lock(&group->state->sets_lock);
	list_add_tail(&s->node, &group->state->sets);
	mutex_unlock(&group->state->sets_lock);
	return &s->pub;
}
EXPORT_SYMBOL_GPL(cmstat_counters_alloc);

/**
 * cmstat_counters_free() - free a counter set
 * @set: from cmstat_counters_alloc(); NULL or an error pointer is a no-op
 *
 * The caller guarantees that no writer section can still reach @set.
 * Never waits for a reader, nor for a writer section.
 */
void cmstat_counters_free(struct cmstat_counters *set)
{
	struct cmstat_group_state *gs;
	struct cmstat_set *s;

	if (IS_ERR_OR_NULL(set))
		return;
	s = cmstat_set(set);
	gs = set->group->state;
	mutex_lock(&gs->sets_lock);
	list_del(&s->node);
	mutex_unlock(&gs->sets_lock);
	if (s->own_group)
		cmstat_group_free(set->group);
	kfree(s->frozen);
	free_percpu(set->delta);
	kfree(s);
}
EXPORT_SYMBOL_GPL(cmstat_counters_free);

/*
 * Record this CPU's outermost open section.  Runs on every online CPU that
 * is not quiescent (cmstat_cpu_quiescent()): on the others from the
 * reader's IPI, between two instructions of whatever they were doing (a
 * task, a softirq, or the idle loop, interrupted on its way in or out); on
 * the reader's own CPU called directly, with interrupts off.  Either way
 * it sees this CPU's own stores in program order, so a section that has
 * made its counter odd is seen open, and one that has not yet done so
 * will load ->slot_off after this returns.
 *
 * The sections open here are a stack, one per depth (see
 * %CMSTAT_NR_SEQ): each deeper one began after the one below it and ends
 * before it.  So the lowest odd counter is the section that ends last,
 * and waiting for it is waiting for them all, however many are open and
 * however fast this CPU opens new ones meanwhile.  A counter below it
 * that a client left odd (a leak) is waited for instead, and moves only
 * once this CPU's depth has dropped below it: when a section of that
 * depth ends, or when cmstat_repair_seq() finds the CPU outside it,
 * either way after every section open now has ended.  A hardirq or NMI
 * section is never open under this handler: hardirq handlers run with
 * interrupts off, and NMIs cannot be interrupted.
 *
 * No barrier here: the IPI's message passing orders the reader's
 * ->slot_off store before everything this CPU does after the handler.  The
 * request was queued (llist_add(), fully ordered) after the reader's
 * smp_mb() in cmstat_close_gen(), and this CPU took it off the queue
 * (llist_del_all(), fully ordered) before calling us.
 */
static void cmstat_sample_seq(struct cmstat_group_state *gs)
{
	struct cmstat_seq_sample *sample = this_cpu_ptr(gs->sample);
	const struct cmstat_cpu_seq *cs = this_cpu_ptr(&cmstat_cpu_seq);
	unsigned int run, idx;
	u32 seq;

	for (run = 0; run < CMSTAT_NR_SEQ; run += CMSTAT_SEQ_RUN) {
		if (!cmstat_seq_run_odd(cs, run))
			continue;
		for (idx = run; idx < run + CMSTAT_SEQ_RUN; idx++) {
			seq = READ_ONCE(cs->seq[idx]);
			if (seq & 1) {
				sample->idx = idx;
				sample->seq = seq;
				sample->open = true;
				return;
			}
		}
	}
}

/*
 * The sample, from the reader's IPI.  The last one in wakes the reader.
 * The decrement is fully ordered: it orders this CPU's sample, and every
 * section that ended here before it, before the reader's return from
 * cmstat_sample_cpus(), through the decrement the reader sees (its own,
 * or the one that completed ->sampled, which its wait acquires).
 */
static void cmstat_sample_ipi(void *info)
{
	struct cmstat_group_state *gs = info;

	cmstat_sample_seq(gs);
	if (atomic_dec_and_test(&gs->sampling))
		complete(&gs->sampled);
}

/**
 * struct cmstat_repair - a request to close a section left open
 * @idx: the sequence counter the section left odd, its depth
 * @sampled: the counter's value when the reader sampled it
 * @closed: set when the counter was moved on
 */
struct cmstat_repair {
	unsigned int idx;
	u32 sampled;
	bool closed;
};

/*
 * Whether this CPU is outside the section of depth @idx, as seen from
 * cmstat_repair_seq(): from the reader's IPI, in hardirq context on top of
 * whatever the CPU was doing, or called directly on the reader's own CPU,
 * in the reader's task with interrupts off.  False when it cannot tell.
 *
 * A section open at depth @idx holds the preemption count at @idx or
 * more until it ends, and the interrupt we run in did not raise it: a
 * lower count shows the CPU outside it.  The reader's own task is in no
 * section (cmstat_read_refused() turned away readers inside one).  Nor is
 * the idle loop, outside a softirq: it runs no client code, and with
 * preemption disabled from the start, so that its count of 1 says nothing
 * (without this, a section left open at depth 1 on a CPU that then stays
 * idle could not be closed until a task ran there).  Without
 * CONFIG_PREEMPT_COUNT the depth cmstat keeps does not drop for a section
 * left open, and only the idle loop and the reader's own CPU tell: no
 * section is open there but those left open.
 */
static bool cmstat_cpu_outside(unsigned int idx)
{
	if (!in_hardirq())
		return true;	/* the reader's own CPU */
	if (is_idle_task(current) && !in_serving_softirq())
		return true;
	if (IS_ENABLED(CONFIG_PREEMPT_COUNT))
		return (preempt_count() & PREEMPT_MASK) < idx;
	return false;
}

/*
 * Close a section left open on this CPU: move the counter on from the
 * sampled (odd) value, if it still has it and the CPU is outside every
 * section of that depth, so that none can be open, nor open until we
 * return.  A compare-and-exchange: an NMI section may begin and
 * end between our read and our write, and its end must not be undone.
 * NMI-safe on every architecture whose NMI sections cmstat accepts
 * (%CMSTAT_NMI_WRITERS).  Runs from smp_call_function_single(), which
 * orders the write before the reader's next look at the counter.
 */
static void cmstat_repair_seq(void *info)
{
	struct cmstat_repair *r = info;

	if (!cmstat_cpu_outside(r->idx))
		return;
	r->closed = this_cpu_cmpxchg(cmstat_cpu_seq.seq[r->idx], r->sampled,
				     r->sampled + 1) == r->sampled;
	/* Every section open here was left open: none holds the depth. */
	if (!IS_ENABLED(CONFIG_PREEMPT_COUNT))
		this_cpu_write(cmstat_cpu_seq.depth, 0);
}

/*
 * Close the section left open that @cpu's counter @r->idx was sampled in,
 * if @cpu is outside it.  Under cpus_read_lock(), so that @cpu stays
 * online or offline meanwhile.  Online, the check runs on @cpu.  Offline,
 * nothing runs there, so no section is open (a CPU cannot go offline inside
 * one: see cmstat_close_gen()), and nothing writes its counters until it
 * comes online again, which is fully ordered after the lock is dropped.
 */
static void cmstat_repair(unsigned int cpu, struct cmstat_repair *r)
{
	struct cmstat_cpu_seq *cs = per_cpu_ptr(&cmstat_cpu_seq, cpu);

	cpus_read_lock();
	if (cpu_online(cpu)) {
		smp_call_function_single(cpu, cmstat_repair_seq, r, true);
	} else if (READ_ONCE(cs->seq[r->idx]) == r->sampled) {
		WRITE_ONCE(cs->seq[r->idx], r->sampled + 1);
		if (!IS_ENABLED(CONFIG_PREEMPT_COUNT))
			WRITE_ONCE(cs->depth, 0);
		r->closed = true;
	}
	cpus_read_unlock();
	if (r->closed)
		pr_warn("CPU %u: closed a writer section left open at preemption depth %u (a client returned or slept without cmstat_section_end()); what it writes later may never count\n",
			cpu, r->idx);
}

/*
 * Wait for the section one CPU's counter @idx was sampled in to end.
 * Return: 0, or -EINTR on a fatal signal (the close stays pending).
 */
static int cmstat_wait_one(unsigned int cpu, unsigned int idx, u32 sampled)
{
	u32 *seq = &per_cpu(cmstat_cpu_seq, cpu).seq[idx];
	struct cmstat_repair repair = { .idx = idx, .sampled = sampled };
	unsigned long start = jiffies, next_repair = jiffies;
	unsigned int spins = 0, timeout;
	bool reported = false;

	/*
	 * Any change means the sampled section ended (see
	 * cmstat_sample_seq()): a section opened later on that CPU loaded the
	 * new ->slot_off.  So a CPU writing back-to-back
	 * cannot starve us.  Lockless read of a remote counter that only its
	 * own CPU writes (the writer's this_cpu_or() and this_cpu_inc()), or
	 * cmstat_repair(), which we run ourselves.
	 */
	while (READ_ONCE(*seq) == sampled) {
		if (++spins < CMSTAT_WAIT_SPINS) {
			cpu_relax();
			continue;
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		timeout = max(READ_ONCE(section_timeout), 1U);
		if (!reported && time_after(jiffies, start + timeout * HZ)) {
			reported = true;
			pr_warn("a writer section open on CPU %u at preemption depth %u for %u s holds up readers: a section left open, or one that sleeps\n",
				cpu, idx, timeout);
		}
		/*
		 * Once reported, or at once on a CPU gone offline, close the
		 * section if its CPU is outside it; a tenth of a second apart.
		 */
		if ((reported || !cpu_online(cpu)) &&
		    time_after_eq(jiffies, next_repair)) {
			cmstat_repair(cpu, &repair);
			if (repair.closed)
				break;
			next_repair = jiffies + HZ / 10;
		}
		/* A vCPU descheduled mid-section: tens of us.  A bug: forever. */
		if (time_before(jiffies, start + HZ))
			usleep_range(10, 50);
		else
			schedule_timeout_killable(1);
	}
	return 0;
}

/*
 * Wait for every section that was open when @gs's generation was
 * closed: each CPU's outermost, as cmstat_sample_seq() recorded it.  Only
 * CPUs sampled at that close have one in their sample.
 * Return: 0 or -EINTR.
 */
static int cmstat_wait_sections(struct cmstat_group_state *gs)
{
	unsigned int cpu;
	int err;

	for_each_possible_cpu(cpu) {
		struct cmstat_seq_sample *sample = per_cpu_ptr(gs->sample, cpu);

		if (cmstat_mutate_skip_wait())
			break;
		if (!sample->open)
			continue;
		err = cmstat_wait_one(cpu, sample->idx, sample->seq);
		if (err)
			return err;
	}
	/*
	 * Pairs with smp_wmb() in cmstat_section_end(): having seen each
	 * open section's counter move, we see all of its deltas.  Sections
	 * that were already closed at sampling time are ordered by the
	 * sampling's completion (see cmstat_sample_ipi()).
	 */
	smp_rmb();
	return 0;
}

/*
 * Whether @cpu is in an RCU extended quiescent state: idle, or running
 * user code under nohz_full.  No section is open on such a CPU (a section
 * runs in the kernel, where RCU watches; every way in, an interrupt, an
 * NMI or a system call, leaves the quiescent state first) unless a client
 * left one open and slept, and leaving it
 * is a fully ordered atomic on the CPU's context-tracking state
 * (ct_kernel_enter_state() and the like), so a section the CPU opens after
 * that loads the new ->slot_off: pairs with the smp_mb() in
 * cmstat_close_gen() between our ->slot_off store and this load.  The
 * argument of RCU's expedited grace periods (kernel/rcu/tree_exp.h), which
 * skip such CPUs too.  Without CONFIG_CONTEXT_TRACKING_IDLE nothing tells,
 * and every CPU gets the IPI.
 */
static bool cmstat_cpu_quiescent(int cpu)
{
#if IS_ENABLED(CONFIG_CONTEXT_TRACKING_IDLE) && defined(CT_RCU_WATCHING)
	return !(ct_rcu_watching_cpu_acquire(cpu) & CT_RCU_WATCHING);
#elif IS_ENABLED(CONFIG_CONTEXT_TRACKING_IDLE) && defined(RCU_DYNTICKS_IDX)
	/* The same, under its name before Linux 6.12. */
	return !(ct_dynticks_cpu_acquire(cpu) & RCU_DYNTICKS_IDX);
#else
	return false;
#endif
}

/*
 * Whether a sequence counter of @cpu is odd, read from the reader's CPU.
 * Only asked of a quiescent CPU, where none should be: one is if a client
 * left a section open and slept (preemption re-enabled inside it), and
 * that CPU then gets the IPI, so that the reader waits for the section
 * and reports it as it would on a busy CPU.  The counters'
 * last stores came before the CPU's fully ordered entry into the quiescent
 * state, and the acquire in cmstat_cpu_quiescent() saw that entry, so
 * these lockless reads see them.
 */
static bool cmstat_cpu_section_left_open(int cpu)
{
	const struct cmstat_cpu_seq *cs = per_cpu_ptr(&cmstat_cpu_seq, cpu);
	unsigned int run;

	for (run = 0; run < CMSTAT_NR_SEQ; run += CMSTAT_SEQ_RUN)
		if (cmstat_seq_run_odd(cs, run))
			return true;
	return false;
}

/*
 * Whether @cpu gets the reader's IPI: unless it is quiescent with no
 * section left open.  A skipped CPU keeps the zero sample
 * cmstat_close_gen() gave it: nothing to wait for.  An idle CPU is not
 * woken, an isolated one not disturbed.
 */
static bool cmstat_cpu_needs_sample(int cpu)
{
	if (cmstat_mutate_ipi_all())
		return true;
	return !cmstat_cpu_quiescent(cpu) || cmstat_cpu_section_left_open(cpu);
}

/*
 * Take the samples of every online CPU that needs one: our own directly,
 * with interrupts off so that none of its sections is half-way, the others
 * by IPI; then sleep until the last IPI is in.  Not
 * on_each_cpu_cond_mask(), whose caller spins until every handler has run:
 * on an overcommitted host a vCPU may wait milliseconds for its turn, and a
 * reader spinning meanwhile takes host CPU from the very vCPUs it waits
 * for.  The sleep is not killable, and need not be: an IPI waits for no
 * section and no lock, only for its CPU to take interrupts.
 */
static void cmstat_sample_cpus(struct cmstat_group_state *gs)
{
	call_single_data_t *csd;
	unsigned int cpu, this_cpu;
	unsigned long flags;
	int err;

	/* The reader's own count: no handler completes before all are sent. */
	atomic_set(&gs->sampling, 1);
	reinit_completion(&gs->sampled);
	this_cpu = get_cpu();
	for_each_online_cpu(cpu) {
		if (cpu == this_cpu || !cmstat_cpu_needs_sample(cpu))
			continue;
		atomic_inc(&gs->sampling);
		/*
		 * The last close's IPI here has run: its csd was released
		 * before the handler that completed it.  -ENXIO: @cpu went
		 * offline since, and is in no section.
		 */
		csd = &per_cpu_ptr(gs->sample, cpu)->csd;
		err = smp_call_function_single_async(cpu, csd);
		WARN_ON_ONCE(err && err != -ENXIO);
		if (err)
			atomic_dec(&gs->sampling);
	}
	local_irq_save(flags);
	cmstat_sample_seq(gs);
	local_irq_restore(flags);
	put_cpu();
	if (!atomic_dec_and_test(&gs->sampling))
		wait_for_completion(&gs->sampled);
}

/*
 * Close the current generation of every set of @group: writers move to the
 * next slot, and the closed one's open sections are recorded.  The caller
 * then waits for them.
 *
 * No CPU hotplug lock is held, here or while waiting.  A CPU cannot go
 * offline with a section open: the section disables preemption, and taking
 * a CPU down runs stop_machine(), whose stopper thread must run on that CPU.
 * A CPU that comes online after the samples were taken was offline, so in
 * no section, and its first section loads ->slot_off after the full
 * barriers of bringing it up.  Holding cpus_read_lock() across a wait on a
 * section left open by a bug would block every CPU hotplug, and behind it
 * the static key and kmem_cache_create() calls that take that lock.
 */
static void cmstat_close_gen(struct cmstat_group *group)
{
	struct cmstat_group_state *gs = group->state;
	unsigned int cpu;

	/* Stale samples of CPUs that are offline now must not be waited on. */
	for_each_possible_cpu(cpu)
		per_cpu_ptr(gs->sample, cpu)->open = false;
	/*
	 * Written under ->read_lock, and read under it by readers; marked,
	 * because KUnit cases watch it locklessly for a reader that has
	 * closed a generation (READ_ONCE() in cmstat_group_gen()).
	 */
	WRITE_ONCE(gs->gen, gs->gen + 1);
	/*
	 * Pairs with READ_ONCE() in __cmstat_section_open().  Release, so
	 * that our earlier reads of the slots the new generation reuses are
	 * done before any writer can see the new value and add to them.
	 */
	smp_store_release(&group->slot_off,
			  (gs->gen % CMSTAT_RING_SLOTS) * sizeof(u64));
	/*
	 * Orders the ->slot_off store before the IPI requests are queued,
	 * pairing with the IPI's message passing (see cmstat_sample_seq()),
	 * and before the reads of the CPUs' context-tracking state, pairing
	 * with the fully ordered atomic a CPU leaving a quiescent state runs
	 * (see cmstat_cpu_quiescent()).
	 */
	smp_mb();
	cmstat_sample_cpus(gs);
	gs->closing = true;
}

/* Fold counter @i of a CPU's slots @d into @s's totals, and clear it. */
static inline void cmstat_fold_one(struct cmstat_set *s, u64 *d, unsigned int i)
{
	u64 delta = d[(i + 1) * CMSTAT_RING_SLOTS];

	if (!delta)
		return;
	WRITE_ONCE(d[(i + 1) * CMSTAT_RING_SLOTS], 0);
	WRITE_ONCE(s->frozen[i], s->frozen[i] + delta);
	if (s->sum)
		s->sum[i] += delta;
}

/*
 * Whether any of the eight counters from @i on is non-zero in a CPU's
 * slots @d: a section writes a few of a set's counters, so most runs of
 * eight are all zero, and eight loads ORed together skip them for a
 * quarter of what a test each costs.
 */
#define CMSTAT_FOLD_RUN	8
static inline bool cmstat_fold_run_written(const u64 *d, unsigned int i)
{
	const u64 *c = d + (i + 1) * CMSTAT_RING_SLOTS;

	BUILD_BUG_ON(CMSTAT_RING_SLOTS != 2);
	return c[0] | c[2] | c[4] | c[6] | c[8] | c[10] | c[12] | c[14];
}

/*
 * Fold the slot of @s that the last close retired into its totals, on
 * the CPUs that marked it (__cmstat_slot()), and clear it there for the
 * generation that reuses it.  Quiescent on every CPU now: no section can
 * write it until the next close, whose smp_store_release() of ->slot_off
 * orders these stores before any section that loads the new value (the
 * slot's address depends on it).  A CPU with no mark wrote nothing to the
 * slot, and costs one load.  The stores are marked for the racy sum,
 * which reads both slots and the totals while we fold.
 */
static void cmstat_fold(struct cmstat_set *s, unsigned int slot)
{
	unsigned int i, j, cpu;

	for_each_possible_cpu(cpu) {
		u64 *d = per_cpu_ptr(s->pub.delta, cpu) + slot;

		if (!d[0])
			continue;
		WRITE_ONCE(d[0], 0);
		for (i = 0; i + CMSTAT_FOLD_RUN <= s->nr; i += CMSTAT_FOLD_RUN) {
			if (!cmstat_fold_run_written(d, i))
				continue;
			for (j = 0; j < CMSTAT_FOLD_RUN; j++)
				cmstat_fold_one(s, d, i + j);
		}
		for (; i < s->nr; i++)
			cmstat_fold_one(s, d, i);
	}
}

/*
 * Have every later fold of @set also add into @sum, an array of its nr
 * counters: for sets of one group, before anything writes them, so that
 * @sum stays the total of what the group's reads folded of every set so
 * far, freed ones included.  Read @sum under the group's reader lock.
 * The set is already in the group's list, where a reader's folds find it
 * under ->sets_lock (cmstat_finish_close()): set under it too.
 */
void cmstat_counters_sum_into(struct cmstat_counters *set, u64 *sum)
{
	struct cmstat_group_state *gs = set->group->state;

	mutex_lock(&gs->sets_lock);
	cmstat_set(set)->sum = sum;
	mutex_unlock(&gs->sets_lock);
}

/*
 * Wait for the sections the last close sampled, then fold the slot it
 * retired, of every set of @gs's group.  Under ->sets_lock, which only the
 * list's changes take: a set created since the close has nothing in that
 * slot, and one freed since is no longer read.
 */
static int cmstat_finish_close(struct cmstat_group_state *gs)
{
	struct cmstat_set *s;
	unsigned int slot;
	int err;

	err = cmstat_wait_sections(gs);
	if (err)
		return err;
	gs->closing = false;
	slot = (gs->gen - 1) % CMSTAT_RING_SLOTS;
	mutex_lock(&gs->sets_lock);
	list_for_each_entry(s, &gs->sets, node)
		cmstat_fold(s, slot);
	mutex_unlock(&gs->sets_lock);
	return 0;
}

/**
 * cmstat_group_snapshot() - take a snapshot of every set of a group
 * @group: the group
 * @epoch: if not NULL, set to the number of the snapshot
 *
 * For cmstat's own readers (heap.c), which copy out the totals of the sets
 * they choose with cmstat_counters_totals() and then call
 * cmstat_group_snapshot_done().  Process context; sleeps, killably.
 *
 * Return: 0, with @group's reader lock held; or -EINTR, not holding it.
 */
int cmstat_group_snapshot(struct cmstat_group *group, u64 *epoch)
{
	struct cmstat_group_state *gs = group->state;
	int err;

	might_sleep();
	err = mutex_lock_killable(&gs->read_lock);
	if (err)
		return err;
	/*
	 * A reader killed while waiting left a close pending.  Finishing it
	 * is not enough: sections that ended since then wrote the current
	 * slot, and a read must include every section that ended before it
	 * began.  So finish it, then close again.
	 */
	if (gs->closing)
		err = cmstat_finish_close(gs);
	if (!err) {
		cmstat_close_gen(group);
		err = cmstat_finish_close(gs);
	}
	if (err)
		mutex_unlock(&gs->read_lock);
	else if (epoch)
		*epoch = gs->gen;
	return err;
}

/* Drop the reader lock cmstat_group_snapshot() returned with. */
void cmstat_group_snapshot_done(struct cmstat_group *group)
{
	mutex_unlock(&group->state->read_lock);
}

/*
 * The totals of @set as of the last fold; under the reader lock of its
 * group (cmstat_group_snapshot()).
 */
void cmstat_counters_totals(const struct cmstat_counters *set, u64 *totals)
{
	const struct cmstat_set *s = cmstat_set_const(set);

	lockdep_assert_held(&set->group->state->read_lock);
	memcpy(totals, s->frozen, s->nr * sizeof(*totals));
}

/*
 * Whether the caller is inside a writer section on this CPU, where a read
 * would wait for itself forever.  Sections disable preemption; with
 * preemption off we stay on this CPU, and any odd counter may be a
 * section we run in: ours is at our depth or below, unless the caller
 * dropped preemption inside it.  None is one a read could wait for
 * either, and reads must be able to sleep.  Without
 * CONFIG_PREEMPT_COUNT, where preemptible() cannot tell, a read from
 * inside a section waits section_timeout, and then closes it.
 */
static bool cmstat_in_section(void)
{
	const struct cmstat_cpu_seq *cs = raw_cpu_ptr(&cmstat_cpu_seq);
	unsigned int run;

	if (!IS_ENABLED(CONFIG_PREEMPT_COUNT) || preemptible())
		return false;
	for (run = 0; run < CMSTAT_NR_SEQ; run += CMSTAT_SEQ_RUN)
		if (cmstat_seq_run_odd(cs, run))
			return true;
	return false;
}

/*
 * Every exported read starts here, before it allocates or locks: -EDEADLK,
 * with a message naming @caller (the client), from inside a section.
 */
int cmstat_read_refused(unsigned long caller)
{
	if (!cmstat_in_section())
		return 0;
	pr_err_once("%ps read counters from inside a writer section; refused\n",
		    (void *)caller);
	return -EDEADLK;
}

/**
 * cmstat_group_read() - one consistent snapshot of every set of a group
 * @group: the group
 * @sets: sets of @group whose totals to copy out (may be NULL if @n is 0)
 * @totals: for each of @sets, an array of its nr u64, filled with its
 *	totals
 * @n: number of @sets and @totals
 * @epoch: if not NULL, the number of this snapshot: 1 for the first, one
 *	more with every snapshot of @group
 *
 * One generation is closed for every set of the group at once, with one
 * IPI to each online CPU that is neither idle nor running user code
 * under nohz_full: every writer section is either wholly included
 * in the snapshot, in every set it wrote, or wholly absent from all of
 * them.  The totals are exact: the sum of every delta of the included
 * sections, over all possible CPUs (offline ones included), modulo 2^64.
 * Signed counters can be read back by casting to s64.  Every set of the
 * group is folded, copied out or not, but only on the CPUs that wrote it
 * since the last read: the cost grows with the counters written, plus
 * one load per set and possible CPU.
 *
 * Sleeps, killably: readers are serialised by a mutex, and the reader
 * waits only for sections that were open when it closed the generation,
 * spinning briefly and then sleeping.  A section open for more than the
 * module parameter section_timeout (5 s; a writer's bug) is reported in
 * the kernel log, and, once its CPU is shown to be outside it (the section
 * was left open, or slept), closed by the reader: the read goes on.
 *
 * Return: 0; -EINTR if a fatal signal came while waiting (@totals are left
 * alone; the snapshot of the next read includes every section that ended
 * before it began, as always); -EDEADLK, with a message, when called from
 * inside a writer section.
 */
int cmstat_group_read(struct cmstat_group *group,
		      struct cmstat_counters *const *sets, u64 *const *totals,
		      unsigned int n, u64 *epoch)
{
	unsigned int i;
	int err;

	err = cmstat_read_refused(_RET_IP_);
	if (err)
		return err;
	err = cmstat_group_snapshot(group, epoch);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		cmstat_counters_totals(sets[i], totals[i]);
	cmstat_group_snapshot_done(group);
	return 0;
}
EXPORT_SYMBOL_GPL(cmstat_group_read);

/**
 * cmstat_counters_read() - take a consistent snapshot of a counter set
 * @set: counter set
 * @totals: array of the set's nr u64, filled with the totals
 * @epoch: if not NULL, the number of this snapshot of @set's group
 *
 * cmstat_group_read() of @set's group, copying out @set's totals alone.
 *
 * Return: as cmstat_group_read().
 */
int cmstat_counters_read(struct cmstat_counters *set, u64 *totals, u64 *epoch)
{
	return cmstat_group_read(set->group, &set, &totals, 1, epoch);
}
EXPORT_SYMBOL_GPL(cmstat_counters_read);

/* Documented, and declared, in <cmstat/testing.h>: not API. */
void cmstat_counters_sum_racy(struct cmstat_counters *set, u64 *totals)
{
	const struct cmstat_set *s = cmstat_set_const(set);
	unsigned int slot, i, cpu;

	for (i = 0; i < s->nr; i++) {
		/* Races with readers and writers on purpose: no pairing. */
		totals[i] = READ_ONCE(s->frozen[i]);
		for_each_possible_cpu(cpu) {
			u64 *d = per_cpu_ptr(set->delta, cpu) +
				 (i + 1) * CMSTAT_RING_SLOTS;

			for (slot = 0; slot < CMSTAT_RING_SLOTS; slot++)
				totals[i] += READ_ONCE(d[slot]);
		}
	}
}

CMSTAT_EXPORT_TESTING(cmstat_counters_sum_racy);

/* Documented, and declared, in <cmstat/testing.h>: not API. */
unsigned long cmstat_group_gen(const struct cmstat_group *group)
{
	/* Pairs with WRITE_ONCE() in cmstat_close_gen(). */
	return READ_ONCE(group->state->gen);
}

CMSTAT_EXPORT_TESTING(cmstat_group_gen);

/* Called once at module load, before any set exists. */
void __init cmstat_accounting_init(bool enable)
{
	if (!enable)
		static_branch_disable(&cmstat_accounting);
}
