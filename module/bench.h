/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmstat_bench: declarations shared between the benchmark's files.
 *
 * Every measurement is printed as one line, "sample GROUP CASE VARIANT NS",
 * NS with two decimals, and facts the summary needs as "info NAME VALUE";
 * scripts/bench.sh takes the medians and ratios.
 */
#ifndef _CMSTAT_BENCH_H
#define _CMSTAT_BENCH_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>

/* bench_main.c */
void bench_report(const char *group, const char *name, const char *variant,
		  u64 total_ns, u64 ops);

/* bench_writer.c */
int bench_writers(unsigned long iters);

/* bench_reader.c */
int bench_readers(unsigned long iters);

/* bench_alloc.c */
int bench_allocs(unsigned long iters);

/* bench_seed.c: the Go runtime's consistentHeapStats, as a baseline */

/**
 * struct bench_seed - the seed's design: one shared ring of three slots
 * @ring: [3][@nr] counters shared by every CPU, updated with atomic adds.
 * @seq: per-CPU sequence counters, odd while a writer is in its section,
 *	incremented with atomic read-modify-writes.
 * @gen: the slot writers add to; written only by the reader.
 * @nr: counters per slot.
 * @lock: serialises readers.
 */
struct bench_seed {
	atomic64_t *ring;
	atomic_t __percpu *seq;
	unsigned int gen;
	unsigned int nr;
	struct mutex lock;	/* serialises readers */
};

struct bench_seed *bench_seed_alloc(unsigned int nr);
void bench_seed_free(struct bench_seed *seed);
atomic64_t *bench_seed_acquire(struct bench_seed *seed);
void bench_seed_release(struct bench_seed *seed);
void bench_seed_read(struct bench_seed *seed, u64 *totals);

#endif /* _CMSTAT_BENCH_H */
