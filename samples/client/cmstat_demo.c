// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_demo: a sample client of the cmstat allocator.
 *
 * At load it creates the heap "demo" (and "demo1" ... with @heaps above 1),
 * allocates @objects objects of random sizes up to @max_size bytes from
 * them in turn, frees all but @keep_percent of them, and logs the first
 * heap's totals next to the totals it kept itself.  With @workers set, that
 * many kthreads go on allocating and freeing until unload, so the
 * statistics keep moving.  Unloading frees everything and destroys the
 * heaps.
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

#define DEMO_MAX_HEAPS	8
static unsigned int heaps = 1;
module_param(heaps, uint, 0444);
MODULE_PARM_DESC(heaps, "Heaps to spread the objects over, 1 to 8 (default 1)");

struct demo_obj {
	void *ptr;
	size_t size;
	struct cmstat_heap *heap;
};

static struct cmstat_heap *demo_heaps[DEMO_MAX_HEAPS];
static struct demo_obj *kept;
static unsigned int nr_kept;
static u64 kept_held_bytes, kept_requested_bytes;

/* The demo's own count of what it did, over all its heaps. */
static atomic64_t demo_mallocs, demo_frees, demo_failed;
static struct task_struct **demo_threads;

/* Mostly small objects, like a real heap, with a tail up to max_size. */
static size_t demo_size(void)
{
	u32 limit = max(max_size, 1U);

	if (get_random_u32_below(8))
		limit = min(limit, 512U);
	return get_random_u32_below(limit) + 1;
}

/* The heap's totals in one line; the viewer shows the rest. */
static void demo_report(const char *when)
{
	struct cmstat_heap_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);

	if (st && !cmstat_heap_read(demo_heaps[0], st))
		pr_info("heap %s %s: live_bytes=%llu live_requested_bytes=%llu live_objects=%llu mallocs=%llu frees=%llu large_live_objects=%llu large_live_bytes=%llu failed_allocs=%llu epoch=%llu\n",
			cmstat_heap_name(demo_heaps[0]), when, st->live_bytes,
			st->live_requested_bytes, st->live_objects, st->mallocs,
			st->frees, st->large_live_objects, st->large_live_bytes,
			st->failed_allocs, st->epoch);
	kfree(st);
}

/* Allocate @n objects, keep those that fit in @keep (if any), free the rest. */
static void demo_round(unsigned int n, bool keep)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct cmstat_heap *heap = demo_heaps[i % heaps];
		size_t size = demo_size();
		void *p = cmstat_alloc(heap, size, GFP_KERNEL);

		if (!p) {
			atomic64_inc(&demo_failed);
			continue;
		}
		atomic64_inc(&demo_mallocs);
		if (keep && get_random_u32_below(100) < keep_percent) {
			kept[nr_kept].ptr = p;
			kept[nr_kept].size = size;
			kept[nr_kept].heap = heap;
			nr_kept++;
			/* What the first heap should report, by our count. */
			if (heap == demo_heaps[0]) {
				kept_held_bytes += cmstat_alloc_held_bytes(size);
				kept_requested_bytes += size;
			}
		} else {
			cmstat_free(heap, p, size);
			atomic64_inc(&demo_frees);
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

static void demo_destroy_heaps(void)
{
	unsigned int i;

	for (i = 0; i < heaps; i++)
		cmstat_heap_destroy(demo_heaps[i]);
}

static int __init demo_init(void)
{
	unsigned int i;
	char name[CMSTAT_HEAP_NAME_MAX + 1];

	if (heaps < 1 || heaps > DEMO_MAX_HEAPS)
		return -EINVAL;
	kept = kvcalloc(objects, sizeof(*kept), GFP_KERNEL);
	if (!kept)
		return -ENOMEM;
	for (i = 0; i < heaps; i++) {
		if (i)
			snprintf(name, sizeof(name), "demo%u", i);
		else
			strscpy(name, "demo", sizeof(name));
		demo_heaps[i] = cmstat_heap_create(name);
		if (IS_ERR(demo_heaps[i])) {
			int err = PTR_ERR(demo_heaps[i]);

			demo_heaps[i] = NULL;
			demo_destroy_heaps();
			kvfree(kept);
			return err;
		}
	}
	demo_round(objects, true);
	pr_info("kept %u of %u objects; heap %s: %llu bytes held, %llu requested (the demo's own count)\n",
		nr_kept, objects, cmstat_heap_name(demo_heaps[0]),
		kept_held_bytes, kept_requested_bytes);
	demo_report("after load");

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
	for (i = 0; i < nr_kept; i++) {
		cmstat_free(kept[i].heap, kept[i].ptr, kept[i].size);
		atomic64_inc(&demo_frees);
	}
	demo_report("after freeing everything");
	pr_info("ground truth over %u heaps: mallocs=%lld frees=%lld failed_allocs=%lld\n",
		heaps, atomic64_read(&demo_mallocs), atomic64_read(&demo_frees),
		atomic64_read(&demo_failed));
	demo_destroy_heaps();
	kvfree(kept);
}

module_init(demo_init);
module_exit(demo_exit);

MODULE_DESCRIPTION("Sample client of the cmstat allocator");
MODULE_AUTHOR("The cmstat developers");
MODULE_LICENSE("GPL");
