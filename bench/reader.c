// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: the reader side.  The latency of one snapshot of a counter
 * set the size of a heap's (CMSTAT_HC_NR counters), with no writer running: cmstat's
 * consistent read, the naive per-CPU sum it is compared with, and the seed's
 * rotate-and-spin reader; and, for the record, one expedited RCU grace
 * period, the alternative to cmstat's IPI.  Then one cut of all heaps
 * (cmstat_heaps_read_all()) with 1, 16 and 256 heaps: a read folds every
 * heap, so its cost grows with their number.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include <cmstat/alloc.h>
#include <cmstat/counters.h>

#include "bench.h"

static void read_cmstat(void *set, u64 *totals)
{
	/* No writer, no signal for a kthread: it cannot fail. */
	WARN_ON_ONCE(cmstat_counters_read(set, totals, NULL));
}

static void read_naive(void *set, u64 *totals)
{
	cmstat_counters_sum_racy(set, totals);
}

static void read_seed(void *seed, u64 *totals)
{
	cmstat_bench_seed_read(seed, totals);
}

/*
 * Not a reader: the grace period an RCU-based reader would wait for instead
 * of cmstat's IPI (preempt-disabled sections are RCU readers), timed so that
 * Documentation/design.rst's choice between the two rests on a figure.
 */
static void wait_rcu_expedited(void *unused, u64 *totals)
{
	synchronize_rcu_expedited();
}

static void time_reader(const char *name, void (*read)(void *, u64 *),
			void *state, u64 *totals, unsigned long iters)
{
	u64 start = ktime_get_ns();
	unsigned long i;
	char cpus[12];

	for (i = 0; i < iters; i++)
		read(state, totals);
	snprintf(cpus, sizeof(cpus), "%u", num_online_cpus());
	cmstat_bench_report("reader", name, cpus, ktime_get_ns() - start, iters);
}

static void read_all_heaps(void *st, u64 *totals)
{
	/* No writer, no signal for a kthread: it cannot fail. */
	WARN_ON_ONCE(cmstat_heaps_read_all(st));
}

/* One cut of all heaps, with @nr_heaps heaps of the benchmark's. */
static int time_all_heaps(unsigned int nr_heaps, unsigned long iters)
{
	struct cmstat_heap **heaps = kcalloc(nr_heaps, sizeof(*heaps),
					     GFP_KERNEL);
	struct cmstat_heap_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);
	char name[CMSTAT_HEAP_NAME_MAX + 1];
	unsigned int i;
	int err = -ENOMEM;

	for (i = 0; heaps && st && i < nr_heaps; i++) {
		snprintf(name, sizeof(name), "cmstat_bench%u", i);
		heaps[i] = cmstat_heap_create(name);
		if (IS_ERR(heaps[i])) {
			err = PTR_ERR(heaps[i]);
			heaps[i] = NULL;
			break;
		}
	}
	if (heaps && st && i == nr_heaps) {
		snprintf(name, sizeof(name), "all_heaps_%u", nr_heaps);
		/* Fewer for many heaps: one read of 256 is 100 of one. */
		time_reader(name, read_all_heaps, st, NULL,
			    max(iters * 16 / (nr_heaps + 15), 1UL));
		err = 0;
	}
	for (i = 0; heaps && i < nr_heaps; i++)
		cmstat_heap_destroy(heaps[i]);
	kfree(st);
	kfree(heaps);
	return err;
}

/**
 * cmstat_bench_readers() - time one snapshot with each reader
 * @iters: snapshots per reader
 *
 * The variant printed is the number of online CPUs.  No writer runs.
 *
 * Return: 0, -ENOMEM, or a cmstat_heap_create() error.
 */
int cmstat_bench_readers(unsigned long iters)
{
	struct cmstat_counters *set = cmstat_counters_alloc(NULL, CMSTAT_HC_NR);
	struct cmstat_bench_seed *seed = cmstat_bench_seed_alloc(CMSTAT_HC_NR);
	u64 *totals = kcalloc(CMSTAT_HC_NR, sizeof(*totals), GFP_KERNEL);
	int err = -ENOMEM;

	if (!IS_ERR(set) && seed && totals) {
		pr_info("info reader_counters %u\n", CMSTAT_HC_NR);
		time_reader("cmstat", read_cmstat, set, totals, iters);
		time_reader("naive_sum", read_naive, set, totals, iters);
		time_reader("seed", read_seed, seed, totals, iters);
		time_reader("rcu_expedited", wait_rcu_expedited, NULL, totals,
			    iters);
		err = time_all_heaps(1, iters) ?: time_all_heaps(16, iters) ?:
		      time_all_heaps(256, iters);
	}
	kfree(totals);
	cmstat_bench_seed_free(seed);
	cmstat_counters_free(set);
	return err;
}
