// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: the writer side.  One section that updates four counters,
 * timed on one CPU and on every online CPU at once, for cmstat and for what
 * it is compared with.
 */

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/cpu.h>
#include <linux/percpu.h>
#include <linux/percpu_counter.h>
#include <linux/timekeeping.h>

#include <cmstat/counters.h>

#include "bench.h"

#define WRITER_COUNTERS	4

/*
 * Each section adds what an allocator's would: bytes, one object, requested
 * bytes, one free slot fewer.  The byte deltas exceed percpu_counter's
 * default batch (32 up to 16 CPUs), so with it every such add folds into
 * the shared count under its spinlock; the _nofold case raises the batch
 * so that no add ever does, percpu_counter's best case.
 */
#define WRITER_BYTES	64
#define PCP_NOFOLD_BATCH	S32_MAX

/* What each case writes to; set up by writer_state_init(). */
static struct cmstat_counters *cmstat_set;
static u64 __percpu *floor_counters;
static struct cmstat_bench_seed *seed;
static struct percpu_counter pcp_counters[WRITER_COUNTERS];
/* Shared by every CPU, on one cache line as a struct's fields would be. */
static atomic64_t shared_counters[WRITER_COUNTERS] ____cacheline_aligned;

/*
 * One cmstat section, from any context or (@task) opened as task context;
 * with @fence, the smp_mb() that cmstat's reader IPI makes unnecessary:
 * what the writer would pay if it ordered its seq store before its gen
 * load itself, as the seed's does.  Inlined with constant arguments, so
 * each case has no trace of the others.
 */
static __always_inline void write_cmstat_section(bool task, bool fence)
{
	struct cmstat_group *group = cmstat_counters_group(cmstat_set);
	struct cmstat_section sec;
	u64 __percpu *slot;

	if (task ? !cmstat_section_begin_task(&sec, group) :
		   !cmstat_section_begin(&sec, group))
		return;
	if (fence)
		smp_mb();	/* the measured cost; pairs with nothing */
	slot = cmstat_section_slot(&sec, cmstat_set);
	cmstat_section_add(slot, 0, WRITER_BYTES);
	cmstat_section_add(slot, 1, 1);
	cmstat_section_add(slot, 2, WRITER_BYTES);
	cmstat_section_add(slot, 3, -1);
	cmstat_section_end(&sec);
}

static noinline void write_cmstat(unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters; i++)
		write_cmstat_section(false, false);
}

static noinline void write_cmstat_task(unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters; i++)
		write_cmstat_section(true, false);
}

static noinline void write_cmstat_mb(unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters; i++)
		write_cmstat_section(false, true);
}

/* The floor of a task section: the adds with preemption disabled. */
static noinline void write_floor_preempt(unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters; i++) {
		preempt_disable();
		this_cpu_add(floor_counters[0], WRITER_BYTES);
		this_cpu_add(floor_counters[1], 1);
		this_cpu_add(floor_counters[2], WRITER_BYTES);
		this_cpu_add(floor_counters[3], -1);
		preempt_enable();
	}
}

/* The floor: the same four per-CPU adds with no section around them. */
static noinline void write_floor(unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters; i++) {
		this_cpu_add(floor_counters[0], WRITER_BYTES);
		this_cpu_add(floor_counters[1], 1);
		this_cpu_add(floor_counters[2], WRITER_BYTES);
		this_cpu_add(floor_counters[3], -1);
	}
}

static noinline void write_seed(unsigned long iters)
{
	atomic64_t *slot;
	unsigned long i;

	for (i = 0; i < iters; i++) {
		slot = cmstat_bench_seed_acquire(seed);
		atomic64_add(WRITER_BYTES, &slot[0]);
		atomic64_add(1, &slot[1]);
		atomic64_add(WRITER_BYTES, &slot[2]);
		atomic64_add(-1, &slot[3]);
		cmstat_bench_seed_release(seed);
	}
}

static noinline void write_percpu_counter(unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters; i++) {
		percpu_counter_add(&pcp_counters[0], WRITER_BYTES);
		percpu_counter_add(&pcp_counters[1], 1);
		percpu_counter_add(&pcp_counters[2], WRITER_BYTES);
		percpu_counter_add(&pcp_counters[3], -1);
	}
}

static noinline void write_percpu_counter_nofold(unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters; i++) {
		percpu_counter_add_batch(&pcp_counters[0], WRITER_BYTES,
					 PCP_NOFOLD_BATCH);
		percpu_counter_add_batch(&pcp_counters[1], 1, PCP_NOFOLD_BATCH);
		percpu_counter_add_batch(&pcp_counters[2], WRITER_BYTES,
					 PCP_NOFOLD_BATCH);
		percpu_counter_add_batch(&pcp_counters[3], -1, PCP_NOFOLD_BATCH);
	}
}

static noinline void write_atomic64(unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters; i++) {
		atomic64_add(WRITER_BYTES, &shared_counters[0]);
		atomic64_add(1, &shared_counters[1]);
		atomic64_add(WRITER_BYTES, &shared_counters[2]);
		atomic64_add(-1, &shared_counters[3]);
	}
}

static const struct {
	const char *name;
	void (*write)(unsigned long iters);
} writer_cases[] = {
	{ "cmstat", write_cmstat },
	{ "cmstat_task", write_cmstat_task },
	{ "cmstat_mb", write_cmstat_mb },
	{ "this_cpu_add", write_floor },
	{ "this_cpu_add_preempt", write_floor_preempt },
	{ "seed", write_seed },
	{ "percpu_counter", write_percpu_counter },
	{ "percpu_counter_nofold", write_percpu_counter_nofold },
	{ "atomic64", write_atomic64 },
};

static int writer_state_init(void)
{
	unsigned int i;
	int err;

	cmstat_set = cmstat_counters_alloc(NULL, WRITER_COUNTERS);
	if (IS_ERR(cmstat_set)) {
		err = PTR_ERR(cmstat_set);
		cmstat_set = NULL;
		return err;
	}
	floor_counters = __alloc_percpu(WRITER_COUNTERS * sizeof(u64),
					sizeof(u64));
	seed = cmstat_bench_seed_alloc(WRITER_COUNTERS);
	if (!floor_counters || !seed)
		return -ENOMEM;
	/* One at a time: percpu_counter_init_many() is 6.6 and later. */
	for (i = 0; i < WRITER_COUNTERS; i++) {
		err = percpu_counter_init(&pcp_counters[i], 0, GFP_KERNEL);
		if (err)
			return err;
	}
	return 0;
}

static void writer_state_free(void)
{
	unsigned int i;

	/* A no-op on a counter that was never initialised. */
	for (i = 0; i < WRITER_COUNTERS; i++)
		percpu_counter_destroy(&pcp_counters[i]);
	cmstat_bench_seed_free(seed);
	free_percpu(floor_counters);
	cmstat_counters_free(cmstat_set);
	seed = NULL;
	floor_counters = NULL;
	cmstat_set = NULL;
}

/* Every case on one CPU, then every case on all online CPUs at once. */
static int writer_cases_on(const struct cpumask *cpus, const char *variant,
			   unsigned long iters)
{
	unsigned int i;
	u64 ns;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(writer_cases) && !err; i++) {
		err = cmstat_bench_on_cpus(cpus, writer_cases[i].write, iters,
					   &ns);
		if (!err)
			cmstat_bench_report("writer", writer_cases[i].name,
					    variant, ns, iters);
	}
	return err;
}

/**
 * cmstat_bench_writers() - time every writer case on one CPU and on all CPUs
 * @iters: sections per CPU per case
 *
 * Return: 0, an error from cmstat_bench_on_cpus() or the set-up (-ENOMEM),
 * or -EPERM when cmstat's accounting is off (its
 * sections would not write, and the comparison would be meaningless).
 */
int cmstat_bench_writers(unsigned long iters)
{
	int err;

	if (!cmstat_accounting_enabled())
		return -EPERM;
	err = writer_state_init();
	if (!err) {
		/* No CPU may leave mid-run: its thread would move. */
		cpus_read_lock();
		err = writer_cases_on(cpumask_of(raw_smp_processor_id()),
				      "1cpu", iters);
		if (!err)
			err = writer_cases_on(cpu_online_mask, "allcpu", iters);
		cpus_read_unlock();
	}
	writer_state_free();
	return err;
}

/**
 * cmstat_bench_writer_budget() - the writer sections, for the budget group
 * @iters: sections per case
 *
 * On this CPU, in the module's loading task: a section from any context
 * and one opened as task context, four counters each.
 *
 * Return: 0, or an error from the set-up (-ENOMEM), or -EPERM when
 * cmstat's accounting is off.
 */
int cmstat_bench_writer_budget(unsigned long iters)
{
	static const struct {
		const char *name;
		void (*write)(unsigned long iters);
	} cases[] = {
		{ "writer_section", write_cmstat },
		{ "writer_section_task", write_cmstat_task },
	};
	unsigned int i;
	u64 start;
	int err;

	if (!cmstat_accounting_enabled())
		return -EPERM;
	err = writer_state_init();
	for (i = 0; i < ARRAY_SIZE(cases) && !err; i++) {
		start = ktime_get_ns();
		cases[i].write(iters);
		cmstat_bench_report("budget", cases[i].name, "4",
				    ktime_get_ns() - start, iters);
	}
	writer_state_free();
	return err;
}
