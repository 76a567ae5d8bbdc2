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
 *	if (!cmstat_counters_read(set, totals, NULL))
 *		use(totals);
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
 * @CMSTAT_CTX_TASK: task context (with preemption disabled by the section);
 *	on PREEMPT_RT, softirqs too, since they run in threads there
 * @CMSTAT_CTX_SOFTIRQ: serving a softirq
 * @CMSTAT_CTX_HARDIRQ: hardirq handler
 * @CMSTAT_CTX_NMI: NMI handler
 * @CMSTAT_NR_CTX: number of contexts
 *
 * The values are interrupt_context_level()'s.  A section in one context
 * can be interrupted by a section in a higher one, but never by another
 * section in its own: tasks cannot preempt a section, softirqs do not nest,
 * hardirqs run with interrupts off and NMIs do not nest.  So each context
 * gets its own sequence counter, and each counter is only ever odd for one
 * section at a time.
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
 * @closing: reader-owned: a reader closed generation @gen - 1 but was
 *	interrupted while waiting for its sections; the next reader finishes
 *	that close instead of starting another.
 * @stuck_reported: reader-owned: a section this close waits for has been
 *	reported as stuck.
 * @frozen: reader-owned, [CMSTAT_RING_SLOTS][@nr]: the sum over all CPUs of
 *	each slot as of the last time a reader closed a generation in it.
 * @sample: reader-owned: each CPU's sequence counters, recorded on that CPU
 *	when the reader closed the last generation.
 *
 * Allocate with cmstat_counters_alloc(); all fields are private to the
 * inline writers below and to module/counters.c.
 */
struct cmstat_counters {
	u64 __percpu *delta;
	unsigned long gen;
	unsigned int nr;
	bool closing;
	bool stuck_reported;
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

#ifdef CMSTAT_MUTATIONS
/*
 * Test-only builds (CMSTAT_MUTATIONS=y, made by scripts/check.sh, never
 * installed) can break the protocol on purpose, to show that the stress
 * tests catch a broken protocol; see module/mutation.c.
 */
enum cmstat_mutation {
	CMSTAT_MUTATE_NONE,
	CMSTAT_MUTATE_SKIP_WAIT,	/* the reader does not wait for sections */
	CMSTAT_MUTATE_SHARED_SEQ,	/* every context uses the task counter */
};

extern int cmstat_mutation;
#endif

/* Which &enum cmstat_ctx the current CPU is in. */
static __always_inline unsigned int cmstat_current_ctx(void)
{
#ifdef CMSTAT_MUTATIONS
	if (READ_ONCE(cmstat_mutation) == CMSTAT_MUTATE_SHARED_SEQ)
		return CMSTAT_CTX_TASK;
#endif
	return interrupt_context_level();
}

/*
 * Nested sections' adds to one counter are safe only if an interrupt
 * cannot split this_cpu_add().  An NMI can split the generic version
 * (which disables interrupts around a load and a store), so where the
 * architecture does not promise NMI-safe per-CPU operations, sections are
 * refused in NMI context: cmstat_section_begin() returns false there.  On
 * x86-64 this is a constant and costs nothing.
 */
#if defined(CONFIG_ARCH_HAS_NMI_SAFE_THIS_CPU_OPS) && !defined(CMSTAT_TEST_NMI_UNSAFE)
#define CMSTAT_NMI_WRITERS	true
#else
#define CMSTAT_NMI_WRITERS	false
#endif

/**
 * cmstat_section_begin() - open a writer section on this CPU
 * @sec: section state, kept by the caller until cmstat_section_end()
 *
 * Disables preemption and marks this CPU's sequence counter for the current
 * context odd.  Never blocks or waits; usable from any context, including
 * hardirq and NMI.  A section may write to several counter sets.  It must
 * be closed before the caller returns or sleeps: readers wait for it.
 *
 * Return: true if the section is open and must be closed with
 * cmstat_section_end(); false when accounting is switched off, or in NMI
 * context on an architecture whose per-CPU operations are not NMI-safe
 * (%CMSTAT_NMI_WRITERS), in which case the caller skips its updates (and
 * the end call).
 */
static __always_inline bool cmstat_section_begin(struct cmstat_section *sec)
{
	unsigned int ctx;

	if (!static_branch_likely(&cmstat_accounting))
		return false;
	ctx = cmstat_current_ctx();
	if (!CMSTAT_NMI_WRITERS && ctx == CMSTAT_CTX_NMI)
		return false;
	preempt_disable();
	sec->ctx = ctx;
	/*
	 * Odd: a section is open.  The seq store must come before the gen
	 * loads in cmstat_section_slot() as this CPU sees them, and that is
	 * all: the reader samples this counter from an IPI handler running
	 * on this CPU (cmstat_sample_seq()), which sees this CPU's stores in
	 * program order.  So the writer needs no fence, only a compiler
	 * barrier.  The ordering against the reader's gen store is carried
	 * by the IPI; see cmstat_sample_seq().
	 */
	this_cpu_inc(cmstat_cpu_seq.seq[ctx]);
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
	 * Pairs with smp_store_release() of ->gen in cmstat_close_gen(): the
	 * slot address depends on the value loaded, so the adds that follow
	 * cannot be ordered before it.
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
	 * The deltas must be visible before the counter moves on: pairs with
	 * smp_rmb() in cmstat_wait_sections() after the reader sees the
	 * counter change.  A compiler barrier on x86-64.
	 */
	smp_wmb();
	this_cpu_inc(cmstat_cpu_seq.seq[sec->ctx]);
	preempt_enable();
}

struct cmstat_counters *cmstat_counters_alloc(unsigned int nr);
void cmstat_counters_free(struct cmstat_counters *set);
int cmstat_counters_read(struct cmstat_counters *set, u64 *totals, u64 *epoch);
void cmstat_counters_sum_racy(struct cmstat_counters *set, u64 *totals);
bool cmstat_accounting_enabled(void);

#endif /* _CMSTAT_COUNTERS_H */
