// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: run one function on a set of CPUs at once, a kthread bound
 * to each, and time it.
 */

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/timekeeping.h>

#include "bench.h"

struct bench_run {
	void (*fn)(unsigned long iters);
	unsigned long iters;
	struct completion start;
	struct completion done;		/* completed once by each thread */
	atomic64_t total_ns;
};

static int bench_thread(void *arg)
{
	struct bench_run *run = arg;
	u64 start;

	wait_for_completion(&run->start);
	start = ktime_get_ns();
	run->fn(run->iters);
	/*
	 * Read by the starter after its last wait_for_completion(), whose
	 * ordering with complete() publishes it.
	 */
	atomic64_add(ktime_get_ns() - start, &run->total_ns);
	/*
	 * Never return into this module: it may be unloaded as soon as the
	 * starter has seen the last completion.
	 */
	kthread_complete_and_exit(&run->done, 0);
}

/**
 * cmstat_bench_on_cpus() - run @fn(@iters) on every CPU of @cpus at once
 * @cpus: where to run; the caller keeps them online (cpus_read_lock())
 * @fn: the loop to time
 * @iters: passed to @fn
 * @mean_ns: the time @fn took, averaged over the CPUs
 *
 * The threads sleep until all are created, then one complete_all()
 * releases them: spinning instead would, with voluntary preemption, keep
 * a CPU from the starter that has to release its thread.
 *
 * Return: 0, or the error that kept a thread from being created (the
 * threads already created run and are waited for).
 */
int cmstat_bench_on_cpus(const struct cpumask *cpus,
			 void (*fn)(unsigned long iters), unsigned long iters,
			 u64 *mean_ns)
{
	struct bench_run run = { .fn = fn, .iters = iters };
	unsigned int cpu, started = 0, i;
	struct task_struct *t;
	int err = 0;

	init_completion(&run.start);
	init_completion(&run.done);
	atomic64_set(&run.total_ns, 0);
	for_each_cpu(cpu, cpus) {
		t = kthread_create_on_cpu(bench_thread, &run, cpu,
					  "cmstat_bench/%u");
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			break;
		}
		wake_up_process(t);
		started++;
	}
	complete_all(&run.start);
	for (i = 0; i < started; i++)
		wait_for_completion(&run.done);
	if (!err && !started)
		err = -EINVAL;
	if (!err)
		*mean_ns = div_u64(atomic64_read(&run.total_ns), started);
	return err;
}
