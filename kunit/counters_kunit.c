// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the consistent counters on one CPU at a time: exact totals,
 * generation rotation, signed deltas, bad arguments, and a reader held by an
 * open writer section.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include <cmstat/counters.h>

#define NR_TEST_COUNTERS	4

static struct cmstat_counters *alloc_set(struct kunit *test, unsigned int nr)
{
	struct cmstat_counters *set = cmstat_counters_alloc(nr);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, set);
	return set;
}

/* One section adding @d[i] to counter i, for every i. */
static void write_all(struct cmstat_counters *set, const s64 *d)
{
	struct cmstat_section sec;
	u64 __percpu *slot;
	unsigned int i;

	if (!cmstat_section_begin(&sec))
		return;
	slot = cmstat_section_slot(set);
	for (i = 0; i < set->nr; i++)
		cmstat_section_add(slot, i, d[i]);
	cmstat_section_end(&sec);
}

static void counters_exact_after_writes(struct kunit *test)
{
	struct cmstat_counters *set = alloc_set(test, NR_TEST_COUNTERS);
	s64 d[NR_TEST_COUNTERS] = { 1, 10, 100, 1000 };
	u64 totals[NR_TEST_COUNTERS];
	unsigned int i, n;

	for (n = 0; n < 1000; n++)
		write_all(set, d);
	cmstat_counters_read(set, totals);
	for (i = 0; i < NR_TEST_COUNTERS; i++)
		KUNIT_EXPECT_EQ(test, totals[i], 1000 * (u64)d[i]);
	cmstat_counters_free(set);
}

/* At least three times round the ring, with writes between reads. */
static void counters_reads_rotate(struct kunit *test)
{
	struct cmstat_counters *set = alloc_set(test, NR_TEST_COUNTERS);
	s64 d[NR_TEST_COUNTERS];
	u64 totals[NR_TEST_COUNTERS], expect = 0;
	unsigned long epoch, n;

	for (n = 1; n <= 4 * CMSTAT_RING_SLOTS + 1; n++) {
		d[0] = n;
		d[1] = -n;
		d[2] = 2 * n;
		d[3] = 0;
		write_all(set, d);
		expect += n;
		epoch = cmstat_counters_read(set, totals);
		KUNIT_EXPECT_EQ(test, epoch, n);
		KUNIT_EXPECT_EQ(test, totals[0], expect);
		KUNIT_EXPECT_EQ(test, (s64)totals[1], -(s64)expect);
		KUNIT_EXPECT_EQ(test, totals[2], 2 * expect);
		KUNIT_EXPECT_EQ(test, totals[3], 0);
	}
	cmstat_counters_free(set);
}

static void counters_read_without_writers(struct kunit *test)
{
	struct cmstat_counters *set = alloc_set(test, NR_TEST_COUNTERS);
	u64 totals[NR_TEST_COUNTERS];
	unsigned int i, n;

	for (n = 0; n < 3 * CMSTAT_RING_SLOTS; n++) {
		memset(totals, 0xff, sizeof(totals));
		cmstat_counters_read(set, totals);
		for (i = 0; i < NR_TEST_COUNTERS; i++)
			KUNIT_EXPECT_EQ(test, totals[i], 0);
	}
	cmstat_counters_free(set);
}

static void counters_signed_deltas(struct kunit *test)
{
	struct cmstat_counters *set = alloc_set(test, NR_TEST_COUNTERS);
	s64 up[NR_TEST_COUNTERS] = { 5, S64_MAX, -1, 7 };
	s64 down[NR_TEST_COUNTERS] = { -8, 2, -1, -7 };
	u64 totals[NR_TEST_COUNTERS];

	write_all(set, up);
	cmstat_counters_read(set, totals);
	write_all(set, down);
	cmstat_counters_read(set, totals);
	KUNIT_EXPECT_EQ(test, (s64)totals[0], -3);
	/* S64_MAX + 2 wraps: counters are modulo 2^64. */
	KUNIT_EXPECT_EQ(test, totals[1], (u64)S64_MAX + 2);
	KUNIT_EXPECT_EQ(test, (s64)totals[2], -2);
	KUNIT_EXPECT_EQ(test, totals[3], 0);
	cmstat_counters_free(set);
}

static void counters_bad_alloc(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, cmstat_counters_alloc(0), ERR_PTR(-EINVAL));
	KUNIT_EXPECT_PTR_EQ(test, cmstat_counters_alloc(CMSTAT_COUNTERS_MAX + 1),
			    ERR_PTR(-EINVAL));
	/* Freeing NULL or an error pointer is a no-op. */
	cmstat_counters_free(NULL);
	cmstat_counters_free(ERR_PTR(-EINVAL));
}

/*
 * A writer that opens a section, adds to counter 0, and stays in the
 * section until told to go on, then adds to counter 1 and closes it.
 */
struct held_writer {
	struct cmstat_counters *set;
	struct completion opened;
	bool release;
	bool timed_out;
};

static int held_writer_fn(void *arg)
{
	struct held_writer *w = arg;
	unsigned long deadline = jiffies + 20 * HZ;
	struct cmstat_section sec;
	u64 __percpu *slot;

	if (cmstat_section_begin(&sec)) {
		slot = cmstat_section_slot(w->set);
		cmstat_section_add(slot, 0, 1);
		complete(&w->opened);
		/* Pairs with WRITE_ONCE() in the test; bounded so a bug can't hang. */
		while (!READ_ONCE(w->release)) {
			if (time_after(jiffies, deadline)) {
				w->timed_out = true;
				break;
			}
			cpu_relax();
		}
		cmstat_section_add(slot, 1, 1);
		cmstat_section_end(&sec);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

struct held_reader {
	struct cmstat_counters *set;
	u64 totals[NR_TEST_COUNTERS];
	struct completion started;
	struct completion done;
};

static int held_reader_fn(void *arg)
{
	struct held_reader *r = arg;

	complete(&r->started);
	cmstat_counters_read(r->set, r->totals);
	complete(&r->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void counters_writer_holds_reader(struct kunit *test)
{
	struct held_writer w = { .release = false };
	struct held_reader r;
	struct task_struct *wt, *rt;
	u64 totals[NR_TEST_COUNTERS];
	unsigned int wcpu, rcpu;

	if (num_online_cpus() < 3)
		kunit_skip(test, "needs 3 CPUs: writer, reader, test");

	w.set = alloc_set(test, NR_TEST_COUNTERS);
	r.set = w.set;
	init_completion(&w.opened);
	init_completion(&r.started);
	init_completion(&r.done);

	/* Keep the spinning writer off the CPUs the test and reader use. */
	wcpu = cpumask_last(cpu_online_mask);
	rcpu = cpumask_first(cpu_online_mask);
	wt = kthread_create(held_writer_fn, &w, "cmstat_held_w");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wt);
	kthread_bind(wt, wcpu);
	wake_up_process(wt);
	wait_for_completion(&w.opened);

	rt = kthread_create(held_reader_fn, &r, "cmstat_held_r");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rt);
	kthread_bind(rt, rcpu);
	wake_up_process(rt);
	wait_for_completion(&r.started);

	/* The reader must still be waiting for the open section. */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&r.done,
							  msecs_to_jiffies(300)),
			0);
	WRITE_ONCE(w.release, true);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&r.done, 30 * HZ), 0);
	kthread_stop(rt);
	kthread_stop(wt);
	KUNIT_EXPECT_FALSE(test, w.timed_out);

	/* The held update is in the snapshot wholly or not at all. */
	KUNIT_EXPECT_EQ(test, r.totals[0], r.totals[1]);
	kunit_info(test, "held update %s the reader's snapshot\n",
		   r.totals[0] ? "in" : "not in");
	cmstat_counters_read(w.set, totals);
	KUNIT_EXPECT_EQ(test, totals[0], 1);
	KUNIT_EXPECT_EQ(test, totals[1], 1);
	cmstat_counters_free(w.set);
}

static struct kunit_case counters_cases[] = {
	KUNIT_CASE(counters_exact_after_writes),
	KUNIT_CASE(counters_reads_rotate),
	KUNIT_CASE(counters_read_without_writers),
	KUNIT_CASE(counters_signed_deltas),
	KUNIT_CASE(counters_bad_alloc),
	KUNIT_CASE_SLOW(counters_writer_holds_reader),
	{}
};

static struct kunit_suite counters_suite = {
	.name = "cmstat_counters",
	.test_cases = counters_cases,
};

kunit_test_suite(counters_suite);
