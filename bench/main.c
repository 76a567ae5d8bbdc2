// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_bench: benchmarks of cmstat's writer, reader and allocator against
 * the designs it is compared with.  Loading the module runs the chosen
 * groups and prints one line per measurement; scripts/bench.sh ("make
 * bench") loads it in Debian's stock kernel under QEMU and summarises.
 * Nothing is left behind: unload it right after.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "bench.h"

static char *groups = "writer,reader,alloc";
module_param(groups, charp, 0444);
MODULE_PARM_DESC(groups, "Comma-separated groups to run: writer, reader, alloc, budget, busy (default writer,reader,alloc)");

static unsigned int runs = 1;
module_param(runs, uint, 0444);
MODULE_PARM_DESC(runs, "Times each group is run, one sample each (default 1)");

static ulong writer_iters = 100000;
module_param(writer_iters, ulong, 0444);
MODULE_PARM_DESC(writer_iters, "Writer sections per CPU per sample (default 100000)");

static ulong reader_iters = 20;
module_param(reader_iters, ulong, 0444);
MODULE_PARM_DESC(reader_iters, "Snapshots per reader per sample (default 20)");

static ulong alloc_iters = 20000;
module_param(alloc_iters, ulong, 0444);
MODULE_PARM_DESC(alloc_iters, "Alloc + free pairs per size per sample (default 20000)");

static ulong busy_iters = 50;
module_param(busy_iters, ulong, 0444);
MODULE_PARM_DESC(busy_iters, "Cuts per sample of the busy group (default 50)");

static ulong budget_iters = 2000;
module_param(budget_iters, ulong, 0444);
MODULE_PARM_DESC(budget_iters, "Operations per case of the budget group (default 2000)");

/**
 * cmstat_bench_report() - print one measurement
 * @group: "writer", "reader" or "alloc"
 * @name: the case measured
 * @variant: what the case was measured at (CPUs, size)
 * @total_ns: time taken by @ops operations
 * @ops: operations timed
 */
void cmstat_bench_report(const char *group, const char *name,
			 const char *variant, u64 total_ns, u64 ops)
{
	u64 centi_ns = div64_u64(total_ns * 100, ops ? ops : 1);
	u32 frac;
	u64 ns = div_u64_rem(centi_ns, 100, &frac);

	pr_info("sample %s %s %s %llu.%02u\n", group, name, variant, ns, frac);
}

/*
 * The cases make check holds to instruction budgets (scripts/budget.sh,
 * bench/budgets): the writer sections, and alloc + free at two sizes.
 */
int cmstat_bench_budget(unsigned long iters)
{
	return cmstat_bench_writer_budget(iters) ?:
	       cmstat_bench_alloc_budget(iters);
}

static const struct {
	const char *name;
	int (*run)(unsigned long iters);
	unsigned long *iters;
} bench_groups[] = {
	{ "writer", cmstat_bench_writers, &writer_iters },
	{ "reader", cmstat_bench_readers, &reader_iters },
	{ "alloc", cmstat_bench_allocs, &alloc_iters },
	{ "budget", cmstat_bench_budget, &budget_iters },
	{ "busy", cmstat_bench_busy, &busy_iters },
};

/* Return: the index of @name in bench_groups, or -EINVAL. */
static int bench_group_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bench_groups); i++)
		if (!strcmp(name, bench_groups[i].name))
			return i;
	return -EINVAL;
}

/* Return: a bit per group named in @list, or -EINVAL for an unknown one. */
static int bench_parse_groups(const char *list)
{
	char *copy = kstrdup(list, GFP_KERNEL), *cur, *name;
	int mask = 0, i;

	if (!copy)
		return -ENOMEM;
	cur = copy;
	while ((name = strsep(&cur, ",")) && mask >= 0) {
		i = bench_group_index(name);
		mask = i < 0 ? i : mask | BIT(i);
	}
	kfree(copy);
	return mask;
}

static int __init cmstat_bench_init(void)
{
	int mask = bench_parse_groups(groups);
	unsigned int run, i;
	int err = 0;

	if (mask == -ENOMEM)
		return mask;
	if (mask <= 0 || !runs || !writer_iters || !reader_iters ||
	    !alloc_iters || !budget_iters || !busy_iters) {
		pr_err("bad parameters: groups=%s runs=%u, iterations must be > 0\n",
		       groups, runs);
		return -EINVAL;
	}
	for (run = 0; run < runs && !err; run++)
		for (i = 0; i < ARRAY_SIZE(bench_groups) && !err; i++)
			if (mask & BIT(i))
				err = bench_groups[i].run(*bench_groups[i].iters);
	if (err)
		pr_err("benchmark failed: %d\n", err);
	return err;
}

static void __exit cmstat_bench_exit(void)
{
}

module_init(cmstat_bench_init);
module_exit(cmstat_bench_exit);
MODULE_DESCRIPTION("Benchmarks of cmstat against per-CPU, atomic and seed designs");
MODULE_AUTHOR("The cmstat developers");
MODULE_LICENSE("GPL");
