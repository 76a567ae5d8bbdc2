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

struct cpumask;

/* main.c */
void cmstat_bench_report(const char *group, const char *name,
			 const char *variant, u64 total_ns, u64 ops);

/* runner.c */
int cmstat_bench_on_cpus(const struct cpumask *cpus,
			 void (*fn)(unsigned long iters), unsigned long iters,
			 u64 *mean_ns);

/* writer.c */
int cmstat_bench_writers(unsigned long iters);

/* reader.c */
int cmstat_bench_readers(unsigned long iters);

/* busy.c */
int cmstat_bench_busy(unsigned long iters);

/* alloc.c */
int cmstat_bench_allocs(unsigned long iters);
int cmstat_bench_alloc_budget(unsigned long iters);

/* sites.c */
int cmstat_bench_sites(const char *group, unsigned long iters, bool unsized);
int cmstat_bench_site_cuts(unsigned long iters);

/* writer.c and alloc.c: the cases make check holds to budgets */
int cmstat_bench_writer_budget(unsigned long iters);

/* main.c */
int cmstat_bench_budget(unsigned long iters);

/* seed.c: the Go runtime's consistentHeapStats, as a baseline */

/**
 * struct cmstat_bench_seed - the seed's design: one shared ring of three slots
 * @ring: [3][@nr] counters shared by every CPU, updated with atomic adds.
 * @seq: per-CPU sequence counters, odd while a writer is in its section,
 *	incremented with atomic read-modify-writes.
 * @gen: the slot writers add to; written only by the reader.
 * @nr: counters per slot.
 */
struct cmstat_bench_seed {
	atomic64_t *ring;
	atomic_t __percpu *seq;
	unsigned int gen;
	unsigned int nr;
	struct mutex lock;	/* serialises readers */
};

struct cmstat_bench_seed *cmstat_bench_seed_alloc(unsigned int nr);
void cmstat_bench_seed_free(struct cmstat_bench_seed *seed);
atomic64_t *cmstat_bench_seed_acquire(struct cmstat_bench_seed *seed);
void cmstat_bench_seed_release(struct cmstat_bench_seed *seed);
void cmstat_bench_seed_read(struct cmstat_bench_seed *seed, u64 *totals);

#endif /* _CMSTAT_BENCH_H */
