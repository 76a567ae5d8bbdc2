/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact leak checks for KUnit: a case that calls
 *
 *	cmstat_kunit_expect_no_leak(test, heap);
 *
 * fails when it ends if @heap holds more objects than when the call was
 * made, and names the lines that allocated them when the module was built
 * with CMSTAT_SITES (include/cmstat/site.h).  Documentation/api.rst has an
 * example.
 */
#ifndef _CMSTAT_KUNIT_CHECK_H
#define _CMSTAT_KUNIT_CHECK_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>

/**
 * struct cmstat_kunit_leak - the leak check of one case
 * @test: the case, failed if the heap leaks
 * @lc: the heap as the check found it
 *
 * Made by cmstat_kunit_expect_no_leak(), ended by KUnit when the case
 * ends.
 */
struct cmstat_kunit_leak {
	struct kunit *test;
	struct cmstat_leak_check *lc;
};

static inline void __cmstat_kunit_leak_end(void *data)
{
	struct cmstat_kunit_leak *leak = data;
	char *report;
	long leaked;

	leaked = cmstat_leak_check_end(leak->lc, &report);
	if (leaked > 0)
		KUNIT_FAIL(leak->test, "%s", report ?: "leaked (no memory for the report)");
	else if (leaked < 0)
		KUNIT_FAIL(leak->test, "cmstat leak check: the heap could not be read (%ld)",
			   leaked);
	kfree(report);
}

/**
 * cmstat_kunit_expect_no_leak() - fail the case if a heap leaks in it
 * @test: the case
 * @heap: the heap; it must live until the case ends, as a heap the case
 *	creates with a KUnit action registered before this call does
 *
 * Snapshots @heap now, and again when the case ends (a KUnit action, run
 * before the actions registered earlier): if the heap then holds more
 * objects, the case fails with a report of how many, and of each site
 * that holds more than it did (function, file and line, objects and
 * bytes).  Exact: no scan, no heuristic.  Objects of @heap that other
 * threads allocate meanwhile count too.  A check that cannot be set up
 * fails the case.
 */
static inline void cmstat_kunit_expect_no_leak(struct kunit *test,
					       struct cmstat_heap *heap)
{
	struct cmstat_kunit_leak *leak;

	leak = kunit_kzalloc(test, sizeof(*leak), GFP_KERNEL);
	if (!leak) {
		KUNIT_FAIL(test, "cmstat leak check: no memory");
		return;
	}
	leak->test = test;
	leak->lc = cmstat_leak_check_start(heap);
	if (IS_ERR(leak->lc)) {
		KUNIT_FAIL(test, "cmstat leak check of heap %s: %ld",
			   cmstat_heap_name(heap), PTR_ERR(leak->lc));
		return;
	}
	if (kunit_add_action_or_reset(test, __cmstat_kunit_leak_end, leak))
		KUNIT_FAIL(test, "cmstat leak check: no memory for the action");
}

#endif /* _CMSTAT_KUNIT_CHECK_H */
