// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of cmstat's debug_free mode, in their own module because
 * they need cmstat loaded with debug_free=1: frees with the wrong size,
 * into the wrong heap, twice, or of foreign memory are reported, refused
 * and leave the statistics alone.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>

#include "cmstat_kunit.h"

struct debug_ctx {
	struct cmstat_heap *a, *b;
	struct cmstat_heap_stats st;
};

static int debug_init(struct kunit *test)
{
	struct debug_ctx *ctx;

	if (!cmstat_debug_free_enabled())
		kunit_skip(test, "cmstat loaded without debug_free=1");
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->a = cmstat_kunit_heap(test, "kunit-debug-a");
	ctx->b = cmstat_kunit_heap(test, "kunit-debug-b");
	test->priv = ctx;
	return 0;
}

/* A refused free: one more invalid free, and heap @h's frees unchanged. */
static void expect_refused(struct kunit *test, struct cmstat_heap *h,
			   const void *p, size_t size)
{
	struct debug_ctx *ctx = test->priv;
	unsigned long invalid = cmstat_debug_invalid_frees();
	u64 frees;

	cmstat_heap_read(h, &ctx->st);
	frees = ctx->st.frees;
	cmstat_free(h, p, size);
	KUNIT_EXPECT_EQ(test, cmstat_debug_invalid_frees(), invalid + 1);
	cmstat_heap_read(h, &ctx->st);
	KUNIT_EXPECT_EQ(test, ctx->st.frees, frees);
}

static void debug_wrong_size(struct kunit *test)
{
	struct debug_ctx *ctx = test->priv;
	void *p = cmstat_alloc(ctx->a, 100, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_refused(test, ctx->a, p, 2000);
	expect_refused(test, ctx->a, p, 101);	/* same class, still wrong */
	cmstat_free(ctx->a, p, 100);
	cmstat_heap_read(ctx->a, &ctx->st);
	KUNIT_EXPECT_EQ(test, ctx->st.live_objects, 0);
}

static void debug_wrong_heap(struct kunit *test)
{
	struct debug_ctx *ctx = test->priv;
	void *p = cmstat_alloc(ctx->a, 70000, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_refused(test, ctx->b, p, 70000);
	cmstat_free(ctx->a, p, 70000);
	cmstat_heap_read(ctx->a, &ctx->st);
	KUNIT_EXPECT_EQ(test, ctx->st.live_objects, 0);
}

static void debug_double_and_foreign(struct kunit *test)
{
	struct debug_ctx *ctx = test->priv;
	void *foreign = kunit_kmalloc(test, 64, GFP_KERNEL);
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, foreign);
	p = cmstat_alloc(ctx->a, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	cmstat_free(ctx->a, p, 64);
	expect_refused(test, ctx->a, p, 64);		/* twice */
	expect_refused(test, ctx->a, foreign, 64);	/* not ours */
	kunit_kfree(test, foreign);
}

static struct kunit_case debug_cases[] = {
	KUNIT_CASE(debug_wrong_size),
	KUNIT_CASE(debug_wrong_heap),
	KUNIT_CASE(debug_double_and_foreign),
	{}
};

static struct kunit_suite debug_suite = {
	.name = "cmstat_alloc_debug",
	.init = debug_init,
	.test_cases = debug_cases,
};

kunit_test_suite(debug_suite);

MODULE_DESCRIPTION("KUnit suite for cmstat's debug_free mode");
MODULE_LICENSE("GPL");
