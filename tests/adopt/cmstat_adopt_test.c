// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_adopt_test: a module of nobody's, adopted with the one Kbuild
 * line (scripts/adopt-build.sh adds it to this directory's Makefile), that
 * mixes its own caches with the kernel's as real modules do:
 *
 *	kernel_cache_inline	a kernel header's inline on the kernel's
 *				cache, as ext4 calls jbd2_alloc_inode() and
 *				jbd2_free_inode() (jbd2's cache, where the
 *				kernel has jbd2; else __getname() and
 *				__putname() of <linux/fs.h>, on
 *				names_cachep): the kernel's, not counted
 *	own_cache_counted	kmem_cache_alloc(), _zalloc(), the bulk
 *				forms and kmem_cache_free() on the module's
 *				own cache: each counted, exactly
 *	own_cache_mempool	the module's cache handed to
 *				mempool_create_slab_pool(): the kernel
 *				allocates from it and frees into it, not
 *				counted
 *	own_cache_destroyed	kmem_cache_destroy(): the heap holds
 *				nothing, and the slab cache's address is
 *				no typed cache's any more
 *
 * Prints KTAP, one result per case; the load fails (-EINVAL) if any case
 * failed, so that insmod's status is the verdict
 * (scripts/guest/checks/client-adopt-caches.sh).
 */

#include <linux/fs.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/slab.h>
#if IS_ENABLED(CONFIG_JBD2)
#include <linux/jbd2.h>
#endif

/* No pr_fmt of its own: adopt.h has <linux/printk.h> read first. */
#define adopt_ktap(fmt, ...)	pr_info("cmstat_adopt_test: " fmt, ##__VA_ARGS__)

#define ADOPT_OBJ_SIZE	192
#define ADOPT_N		16

struct adopt_obj {
	char bytes[ADOPT_OBJ_SIZE];
};

static struct kmem_cache *adopt_cache;
/* Not on the stack, and not kmalloc()ed: that would be on the heap too. */
static struct cmstat_heap_stats adopt_before, adopt_after;
static void *adopt_objs[ADOPT_N];

static bool adopt_read(struct cmstat_heap_stats *st)
{
	int err = cmstat_heap_read(cmstat_adopt_heap_of_module_init, st);

	if (err)
		adopt_ktap("    # cmstat_heap_read: %d\n", err);
	return !err;
}

/* The heap's typed-cache counts moved by exactly @mallocs and @frees. */
static bool adopt_moved(u64 mallocs, u64 frees)
{
	u64 m = adopt_after.cache_mallocs - adopt_before.cache_mallocs;
	u64 f = adopt_after.cache_frees - adopt_before.cache_frees;

	adopt_ktap("    # cache_mallocs +%llu (want %llu), frees +%llu (want %llu), live %llu\n",
		   m, mallocs, f, frees, adopt_after.cache_live_objects);
	return m == mallocs && f == frees;
}

static bool kernel_cache_inline(void)
{
	int i;

	if (!adopt_read(&adopt_before))
		return false;
	for (i = 0; i < ADOPT_N; i++) {
#if IS_ENABLED(CONFIG_JBD2)
		adopt_objs[i] = jbd2_alloc_inode(GFP_KERNEL);
#else
		adopt_objs[i] = __getname();
#endif
		if (!adopt_objs[i])
			break;
	}
	while (i--) {
#if IS_ENABLED(CONFIG_JBD2)
		jbd2_free_inode(adopt_objs[i]);
#else
		__putname(adopt_objs[i]);
#endif
	}
	adopt_ktap("    # %s\n", IS_ENABLED(CONFIG_JBD2) ?
		"jbd2_alloc_inode() and jbd2_free_inode() on jbd2_inode_cache" :
		"__getname() and __putname() on names_cachep");
	return adopt_read(&adopt_after) && adopt_moved(0, 0);
}

static bool own_cache_counted(void)
{
	bool ok = true;
	int i, bulk;

	adopt_cache = KMEM_CACHE(adopt_obj, 0);
	if (!adopt_cache)
		return false;
	if (kmem_cache_size(adopt_cache) != ADOPT_OBJ_SIZE)
		ok = false;
	if (!adopt_read(&adopt_before))
		return false;
	for (i = 0; i < ADOPT_N / 2; i++)
		adopt_objs[i] = kmem_cache_alloc(adopt_cache, GFP_KERNEL);
	for (; i < ADOPT_N - 4; i++)
		adopt_objs[i] = kmem_cache_zalloc(adopt_cache, GFP_KERNEL);
	bulk = kmem_cache_alloc_bulk(adopt_cache, GFP_KERNEL, 4, adopt_objs + i);
	for (i = 0; i < ADOPT_N; i++)
		if (!adopt_objs[i])
			ok = false;
	if (!adopt_read(&adopt_after) || !adopt_moved(ADOPT_N, 0) ||
	    adopt_after.cache_live_objects != ADOPT_N || bulk != 4)
		ok = false;
	kmem_cache_free_bulk(adopt_cache, 4, adopt_objs + ADOPT_N - 4);
	for (i = 0; i < ADOPT_N - 4; i++)
		kmem_cache_free(adopt_cache, adopt_objs[i]);
	if (!adopt_read(&adopt_after) || !adopt_moved(ADOPT_N, ADOPT_N) ||
	    adopt_after.cache_live_objects)
		ok = false;
	return ok;
}

static bool own_cache_mempool(void)
{
	mempool_t *pool;
	int i;

	if (!adopt_cache || !adopt_read(&adopt_before))
		return false;
	pool = mempool_create_slab_pool(4, adopt_cache);
	if (!pool)
		return false;
	for (i = 0; i < ADOPT_N; i++)
		adopt_objs[i] = mempool_alloc(pool, GFP_KERNEL);
	while (i--)
		mempool_free(adopt_objs[i], pool);
	mempool_destroy(pool);
	return adopt_read(&adopt_after) && adopt_moved(0, 0) &&
	       !adopt_after.cache_live_objects;
}

static bool own_cache_destroyed(void)
{
	struct kmem_cache *gone = adopt_cache;

	kmem_cache_destroy(adopt_cache);
	adopt_cache = NULL;
	if (cmstat_heap_cache_of(cmstat_adopt_heap_of_module_init, gone)) {
		adopt_ktap("    # the destroyed slab cache is still a typed cache's\n");
		return false;
	}
	if (!adopt_read(&adopt_after))
		return false;
	adopt_ktap("    # live_objects %llu\n", adopt_after.live_objects);
	return !adopt_after.live_objects;
}

static const struct {
	const char *name;
	bool (*fn)(void);
} adopt_cases[] = {
	{ "kernel_cache_inline", kernel_cache_inline },
	{ "own_cache_counted", own_cache_counted },
	{ "own_cache_mempool", own_cache_mempool },
	{ "own_cache_destroyed", own_cache_destroyed },
};

static int __init adopt_test_init(void)
{
	unsigned int i, failed = 0;
	bool ok;

	adopt_ktap("KTAP version 1\n");
	adopt_ktap("1..%zu\n", ARRAY_SIZE(adopt_cases));
	for (i = 0; i < ARRAY_SIZE(adopt_cases); i++) {
		ok = adopt_cases[i].fn();
		failed += !ok;
		adopt_ktap("%sok %u %s\n", ok ? "" : "not ", i + 1,
			   adopt_cases[i].name);
	}
	kmem_cache_destroy(adopt_cache);	/* a case failed before its own */
	return failed ? -EINVAL : 0;
}

static void __exit adopt_test_exit(void)
{
}

module_init(adopt_test_init);
module_exit(adopt_test_exit);
MODULE_DESCRIPTION("cmstat: a module adopted by one Kbuild line, with the kernel's caches and its own");
MODULE_LICENSE("GPL");
