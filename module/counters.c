// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat consistent per-CPU counters: allocation and the reader.
 *
 * The writers are inline, in include/cmstat/counters.h.  The reader closes
 * the current generation, waits for the sections that may still write to
 * it, and folds it into the totals.  Documentation/design.rst has the
 * whole argument; the comments here name the pairings.
 */

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/export.h>
#include <linux/slab.h>
#include <linux/smp.h>

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

/**
 * cmstat_counters_alloc() - allocate a set of consistent counters
 * @nr: number of u64 counters, 1 to %CMSTAT_COUNTERS_MAX
 *
 * All counters start at zero.  Process context; may sleep.
 *
 * Return: the set, ERR_PTR(-EINVAL) for a bad @nr or ERR_PTR(-ENOMEM).
 */
struct cmstat_counters *cmstat_counters_alloc(unsigned int nr)
{
	struct cmstat_counters *set;

	if (nr == 0 || nr > CMSTAT_COUNTERS_MAX)
		return ERR_PTR(-EINVAL);

	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	set->nr = nr;
	mutex_init(&set->lock);
	set->delta = __alloc_percpu(CMSTAT_RING_SLOTS * nr * sizeof(u64),
				    sizeof(u64));
	set->frozen = kcalloc(CMSTAT_RING_SLOTS * nr, sizeof(u64), GFP_KERNEL);
	set->sample = alloc_percpu(struct cmstat_cpu_seq);
	if (!set->delta || !set->frozen || !set->sample) {
		cmstat_counters_free(set);
		return ERR_PTR(-ENOMEM);
	}
	return set;
}
EXPORT_SYMBOL_GPL(cmstat_counters_alloc);

/**
 * cmstat_counters_free() - free a counter set
 * @set: from cmstat_counters_alloc(); NULL or an error pointer is a no-op
 *
 * The caller guarantees that no writer section can still reach @set and no
 * reader is running.
 */
void cmstat_counters_free(struct cmstat_counters *set)
{
	if (IS_ERR_OR_NULL(set))
		return;
	free_percpu(set->sample);
	kfree(set->frozen);
	free_percpu(set->delta);
	mutex_destroy(&set->lock);
	kfree(set);
}
EXPORT_SYMBOL_GPL(cmstat_counters_free);

/*
 * IPI handler: record this CPU's sequence counters.  Runs between two
 * instructions of whatever this CPU was doing, so a section that has made
 * its counter odd is seen open, and one that has not yet done so will load
 * ->gen after this handler returns.
 */
static void cmstat_sample_seq(void *info)
{
	struct cmstat_counters *set = info;
	struct cmstat_cpu_seq *sample = this_cpu_ptr(set->sample);
	unsigned int ctx;

	/*
	 * Pairs with smp_mb() after the ->gen store in cmstat_close_gen():
	 * every load of ->gen on this CPU after this handler sees the new
	 * generation.  The IPI itself carries the order from the reader
	 * (smp_call_function() queues and dequeues the request with fully
	 * ordered atomics); this barrier makes it explicit on our side.
	 */
	smp_mb();
	for (ctx = 0; ctx < CMSTAT_NR_CTX; ctx++)
		sample->seq[ctx] = __this_cpu_read(cmstat_cpu_seq.seq[ctx]);
}

/* Wait for one CPU's context @ctx to leave the section it was sampled in. */
static void cmstat_wait_one(unsigned int cpu, unsigned int ctx,
			    unsigned long sampled)
{
	unsigned long *seq = &per_cpu(cmstat_cpu_seq, cpu).seq[ctx];
	unsigned int spins = 0;

	/*
	 * Any change means the sampled section ended: a section opened later
	 * on that CPU loaded the new ->gen.  So a CPU writing back-to-back
	 * cannot starve us.  Lockless read of a remote counter that only its
	 * own CPU writes (this_cpu_inc in the writer).
	 */
	while (READ_ONCE(*seq) == sampled) {
		if (++spins < CMSTAT_WAIT_SPINS)
			cpu_relax();
		else
			usleep_range(10, 50);
	}
}

/*
 * Wait for every section that was open when @set's generation was closed.
 * The samples were taken by cmstat_sample_seq() on each online CPU; CPUs
 * that were offline had no section open, and hotplug is held off by our
 * caller.
 */
static void cmstat_wait_sections(struct cmstat_counters *set)
{
	unsigned int cpu, ctx;

	for_each_online_cpu(cpu) {
		struct cmstat_cpu_seq *sample = per_cpu_ptr(set->sample, cpu);

		for (ctx = 0; ctx < CMSTAT_NR_CTX; ctx++)
			if (sample->seq[ctx] & 1)
				cmstat_wait_one(cpu, ctx, sample->seq[ctx]);
	}
	/*
	 * Pairs with smp_wmb() in cmstat_section_end(): having seen each
	 * open section's counter move, we see all of its deltas.  Sections
	 * that were already closed at sampling time are ordered by the IPI
	 * completion (release in the handler's CPU, acquire in the waiter).
	 */
	smp_rmb();
}

/*
 * Close the current generation: writers move to the next slot, and when
 * this returns nothing writes the closed one any more.  Returns the closed
 * generation.
 */
static unsigned long cmstat_close_gen(struct cmstat_counters *set)
{
	unsigned long closed = set->gen;

	cpus_read_lock();
	/*
	 * Pairs with READ_ONCE() in cmstat_section_slot().  Release, so that
	 * our earlier reads of the slot the new generation reuses are done
	 * before any writer can see the new value and add to it.
	 */
	smp_store_release(&set->gen, closed + 1);
	/* Pairs with smp_mb() in cmstat_sample_seq(); see there. */
	smp_mb();
	on_each_cpu(cmstat_sample_seq, set, 1);
	cmstat_wait_sections(set);
	cpus_read_unlock();
	return closed;
}

/**
 * cmstat_counters_read() - take a consistent snapshot of a counter set
 * @set: counter set
 * @totals: array of the set's @nr u64, filled with the totals
 *
 * Every writer section that wrote to @set is either wholly included or
 * wholly absent, and the totals are exact: the sum of every delta of the
 * included sections, over all possible CPUs (offline ones included), modulo
 * 2^64.  Signed counters can be read back by casting to s64.
 *
 * Sleeps: readers are serialised by a mutex, and the reader waits only for
 * sections that were open when it closed the generation, spinning briefly
 * and then sleeping.  It sends one IPI to every online CPU.  Must not be
 * called from a writer section.
 *
 * Return: the number of this snapshot (1 for the first), increasing by one
 * with every read of @set.
 */
unsigned long cmstat_counters_read(struct cmstat_counters *set, u64 *totals)
{
	unsigned long closed;
	unsigned int slot, i, cpu;
	u64 *frozen;

	might_sleep();
	mutex_lock(&set->lock);
	closed = cmstat_close_gen(set);
	slot = closed % CMSTAT_RING_SLOTS;
	frozen = set->frozen + slot * set->nr;

	/*
	 * The closed slot is quiescent on every CPU, so plain reads are
	 * exact.  It holds every generation of its parity since the set was
	 * created: the sum replaces what we froze last time.
	 */
	memset(frozen, 0, set->nr * sizeof(u64));
	for_each_possible_cpu(cpu) {
		u64 *d = per_cpu_ptr(set->delta, cpu) + slot * set->nr;

		for (i = 0; i < set->nr; i++)
			frozen[i] += d[i];
	}

	memset(totals, 0, set->nr * sizeof(u64));
	for (slot = 0; slot < CMSTAT_RING_SLOTS; slot++)
		for (i = 0; i < set->nr; i++)
			totals[i] += set->frozen[slot * set->nr + i];
	mutex_unlock(&set->lock);
	return closed + 1;
}
EXPORT_SYMBOL_GPL(cmstat_counters_read);

/**
 * cmstat_counters_sum_racy() - sum the per-CPU slots with no protocol
 * @set: counter set
 * @totals: array of the set's @nr u64
 *
 * Each counter is summed over all possible CPUs on its own, one counter
 * after the other, while writers go on: cheap, stops nothing, and not a
 * snapshot.  Counters may disagree with each other, as with
 * percpu_counter_sum().  Tests use it as the unsynchronised control, the
 * benchmark as the naive reader.  Any context.
 */
void cmstat_counters_sum_racy(struct cmstat_counters *set, u64 *totals)
{
	unsigned int slot, i, cpu;

	for (i = 0; i < set->nr; i++) {
		totals[i] = 0;
		for_each_possible_cpu(cpu) {
			u64 *d = per_cpu_ptr(set->delta, cpu);

			/* Races with writers on purpose: no pairing. */
			for (slot = 0; slot < CMSTAT_RING_SLOTS; slot++)
				totals[i] += READ_ONCE(d[slot * set->nr + i]);
		}
	}
}
EXPORT_SYMBOL_GPL(cmstat_counters_sum_racy);

/* Called once at module load, before any set exists. */
void cmstat_accounting_init(bool enable)
{
	if (!enable)
		static_branch_disable(&cmstat_accounting);
}
