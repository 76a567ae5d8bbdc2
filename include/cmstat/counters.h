/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmstat consistent per-CPU counters.
 *
 * A counter set holds @nr u64 counters.  Writers add signed deltas into
 * per-CPU slots inside a short section; a reader takes a snapshot in which
 * every section is either wholly visible or wholly absent, and whose totals
 * are exact, without stopping any CPU.  Documentation/design.rst explains the
 * algorithm; the comments here name what each access pairs with.
 *
 * Writer (any context, including hardirq and NMI):
 *
 *	struct cmstat_section sec;
 *	u64 __percpu *slot;
 *
 *	if (cmstat_section_begin(&sec)) {
 *		slot = cmstat_section_slot(set);
 *		cmstat_section_add(slot, FOO_BYTES, size);
 *		cmstat_section_add(slot, FOO_OBJECTS, 1);
 *		cmstat_section_end(&sec);
 *	}
 *
 * Reader (process context, may sleep):
 *
 *	u64 totals[FOO_NR];
 *
 *	cmstat_counters_read(set, totals);
 */
#ifndef _CMSTAT_COUNTERS_H
#define _CMSTAT_COUNTERS_H

#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/types.h>

/**
 * enum cmstat_ctx - the contexts that may nest on one CPU
 * @CMSTAT_CTX_TASK: task context (with preemption disabled by the section)
 * @CMSTAT_CTX_SOFTIRQ: serving a softirq
 * @CMSTAT_CTX_HARDIRQ: hardirq handler
 * @CMSTAT_CTX_NMI: NMI handler
 * @CMSTAT_NR_CTX: number of contexts
 *
 * A section in one context can be interrupted by a section in a higher one,
 * but never by another section in its own: tasks cannot preempt a section,
 * softirqs do not nest, hardirqs run with interrupts off and NMIs do not
 * nest.  So each context gets its own sequence counter, and each counter
 * is only ever odd for one section at a time.
 */
enum cmstat_ctx {
	CMSTAT_CTX_TASK,
	CMSTAT_CTX_SOFTIRQ,
	CMSTAT_CTX_HARDIRQ,
	CMSTAT_CTX_NMI,
	CMSTAT_NR_CTX,
};

/**
 * struct cmstat_cpu_seq - per-CPU section sequence counters
 * @seq: one counter per &enum cmstat_ctx; odd while a section of that
 *	context is open on this CPU.
 *
 * Shared by every counter set: a CPU in a given context is in at most one
 * section at a time, whichever sets that section writes to.
 */
struct cmstat_cpu_seq {
	unsigned long seq[CMSTAT_NR_CTX];
};

/*
 * Slots per CPU: the reader reads the slot of the previous generation while
 * writers fill the current one.  Two suffice because the totals accumulated
 * so far live in the reader's struct cmstat_counters.frozen, not in the
 * ring (the Go seed keeps them in a third slot).
 */
#define CMSTAT_RING_SLOTS	2

/**
 * CMSTAT_COUNTERS_MAX - the most counters one set may hold
 *
 * So that a set's per-CPU slots (two of @nr u64 each) stay within one
 * per-CPU allocation unit.
 */
#define CMSTAT_COUNTERS_MAX	1024

/**
 * struct cmstat_counters - a set of consistent per-CPU counters
 * @delta: per-CPU slots, [CMSTAT_RING_SLOTS][@nr] u64 each; slot
 *	(@gen % CMSTAT_RING_SLOTS) takes the current generation's writes.
 *	Each slot only ever grows (modulo 2^64), the reader never resets it.
 * @gen: current generation; written only by the reader, under @lock.
 * @nr: number of counters.
 * @lock: serialises readers.
 * @frozen: reader-owned, [CMSTAT_RING_SLOTS][@nr]: the sum over all CPUs of
 *	each slot as of the last time a reader closed a generation in it.
 * @sample: reader-owned scratch: each CPU's sequence counters, recorded on
 *	that CPU when the reader closes a generation.
 *
 * Allocate with cmstat_counters_alloc(); all fields are private to the
 * inline writers below and to module/counters.c.
 */
struct cmstat_counters {
	u64 __percpu *delta;
	unsigned long gen;
	unsigned int nr;
	struct mutex lock;	/* serialises readers */
	u64 *frozen;
	struct cmstat_cpu_seq __percpu *sample;
};

DECLARE_PER_CPU(struct cmstat_cpu_seq, cmstat_cpu_seq);
DECLARE_STATIC_KEY_TRUE(cmstat_accounting);

/**
 * struct cmstat_section - an open writer section
 * @ctx: the &enum cmstat_ctx the section was opened in.
 */
struct cmstat_section {
	unsigned int ctx;
};

/* Which &enum cmstat_ctx the current CPU is in, without branches. */
static __always_inline unsigned int cmstat_current_ctx(void)
{
	unsigned long pc = preempt_count();

	return !!(pc & NMI_MASK) +
	       !!(pc & (NMI_MASK | HARDIRQ_MASK)) +
	       !!(pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET));
}

/**
 * cmstat_section_begin() - open a writer section on this CPU
 * @sec: section state, kept by the caller until cmstat_section_end()
 *
 * Disables preemption and marks this CPU's sequence counter for the current
 * context odd.  Never blocks or waits; usable from any context, including
 * hardirq and NMI.  A section may write to several counter sets.
 *
 * Return: true if the section is open and must be closed with
 * cmstat_section_end(); false when accounting is switched off, in which case
 * the caller skips its updates (and the end call).
 */
static __always_inline bool cmstat_section_begin(struct cmstat_section *sec)
{
	if (!static_branch_likely(&cmstat_accounting))
		return false;
	preempt_disable();
	sec->ctx = cmstat_current_ctx();
	/*
	 * Odd: a section is open.  The seq store must come before the gen
	 * loads in cmstat_section_slot(); the CPU's own order is all that is
	 * needed, because the reader samples this counter from an IPI handler
	 * running on this CPU (cmstat_sample_seq()), which sees this CPU's
	 * stores in program order.  The reader's smp_mb() + IPI pairs with
	 * the gen load: a section that opens after the IPI sees the new gen.
	 * So the writer needs no fence, only a compiler barrier.
	 */
	this_cpu_inc(cmstat_cpu_seq.seq[sec->ctx]);
	barrier();
	return true;
}

/**
 * cmstat_section_slot() - this CPU's slot of @set for the open section
 * @set: counter set to write to
 *
 * Call once per set per section, after cmstat_section_begin(), and pass the
 * result to cmstat_section_add() for every update of that set in this
 * section: one generation per section is what makes it atomic to readers.
 *
 * Return: per-CPU pointer to the slot for the current generation.
 */
static __always_inline u64 __percpu *
cmstat_section_slot(struct cmstat_counters *set)
{
	/*
	 * Pairs with smp_store_release() of ->gen in cmstat_counters_read():
	 * the slot address depends on the value loaded, so the adds that
	 * follow cannot be ordered before it.
	 */
	unsigned long gen = READ_ONCE(set->gen);

	return set->delta + (gen % CMSTAT_RING_SLOTS) * set->nr;
}

/**
 * cmstat_section_add() - add a signed delta to one counter
 * @slot: from cmstat_section_slot()
 * @idx: counter index, below the set's @nr (not checked here)
 * @delta: value to add; counters wrap modulo 2^64
 *
 * A single non-LOCKed read-modify-write on x86-64 that an interrupt cannot
 * split, so a nested section's add to the same counter is never lost.
 */
static __always_inline void cmstat_section_add(u64 __percpu *slot,
					       unsigned int idx, s64 delta)
{
	this_cpu_add(slot[idx], (u64)delta);
}

/**
 * cmstat_section_end() - close a writer section
 * @sec: as passed to cmstat_section_begin()
 */
static __always_inline void cmstat_section_end(struct cmstat_section *sec)
{
	/*
	 * The deltas must be visible before the counter turns even: pairs
	 * with smp_rmb() in cmstat_wait_sections() after the reader sees the
	 * counter change.  A compiler barrier on x86-64.
	 */
	smp_wmb();
	this_cpu_inc(cmstat_cpu_seq.seq[sec->ctx]);
	preempt_enable();
}

struct cmstat_counters *cmstat_counters_alloc(unsigned int nr);
void cmstat_counters_free(struct cmstat_counters *set);
unsigned long cmstat_counters_read(struct cmstat_counters *set, u64 *totals);
void cmstat_counters_sum_racy(struct cmstat_counters *set, u64 *totals);
bool cmstat_accounting_enabled(void);

#endif /* _CMSTAT_COUNTERS_H */
