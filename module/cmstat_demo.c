// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_demo: a sample client of the cmstat allocator.
 *
 * At load it creates the heap "demo", allocates @objects objects of random
 * sizes up to @max_size bytes, frees all but @keep_percent of them, and
 * logs the heap's statistics next to the totals it kept itself.  With
 * @workers set, that many kthreads go on allocating and freeing until
 * unload, so the statistics keep moving.  Unloading frees everything and
 * destroys the heap.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>

static unsigned int objects = 2000;
module_param(objects, uint, 0444);
MODULE_PARM_DESC(objects, "Objects allocated at load (default 2000)");

static unsigned int max_size = 65536;
module_param(max_size, uint, 0444);
MODULE_PARM_DESC(max_size, "Largest object in bytes (default 65536)");

static unsigned int keep_percent = 25;
module_param(keep_percent, uint, 0444);
MODULE_PARM_DESC(keep_percent, "Share of the objects kept until unload (default 25)");

static unsigned int workers;
module_param(workers, uint, 0444);
MODULE_PARM_DESC(workers, "Kthreads allocating and freeing until unload (default 0)");

struct demo_obj {
	void *ptr;
	size_t size;
};

static struct cmstat_heap *demo_heap;
static struct demo_obj *kept;
static unsigned int nr_kept;
static u64 kept_held_bytes, kept_requested_bytes;
static struct task_struct **demo_threads;

/* Mostly small objects, like a real heap, with a tail up to max_size. */
static size_t demo_size(void)
{
	u32 limit = max(max_size, 1U);

	if (get_random_u32_below(8))
		limit = min(limit, 512U);
	return get_random_u32_below(limit) + 1;
}

static void demo_report(const char *when, bool table)
{
	struct cmstat_heap_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);
	unsigned int i;

	if (!st || cmstat_heap_read(demo_heap, st)) {
		kfree(st);
		return;
	}
	pr_info("heap %s %s: live_bytes=%llu live_requested_bytes=%llu live_objects=%llu mallocs=%llu frees=%llu large_live_objects=%llu large_live_bytes=%llu failed_allocs=%llu epoch=%llu\n",
		cmstat_heap_name(demo_heap), when, st->live_bytes,
		st->live_requested_bytes, st->live_objects, st->mallocs,
		st->frees, st->large_live_objects, st->large_live_bytes,
		st->failed_allocs, st->epoch);
	if (!table) {
		kfree(st);
		return;
	}
	pr_info("%12s %12s %10s %10s\n", "class_bytes", "live_objects",
		"mallocs", "frees");
	for (i = 0; i < CMSTAT_NR_CLASSES; i++) {
		const struct cmstat_class_stats *cs = &st->classes[i];

		if (cs->live_objects)
			pr_info("%12llu %12llu %10llu %10llu\n", cs->size_bytes,
				cs->live_objects, cs->mallocs, cs->frees);
	}
	kfree(st);
}

/* Allocate @n objects, keep those that fit in @keep (if any), free the rest. */
static void demo_round(unsigned int n, bool keep)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t size = demo_size();
		void *p = cmstat_alloc(demo_heap, size, GFP_KERNEL);

		if (!p)
			continue;
		if (keep && get_random_u32_below(100) < keep_percent) {
			kept[nr_kept].ptr = p;
			kept[nr_kept].size = size;
			nr_kept++;
			kept_held_bytes += cmstat_alloc_held_bytes(size);
			kept_requested_bytes += size;
		} else {
			cmstat_free(demo_heap, p, size);
		}
	}
}

static int demo_worker(void *unused)
{
	while (!kthread_should_stop()) {
		demo_round(64, false);
		msleep(20);
	}
	return 0;
}

static void demo_stop_workers(void)
{
	unsigned int i;

	for (i = 0; demo_threads && i < workers; i++)
		if (!IS_ERR_OR_NULL(demo_threads[i]))
			kthread_stop(demo_threads[i]);
	kfree(demo_threads);
	demo_threads = NULL;
}

static int __init demo_init(void)
{
	unsigned int i;

	kept = kvcalloc(objects, sizeof(*kept), GFP_KERNEL);
	if (!kept)
		return -ENOMEM;
	demo_heap = cmstat_heap_create("demo");
	if (IS_ERR(demo_heap)) {
		kvfree(kept);
		return PTR_ERR(demo_heap);
	}
	demo_round(objects, true);
	pr_info("kept %u of %u objects: %llu bytes held, %llu requested (the demo's own count)\n",
		nr_kept, objects, kept_held_bytes, kept_requested_bytes);
	demo_report("after load", true);

	if (workers) {
		demo_threads = kcalloc(workers, sizeof(*demo_threads), GFP_KERNEL);
		for (i = 0; demo_threads && i < workers; i++)
			demo_threads[i] = kthread_run(demo_worker, NULL,
						      "cmstat_demo/%u", i);
	}
	return 0;
}

static void __exit demo_exit(void)
{
	unsigned int i;

	demo_stop_workers();
	for (i = 0; i < nr_kept; i++)
		cmstat_free(demo_heap, kept[i].ptr, kept[i].size);
	demo_report("after freeing everything", false);
	cmstat_heap_destroy(demo_heap);
	kvfree(kept);
}

module_init(demo_init);
module_exit(demo_exit);

MODULE_DESCRIPTION("Sample client of the cmstat allocator");
MODULE_AUTHOR("The cmstat developers");
MODULE_LICENSE("GPL");
