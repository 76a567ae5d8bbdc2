// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: the reader side.  The latency of one snapshot of a counter
 * set the size of a heap's (CMSTAT_HC_NR counters), with no writer running: cmstat's
 * consistent read, the naive per-CPU sum it is compared with, and the seed's
 * rotate-and-spin reader; and, for the record, one expedited RCU grace
 * period, the alternative to cmstat's IPI.  Then one cut of all heaps
 * (cmstat_heaps_read_all()) with 1, 16 and 256 heaps, of which none, 1, 4
 * or all were written since the previous cut, on 2 CPUs or on all: what a
 * cut costs may grow with the heaps, with those written, and with the
 * CPUs that wrote them.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <linux/timekeeping.h>

#include <cmstat/alloc.h>
#include <cmstat/counters.h>
#include <cmstat/testing.h>

#include "bench.h"

/* The naive reader: cmstat_counters_sum_racy(). */
CMSTAT_IMPORT_TESTING();

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

/* What is written between two timed cuts of all heaps. */
struct cut_writes {
	struct cmstat_heap **heaps;
	unsigned int nr_active;		/* heaps[0 .. nr_active - 1] */
};

/* Small and constant: a slab pair, the one the allocator tables time. */
#define CUT_WRITE_SIZE	64

/* For work_on_cpu(): in a kworker, on the writing CPU. */
static long cut_write(void *arg)
{
	const struct cut_writes *w = arg;
	unsigned int i;

	for (i = 0; i < w->nr_active; i++)
		cmstat_free(w->heaps[i],
			    cmstat_alloc(w->heaps[i], CUT_WRITE_SIZE, GFP_ATOMIC),
			    CUT_WRITE_SIZE);
	return 0;
}

/*
 * Write every active heap on each writing CPU: the one we run on and one
 * other (the first online, for a figure that does not depend on where the
 * scheduler put us), or all of them.  One CPU after the other, each in a
 * kworker, not in an IPI handler: hundreds of heaps with interrupts off
 * on every CPU at once stall RCU on a debug kernel.  All of it is done
 * when this returns, so that none of it lands in the timed cut.  Under
 * cpus_read_lock(), so that the CPUs chosen stay online until their work
 * is done (what work_on_cpu_safe() did for one CPU; 7.x keeps that only
 * for !SMP kernels).
 */
static void cut_write_on(struct cut_writes *w, struct cpumask *mask, bool all)
{
	unsigned int cpu, other;

	cpus_read_lock();
	cpu = raw_smp_processor_id();
	if (all) {
		cpumask_copy(mask, cpu_online_mask);
	} else {
		cpumask_clear(mask);
		cpumask_set_cpu(cpu, mask);
		other = cpumask_any_but(cpu_online_mask, cpu);
		if (other < nr_cpu_ids)
			cpumask_set_cpu(other, mask);
	}
	for_each_cpu(cpu, mask)
		work_on_cpu(cpu, cut_write, w);
	cpus_read_unlock();
}

/*
 * @iters cuts of all heaps, each after @w's writes on the CPUs @all
 * chooses (none for no active heap); only the cuts are timed.
 */
static void time_cut(const char *name, struct cmstat_heap_stats *st,
		     struct cut_writes *w, struct cpumask *mask, bool all,
		     unsigned long iters)
{
	u64 total = 0, start;
	unsigned long i;
	char cpus[12];

	for (i = 0; i < iters; i++) {
		if (w->nr_active)
			cut_write_on(w, mask, all);
		start = ktime_get_ns();
		/* No signal for a kthread, no module refused: it cannot fail. */
		WARN_ON_ONCE(cmstat_heaps_read_all(st));
		total += ktime_get_ns() - start;
	}
	snprintf(cpus, sizeof(cpus), "%u", num_online_cpus());
	cmstat_bench_report("reader", name, cpus, total, iters);
}

/*
 * One cut of all heaps, with @nr_heaps heaps of the benchmark's: idle
 * (case all_heaps_N, as before writes were timed), then with 1, 4 and all
 * of them active, written on 2 CPUs and on all.
 */
static int time_all_heaps(unsigned int nr_heaps, unsigned long iters)
{
	static const unsigned int actives[] = { 1, 4, UINT_MAX };
	struct cmstat_heap **heaps = kcalloc(nr_heaps, sizeof(*heaps),
					     GFP_KERNEL);
	struct cmstat_heap_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);
	struct cut_writes w = { .heaps = heaps };
	char name[CMSTAT_HEAP_NAME_MAX + 1];
	char cut[48];
	unsigned int i, all;
	cpumask_var_t mask;
	int err = -ENOMEM;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		goto free;
	for (i = 0; heaps && st && i < nr_heaps; i++) {
		snprintf(name, sizeof(name), "cmstat_bench%u", i);
		heaps[i] = cmstat_heap_create(name);
		if (IS_ERR(heaps[i])) {
			err = PTR_ERR(heaps[i]);
			heaps[i] = NULL;
			break;
		}
	}
	if (!heaps || !st || i < nr_heaps)
		goto destroy;
	/* Fewer for many heaps: one cut of 256 is 100 of one. */
	iters = max(iters * 16 / (nr_heaps + 15), 1UL);
	/*
	 * Untimed, so that the idle case finds nothing to do but the cut:
	 * the RCU callbacks that destroying and creating heaps queued (the
	 * previous heaps' debugfs and sysfs nodes) would otherwise run on
	 * some vCPU during its first cuts, and be counted, by up to 6%; and
	 * a reader that folds only what was written since the last cut
	 * would find the new heaps (and the other groups' writes) in the
	 * first one.
	 */
	rcu_barrier();
	WARN_ON_ONCE(cmstat_heaps_read_all(st));
	snprintf(cut, sizeof(cut), "all_heaps_%u", nr_heaps);
	time_cut(cut, st, &w, mask, false, iters);
	for (i = 0; i < ARRAY_SIZE(actives); i++) {
		/* "All" is 1 or 4 when there are no more heaps than that. */
		if (min(actives[i], nr_heaps) <= w.nr_active)
			continue;
		w.nr_active = min(actives[i], nr_heaps);
		for (all = 0; all <= 1; all++) {
			snprintf(cut, sizeof(cut),
				 "all_heaps_%u_active_%u_writing_%s", nr_heaps,
				 w.nr_active, all ? "all" : "2");
			time_cut(cut, st, &w, mask, all, iters);
		}
	}
	err = 0;
destroy:
	for (i = 0; heaps && i < nr_heaps; i++)
		cmstat_heap_destroy(heaps[i]);
free:
	free_cpumask_var(mask);
	kfree(st);
	kfree(heaps);
	return err;
}

/**
 * cmstat_bench_readers() - time one snapshot with each reader
 * @iters: snapshots per reader (fewer for the cuts of many heaps)
 *
 * The variant printed is the number of online CPUs.  No writer runs but
 * the one-pair writes between two cuts of all heaps, which are not timed.
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
		      time_all_heaps(256, iters) ?:
		      cmstat_bench_site_cuts(iters);
	}
	kfree(totals);
	cmstat_bench_seed_free(seed);
	cmstat_counters_free(set);
	return err;
}
