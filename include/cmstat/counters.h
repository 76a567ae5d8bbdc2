/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmstat consistent per-CPU counters.
 *
 * A counter set holds nr u64 counters, as many as cmstat_counters_alloc()
 * was given.  Writers add signed deltas into
 * per-CPU slots inside a short section; a reader takes a snapshot in which
 * every section is either wholly visible or wholly absent, and whose totals
 * are exact, without stopping any CPU.  Sets belong to a group, which has
 * one generation for all of them: a read closes it for every set of the
 * group at once, so their snapshots are of one instant, however many sets
 * each section writes.  Documentation/design.rst explains the algorithm;
 * the comments here name what each access pairs with.
 *
 * Writer (any context, including hardirq and NMI):
 *
 *	struct cmstat_section sec;
 *	u64 __percpu *slot;
 *
 *	if (cmstat_section_begin(&sec, cmstat_counters_group(set))) {
 *		slot = cmstat_section_slot(&sec, set);
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
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/types.h>

/*
 * Which sequence counter a section uses: its preemption depth, the
 * preemption count once the section itself has disabled preemption
 * (preempt_count() & PREEMPT_MASK, 1 to 255).
 *
 * The sections open on one CPU at any instant form a stack: each began
 * inside the one below it, in the same context (a client's section with
 * cmstat_alloc() inside it, or another section under a spinlock) or in an
 * interrupt, softirq or NMI that came while it was open.  Each holds the
 * preemption count it raised until it ends, and entering an interrupt
 * never lowers that count: so every open section is deeper than the ones
 * below it, and no two share a counter, whatever their contexts and
 * however deep they nest.  The outermost, the lowest counter, is the
 * last of them to end: that is the one a reader waits for
 * (cmstat_sample_seq()).  One instruction on x86-64, a byte load of the
 * preemption count.
 *
 * Without CONFIG_PREEMPT_COUNT preempt_disable() counts nothing, and the
 * section keeps its depth itself, in &struct cmstat_cpu_seq.depth.
 */
#define CMSTAT_NR_SEQ		(PREEMPT_MASK + 1)

/**
 * struct cmstat_cpu_seq - per-CPU section sequence counters
 * @seq: indexed by preemption depth, as above; odd while a section of
 *	that depth is open on this CPU (or was left open by a client, until
 *	the next section of that depth ends or a reader closes it).
 * @depth: the sections open on this CPU, without CONFIG_PREEMPT_COUNT
 *	only.
 *
 * Shared by every counter set and group: a CPU at a given depth is in at
 * most one section at a time, whichever sets that section writes to.
 * 32-bit counters: a reader only ever asks whether one has moved, and
 * one that moved 2^32 times while it looked away still looks open to it,
 * until the next section of that depth ends.  Aligned for the reader,
 * which looks for odd ones a long at a time.
 */
struct cmstat_cpu_seq {
	u32 seq[CMSTAT_NR_SEQ];
	unsigned int depth;
} __aligned(sizeof(unsigned long));

/*
 * Slots per counter per CPU: writers fill the current generation's while
 * the reader folds the previous one's.  Two suffice because the totals
 * accumulated so far live in the reader's frozen totals of each set,
 * not in the ring (the Go seed keeps them in a third slot).  A counter's
 * slots sit side by side, so that the current slot's offset is the same
 * for every counter of every set: the group publishes it, in bytes.
 *
 * Each CPU's slots of a set start with one more pair, the marks: a
 * section that writes the set on that CPU sets the mark of its
 * generation's slot, and the reader folds only the CPUs whose mark is set,
 * then clears what it folded.  So a read costs what was written since the
 * last one, not every CPU times every set.
 */
#define CMSTAT_RING_SLOTS	2

/* Where counter @idx's slots start among a set's, for a counter's slot. */
#define CMSTAT_COUNTER_SLOT(idx)	((idx) * CMSTAT_RING_SLOTS)

/**
 * CMSTAT_COUNTERS_MAX - the most counters one set may hold
 *
 * So that a set's per-CPU slots (two of nr + 1 u64 each, with the marks)
 * stay within one per-CPU allocation unit.
 */
#define CMSTAT_COUNTERS_MAX	1024

struct cmstat_group_state;

/**
 * struct cmstat_group - counter sets read together, at one cut
 * @slot_off: byte offset of the current generation's slot within a
 *	counter's slots: 0 or sizeof(u64).  Read by every writer section,
 *	written only by the reader, under its lock.
 * @state: everything else, the reader's, private to module/counters.c.
 *
 * Allocate with cmstat_group_alloc().  Only what the inline writers below
 * read is here, as with &struct percpu_ref: the rest may change in any
 * release without touching a client's build.
 */
struct cmstat_group {
	unsigned long slot_off;
	struct cmstat_group_state *state;
};

/**
 * struct cmstat_counters - a set of consistent per-CPU counters
 * @delta: per-CPU slots, [nr + 1][CMSTAT_RING_SLOTS] u64 each for a set
 *	of nr counters: the marks, then the counters.  A section marks and
 *	adds to the slot its group's @slot_off named when it began; the
 *	reader clears a slot once it has folded it, and only then.
 * @group: the group whose generation the set follows.
 *
 * Allocate with cmstat_counters_alloc(), which returns this inside a
 * larger struct of module/counters.c's: only what the inline writers
 * below read is here.
 */
struct cmstat_counters {
	u64 __percpu *delta;
	struct cmstat_group *group;
};

DECLARE_PER_CPU(struct cmstat_cpu_seq, cmstat_cpu_seq);
DECLARE_STATIC_KEY_TRUE(cmstat_accounting);

/**
 * struct cmstat_section - an open writer section
 * @seq: the index of the sequence counter the section made odd, its
 *	preemption depth.
 * @slot_off: the group's slot offset when the section began: every add of
 *	the section goes to that generation.
 */
struct cmstat_section {
	unsigned long seq;
	unsigned long slot_off;
};

/*
 * The sequence counter a section uses: @seq, its own.  Only the test
 * builds of cmstat.ko and its KUnit modules define this beforehand, to
 * break the protocol on purpose (module/mutation.h).
 */
#ifndef __cmstat_seq_index
#define __cmstat_seq_index(seq)	(seq)
#endif

/* The sequence counter for a section opened here: see %CMSTAT_NR_SEQ. */
static __always_inline unsigned long __cmstat_seq_here(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_COUNT))
		return preempt_count() & PREEMPT_MASK;
	/*
	 * Interrupts nest, and leave the depth as they found it: an
	 * interrupt between this add and its use opens its own section one
	 * deeper, and is gone before this one goes on.
	 */
	return this_cpu_inc_return(cmstat_cpu_seq.depth) & PREEMPT_MASK;
}

/*
 * Nested sections' adds to one counter are safe only if an interrupt
 * cannot split this_cpu_add().  An NMI can split the generic version
 * (which disables interrupts around a load and a store), so where the
 * architecture does not promise NMI-safe per-CPU operations, sections are
 * refused in NMI context: cmstat_section_begin() returns false there.
 * The promise (CONFIG_ARCH_HAS_NMI_SAFE_THIS_CPU_OPS) is for operations of
 * the native word: on a 32-bit kernel (i386, which selects it) a 64-bit
 * this_cpu_add() is the generic one, so NMI writers need CONFIG_64BIT too
 * (scripts/i386-check.sh asserts it against an i386 kernel tree).  On
 * x86-64 this is a constant and costs nothing.
 */
#if defined(CONFIG_64BIT) && defined(CONFIG_ARCH_HAS_NMI_SAFE_THIS_CPU_OPS) && \
	!defined(CMSTAT_TEST_NMI_UNSAFE)
#define CMSTAT_NMI_WRITERS	true
#else
#define CMSTAT_NMI_WRITERS	false
#endif

/**
 * cmstat_counters_group() - the group a counter set belongs to
 * @set: counter set
 *
 * Return: the group to pass to cmstat_section_begin() for @set.
 */
static inline struct cmstat_group *
cmstat_counters_group(const struct cmstat_counters *set)
{
	return set->group;
}

/**
 * __cmstat_section_open() - open a section
 * @sec: section state
 * @group: the group of every set the section writes to
 *
 * For cmstat_section_begin() and cmstat_section_begin_task(), and for
 * callers that test cmstat_accounting themselves.
 */
static __always_inline void __cmstat_section_open(struct cmstat_section *sec,
						  const struct cmstat_group *group)
{
	preempt_disable();
	sec->seq = __cmstat_seq_index(__cmstat_seq_here());
	/*
	 * Odd: a section is open.  The bit is set, not the counter
	 * incremented: a client that returned or slept without
	 * cmstat_section_end() left the counter odd, and an increment would
	 * then make it even for as long as the next section is open, which
	 * a reader would take for closed.  Set, the counter is odd whenever
	 * a section is open, and the next section's end makes it even again.
	 * A reader waiting on a counter that a leaked section left odd waits
	 * until then, or closes the leaked section itself once it has shown
	 * that the CPU is outside it (cmstat_repair_seq()).
	 *
	 * The seq store must come before the slot_off load below as this CPU
	 * sees them, and that is all: the reader samples this counter from a
	 * handler running on this CPU (cmstat_sample_seq()), which sees this
	 * CPU's stores in program order.  So the writer needs no fence, only
	 * a compiler barrier.  The ordering against the reader's slot_off
	 * store is carried by the reader's IPI (see cmstat_sample_seq()),
	 * or, on a CPU the reader found quiescent and left alone, by the
	 * fully ordered atomic with which the CPU left its quiescent state
	 * before this section (cmstat_cpu_quiescent()).
	 */
	this_cpu_or(cmstat_cpu_seq.seq[sec->seq], 1);
	barrier();
	/*
	 * Pairs with smp_store_release() of ->slot_off in cmstat_close_gen().
	 * The slot addresses depend on the value loaded, so the adds that
	 * follow cannot be ordered before it.  Loaded once: every add of the
	 * section, to any set of the group, goes to one generation.
	 */
	sec->slot_off = READ_ONCE(group->slot_off);
}

/**
 * cmstat_section_begin() - open a writer section on this CPU
 * @sec: section state, kept by the caller until cmstat_section_end()
 * @group: the group of every set the section writes to
 *
 * Disables preemption and marks this CPU's sequence counter for the
 * section's depth odd.  Never blocks or waits; usable from any context,
 * including hardirq and NMI.  A section may write to several counter sets
 * of @group.  Sections nest, at any depth: one may be opened inside
 * another, of any group, in the same context (under a spinlock, say, or
 * through cmstat's allocator) or from an interrupt; each is wholly in or
 * out of every snapshot.  It must be closed before the caller returns or
 * sleeps: readers wait for it (one left open is reported after the module
 * parameter section_timeout, and closed by a reader once its CPU is
 * outside it).
 *
 * Return: true if the section is open and must be closed with
 * cmstat_section_end(); false when accounting is switched off, or in NMI
 * context on an architecture whose per-CPU operations are not NMI-safe
 * (%CMSTAT_NMI_WRITERS), in which case the caller skips its updates (and
 * the end call).
 */
static __always_inline bool cmstat_section_begin(struct cmstat_section *sec,
						 const struct cmstat_group *group)
{
	if (!static_branch_likely(&cmstat_accounting))
		return false;
	if (!CMSTAT_NMI_WRITERS && in_nmi())
		return false;
	__cmstat_section_open(sec, group);
	return true;
}

/**
 * cmstat_section_begin_task() - open a writer section from task context
 * @sec: section state, kept by the caller until cmstat_section_end()
 * @group: the group of every set the section writes to
 *
 * As cmstat_section_begin(), for callers that know they run in task
 * context (they may sleep, say), without the test for NMI context.  Every
 * section finds its sequence counter the same way, by its depth, so
 * called from an interrupt it is still correct.
 *
 * Return: as cmstat_section_begin().
 */
static __always_inline bool
cmstat_section_begin_task(struct cmstat_section *sec,
			  const struct cmstat_group *group)
{
	if (!static_branch_likely(&cmstat_accounting))
		return false;
	__cmstat_section_open(sec, group);
	return true;
}

/*
 * The slots of the open section's generation in @delta, a set's slots,
 * marked written on this CPU for the reader (cmstat_fold()): one plain
 * per-CPU store, next to the set's first counters.  Ordered like the
 * section's adds: the reader reads it only after the section's end, as
 * smp_rmb() in cmstat_wait_sections() (pairing with the smp_wmb() in
 * cmstat_section_end()) or the IPI's completion orders.  Returns where
 * the set's counters start.
 */
static __always_inline u64 __percpu *
__cmstat_slot(const struct cmstat_section *sec, u64 __percpu *delta)
{
	u64 __percpu *slot = (u64 __percpu *)((u8 __percpu *)delta +
					      sec->slot_off);

	this_cpu_write(*slot, 1);
	return slot + CMSTAT_RING_SLOTS;
}

/**
 * cmstat_section_slot() - this CPU's slots of @set for the open section
 * @sec: the open section
 * @set: counter set, of the group the section was opened for
 *
 * Marks @set as written on this CPU, so that the next read folds it: a
 * read looks only at the sets and CPUs so marked.  Call it once per set
 * and section, and add only through what it returns.
 *
 * Return: per-CPU pointer to pass to cmstat_section_add() for every update
 * of @set in this section.
 */
static __always_inline u64 __percpu *
cmstat_section_slot(const struct cmstat_section *sec,
		    const struct cmstat_counters *set)
{
	return __cmstat_slot(sec, set->delta);
}

/*
 * cmstat_section_add() of the counter whose slots start at @counter_slot
 * (CMSTAT_COUNTER_SLOT()): for a caller that keeps a runtime index
 * scaled, so that its add needs no arithmetic.
 */
static __always_inline void __cmstat_section_add_at(u64 __percpu *slot,
						    unsigned long counter_slot,
						    s64 delta)
{
	this_cpu_add(slot[counter_slot], (u64)delta);
}

/**
 * cmstat_section_add() - add a signed delta to one counter
 * @slot: from cmstat_section_slot()
 * @idx: counter index, below the set's nr (not checked here)
 * @delta: value to add; counters wrap modulo 2^64
 *
 * A single non-LOCKed read-modify-write on x86-64 that an interrupt cannot
 * split, so a nested section's add to the same counter is never lost.
 */
static __always_inline void cmstat_section_add(u64 __percpu *slot,
					       unsigned int idx, s64 delta)
{
	__cmstat_section_add_at(slot, CMSTAT_COUNTER_SLOT(idx), delta);
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
	this_cpu_inc(cmstat_cpu_seq.seq[sec->seq]);
	if (!IS_ENABLED(CONFIG_PREEMPT_COUNT))
		this_cpu_dec(cmstat_cpu_seq.depth);
	preempt_enable();
}

struct cmstat_group *cmstat_group_alloc(void);
void cmstat_group_free(struct cmstat_group *group);
struct cmstat_counters *cmstat_counters_alloc(struct cmstat_group *group,
					      unsigned int nr);
void cmstat_counters_free(struct cmstat_counters *set);
int cmstat_group_read(struct cmstat_group *group,
		      struct cmstat_counters *const *sets, u64 *const *totals,
		      unsigned int n, u64 *epoch);
int cmstat_counters_read(struct cmstat_counters *set, u64 *totals, u64 *epoch);
bool cmstat_accounting_enabled(void);

#endif /* _CMSTAT_COUNTERS_H */
