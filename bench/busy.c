// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: the cut beside busy CPUs.  A writer kthread on every CPU
 * but the first allocates and frees without a break, so every one of them
 * is in the kernel and gets the reader's IPI; a kworker on the first CPU
 * takes cuts of all heaps.  Booted with its vCPU threads pinned to one host
 * CPU (scripts/bench.sh), each IPI waits for a vCPU the host has
 * descheduled: what the cut costs then, in latency and in the CPU the
 * reader burns, is what a reader meets on an overcommitted virtual machine.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include <cmstat/alloc.h>

#include "bench.h"

#define BUSY_SIZE	64

static int busy_writer(void *heap)
{
	unsigned int i = 0;
	void *p;

	while (!kthread_should_stop()) {
		p = cmstat_alloc(heap, BUSY_SIZE, GFP_KERNEL);
		cmstat_free(heap, p, BUSY_SIZE);
		if (!(++i % 64))
			cond_resched();
	}
	return 0;
}

struct busy_cuts {
	struct cmstat_heap_stats *st;
	unsigned long iters;
	u64 latency_ns;
	u64 cpu_ns;		/* the reader's own CPU time */
};

/*
 * For work_on_cpu().  A sleep before each reading of the runtime brings
 * it up to date: a running task's is updated at ticks and switches only.
 */
static long busy_cut(void *arg)
{
	struct busy_cuts *c = arg;
	unsigned long i;
	u64 cpu, start;

	schedule_timeout_uninterruptible(1);
	cpu = current->se.sum_exec_runtime;
	start = ktime_get_ns();
	for (i = 0; i < c->iters; i++)
		/* No signal for a kworker, no module refused: cannot fail. */
		WARN_ON_ONCE(cmstat_heaps_read_all(c->st));
	c->latency_ns = ktime_get_ns() - start;
	schedule_timeout_uninterruptible(1);
	c->cpu_ns = current->se.sum_exec_runtime - cpu;
	return 0;
}

/**
 * cmstat_bench_busy() - time cuts of all heaps while the other CPUs write
 * @iters: cuts per sample
 *
 * Prints the cut's latency and the reader's CPU time per cut, the variant
 * the number of online CPUs.
 *
 * Return: 0, -ENOMEM, -ENODEV with one CPU, or a creation error.
 */
int cmstat_bench_busy(unsigned long iters)
{
	struct busy_cuts c = { .iters = iters };
	struct task_struct **writers;
	struct cmstat_heap *heap;
	unsigned int cpu, first;
	char cpus[12];
	int err = 0;

	heap = cmstat_heap_create("cmstat_bench_busy");
	if (IS_ERR(heap))
		return PTR_ERR(heap);
	writers = kcalloc(nr_cpu_ids, sizeof(*writers), GFP_KERNEL);
	c.st = kmalloc(sizeof(*c.st), GFP_KERNEL);
	if (!writers || !c.st) {
		err = -ENOMEM;
		goto free;
	}
	/* The CPUs chosen stay online until their writers are stopped. */
	cpus_read_lock();
	first = cpumask_first(cpu_online_mask);
	if (num_online_cpus() < 2) {
		err = -ENODEV;
		goto stop;
	}
	for_each_online_cpu(cpu) {
		if (cpu == first)
			continue;
		writers[cpu] = kthread_run_on_cpu(busy_writer, heap, cpu,
						  "cmstat_busy/%u");
		if (IS_ERR(writers[cpu])) {
			err = PTR_ERR(writers[cpu]);
			writers[cpu] = NULL;
			goto stop;
		}
	}
	work_on_cpu(first, busy_cut, &c);
	snprintf(cpus, sizeof(cpus), "%u", num_online_cpus());
	cmstat_bench_report("busy", "cut_latency", cpus, c.latency_ns, iters);
	cmstat_bench_report("busy", "cut_reader_cpu", cpus, c.cpu_ns, iters);
stop:
	for_each_online_cpu(cpu)
		if (writers[cpu])
			kthread_stop(writers[cpu]);
	cpus_read_unlock();
free:
	kfree(c.st);
	kfree(writers);
	cmstat_heap_destroy(heap);
	return err;
}
