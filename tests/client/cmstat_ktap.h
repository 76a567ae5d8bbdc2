/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmstat_ktap.h: KTAP for cmstat's test modules, on kernels without KUnit
 * (Debian's stock ones).  A module lists its cases and runs them from its
 * init with ktap_run(); its read-only parameter "failed" then says how
 * many failed (scripts/guest/check-lib.sh ktap_module reads it).  The
 * load does not fail for a failed case: busybox's insmod, which the test
 * VMs run, retries a failed finit_module() with init_module(), which
 * would run every case again.
 *
 * The document has the shape KUnit prints, a suite named after the module
 * with one subtest per case, on the console with no prefix, so that the
 * host reads it as it reads KUnit's.  While a case runs, the kernel's
 * console is watched through its "console" tracepoint, as
 * mm/kfence/kfence_test.c watches it: a kernel report printed meanwhile
 * (a warning, a BUG, a sleep in atomic context, a lockdep splat) fails
 * that case, and a case can count the lines that name what it provoked on
 * purpose (ktap_console_lines()).  The tracepoint is found by name, since
 * not every kernel exports it (6.1 does not).  The parameter
 * only=NAME[,NAME...] runs only the cases it names.
 *
 * For test modules only: one file includes it, once, and prints through
 * it alone (its KTAP lines carry no prefix, so the module sets none).
 */
#ifndef _CMSTAT_KTAP_H
#define _CMSTAT_KTAP_H

#undef pr_fmt
#define pr_fmt(fmt) fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#ifdef CONFIG_TRACEPOINTS
#include <trace/events/printk.h>
#endif

#include <cmstat/compat.h>

struct ktap_test;

/**
 * struct ktap_case - one case of a test module
 * @name: its name in the KTAP output
 * @run: runs it; fails it with KTAP_EXPECT() or ktap_fail(), skips it
 *	with ktap_skip()
 */
struct ktap_case {
	const char *name;
	void (*run)(struct ktap_test *t);
};

/**
 * struct ktap_test - the case that runs
 * @name: its name
 * @failed: a check of the case failed
 * @skip: why it was skipped, or NULL
 */
struct ktap_test {
	const char *name;
	bool failed;
	const char *skip;
};

/* The console lines kept while a case runs, each cut to KTAP_LINE_LEN. */
#define KTAP_CONSOLE_LINES	64
#define KTAP_LINE_LEN		200

/*
 * What the console printed while a case ran.  Written by the probe, in
 * whatever context printk() was called from; in NMI context only with a
 * trylock, and a line that finds the lock taken there is counted as lost,
 * not kept.
 */
static struct {
	raw_spinlock_t lock;
	bool watching;
	bool report;		/* a line of a kernel report, kept or not */
	bool counted;		/* the case counted lines */
	unsigned int nr;	/* lines kept */
	atomic_t lost;		/* lines not kept: full, or the lock taken */
	char line[KTAP_CONSOLE_LINES][KTAP_LINE_LEN];
} ktap_console = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(ktap_console.lock),
};

/*
 * The lines of a kernel report: most of what the host's console scan looks
 * for (CONSOLE_BAD in scripts/test-vms.sh), which also judges KCSAN's
 * reports by where the race is.
 */
static const char *const ktap_report_marks[] = {
	"WARNING:", "BUG:", "Oops", "general protection", "Kernel panic",
	"UBSAN:", "possible recursive locking", "possible circular locking",
	"inconsistent lock state", "lock held when returning",
	"blocked for more than", "detected stall", "Call Trace:",
	"Call trace:",
};

/*
 * What this module prints while a case runs is indented by this much, and
 * is not watched; nor is anything else so indented (the inner lines of a
 * report, whose first line is not).
 */
#define KTAP_INDENT	"    "

/* Whether the @len bytes at @buf are a line of a kernel report. */
static bool ktap_is_report(const char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ktap_report_marks); i++)
		if (strnstr(buf, ktap_report_marks[i], len))
			return true;
	return false;
}

#ifdef CONFIG_TRACEPOINTS
static void ktap_probe_console(void *ignore, const char *buf, size_t len)
{
	unsigned long flags;

	if (len >= strlen(KTAP_INDENT) &&
	    !memcmp(buf, KTAP_INDENT, strlen(KTAP_INDENT)))
		return;
	if (!in_nmi())
		raw_spin_lock_irqsave(&ktap_console.lock, flags);
	else if (!raw_spin_trylock_irqsave(&ktap_console.lock, flags))
		goto lost;
	if (!ktap_console.watching)
		goto unlock;
	/* A report fails the case even if its lines cannot be kept. */
	ktap_console.report |= ktap_is_report(buf, len);
	if (ktap_console.nr < KTAP_CONSOLE_LINES) {
		char *line = ktap_console.line[ktap_console.nr++];

		/* @buf is the record's text, not a string: @len bytes. */
		len = min_t(size_t, len, KTAP_LINE_LEN - 1);
		memcpy(line, buf, len);
		line[len] = '\0';
	} else {
		atomic_inc(&ktap_console.lost);
	}
unlock:
	raw_spin_unlock_irqrestore(&ktap_console.lock, flags);
	return;
lost:
	/* Pairs with WRITE_ONCE() in ktap_watch(): just a switch. */
	if (READ_ONCE(ktap_console.watching))
		atomic_inc(&ktap_console.lost);
}

static struct tracepoint *ktap_console_tp;

static void ktap_find_console(struct tracepoint *tp, void *unused)
{
	if (!strcmp(tp->name, "console"))
		ktap_console_tp = tp;
}

/* Start watching the console.  Return: 0, or why not. */
static int ktap_console_attach(void)
{
	for_each_kernel_tracepoint(ktap_find_console, NULL);
	if (!ktap_console_tp)
		return -ENOENT;
	check_trace_callback_type_console(ktap_probe_console);
	return tracepoint_probe_register(ktap_console_tp,
					 (void *)ktap_probe_console, NULL);
}

static void ktap_console_detach(void)
{
	tracepoint_probe_unregister(ktap_console_tp,
				    (void *)ktap_probe_console, NULL);
	tracepoint_synchronize_unregister();
}
#else
/* No tracepoints (the KCSAN test kernel): nothing to watch, no cases. */
static int ktap_console_attach(void)
{
	return -ENOENT;
}

static void ktap_console_detach(void)
{
}
#endif

static void ktap_watch(bool on)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ktap_console.lock, flags);
	if (on) {
		ktap_console.nr = 0;
		ktap_console.report = false;
		ktap_console.counted = false;
		atomic_set(&ktap_console.lost, 0);
	}
	WRITE_ONCE(ktap_console.watching, on);
	raw_spin_unlock_irqrestore(&ktap_console.lock, flags);
}

/**
 * ktap_console_lines() - count console lines of the case that contain words
 * @a: a string the line must contain
 * @b: another, or NULL
 *
 * Return: how many lines printed since the case began contain both.  A
 * case that counts fails if a line could not be kept (ktap_reports()).
 */
static unsigned int __maybe_unused
ktap_console_lines(const char *a, const char *b)
{
	unsigned int i, n = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&ktap_console.lock, flags);
	ktap_console.counted = true;
	for (i = 0; i < ktap_console.nr; i++)
		n += strstr(ktap_console.line[i], a) &&
		     (!b || strstr(ktap_console.line[i], b));
	raw_spin_unlock_irqrestore(&ktap_console.lock, flags);
	return n;
}

#define ktap_diag(t, fmt, ...) \
	pr_info(KTAP_INDENT "# %s: " fmt "\n", (t)->name, ##__VA_ARGS__)

static __printf(4, 5) void ktap_failed(struct ktap_test *t, const char *file,
					int line, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	t->failed = true;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info(KTAP_INDENT "# %s: %s:%d: %pV\n", t->name, kbasename(file),
		line, &vaf);
	va_end(args);
}

/**
 * ktap_fail() - fail the case, saying why and where
 * @t: the case that runs
 * @fmt: why, printed as a KTAP diagnostic
 */
#define ktap_fail(t, fmt, ...) \
	ktap_failed(t, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/**
 * KTAP_EXPECT() - fail the case if a condition does not hold
 * @t: the case that runs
 * @cond: the condition
 *
 * Return: @cond, for a case that cannot go on without it.
 */
#define KTAP_EXPECT(t, cond) ({					\
	bool ktap_ok_ = (cond);					\
	if (!ktap_ok_)						\
		ktap_fail(t, "expected %s", #cond);		\
	ktap_ok_;						\
})

/**
 * ktap_skip() - skip the case
 * @t: the case that runs
 * @why: why, a string that outlives the case
 */
static inline void ktap_skip(struct ktap_test *t, const char *why)
{
	t->skip = why;
}

/*
 * A kernel report on the console during @t fails it, quoted where its
 * lines were kept.  Called once the watch is off, when nothing writes.
 */
static void ktap_reports(struct ktap_test *t)
{
	const char *line;
	unsigned int i;
	int lost = atomic_read(&ktap_console.lost);

	for (i = 0; i < ktap_console.nr; i++) {
		line = ktap_console.line[i];
		if (ktap_is_report(line, strlen(line))) {
			t->failed = true;
			ktap_diag(t, "a kernel report: %s", line);
		}
	}
	if (ktap_console.report && !t->failed)
		ktap_fail(t, "a kernel report, among lines not kept");
	if (lost && ktap_console.counted)
		ktap_fail(t, "%d console lines not kept: the case's counts may be short",
			  lost);
	else if (lost)
		ktap_diag(t, "%d console lines not kept", lost);
}

static bool ktap_run_case(const struct ktap_case *c, unsigned int nr)
{
	struct ktap_test t = { .name = c->name };

	ktap_watch(true);
	c->run(&t);
	ktap_watch(false);
	ktap_reports(&t);
	if (t.skip && !t.failed)
		pr_info(KTAP_INDENT "ok %u %s # SKIP %s\n", nr, c->name,
			t.skip);
	else
		pr_info(KTAP_INDENT "%sok %u %s\n", t.failed ? "not " : "",
			nr, c->name);
	return !t.failed;
}

/*
 * ktap_run_in_hardirq()'s timer, and what it runs.  A hard timer: one that
 * expires in the timer interrupt, PREEMPT_RT's included.
 */
static struct {
	struct hrtimer timer;
	struct completion done;
	void (*fn)(void *arg);
	void *arg;
	bool in_hardirq;
} ktap_hardirq __maybe_unused;

static enum hrtimer_restart __maybe_unused
ktap_hardirq_expired(struct hrtimer *timer)
{
	ktap_hardirq.in_hardirq = in_hardirq();
	ktap_hardirq.fn(ktap_hardirq.arg);
	complete(&ktap_hardirq.done);
	return HRTIMER_NORESTART;
}

/**
 * ktap_run_in_hardirq() - run a function in hard interrupt context
 * @fn: the function
 * @arg: its argument
 *
 * From a hard hrtimer on this CPU, a microsecond from now; returns once
 * @fn has returned and the timer is done with.  Not reentrant: one case
 * runs at a time.
 *
 * Return: whether @fn ran in hard interrupt context, as a case expects.
 */
static bool __maybe_unused ktap_run_in_hardirq(void (*fn)(void *arg), void *arg)
{
	ktap_hardirq.fn = fn;
	ktap_hardirq.arg = arg;
	ktap_hardirq.in_hardirq = false;
	init_completion(&ktap_hardirq.done);
	cmstat_hrtimer_setup(&ktap_hardirq.timer, ktap_hardirq_expired,
			     CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_start(&ktap_hardirq.timer, ns_to_ktime(1000),
		      HRTIMER_MODE_REL_PINNED_HARD);
	wait_for_completion(&ktap_hardirq.done);
	/* complete() is not the callback's end: wait for that too. */
	hrtimer_cancel(&ktap_hardirq.timer);
	return ktap_hardirq.in_hardirq;
}

static unsigned int ktap_failed_cases;
module_param_named(failed, ktap_failed_cases, uint, 0444);
MODULE_PARM_DESC(failed, "how many cases failed (read-only)");

static char *ktap_only;
module_param_named(only, ktap_only, charp, 0400);
MODULE_PARM_DESC(only, "the cases to run, split by commas (default: all)");

/* Whether @name is in @only, a list of case names split by commas. */
static bool ktap_chosen(const char *only, const char *name)
{
	size_t len = strlen(name);
	const char *p = only;

	if (!only || !*only)
		return true;
	while ((p = strstr(p, name))) {
		if ((p == only || p[-1] == ',') && (!p[len] || p[len] == ','))
			return true;
		p += len;
	}
	return false;
}

/* The first name in @only that is no case's, or NULL. */
static const char *ktap_unknown(const struct ktap_case *cases,
				unsigned int n, const char *only)
{
	static char name[KTAP_LINE_LEN];
	const char *p = only;
	unsigned int i;
	size_t len;

	while (p && *p) {
		len = strcspn(p, ",");
		for (i = 0; i < n; i++)
			if (strlen(cases[i].name) == len &&
			    !strncmp(cases[i].name, p, len))
				break;
		if (i == n) {
			strscpy(name, p, min_t(size_t, len + 1, sizeof(name)));
			return name;
		}
		p += len + (p[len] == ',');
	}
	return NULL;
}

/**
 * ktap_only_names() - whether "only" names the case, not just lets it run
 * @t: the case that runs
 *
 * For a case whose aftermath the next case, or the next module, would
 * see: it runs only when asked for by name.
 *
 * Return: true if "only" lists @t's name.
 */
static bool __maybe_unused ktap_only_names(struct ktap_test *t)
{
	return ktap_only && *ktap_only && ktap_chosen(ktap_only, t->name);
}

/**
 * ktap_run() - run a module's cases and print their KTAP
 * @cases: the cases
 * @n: how many
 *
 * Each case runs in turn, from the calling task: those the parameter
 * "only" names, or all.  The parameter "failed" then holds how many
 * failed.
 *
 * Return: 0 once the cases have run, -ENOENT if the kernel has no
 * console tracepoint (no CONFIG_TRACEPOINTS), -EINVAL if "only" names something that is no case.
 */
static int ktap_run(const struct ktap_case *cases, unsigned int n)
{
	const char *only = ktap_only, *unknown = ktap_unknown(cases, n, only);
	unsigned int i, nr = 0;
	int err;

	if (unknown) {
		pr_err(KBUILD_MODNAME ": only=: no case is named %s\n", unknown);
		return -EINVAL;
	}
	err = ktap_console_attach();
	if (err) {
		pr_err(KBUILD_MODNAME ": cannot watch the console tracepoint: %pe\n",
		       ERR_PTR(err));
		return err;
	}
	pr_info("KTAP version 1\n");
	pr_info("1..1\n");
	pr_info(KTAP_INDENT "KTAP version 1\n");
	pr_info(KTAP_INDENT "# Subtest: " KBUILD_MODNAME "\n");
	for (i = 0; i < n; i++)
		nr += ktap_chosen(only, cases[i].name);
	pr_info(KTAP_INDENT "1..%u\n", nr);
	for (i = 0, nr = 0; i < n; i++)
		if (ktap_chosen(only, cases[i].name))
			ktap_failed_cases += !ktap_run_case(&cases[i], ++nr);
	pr_info("%sok 1 " KBUILD_MODNAME "\n", ktap_failed_cases ? "not " : "");
	ktap_console_detach();
	return 0;
}

#endif /* _CMSTAT_KTAP_H */
