/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmstat protocol mutations, for test builds only (CMSTAT_MUTATIONS=y;
 * module/mutation.c says what each one breaks, and why).
 *
 * Private to cmstat.ko and its KUnit modules: no client includes this.
 * The writer's choice of sequence counter sits in an inline of
 * <cmstat/counters.h>, which the KUnit stress writers compile too, so the
 * mutant builds of both pass this file to the compiler with -include
 * (module/Kbuild, kunit/Kbuild), ahead of every header: it defines
 * __cmstat_seq_index() before <cmstat/counters.h> would give its plain
 * default.  The public header names no mutation, and a client (or an
 * installed cmstat) can never be built with one.
 */
#ifndef _CMSTAT_MUTATION_H
#define _CMSTAT_MUTATION_H

#include <linux/compiler.h>
#include <linux/types.h>

#ifdef CMSTAT_MUTATIONS
enum cmstat_mutation {
	CMSTAT_MUTATE_NONE,
	CMSTAT_MUTATE_SKIP_WAIT,	/* the reader does not wait for sections */
	CMSTAT_MUTATE_SHARED_SEQ,	/* every section uses one counter */
	CMSTAT_MUTATE_IPI_ALL,		/* the old reader: IPIs every CPU */
	CMSTAT_MUTATE_NEST_SHARED,	/* depths 2-3, 4-7...: one counter */
	CMSTAT_MUTATE_SITE_APART,	/* a site's row: a section of its own */
};

/* The module parameter "mutation"; set at load, read-only after. */
extern int cmstat_mutation;

/*
 * Every section on one counter; or, for nested sections, the counters as
 * cmstat grouped them before it indexed them by depth: depths 2 and 3
 * on one, 4 to 7 on another, so that a section nested in one of its own
 * context can close it early.
 */
static __always_inline unsigned long __cmstat_mutate_seq(unsigned long seq)
{
	switch (READ_ONCE(cmstat_mutation)) {
	case CMSTAT_MUTATE_SHARED_SEQ:
		return 1;
	case CMSTAT_MUTATE_NEST_SHARED:
		/* The highest bit set; no bitops.h, which brings pr_fmt. */
		return seq ? 1UL << (8 * sizeof(long) - 1 - __builtin_clzl(seq)) : 0;
	default:
		return seq;
	}
}

#define __cmstat_seq_index(seq)	__cmstat_mutate_seq(seq)

/*
 * Whether a site's row is counted apart from its heap's totals; and the
 * gap between the two sections, an interrupt's worth (in task context:
 * the stress's timers fire every 50 us), so that the stress shows the
 * break in a few snapshots rather than a hundred.
 */
#define __cmstat_site_apart()	\
	(READ_ONCE(cmstat_mutation) == CMSTAT_MUTATE_SITE_APART)
#define __cmstat_site_apart_gap()				\
	do {							\
		for (int __i = 0; in_task() && __i < 200000; __i++) \
			barrier();	/* no delay.h here */	\
	} while (0)

static inline bool cmstat_mutate_skip_wait(void)
{
	return READ_ONCE(cmstat_mutation) == CMSTAT_MUTATE_SKIP_WAIT;
}

static inline bool cmstat_mutate_ipi_all(void)
{
	return READ_ONCE(cmstat_mutation) == CMSTAT_MUTATE_IPI_ALL;
}
#else
static inline bool cmstat_mutate_skip_wait(void)
{
	return false;
}

static inline bool cmstat_mutate_ipi_all(void)
{
	return false;
}
#endif /* CMSTAT_MUTATIONS */

#endif /* _CMSTAT_MUTATION_H */
