// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of what a module ported from the slab allocator uses: typed
 * caches, the unsized free, foreign memory freed through a heap, and the
 * rest of the kmalloc() family.  Each case checks the heap's statistics
 * against what it did, exactly, and that every snapshot is valid.
 */

#include <kunit/test.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/kmalloc.h>

#include <cmstat/kunit.h>

#include "cmstat_kunit.h"

struct slab_test_ctx {
	struct cmstat_heap *heap;
	struct cmstat_heap_stats before;
	struct cmstat_heap_stats now;
};

static int slab_test_init(struct kunit *test)
{
	struct slab_test_ctx *ctx;

	if (!cmstat_accounting_enabled())
		kunit_skip(test, "cmstat loaded with accounting=0");
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->heap = cmstat_kunit_heap(test, "kunit-slab");
	/* Every case gives back what it takes: cmstat's own leak check. */
	cmstat_kunit_expect_no_leak(test, ctx->heap);
	KUNIT_ASSERT_EQ(test, cmstat_heap_read(ctx->heap, &ctx->before), 0);
	test->priv = ctx;
	return 0;
}

/*
 * @obj, just allocated in the case's heap by the kmalloc() family,
 * cmstat_kvfree()d when the case ends unless the case frees it first.
 */
static void *keep(struct kunit *test, void *obj)
{
	struct slab_test_ctx *ctx = test->priv;

	return cmstat_kunit_keep(test, ctx->heap, obj, 0);
}

/*
 * What a reallocation of the kept @obj returned, kept instead of @obj:
 * @obj moved, or was resized in place.  NULL fails the case, and @obj,
 * left as it was, is freed when the case ends.
 */
static void *moved(struct kunit *test, const void *obj, void *new)
{
	KUNIT_ASSERT_NOT_NULL(test, new);
	cmstat_kunit_forget(test, obj);
	return keep(test, new);
}

/* Snapshot the test heap: valid, and what the case expects so far. */
static struct cmstat_heap_stats *snap(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;

	KUNIT_ASSERT_EQ(test, cmstat_heap_read(ctx->heap, &ctx->now), 0);
	KUNIT_EXPECT_TRUE(test, cmstat_heap_stats_valid(&ctx->now));
	return &ctx->now;
}

static void cache_read(struct kunit *test, struct cmstat_cache *cc,
		       struct cmstat_cache_stats *st)
{
	KUNIT_ASSERT_EQ(test, cmstat_cache_read(cc, st), 0);
	KUNIT_EXPECT_EQ(test, st->live_objects, st->mallocs - st->frees);
	KUNIT_EXPECT_EQ(test, st->live_bytes, st->live_objects * st->size_bytes);
}

struct slab_test_obj {
	u32 magic;
	u32 value;
	struct rcu_head rcu;
	char pad[76];
};

#define SLAB_TEST_MAGIC	0x5ab1e5
static atomic_t slab_test_ctor_calls = ATOMIC_INIT(0);

static void slab_test_ctor(void *p)
{
	struct slab_test_obj *obj = p;

	obj->magic = SLAB_TEST_MAGIC;
	atomic_inc(&slab_test_ctor_calls);
}

#define NR_OBJS	96

/*
 * A typed cache counts every allocation and free in its own row and in
 * the heap's totals, by its object size; its constructor is the slab
 * allocator's, run when it makes an object, never by an allocation.
 */
static void cache_exact(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	struct slab_test_obj **objs;
	struct cmstat_cache_stats cs;
	struct cmstat_heap_stats *st;
	struct cmstat_cache *cc;
	unsigned int i;

	objs = kunit_kcalloc(test, NR_OBJS, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);

	cc = cmstat_kunit_cache(test, ctx->heap, "kunit_obj_cache",
				sizeof(**objs), 0, SLAB_HWCACHE_ALIGN,
				slab_test_ctor);
	KUNIT_EXPECT_STREQ(test, cmstat_cache_name(cc), "kunit_obj_cache");
	for (i = 0; i < NR_OBJS; i++) {
		objs[i] = keep(test, cmstat_cache_alloc(cc, GFP_KERNEL));
		KUNIT_EXPECT_EQ(test, objs[i]->magic, SLAB_TEST_MAGIC);
		KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)objs[i],
						   cache_line_size()));
	}
	KUNIT_EXPECT_GE(test, atomic_read(&slab_test_ctor_calls), NR_OBJS);
	cache_read(test, cc, &cs);
	KUNIT_EXPECT_EQ(test, cs.mallocs, NR_OBJS);
	KUNIT_EXPECT_EQ(test, cs.frees, 0);
	KUNIT_EXPECT_EQ(test, cs.size_bytes, sizeof(**objs));
	st = snap(test);
	KUNIT_EXPECT_EQ(test, st->cache_live_objects, NR_OBJS);
	KUNIT_EXPECT_EQ(test, st->cache_live_bytes, NR_OBJS * sizeof(**objs));
	KUNIT_EXPECT_EQ(test, st->live_objects - ctx->before.live_objects,
			NR_OBJS);
	KUNIT_EXPECT_EQ(test, st->live_requested_bytes, st->live_bytes);

	/* A third each: by the cache, without a size, and after RCU. */
	for (i = 0; i < NR_OBJS; i++) {
		cmstat_kunit_forget(test, objs[i]);
		if (i % 3 == 0)
			cmstat_cache_free(cc, objs[i]);
		else if (i % 3 == 1)
			cmstat_kfree(ctx->heap, objs[i]);
		else
			cmstat_kfree_rcu(ctx->heap, objs[i], rcu);
	}
	cache_read(test, cc, &cs);
	KUNIT_EXPECT_EQ(test, cs.frees, NR_OBJS);
	st = snap(test);
	KUNIT_EXPECT_EQ(test, st->cache_live_objects, 0);
	KUNIT_EXPECT_EQ(test, st->live_bytes, ctx->before.live_bytes);
	KUNIT_EXPECT_EQ(test, st->cache_mallocs, NR_OBJS);
	cmstat_kunit_cache_destroy(test, cc);	/* waits for the kfree_rcu()s (6.12) */
	st = snap(test);
	KUNIT_EXPECT_EQ(test, st->cache_mallocs, NR_OBJS);	/* retired */
	KUNIT_EXPECT_EQ(test, st->cache_frees, NR_OBJS);
}

/*
 * A destroyed cache's column goes to the next cache, from 0, and its
 * counts stay in the heap's; more caches at once than there are columns
 * are refused.
 */
static void cache_columns(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	struct cmstat_cache *caches[CMSTAT_HEAP_CACHES], *extra;
	struct cmstat_cache_stats cs;
	unsigned int i, round;
	char name[24];
	void *obj;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < CMSTAT_HEAP_CACHES; i++) {
			/* Names are unique, as /sys/kernel/slab wants them. */
			snprintf(name, sizeof(name), "kunit_col%u", i);
			caches[i] = cmstat_kunit_cache(test, ctx->heap, name,
						       32 + 8 * i, 0, 0, NULL);
			obj = keep(test, cmstat_cache_alloc(caches[i],
							    GFP_KERNEL));
			cache_read(test, caches[i], &cs);
			KUNIT_EXPECT_EQ(test, cs.mallocs, 1);
			cmstat_cache_free(caches[i], obj);
			cmstat_kunit_forget(test, obj);
		}
		/* One made all the same is destroyed (NULL: a no-op). */
		extra = cmstat_cache_create(ctx->heap, "kunit_extra", 64, 0, 0,
					    NULL);
		KUNIT_EXPECT_NULL(test, extra);
		cmstat_cache_destroy(extra);
		for (i = 0; i < CMSTAT_HEAP_CACHES; i++)
			cmstat_kunit_cache_destroy(test, caches[i]);
	}
	KUNIT_EXPECT_EQ(test, snap(test)->cache_mallocs, 2 * CMSTAT_HEAP_CACHES);
	KUNIT_EXPECT_EQ(test, ctx->now.cache_live_objects, 0);
}

/*
 * cmstat_heap_cache_of() and cmstat_cache_of_slab(), what an adopted
 * module's kmem_cache_*() calls look their cache up with: every live
 * typed cache found by its slab cache, through rounds of caches destroyed
 * and made in a scrambled order, in its heap and among all; a destroyed
 * one, a kernel's cache and NULL never; and once all are destroyed, no
 * tombstone left in the heap's table.
 */
static void cache_by_slab(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	struct kmem_cache *gone[CMSTAT_HEAP_CACHES / 2];
	struct cmstat_cache *caches[CMSTAT_HEAP_CACHES] = {};
	struct kmem_cache *kernel;
	unsigned int i, j, round;
	char name[24];

	kernel = cmstat_kunit_kmem_cache(test, "kunit_kernel", 64);
	for (round = 0; round < 5; round++) {
		for (i = 0; i < CMSTAT_HEAP_CACHES; i++) {
			if (caches[i])
				continue;
			snprintf(name, sizeof(name), "kunit_bs%u_%u", round, i);
			caches[i] = cmstat_kunit_cache(test, ctx->heap, name,
						       40, 0, 0, NULL);
		}
		for (i = 0; i < CMSTAT_HEAP_CACHES; i++) {
			KUNIT_EXPECT_PTR_EQ(test, caches[i],
					    cmstat_heap_cache_of(ctx->heap,
								 caches[i]->slab));
			KUNIT_EXPECT_PTR_EQ(test, caches[i],
					    cmstat_cache_of_slab(caches[i]->slab));
		}
		KUNIT_EXPECT_NULL(test, cmstat_heap_cache_of(ctx->heap, kernel));
		KUNIT_EXPECT_NULL(test, cmstat_heap_cache_of(ctx->heap, NULL));
		KUNIT_EXPECT_NULL(test, cmstat_cache_of_slab(kernel));
		KUNIT_EXPECT_NULL(test, cmstat_cache_of_slab(NULL));
		/* Half of them, a different half each round. */
		for (j = 0; j < CMSTAT_HEAP_CACHES / 2; j++) {
			i = (j * 7 + round * 5) % CMSTAT_HEAP_CACHES;
			if (!caches[i]) {
				gone[j] = NULL;
				continue;
			}
			gone[j] = caches[i]->slab;
			cmstat_kunit_cache_destroy(test, caches[i]);
			caches[i] = NULL;
		}
		for (j = 0; j < CMSTAT_HEAP_CACHES / 2; j++) {
			if (!gone[j])
				continue;
			KUNIT_EXPECT_NULL(test, cmstat_heap_cache_of(ctx->heap,
								     gone[j]));
			KUNIT_EXPECT_NULL(test, cmstat_cache_of_slab(gone[j]));
		}
	}
	for (i = 0; i < CMSTAT_HEAP_CACHES; i++)
		if (caches[i])
			cmstat_kunit_cache_destroy(test, caches[i]);
	for (i = 0; i < CMSTAT_HEAP_BY_SLAB; i++)
		KUNIT_EXPECT_PTR_EQ(test, ctx->heap->by_slab[i].slab,
				    CMSTAT_SLAB_EMPTY);
	cmstat_kunit_kmem_cache_destroy(test, kernel);
}

/* A cache that still holds objects is left, and destroyed once empty. */
static void cache_destroy_with_live(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	struct cmstat_cache *cc;
	void *obj;

	cc = cmstat_kunit_cache(test, ctx->heap, "kunit_live", 40, 0, 0, NULL);
	obj = keep(test, cmstat_cache_alloc(cc, GFP_KERNEL));
	cmstat_cache_destroy(cc);		/* refused: one live object */
	KUNIT_EXPECT_EQ(test, snap(test)->cache_live_objects, 1);
	cmstat_cache_free(cc, obj);		/* the cache is still there */
	cmstat_kunit_forget(test, obj);
	cmstat_kunit_cache_destroy(test, cc);
	KUNIT_EXPECT_EQ(test, snap(test)->cache_live_objects, 0);
}

/* Bulk allocation and free count every object, in one section each. */
static void cache_bulk(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	struct cmstat_cache_stats cs;
	struct cmstat_cache *cc;
	void *objs[16];
	unsigned int i;

	cc = cmstat_kunit_cache(test, ctx->heap, "kunit_bulk", 72, 0, 0, NULL);
	KUNIT_ASSERT_EQ(test, cmstat_cache_alloc_bulk(cc, GFP_KERNEL,
						      ARRAY_SIZE(objs), objs),
			ARRAY_SIZE(objs));
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		keep(test, objs[i]);
	cache_read(test, cc, &cs);
	KUNIT_EXPECT_EQ(test, cs.live_objects, ARRAY_SIZE(objs));
	KUNIT_EXPECT_EQ(test, snap(test)->cache_live_bytes, 72 * ARRAY_SIZE(objs));
	cmstat_cache_free_bulk(cc, ARRAY_SIZE(objs), objs);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		cmstat_kunit_forget(test, objs[i]);
	cache_read(test, cc, &cs);
	KUNIT_EXPECT_EQ(test, cs.frees, ARRAY_SIZE(objs));
	/* Its size is the one asked for; shrinking moves no statistic. */
	KUNIT_EXPECT_EQ(test, cmstat_cache_size(cc), 72);
	KUNIT_EXPECT_EQ(test, cmstat_cache_shrink(cc), 0);
	cache_read(test, cc, &cs);
	KUNIT_EXPECT_EQ(test, cs.mallocs, ARRAY_SIZE(objs));
	KUNIT_EXPECT_EQ(test, cs.frees, ARRAY_SIZE(objs));
	cmstat_kunit_cache_destroy(test, cc);
}

/*
 * The unsized free counts a class object in its class, by its whole
 * class size, and a large one by the size it asked for: the heap is back
 * where it started, to the byte.
 */
static void kfree_counts_what_kmalloc_did(struct kunit *test)
{
	static const size_t sizes[] = { 1, 8, 100, 1000, 5000, 40000,
					CMSTAT_MAX_CLASS_SIZE,
					CMSTAT_MAX_CLASS_SIZE + 1, 1 << 20 };
	struct slab_test_ctx *ctx = test->priv;
	void *objs[ARRAY_SIZE(sizes)];
	struct cmstat_heap_stats *st;
	size_t held = 0, requested = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		objs[i] = keep(test, cmstat_kmalloc(ctx->heap, sizes[i],
						    GFP_KERNEL));
		held += cmstat_alloc_held_bytes(sizes[i]);
		requested += sizes[i] > CMSTAT_MAX_CLASS_SIZE ?
			     sizes[i] : cmstat_alloc_held_bytes(sizes[i]);
	}
	st = snap(test);
	KUNIT_EXPECT_EQ(test, st->live_bytes - ctx->before.live_bytes, held);
	KUNIT_EXPECT_EQ(test, st->live_requested_bytes -
			      ctx->before.live_requested_bytes, requested);
	KUNIT_EXPECT_EQ(test, st->large_live_objects, 2);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		cmstat_kfree(ctx->heap, objs[i]);
		cmstat_kunit_forget(test, objs[i]);
	}
	st = snap(test);
	KUNIT_EXPECT_EQ(test, st->live_bytes, ctx->before.live_bytes);
	KUNIT_EXPECT_EQ(test, st->live_requested_bytes,
			ctx->before.live_requested_bytes);
	KUNIT_EXPECT_EQ(test, st->live_objects, ctx->before.live_objects);
	KUNIT_EXPECT_EQ(test, st->frees - ctx->before.frees, ARRAY_SIZE(sizes));
	cmstat_kfree(ctx->heap, NULL);
	cmstat_kfree(ctx->heap, ZERO_SIZE_PTR);
	KUNIT_EXPECT_EQ(test, snap(test)->frees, st->frees);
}

/*
 * Each class's object, freed without its size, is counted in its own
 * class: cmstat_kfree() finds the class from the object's slab cache, in
 * a table filled at load, and a wrong slot or class would count it in
 * another.  One object at a time, so that no two errors cancel out.
 */
static void kfree_finds_every_class(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	unsigned int class;
	u64 live;
	void *obj;

	for (class = 0; class < CMSTAT_NR_CLASSES; class++) {
		live = snap(test)->classes[class].live_objects;
		obj = keep(test, cmstat_kmalloc(ctx->heap,
						cmstat_class_sizes[class],
						GFP_KERNEL));
		KUNIT_EXPECT_EQ(test, snap(test)->classes[class].live_objects,
				live + 1);
		cmstat_kfree(ctx->heap, obj);
		cmstat_kunit_forget(test, obj);
		KUNIT_EXPECT_EQ_MSG(test,
				    snap(test)->classes[class].live_objects,
				    live, "class %u (%u bytes)", class,
				    cmstat_class_sizes[class]);
	}
	KUNIT_EXPECT_EQ(test, snap(test)->live_bytes, ctx->before.live_bytes);
}

/*
 * Memory cmstat did not allocate is freed through a heap, as a module's
 * kfree() of what the kernel gave it would be, and counted nowhere:
 * kmalloc()'s of every kind (a string, a large buffer), a private
 * cache's, vmalloc()'s.  KASAN and kmemleak see the frees as right.
 */
static void kfree_foreign(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	struct kmem_cache *private;
	struct cmstat_heap_stats *st;
	void *p;

	cmstat_kfree(ctx->heap, kstrdup("a string the kernel made", GFP_KERNEL));
	cmstat_kfree(ctx->heap, kmalloc(64, GFP_KERNEL));
	cmstat_kfree(ctx->heap, kmalloc(CMSTAT_MAX_CLASS_SIZE * 2, GFP_KERNEL));
	cmstat_kvfree(ctx->heap, vmalloc(3 * PAGE_SIZE));
	cmstat_kfree_sensitive(ctx->heap, kmemdup("secret", 7, GFP_KERNEL));
	private = cmstat_kunit_kmem_cache(test, "kunit_foreign", 64);
	p = kmem_cache_alloc(private, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	cmstat_kfree(ctx->heap, p);
	/* Empty: the free went to it. */
	cmstat_kunit_kmem_cache_destroy(test, private);
	p = kstrdup("freed after a grace period", GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	cmstat_kfree_rcu_mightsleep(ctx->heap, p);

	st = snap(test);
	KUNIT_EXPECT_EQ(test, st->mallocs, ctx->before.mallocs);
	KUNIT_EXPECT_EQ(test, st->frees, ctx->before.frees);
	KUNIT_EXPECT_EQ(test, st->live_bytes, ctx->before.live_bytes);
}

/*
 * A typed cache's object counts in its own heap, whatever heap frees it;
 * and another heap's lookup finds the cache only among all heaps', as an
 * adopted module's kmem_cache_*() calls find another adopted module's.
 */
static void kfree_typed_into_other_heap(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	struct cmstat_heap *other = cmstat_kunit_heap(test, "kunit-slab-other");
	struct cmstat_heap_stats *other_st;
	struct cmstat_cache_stats cs;
	struct cmstat_cache *cc;
	void *obj;

	cc = cmstat_kunit_cache(test, ctx->heap, "kunit_typed", 24, 0, 0, NULL);
	KUNIT_EXPECT_NULL(test, cmstat_heap_cache_of(other, cc->slab));
	KUNIT_EXPECT_PTR_EQ(test, cmstat_cache_of_slab(cc->slab), cc);
	obj = keep(test, cmstat_cache_zalloc(cc, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, memchr_inv(obj, 0, 24));
	cmstat_kfree(other, obj);
	cmstat_kunit_forget(test, obj);
	cache_read(test, cc, &cs);
	KUNIT_EXPECT_EQ(test, cs.frees, 1);
	other_st = kunit_kzalloc(test, sizeof(*other_st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other_st);
	KUNIT_ASSERT_EQ(test, cmstat_heap_read(other, other_st), 0);
	KUNIT_EXPECT_EQ(test, other_st->frees, 0);
	cmstat_kunit_cache_destroy(test, cc);
	cmstat_kunit_heap_destroy(test, other);
}

/* krealloc(): in place within the class, else moved, foreign or not. */
static void krealloc_family(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	struct cmstat_heap_stats *st;
	char *p, *q;

	p = keep(test, cmstat_kmalloc(ctx->heap, 20, GFP_KERNEL)); /* class 24 */
	memcpy(p, "0123456789abcdefghi", 20);
	q = moved(test, p, cmstat_krealloc(ctx->heap, p, 24, GFP_KERNEL));
	KUNIT_EXPECT_PTR_EQ(test, q, p);
	p = moved(test, q, cmstat_krealloc(ctx->heap, q, 500, GFP_KERNEL));
	KUNIT_EXPECT_STREQ(test, p, "0123456789abcdefghi");
	st = snap(test);
	KUNIT_EXPECT_EQ(test, st->live_objects - ctx->before.live_objects, 1);
	KUNIT_EXPECT_EQ(test, st->live_bytes - ctx->before.live_bytes,
			cmstat_alloc_held_bytes(500));

	/* A string the kernel made becomes the heap's. */
	q = keep(test, cmstat_krealloc(ctx->heap, kstrdup("kernel's", GFP_KERNEL),
				       600, GFP_KERNEL));
	KUNIT_EXPECT_STREQ(test, q, "kernel's");
	KUNIT_EXPECT_EQ(test, snap(test)->live_objects - ctx->before.live_objects, 2);
	cmstat_kunit_forget(test, q);
	KUNIT_EXPECT_PTR_EQ(test, cmstat_krealloc(ctx->heap, q, 0, GFP_KERNEL),
			    (void *)ZERO_SIZE_PTR);
	cmstat_kunit_free(test, p);
	KUNIT_EXPECT_EQ(test, snap(test)->live_bytes, ctx->before.live_bytes);
}

/*
 * kvrealloc(): from a class to vmalloc() and back, the contents kept and
 * the heap's bytes those of the last allocation; vmalloc() memory not
 * cmstat's is left alone, as its size is unknown.
 */
static void kvrealloc_family(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	struct cmstat_heap_stats *st;
	char *p, *q;
	void *v;

	p = keep(test, cmstat_kvrealloc(ctx->heap, NULL, 100, GFP_KERNEL));
	memset(p, 'a', 100);
	q = moved(test, p, cmstat_kvrealloc(ctx->heap, p, 8 << 20, GFP_KERNEL));
	KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(q));
	KUNIT_EXPECT_NULL(test, memchr_inv(q, 'a', 100));
	st = snap(test);
	KUNIT_EXPECT_EQ(test, st->live_objects - ctx->before.live_objects, 1);
	KUNIT_EXPECT_EQ(test, st->large_live_bytes, 8 << 20);
	p = moved(test, q, cmstat_kvrealloc(ctx->heap, q, 200, GFP_KERNEL));
	KUNIT_EXPECT_FALSE(test, is_vmalloc_addr(p));
	KUNIT_EXPECT_NULL(test, memchr_inv(p, 'a', 100));
	st = snap(test);
	KUNIT_EXPECT_EQ(test, st->large_live_bytes, 0);
	KUNIT_EXPECT_EQ(test, st->live_bytes - ctx->before.live_bytes,
			cmstat_alloc_held_bytes(200));

	v = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_NULL(test, cmstat_kvrealloc(ctx->heap, v, 2 * PAGE_SIZE,
						 GFP_KERNEL));
	vfree(v);
	cmstat_kunit_free(test, p);
	st = snap(test);
	KUNIT_EXPECT_EQ(test, st->live_objects, ctx->before.live_objects);
	KUNIT_EXPECT_EQ(test, st->live_bytes, ctx->before.live_bytes);
}

/* The zeroed and array forms: zeroed, copied, and refused on overflow. */
static void array_family(struct kunit *test)
{
	static const u32 src[] = { 1, 2, 3, 4, 5 };
	struct slab_test_ctx *ctx = test->priv;
	u32 *a, *z, *c, *d;

	a = keep(test, cmstat_kmalloc_array_node(ctx->heap, 4, sizeof(u32),
						 GFP_KERNEL, NUMA_NO_NODE));
	z = keep(test, cmstat_kzalloc_node(ctx->heap, 64, GFP_KERNEL,
					   NUMA_NO_NODE));
	c = keep(test, cmstat_kvcalloc(ctx->heap, 3000, sizeof(u32),
				       GFP_KERNEL));
	d = keep(test, cmstat_kmemdup_array(ctx->heap, src, ARRAY_SIZE(src),
					    sizeof(u32), GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, memchr_inv(z, 0, 64));
	KUNIT_EXPECT_NULL(test, memchr_inv(c, 0, 3000 * sizeof(u32)));
	KUNIT_EXPECT_EQ(test, memcmp(d, src, sizeof(src)), 0);
	KUNIT_EXPECT_NULL(test, cmstat_krealloc_array(ctx->heap, a, SIZE_MAX,
						      2, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, cmstat_kcalloc_node(ctx->heap, SIZE_MAX, 2,
						    GFP_KERNEL, NUMA_NO_NODE));
	a = moved(test, a, cmstat_krealloc_array(ctx->heap, a, 8, sizeof(u32),
						 GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, snap(test)->live_objects - ctx->before.live_objects,
			4);
	cmstat_kunit_free(test, a);
	cmstat_kunit_free(test, z);
	cmstat_kunit_free(test, c);
	cmstat_kunit_free(test, d);
	KUNIT_EXPECT_EQ(test, snap(test)->live_bytes, ctx->before.live_bytes);
}

/* kstrdup(), kmemdup(), kasprintf() and kvmalloc(), for a heap. */
static void dup_family(struct kunit *test)
{
	struct slab_test_ctx *ctx = test->priv;
	char *s, *d, *f, *n;
	void *v, *small;

	s = keep(test, cmstat_kstrdup(ctx->heap, "hello", GFP_KERNEL));
	d = keep(test, cmstat_kmemdup(ctx->heap, "world", 6, GFP_KERNEL));
	f = keep(test, cmstat_kasprintf(ctx->heap, GFP_KERNEL, "%s-%d",
					"cmstat", 42));
	n = keep(test, cmstat_kstrndup(ctx->heap, "truncated", 5, GFP_KERNEL));
	/* vmalloc() */
	v = keep(test, cmstat_kvmalloc(ctx->heap, 8 << 20, GFP_KERNEL));
	small = keep(test, cmstat_kvmalloc(ctx->heap, 100, GFP_KERNEL));
	KUNIT_EXPECT_STREQ(test, s, "hello");
	KUNIT_EXPECT_STREQ(test, d, "world");
	KUNIT_EXPECT_STREQ(test, f, "cmstat-42");
	KUNIT_EXPECT_STREQ(test, n, "trunc");
	KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(v));
	KUNIT_EXPECT_FALSE(test, is_vmalloc_addr(small));
	KUNIT_EXPECT_NULL(test, cmstat_kstrdup(ctx->heap, NULL, GFP_KERNEL));
	snap(test);
	KUNIT_EXPECT_EQ(test, ctx->now.live_objects - ctx->before.live_objects, 6);
	KUNIT_EXPECT_EQ(test, ctx->now.large_live_bytes, 8 << 20);
	cmstat_kunit_free(test, s);
	cmstat_kunit_free(test, d);
	cmstat_kunit_free(test, f);
	cmstat_kunit_free(test, n);
	cmstat_kunit_free(test, v);
	cmstat_kunit_free(test, small);
	snap(test);
	KUNIT_EXPECT_EQ(test, ctx->now.live_objects, ctx->before.live_objects);
	KUNIT_EXPECT_EQ(test, ctx->now.live_bytes, ctx->before.live_bytes);
}

static struct kunit_case slab_cases[] = {
	KUNIT_CASE(cache_exact),
	KUNIT_CASE(cache_columns),
	KUNIT_CASE(cache_by_slab),
	KUNIT_CASE(cache_destroy_with_live),
	KUNIT_CASE(cache_bulk),
	KUNIT_CASE(kfree_counts_what_kmalloc_did),
	KUNIT_CASE(kfree_finds_every_class),
	KUNIT_CASE(kfree_foreign),
	KUNIT_CASE(kfree_typed_into_other_heap),
	KUNIT_CASE(krealloc_family),
	KUNIT_CASE(kvrealloc_family),
	KUNIT_CASE(array_family),
	KUNIT_CASE(dup_family),
	{}
};

static struct kunit_suite slab_suite = {
	.name = "cmstat_slab",
	.init = slab_test_init,
	.test_cases = slab_cases,
};

kunit_test_suite(slab_suite);
