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
 * Prints KTAP through tests/client/cmstat_ktap.h (this directory's
 * Makefile finds it), whose parameter "failed" counts the cases that
 * failed (scripts/guest/checks/client-adopt-caches.sh).
 */

#include "cmstat_ktap.h"

#include <linux/fs.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/slab.h>
#if IS_ENABLED(CONFIG_JBD2)
#include <linux/jbd2.h>
#endif

#define ADOPT_OBJ_SIZE	192
#define ADOPT_N		16

struct adopt_obj {
	char bytes[ADOPT_OBJ_SIZE];
};

static struct kmem_cache *adopt_cache;
/* Not on the stack, and not kmalloc()ed: that would be on the heap too. */
static struct cmstat_heap_stats adopt_before, adopt_after;
static void *adopt_objs[ADOPT_N];

static bool adopt_read(struct ktap_test *t, struct cmstat_heap_stats *st)
{
	return KTAP_EXPECT(t, !cmstat_heap_read(cmstat_adopt_heap_of_module_init,
						st));
}

/* The heap's typed-cache counts moved by exactly @mallocs and @frees. */
static void adopt_moved(struct ktap_test *t, u64 mallocs, u64 frees)
{
	u64 m = adopt_after.cache_mallocs - adopt_before.cache_mallocs;
	u64 f = adopt_after.cache_frees - adopt_before.cache_frees;

	ktap_diag(t, "cache_mallocs +%llu (want %llu), frees +%llu (want %llu), live %llu",
		  m, mallocs, f, frees, adopt_after.cache_live_objects);
	KTAP_EXPECT(t, m == mallocs && f == frees);
}

static void kernel_cache_inline(struct ktap_test *t)
{
	int i;

	if (!adopt_read(t, &adopt_before))
		return;
	for (i = 0; i < ADOPT_N; i++) {
#if IS_ENABLED(CONFIG_JBD2)
		adopt_objs[i] = jbd2_alloc_inode(GFP_KERNEL);
#else
		adopt_objs[i] = __getname();
#endif
		if (!KTAP_EXPECT(t, adopt_objs[i]))
			break;
	}
	while (i--) {
#if IS_ENABLED(CONFIG_JBD2)
		jbd2_free_inode(adopt_objs[i]);
#else
		__putname(adopt_objs[i]);
#endif
	}
	ktap_diag(t, "%s", IS_ENABLED(CONFIG_JBD2) ?
		  "jbd2_alloc_inode() and jbd2_free_inode() on jbd2_inode_cache" :
		  "__getname() and __putname() on names_cachep");
	if (adopt_read(t, &adopt_after))
		adopt_moved(t, 0, 0);
}

static void own_cache_counted(struct ktap_test *t)
{
	int i, bulk;

	adopt_cache = KMEM_CACHE(adopt_obj, 0);
	if (!KTAP_EXPECT(t, adopt_cache))
		return;
	KTAP_EXPECT(t, kmem_cache_size(adopt_cache) == ADOPT_OBJ_SIZE);
	if (!adopt_read(t, &adopt_before))
		return;
	for (i = 0; i < ADOPT_N / 2; i++)
		adopt_objs[i] = kmem_cache_alloc(adopt_cache, GFP_KERNEL);
	for (; i < ADOPT_N - 4; i++)
		adopt_objs[i] = kmem_cache_zalloc(adopt_cache, GFP_KERNEL);
	bulk = kmem_cache_alloc_bulk(adopt_cache, GFP_KERNEL, 4, adopt_objs + i);
	if (!KTAP_EXPECT(t, bulk == 4))
		memset(adopt_objs + i, 0, 4 * sizeof(*adopt_objs));
	for (i = 0; i < ADOPT_N; i++)
		KTAP_EXPECT(t, adopt_objs[i]);
	if (adopt_read(t, &adopt_after)) {
		adopt_moved(t, ADOPT_N, 0);
		KTAP_EXPECT(t, adopt_after.cache_live_objects == ADOPT_N);
	}
	if (bulk == 4)
		kmem_cache_free_bulk(adopt_cache, 4, adopt_objs + ADOPT_N - 4);
	for (i = 0; i < ADOPT_N - 4; i++)
		kmem_cache_free(adopt_cache, adopt_objs[i]);
	if (adopt_read(t, &adopt_after)) {
		adopt_moved(t, ADOPT_N, ADOPT_N);
		KTAP_EXPECT(t, !adopt_after.cache_live_objects);
	}
}

static void own_cache_mempool(struct ktap_test *t)
{
	mempool_t *pool;
	int i;

	if (!KTAP_EXPECT(t, adopt_cache) || !adopt_read(t, &adopt_before))
		return;
	pool = mempool_create_slab_pool(4, adopt_cache);
	if (!KTAP_EXPECT(t, pool))
		return;
	for (i = 0; i < ADOPT_N; i++)
		adopt_objs[i] = mempool_alloc(pool, GFP_KERNEL);
	while (i--)
		mempool_free(adopt_objs[i], pool);
	mempool_destroy(pool);
	if (adopt_read(t, &adopt_after)) {
		adopt_moved(t, 0, 0);
		KTAP_EXPECT(t, !adopt_after.cache_live_objects);
	}
}

static void own_cache_destroyed(struct ktap_test *t)
{
	struct kmem_cache *gone = adopt_cache;

	kmem_cache_destroy(adopt_cache);
	adopt_cache = NULL;
	/* The destroyed slab cache is no typed cache's any more. */
	KTAP_EXPECT(t, !cmstat_heap_cache_of(cmstat_adopt_heap_of_module_init,
					     gone));
	if (adopt_read(t, &adopt_after)) {
		ktap_diag(t, "live_objects %llu", adopt_after.live_objects);
		KTAP_EXPECT(t, !adopt_after.live_objects);
	}
}

static const struct ktap_case adopt_cases[] = {
	{ "kernel_cache_inline", kernel_cache_inline },
	{ "own_cache_counted", own_cache_counted },
	{ "own_cache_mempool", own_cache_mempool },
	{ "own_cache_destroyed", own_cache_destroyed },
};

static int __init adopt_test_init(void)
{
	int err = ktap_run(adopt_cases, ARRAY_SIZE(adopt_cases));

	kmem_cache_destroy(adopt_cache);	/* a case failed before its own */
	return err;
}

static void __exit adopt_test_exit(void)
{
}

module_init(adopt_test_init);
module_exit(adopt_test_exit);
MODULE_DESCRIPTION("cmstat: a module adopted by one Kbuild line, with the kernel's caches and its own");
MODULE_LICENSE("GPL");
