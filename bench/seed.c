// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: the seed's design, rebuilt in kernel C as the baseline.
 *
 * The Go runtime's consistent heap statistics (runtime/mstats.go since Go
 * 1.16) as the seeds describe them: every writer adds into one ring of three
 * slots shared by all CPUs, with atomic adds, inside a section bracketed by
 * its CPU's sequence counter, which it bumps with an atomic (fully ordered)
 * read-modify-write; the reader rotates the generation, spins until every
 * sequence counter is even, then folds the slot it closed into the
 * accumulated one.  The CPU with preemption disabled stands in for Go's P.
 * Task context only: like the seed, it has no answer to interrupt nesting.
 */

#include <linux/percpu.h>
#include <linux/processor.h>
#include <linux/slab.h>

#include "bench.h"

#define SEED_SLOTS	3

/* Return: the seed state with all counters zero, or NULL. */
struct cmstat_bench_seed *cmstat_bench_seed_alloc(unsigned int nr)
{
	struct cmstat_bench_seed *seed = kzalloc(sizeof(*seed), GFP_KERNEL);

	if (!seed)
		return NULL;
	seed->nr = nr;
	mutex_init(&seed->lock);
	seed->ring = kcalloc(SEED_SLOTS * nr, sizeof(*seed->ring), GFP_KERNEL);
	seed->seq = alloc_percpu(atomic_t);
	if (!seed->ring || !seed->seq) {
		cmstat_bench_seed_free(seed);
		return NULL;
	}
	return seed;
}

void cmstat_bench_seed_free(struct cmstat_bench_seed *seed)
{
	if (!seed)
		return;
	free_percpu(seed->seq);
	kfree(seed->ring);
	mutex_destroy(&seed->lock);
	kfree(seed);
}

/*
 * Open a section: returns the shared slot to atomic64_add() into.  The
 * atomic increment is a full barrier, which orders the seq store before
 * the gen load (the seed's answer to store buffering: the writer pays);
 * pairs with xchg() of ->gen in cmstat_bench_seed_read().
 */
atomic64_t *cmstat_bench_seed_acquire(struct cmstat_bench_seed *seed)
{
	unsigned int gen;

	preempt_disable();
	WARN_ON_ONCE(!(atomic_inc_return(this_cpu_ptr(seed->seq)) & 1));
	gen = READ_ONCE(seed->gen) % SEED_SLOTS;
	return seed->ring + gen * seed->nr;
}

void cmstat_bench_seed_release(struct cmstat_bench_seed *seed)
{
	/* Fully ordered: the adds are visible before the counter is even. */
	WARN_ON_ONCE(atomic_inc_return(this_cpu_ptr(seed->seq)) & 1);
	preempt_enable();
}

/*
 * Rotate, wait for every CPU's counter to be even (the seed spins, and can
 * starve behind a CPU that writes back to back), fold the closed slot into
 * the accumulated one and copy it out.
 */
void cmstat_bench_seed_read(struct cmstat_bench_seed *seed, u64 *totals)
{
	unsigned int cur, prev, i, cpu;
	atomic64_t *acc, *closed;

	mutex_lock(&seed->lock);
	cur = seed->gen;	/* only readers write it, under ->lock */
	prev = (cur + SEED_SLOTS - 1) % SEED_SLOTS;
	/* Fully ordered; pairs with the writer's atomic_inc_return(). */
	xchg(&seed->gen, (cur + 1) % SEED_SLOTS);
	/*
	 * Acquire: pairs with the fully ordered atomic_inc_return() in
	 * cmstat_bench_seed_release(), so the closed slot is read after the
	 * adds that preceded it (Go's atomic load is an acquire).
	 */
	for_each_possible_cpu(cpu)
		while (atomic_read_acquire(per_cpu_ptr(seed->seq, cpu)) & 1)
			cpu_relax();
	/*
	 * Slot cur is closed now and slot prev holds everything before it;
	 * no writer touches either until the next two rotations, so the
	 * reads and sets below race with nothing (under ->lock).
	 */
	closed = seed->ring + cur * seed->nr;
	acc = seed->ring + prev * seed->nr;
	for (i = 0; i < seed->nr; i++) {
		totals[i] = atomic64_read(&closed[i]) + atomic64_read(&acc[i]);
		atomic64_set(&closed[i], totals[i]);
		atomic64_set(&acc[i], 0);
	}
	mutex_unlock(&seed->lock);
}
