/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cmstat.ko exports for its own benchmark and tests, and for no
 * client: not API, which may change or go in any release without notice.
 * The exports are in the symbol namespace CMSTAT_TESTING, which a module
 * that uses them imports with CMSTAT_IMPORT_TESTING() (once per module).
 */
#ifndef _CMSTAT_TESTING_H
#define _CMSTAT_TESTING_H

#include <linux/types.h>

#include <cmstat/compat.h>
#include <cmstat/counters.h>

/**
 * cmstat_counters_sum_racy() - sum the per-CPU slots with no protocol
 * @set: counter set
 * @totals: array of the set's nr u64 (as cmstat_counters_alloc() was given)
 *
 * Each counter is summed over all possible CPUs on its own, one counter
 * after the other, while writers go on: cheap, stops nothing, and not a
 * snapshot.  Counters may disagree with each other, as with
 * percpu_counter_sum(), and a reader folding meanwhile may make one count
 * a delta twice or not at all.  Tests use it as the unsynchronised
 * control, the benchmark as the naive reader.  Any context.
 */
void cmstat_counters_sum_racy(struct cmstat_counters *set, u64 *totals);

/**
 * cmstat_group_gen() - the generations a group has closed so far
 * @group: the group
 *
 * Read with no lock: a reader may close the next one at any time, even
 * before its snapshot is taken (it waits for sections after the close).
 * Tests use it to see that a reader has closed a generation and waits.
 * Any context.
 *
 * Return: the number of the last generation closed.
 */
unsigned long cmstat_group_gen(const struct cmstat_group *group);

#endif /* _CMSTAT_TESTING_H */
