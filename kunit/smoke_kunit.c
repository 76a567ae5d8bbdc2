// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit checks of the test machine itself: the harness boots the number of
 * CPUs it was asked for, so the concurrency suites really run concurrently.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/module.h>

/* The harness passes the vCPU count it started QEMU with. */
static unsigned int expect_cpus = 4;
module_param(expect_cpus, uint, 0444);
MODULE_PARM_DESC(expect_cpus, "CPUs that must be online (default 4)");

static void smoke_cpus_online(struct kunit *test)
{
	kunit_info(test, "online=%u expected>=%u\n", num_online_cpus(),
		   expect_cpus);
	KUNIT_EXPECT_GE(test, num_online_cpus(), expect_cpus);
}

static struct kunit_case smoke_cases[] = {
	KUNIT_CASE(smoke_cpus_online),
	{}
};

static struct kunit_suite smoke_suite = {
	.name = "cmstat_smoke",
	.test_cases = smoke_cases,
};

kunit_test_suite(smoke_suite);

MODULE_DESCRIPTION("KUnit suites for cmstat");
MODULE_LICENSE("GPL");
