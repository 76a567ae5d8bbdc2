// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the consistent counters on one CPU at a time: exact totals,
 * generation rotation, signed deltas, bad arguments, a reader held by a
 * writer section open in task context and in softirq context, a read that
 * follows one killed while it waited, a heap destroyed while a cut waited,
 * and a read from inside a section.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>

#include <cmstat/alloc.h>
#include <cmstat/counters.h>
#include <cmstat/testing.h>

#include "cmstat_kunit.h"

#define NR_TEST_COUNTERS	4

/* A counter set of its own group, freed when the case ends. */
static struct cmstat_counters *alloc_set(struct kunit *test)
{
	return cmstat_kunit_counters(test, NULL, NR_TEST_COUNTERS);
}

/* A snapshot that must succeed; returns its epoch. */
static u64 read_ok(struct kunit *test, struct cmstat_counters *set, u64 *totals)
{
	u64 epoch = 0;

	KUNIT_EXPECT_EQ(test, cmstat_counters_read(set, totals, &epoch), 0);
	return epoch;
}

/* One section adding @d[i] to counter i, for every i. */
static void write_all(struct cmstat_counters *set, const s64 *d)
{
	struct cmstat_section sec;
	u64 __percpu *slot;
	unsigned int i;

	if (!cmstat_section_begin(&sec, cmstat_counters_group(set)))
		return;
	slot = cmstat_section_slot(&sec, set);
	for (i = 0; i < NR_TEST_COUNTERS; i++)	/* every set here has as many */
		cmstat_section_add(slot, i, d[i]);
	cmstat_section_end(&sec);
}

static void counters_exact_after_writes(struct kunit *test)
{
	struct cmstat_counters *set = alloc_set(test);
	s64 d[NR_TEST_COUNTERS] = { 1, 10, 100, 1000 };
	u64 totals[NR_TEST_COUNTERS];
	unsigned int i, n;

	for (n = 0; n < 1000; n++)
		write_all(set, d);
	read_ok(test, set, totals);
	for (i = 0; i < NR_TEST_COUNTERS; i++)
		KUNIT_EXPECT_EQ(test, totals[i], 1000 * (u64)d[i]);
}

/* At least three times round the ring, with writes between reads. */
static void counters_reads_rotate(struct kunit *test)
{
	struct cmstat_counters *set = alloc_set(test);
	s64 d[NR_TEST_COUNTERS];
	u64 totals[NR_TEST_COUNTERS], expect = 0;
	unsigned long n;

	for (n = 1; n <= 4 * CMSTAT_RING_SLOTS + 1; n++) {
		d[0] = n;
		d[1] = -n;
		d[2] = 2 * n;
		d[3] = 0;
		write_all(set, d);
		expect += n;
		KUNIT_EXPECT_EQ(test, read_ok(test, set, totals), n);
		KUNIT_EXPECT_EQ(test, totals[0], expect);
		KUNIT_EXPECT_EQ(test, (s64)totals[1], -(s64)expect);
		KUNIT_EXPECT_EQ(test, totals[2], 2 * expect);
		KUNIT_EXPECT_EQ(test, totals[3], 0);
	}
}

static void counters_read_without_writers(struct kunit *test)
{
	struct cmstat_counters *set = alloc_set(test);
	u64 totals[NR_TEST_COUNTERS];
	unsigned int i, n;

	for (n = 0; n < 3 * CMSTAT_RING_SLOTS; n++) {
		memset(totals, 0xff, sizeof(totals));
		read_ok(test, set, totals);
		for (i = 0; i < NR_TEST_COUNTERS; i++)
			KUNIT_EXPECT_EQ(test, totals[i], 0);
	}
}

static void counters_signed_deltas(struct kunit *test)
{
	struct cmstat_counters *set = alloc_set(test);
	s64 up[NR_TEST_COUNTERS] = { 5, S64_MAX, -1, 7 };
	s64 down[NR_TEST_COUNTERS] = { -8, 2, -1, -7 };
	u64 totals[NR_TEST_COUNTERS];

	write_all(set, up);
	read_ok(test, set, totals);
	write_all(set, down);
	read_ok(test, set, totals);
	KUNIT_EXPECT_EQ(test, (s64)totals[0], -3);
	/* S64_MAX + 2 wraps: counters are modulo 2^64. */
	KUNIT_EXPECT_EQ(test, totals[1], (u64)S64_MAX + 2);
	KUNIT_EXPECT_EQ(test, (s64)totals[2], -2);
	KUNIT_EXPECT_EQ(test, totals[3], 0);
}

static void counters_bad_alloc(struct kunit *test)
{
	struct cmstat_counters *set;

	/* Freeing NULL or an error pointer is a no-op: one made is freed. */
	set = cmstat_counters_alloc(NULL, 0);
	KUNIT_EXPECT_PTR_EQ(test, set, ERR_PTR(-EINVAL));
	cmstat_counters_free(set);
	set = cmstat_counters_alloc(NULL, CMSTAT_COUNTERS_MAX + 1);
	KUNIT_EXPECT_PTR_EQ(test, set, ERR_PTR(-EINVAL));
	cmstat_counters_free(set);
	cmstat_counters_free(NULL);
	cmstat_counters_free(ERR_PTR(-EINVAL));
}

/* A group freed before its sets is left allocated: the sets still work. */
static void counters_group_freed_early(struct kunit *test)
{
	struct cmstat_group *group = cmstat_kunit_group(test);
	struct cmstat_counters *set = cmstat_kunit_counters(test, group,
							    NR_TEST_COUNTERS);
	s64 d[NR_TEST_COUNTERS] = { 5 };
	u64 totals[NR_TEST_COUNTERS];

	cmstat_group_free(group);	/* refused, with a message */
	write_all(set, d);
	read_ok(test, set, totals);
	KUNIT_EXPECT_EQ(test, totals[0], 5);
	cmstat_kunit_counters_free(test, set);
	cmstat_kunit_group_free(test, group);
}

/*
 * A section held open: adds to counter 0, stays in the section until told
 * to go on, then adds to counter 1 and closes.  Run by a kthread (task
 * context) or a BH work item (softirq context) on a CPU of its own.
 * KUnit's memory, not the case's stack: a case that ends at a failed
 * assertion leaves the thread or work item running until KUnit's cleanup
 * releases the section and stops it.
 */
struct held_section {
	struct cmstat_counters *set;
	struct completion opened;
	bool release;
	int seq;		/* the sequence counter the section used */
	bool timed_out;
	struct task_struct *task;	/* the kthread holding it, if one does */
	struct work_struct bh_work;
};

/*
 * Held until released, bounded so that a failed test cannot hang the
 * machine: by count, not by time, as a busy host makes the guest's clock
 * jump by seconds at once, and a softirq spinning here can stall the
 * guest's timers.  2^28 spins are some 40 s under QEMU with the debug
 * kernel, where the test needs less than one.
 */
#define HOLD_MAX_SPINS BIT(28)

static void hold_section(struct held_section *h)
{
	unsigned long spins = 0;
	struct cmstat_section sec;
	u64 __percpu *slot;

	h->seq = -1;
	if (!cmstat_section_begin(&sec, cmstat_counters_group(h->set))) {
		complete(&h->opened);
		return;
	}
	h->seq = sec.seq;
	slot = cmstat_section_slot(&sec, h->set);
	cmstat_section_add(slot, 0, 1);
	complete(&h->opened);
	/* Pairs with WRITE_ONCE() in held_release(). */
	while (!READ_ONCE(h->release)) {
		if (++spins == HOLD_MAX_SPINS) {
			h->timed_out = true;
			break;
		}
		cpu_relax();
	}
	cmstat_section_add(slot, 1, 1);
	cmstat_section_end(&sec);
}

static int held_task_fn(void *arg)
{
	hold_section(arg);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void held_bh_fn(struct work_struct *work)
{
	hold_section(container_of(work, struct held_section, bh_work));
}

/* Let the held section end: a deferred action, run before the stop. */
static void held_release(void *arg)
{
	struct held_section *h = arg;

	/* Pairs with READ_ONCE() in hold_section(). */
	WRITE_ONCE(h->release, true);
}

static void held_bh_flush(void *arg)
{
	struct held_section *h = arg;

	flush_work(&h->bh_work);
}

struct held_reader {
	struct cmstat_counters *set;
	u64 totals[NR_TEST_COUNTERS];
	int err;
	struct completion started;
	struct completion done;
	struct task_struct *task;
};

/* A kthread ignores signals unless it allows them: this one can be killed. */
static int held_reader_fn(void *arg)
{
	struct held_reader *r = arg;

	allow_signal(SIGKILL);
	complete(&r->started);
	r->err = cmstat_counters_read(r->set, r->totals, NULL);
	complete(&r->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * The reader of @h's set, created and bound to the first CPU before the
 * writer opens its section: once a BH work item spins on the writer's
 * CPU, that CPU looks idle to the scheduler, and a task woken there
 * (kthreadd, creating a thread) waits for the section too.  Made before
 * the writer, it is stopped after the writer has been released.
 */
static struct held_reader *held_reader_create(struct kunit *test,
					      struct held_section *h)
{
	struct held_reader *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->set = h->set;
	init_completion(&r->started);
	init_completion(&r->done);
	r->task = cmstat_kunit_kthread(test, kthread_create(held_reader_fn, r,
							    "cmstat_held_r"));
	kthread_bind(r->task, cpumask_first(cpu_online_mask));
	return r;
}

/*
 * How long the reader must be seen waiting: 300 ms of busy-waiting, as
 * a timer could not be trusted while the writer spins in a softirq (the
 * CPU that would expire it may be the writer's, stuck in the section).
 */
#define HELD_POLLS	3000
#define HELD_POLL_US	100

/*
 * With @h's section open on another CPU, the reader @r must wait for it
 * until it is released, and then hold the update wholly or not at all.
 */
static void expect_reader_held(struct kunit *test, struct held_section *h,
			       struct held_reader *r)
{
	u64 totals[NR_TEST_COUNTERS];
	unsigned int i;

	wake_up_process(r->task);
	wait_for_completion(&r->started);
	for (i = 0; i < HELD_POLLS && !completion_done(&r->done); i++)
		udelay(HELD_POLL_US);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&r->done),
			       "the reader did not wait for the open section");
	kunit_release_action(test, held_release, h);
	wait_for_completion(&r->done);
	cmstat_kunit_kthread_stop(test, r->task);
	KUNIT_EXPECT_FALSE(test, h->timed_out);

	KUNIT_EXPECT_EQ(test, r->err, 0);
	KUNIT_EXPECT_EQ(test, r->totals[0], r->totals[1]);
	kunit_info(test, "held update %s the reader's snapshot\n",
		   r->totals[0] ? "in" : "not in");
	read_ok(test, h->set, totals);
	KUNIT_EXPECT_EQ(test, totals[0], 1);
	KUNIT_EXPECT_EQ(test, totals[1], 1);
}

/*
 * The test itself runs on the second CPU, away from the writer's, where a
 * softirq section spinning would hold it up too.
 */
static struct held_section *held_init(struct kunit *test)
{
	struct held_section *h;
	unsigned int mid;

	if (num_online_cpus() < 3)
		kunit_skip(test, "needs 3 CPUs: writer, reader, test");
	mid = cpumask_next(cpumask_first(cpu_online_mask), cpu_online_mask);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(mid)), 0);
	h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	h->set = alloc_set(test);
	init_completion(&h->opened);
	return h;
}

/*
 * A task section held open, by a kthread spinning on the last CPU, for
 * the reader to meet.  When the case ends the section is released
 * before the kthread is stopped: the thread leaves it only when told.
 */
static void held_task_start(struct kunit *test, struct held_section *h)
{
	h->task = cmstat_kunit_kthread(test, kthread_create(held_task_fn, h,
							    "cmstat_held_w"));
	cmstat_kunit_defer(test, held_release, h);
	kthread_bind(h->task, cpumask_last(cpu_online_mask));
	wake_up_process(h->task);
	wait_for_completion(&h->opened);
	/* A kthread's section: the first depth. */
	KUNIT_EXPECT_EQ(test, h->seq, 1);
}

/* Release the section held by held_task_start(), and stop its kthread. */
static void held_task_stop(struct kunit *test, struct held_section *h)
{
	kunit_release_action(test, held_release, h);
	cmstat_kunit_kthread_stop(test, h->task);
}

/* The writer, spinning, runs on the last CPU; the reader on the first. */
static void counters_task_section_holds_reader(struct kunit *test)
{
	struct held_section *h = held_init(test);
	struct held_reader *r = held_reader_create(test, h);

	held_task_start(test, h);
	expect_reader_held(test, h, r);
	held_task_stop(test, h);
}

/*
 * The same with the section open in a softirq, a BH work item: the
 * reader's IPI lands in it (softirqs run with interrupts on), sees its
 * counter odd, and must wait for that one.  On PREEMPT_RT the work item
 * runs in a thread, and its section is a task section, which the reader
 * must wait for the same.  Either way at a depth of at least 1, whatever
 * the softirq interrupted.
 */
static void counters_softirq_section_holds_reader(struct kunit *test)
{
	struct held_section *h = held_init(test);
	struct held_reader *r = held_reader_create(test, h);

	/*
	 * The actions before the work is queued: with it spinning, nothing
	 * that may wait for the writer's CPU.  Released, then flushed.
	 */
	INIT_WORK(&h->bh_work, held_bh_fn);
	cmstat_kunit_defer(test, held_bh_flush, h);
	cmstat_kunit_defer(test, held_release, h);
	queue_work_on(cpumask_last(cpu_online_mask), system_bh_wq, &h->bh_work);
	wait_for_completion(&h->opened);
	KUNIT_EXPECT_GE(test, h->seq, 1);

	expect_reader_held(test, h, r);
	kunit_release_action(test, held_bh_flush, h);
}

/* How long the killed-reader case waits for the reader's close, at most. */
#define KILL_POLLS	6000
#define KILL_POLL_MS	10

/*
 * A reader killed while it waits for a section leaves its close pending.
 * The next read must still include every section that ended before it
 * began: the held section, and a write made after it, in the generation
 * the killed reader's close opened.
 */
static void counters_read_after_killed_reader(struct kunit *test)
{
	s64 d[NR_TEST_COUNTERS] = { 0, 0, 100, 0 };
	struct held_section *h = held_init(test);
	struct held_reader *r = held_reader_create(test, h);
	struct cmstat_group *group = cmstat_counters_group(h->set);
	u64 totals[NR_TEST_COUNTERS];
	unsigned long gen;
	unsigned int i;

	held_task_start(test, h);

	/*
	 * Killed once it has closed a generation and waits for the section.
	 * Polled with sleeps, as long as a hang would take (a minute, or
	 * more on a coarse jiffy): the held section is a task's, on another
	 * CPU, so timers run.
	 */
	gen = cmstat_group_gen(group);
	wake_up_process(r->task);
	wait_for_completion(&r->started);
	for (i = 0; i < KILL_POLLS && cmstat_group_gen(group) == gen; i++)
		msleep(KILL_POLL_MS);
	KUNIT_EXPECT_NE_MSG(test, cmstat_group_gen(group), gen,
			    "the reader closed no generation");
	send_sig(SIGKILL, r->task, 1);
	wait_for_completion(&r->done);
	cmstat_kunit_kthread_stop(test, r->task);
	KUNIT_EXPECT_EQ(test, r->err, -EINTR);

	held_task_stop(test, h);	/* the held section has ended */
	KUNIT_EXPECT_FALSE(test, h->timed_out);
	write_all(h->set, d);

	read_ok(test, h->set, totals);
	KUNIT_EXPECT_EQ(test, totals[0], 1);
	KUNIT_EXPECT_EQ(test, totals[1], 1);
	KUNIT_EXPECT_EQ_MSG(test, totals[2], 100,
			    "a write that ended before the read is missing");
}

/* A heap destroyed by a kthread: its destroy takes a cut. */
static int destroy_heap_fn(void *heap)
{
	cmstat_heap_destroy(heap);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * The kthread that will destroy @heap.  Until it is woken the case
 * destroys the heap when it ends (the kthread, stopped unwoken, never
 * runs); cmstat_kunit_heap_give() before the wake-up hands it over.
 */
static struct task_struct *destroyer_create(struct kunit *test,
					    struct cmstat_heap *heap)
{
	struct task_struct *t;

	t = cmstat_kunit_kthread(test, kthread_create(destroy_heap_fn, heap,
						      "cmstat_destroy"));
	kthread_bind(t, cpumask_first(cpu_online_mask));
	return t;
}

/*
 * A cut judges the orphans in it: one found empty is released.  A cut
 * that began before a heap was destroyed, and finished after, waiting for
 * a section, holds the heap's counters from before an allocation made in
 * between: it must leave the heap to the destroy's own cut.  Released by
 * the early cut, the heap would lose that object's counts, and the
 * object's free would touch freed memory (not tried: the test stops at
 * the lost count, the object left allocated).
 */
static void counters_cut_before_destroy(struct kunit *test)
{
	struct cmstat_heap_stats *before, *after;
	struct cmstat_heap *bystander, *heap, *again;
	struct task_struct *early, *late;
	struct held_section *h;
	unsigned long gen;
	unsigned int i;
	void *obj;
	int err;

	if (!cmstat_accounting_enabled())
		kunit_skip(test, "cmstat loaded with accounting=0");
	h = held_init(test);
	before = kunit_kzalloc(test, sizeof(*before), GFP_KERNEL);
	after = kunit_kzalloc(test, sizeof(*after), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	bystander = cmstat_kunit_heap(test, "kunit-bystander");
	heap = cmstat_kunit_heap(test, "kunit-late");
	KUNIT_ASSERT_EQ(test, cmstat_heaps_read_all(before), 0);
	early = destroyer_create(test, bystander);
	late = destroyer_create(test, heap);
	held_task_start(test, h);

	/* The early cut: its generation closed, it waits for the section. */
	gen = cmstat_group_gen(&cmstat_heap_group);
	cmstat_kunit_heap_give(test, bystander);
	wake_up_process(early);
	for (i = 0; i < KILL_POLLS && cmstat_group_gen(&cmstat_heap_group) == gen; i++)
		msleep(KILL_POLL_MS);
	KUNIT_EXPECT_NE_MSG(test, cmstat_group_gen(&cmstat_heap_group), gen,
			    "the early cut closed no generation");
	obj = cmstat_kunit_alloc(test, heap, 100, GFP_KERNEL);
	/* The late destroy: the heap an orphan, its cut behind the early. */
	cmstat_kunit_heap_give(test, heap);
	wake_up_process(late);
	for (i = 0, again = ERR_PTR(-EEXIST);
	     i < KILL_POLLS && PTR_ERR(again) == -EEXIST; i++) {
		msleep(KILL_POLL_MS);
		again = cmstat_heap_create("kunit-late");
	}
	held_task_stop(test, h);
	cmstat_kunit_kthread_stop(test, early);
	cmstat_kunit_kthread_stop(test, late);
	cmstat_heap_destroy(again);
	KUNIT_EXPECT_FALSE(test, h->timed_out);
	KUNIT_EXPECT_FALSE(test, IS_ERR(again));

	err = cmstat_heaps_read_all(after);
	/*
	 * Released early, the heap is freed memory: no free through it, nor
	 * when the read failed and cannot tell.
	 */
	if (err || after->live_objects != before->live_objects + 1)
		cmstat_kunit_forget(test, obj);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ_MSG(test, after->live_objects, before->live_objects + 1,
			    "a cut released the heap by counters older than its destroy");
	cmstat_kunit_free(test, obj);
	KUNIT_ASSERT_EQ(test, cmstat_heaps_read_all(after), 0);
	KUNIT_EXPECT_EQ(test, after->live_objects, before->live_objects);
}

/*
 * Without CONFIG_PREEMPT_COUNT (UML, PREEMPT_NONE) a read cannot tell that
 * it runs inside a section: it waits section_timeout, then closes the
 * section as a leaked one (Documentation/design.rst, "Reader").
 */
static void skip_without_preempt_count(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_COUNT))
		kunit_skip(test, "no CONFIG_PREEMPT_COUNT: a read cannot tell it is in a section");
}

/*
 * A read from inside a section would wait for that section forever: it is
 * refused, before anything sleeps.  The result is checked after the
 * section, where KUnit may allocate.
 */
static void counters_read_in_section(struct kunit *test)
{
	struct cmstat_counters *set = alloc_set(test);
	u64 totals[NR_TEST_COUNTERS];
	struct cmstat_heap_stats *st = kunit_kzalloc(test, sizeof(*st),
						     GFP_KERNEL);
	struct cmstat_section sec;
	int err = 0, all_err = 0;

	skip_without_preempt_count(test);

	KUNIT_ASSERT_NOT_NULL(test, st);
	/* Refused before they allocate or lock: no sleep-in-atomic splat. */
	if (cmstat_section_begin(&sec, cmstat_counters_group(set))) {
		cmstat_section_add(cmstat_section_slot(&sec, set), 0, 1);
		err = cmstat_counters_read(set, totals, NULL);
		all_err = cmstat_heaps_read_all(st);
		cmstat_section_end(&sec);
	}
	KUNIT_EXPECT_EQ(test, err, -EDEADLK);
	KUNIT_EXPECT_EQ(test, all_err, -EDEADLK);
	read_ok(test, set, totals);
	KUNIT_EXPECT_EQ(test, totals[0], 1);
}

/*
 * The same from a section opened with preemption disabled twice already,
 * which puts it on the counter of depth 3, and read after both are
 * dropped inside it: the preemption count now says depth 1, and the
 * refusal must look above it too.
 */
static void counters_read_in_deeper_section(struct kunit *test)
{
	struct cmstat_counters *set = alloc_set(test);
	u64 totals[NR_TEST_COUNTERS];
	struct cmstat_section sec;
	unsigned long seq = 0;
	int err = 0;

	skip_without_preempt_count(test);

	preempt_disable();
	preempt_disable();
	if (cmstat_section_begin(&sec, cmstat_counters_group(set))) {
		seq = sec.seq;
		preempt_enable();
		preempt_enable();
		cmstat_section_add(cmstat_section_slot(&sec, set), 0, 1);
		err = cmstat_counters_read(set, totals, NULL);
		cmstat_section_end(&sec);
	} else {
		preempt_enable();
		preempt_enable();
	}
	KUNIT_EXPECT_EQ(test, seq, 3);
	KUNIT_EXPECT_EQ(test, err, -EDEADLK);
	read_ok(test, set, totals);
	KUNIT_EXPECT_EQ(test, totals[0], 1);
}

static struct kunit_case counters_cases[] = {
	KUNIT_CASE(counters_exact_after_writes),
	KUNIT_CASE(counters_reads_rotate),
	KUNIT_CASE(counters_read_without_writers),
	KUNIT_CASE(counters_signed_deltas),
	KUNIT_CASE(counters_bad_alloc),
	KUNIT_CASE(counters_group_freed_early),
	KUNIT_CASE(counters_read_in_section),
	KUNIT_CASE(counters_read_in_deeper_section),
	KUNIT_CASE_SLOW(counters_task_section_holds_reader),
	KUNIT_CASE_SLOW(counters_softirq_section_holds_reader),
	KUNIT_CASE_SLOW(counters_read_after_killed_reader),
	KUNIT_CASE_SLOW(counters_cut_before_destroy),
	{}
};

static struct kunit_suite counters_suite = {
	.name = "cmstat_counters",
	.test_cases = counters_cases,
};

kunit_test_suite(counters_suite);
