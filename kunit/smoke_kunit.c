// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit checks of the test machine itself: the harness boots the number of
 * CPUs it was asked for, so the concurrency suites really run concurrently;
 * and, built in, that a client built in too finds cmstat up at its init.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/module.h>

#include <cmstat/alloc.h>

/*
 * The harness passes the vCPU count it started QEMU with; kunit.py, which
 * boots what its --qemu_args say, passes none.
 */
static unsigned int expect_cpus;
module_param(expect_cpus, uint, 0444);
MODULE_PARM_DESC(expect_cpus, "CPUs that must be online (default 0: not checked)");

static void smoke_cpus_online(struct kunit *test)
{
	if (!expect_cpus)
		kunit_skip(test, "expect_cpus not given");
	kunit_info(test, "online=%u expected>=%u\n", num_online_cpus(),
		   expect_cpus);
	KUNIT_EXPECT_GE(test, num_online_cpus(), expect_cpus);
}

#ifndef MODULE
/*
 * Built in, in a kernel tree (scripts/intree.py): a client built in too,
 * whose initcall, at the device level as a driver's, must find cmstat
 * up (cmstat's is a subsys_initcall).  Its result waits for the case.
 */
static int builtin_client_err = -EINPROGRESS;

static int __init smoke_builtin_client(void)
{
	struct cmstat_heap *heap = cmstat_heap_create("kunit-builtin");
	void *obj;

	if (IS_ERR(heap)) {
		builtin_client_err = PTR_ERR(heap);
		return 0;
	}
	obj = cmstat_alloc(heap, 64, GFP_KERNEL);
	builtin_client_err = obj ? 0 : -ENOMEM;
	cmstat_free(heap, obj, 64);
	cmstat_heap_destroy(heap);
	return 0;
}
device_initcall(smoke_builtin_client);
#endif

static void smoke_builtin_client_init(struct kunit *test)
{
#ifdef MODULE
	kunit_skip(test, "a module: it loads after cmstat, which it needs");
#else
	KUNIT_EXPECT_EQ(test, builtin_client_err, 0);
#endif
}

static struct kunit_case smoke_cases[] = {
	KUNIT_CASE(smoke_cpus_online),
	KUNIT_CASE(smoke_builtin_client_init),
	{}
};

static struct kunit_suite smoke_suite = {
	.name = "cmstat_smoke",
	.test_cases = smoke_cases,
};

kunit_test_suite(smoke_suite);

MODULE_DESCRIPTION("KUnit suites for cmstat");
MODULE_LICENSE("GPL");
