// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: the reader side.  The latency of one snapshot of a counter
 * set the size of a heap's (HC_NR counters), with no writer running: cmstat's
 * consistent read, the naive per-CPU sum it is compared with, and the seed's
 * rotate-and-spin reader; and, for the record, one expedited RCU grace
 * period, the alternative to cmstat's IPI.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include <cmstat/counters.h>

#include "bench.h"
#include "heap_layout.h"

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

/**
 * cmstat_bench_readers() - time one snapshot with each reader
 * @iters: snapshots per reader
 *
 * The variant printed is the number of online CPUs.  No writer runs.
 *
 * Return: 0 or -ENOMEM.
 */
int cmstat_bench_readers(unsigned long iters)
{
	struct cmstat_counters *set = cmstat_counters_alloc(NULL, HC_NR);
	struct cmstat_bench_seed *seed = cmstat_bench_seed_alloc(HC_NR);
	u64 *totals = kcalloc(HC_NR, sizeof(*totals), GFP_KERNEL);
	int err = -ENOMEM;

	if (!IS_ERR(set) && seed && totals) {
		pr_info("info reader_counters %u\n", HC_NR);
		time_reader("cmstat", read_cmstat, set, totals, iters);
		time_reader("naive_sum", read_naive, set, totals, iters);
		time_reader("seed", read_seed, seed, totals, iters);
		time_reader("rcu_expedited", wait_rcu_expedited, NULL, totals,
			    iters);
		err = 0;
	}
	kfree(totals);
	cmstat_bench_seed_free(seed);
	cmstat_counters_free(set);
	return err;
}
