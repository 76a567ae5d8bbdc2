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

#define pr_fmt(fmt) fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

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
 * whatever context printk() was called from (NMI included, hence the
 * trylock: a line that finds the lock taken is counted as lost, not kept).
 */
static struct {
	raw_spinlock_t lock;
	bool watching;
	unsigned int nr;	/* lines kept */
	atomic_t lost;		/* lines not kept: full, or the lock taken */
	char line[KTAP_CONSOLE_LINES][KTAP_LINE_LEN];
} ktap_console = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(ktap_console.lock),
};

/*
 * The lines of a kernel report, as the host's console scan sees them
 * (CONSOLE_BAD in scripts/test-vms.sh).
 */
static const char *const ktap_report_marks[] = {
	"WARNING:", "BUG:", "KASAN:", "Oops", "general protection",
	"UBSAN:", "possible recursive locking", "possible circular locking",
	"inconsistent lock state", "lock held when returning",
	"blocked for more than", "Call Trace:", "Call trace:",
};

/* This module's own lines: KTAP, which is never indented by less. */
#define KTAP_INDENT	"    "

static void ktap_probe_console(void *ignore, const char *buf, size_t len)
{
	unsigned long flags;

	/* Pairs with WRITE_ONCE() in ktap_watch(): just a switch. */
	if (!READ_ONCE(ktap_console.watching) ||
	    (len >= strlen(KTAP_INDENT) &&
	     !memcmp(buf, KTAP_INDENT, strlen(KTAP_INDENT))))
		return;
	if (!raw_spin_trylock_irqsave(&ktap_console.lock, flags)) {
		atomic_inc(&ktap_console.lost);
		return;
	}
	if (ktap_console.nr < KTAP_CONSOLE_LINES) {
		char *line = ktap_console.line[ktap_console.nr++];

		/* @buf is the record's text, not a string: @len bytes. */
		len = min_t(size_t, len, KTAP_LINE_LEN - 1);
		memcpy(line, buf, len);
		line[len] = '\0';
	} else {
		atomic_inc(&ktap_console.lost);
	}
	raw_spin_unlock_irqrestore(&ktap_console.lock, flags);
}

static struct tracepoint *ktap_console_tp;

static void ktap_find_console(struct tracepoint *tp, void *unused)
{
	if (!strcmp(tp->name, "console"))
		ktap_console_tp = tp;
}

static void ktap_watch(bool on)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ktap_console.lock, flags);
	if (on) {
		ktap_console.nr = 0;
		atomic_set(&ktap_console.lost, 0);
	}
	WRITE_ONCE(ktap_console.watching, on);
	raw_spin_unlock_irqrestore(&ktap_console.lock, flags);
}

/**
 * ktap_console_lines() - count console lines of the case that contain words
 * @t: the case that runs
 * @a: a string the line must contain
 * @b: another, or NULL
 *
 * Return: how many lines printed since the case began contain both.
 */
static unsigned int __maybe_unused
ktap_console_lines(struct ktap_test *t, const char *a, const char *b)
{
	unsigned int i, n = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&ktap_console.lock, flags);
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
	bool __ok = (cond);					\
	if (!__ok)						\
		ktap_fail(t, "expected %s", #cond);		\
	__ok;							\
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

static bool ktap_is_report(const char *line)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ktap_report_marks); i++)
		if (strstr(line, ktap_report_marks[i]))
			return true;
	return false;
}

/*
 * A kernel report on the console during @t fails it.  Called once the
 * watch is off: a probe that saw it on still may add a line, past the
 * ones counted here, which it does not touch.
 */
static void ktap_reports(struct ktap_test *t)
{
	unsigned int i, nr;
	unsigned long flags;

	raw_spin_lock_irqsave(&ktap_console.lock, flags);
	nr = ktap_console.nr;
	raw_spin_unlock_irqrestore(&ktap_console.lock, flags);
	for (i = 0; i < nr; i++)
		if (ktap_is_report(ktap_console.line[i])) {
			t->failed = true;
			ktap_diag(t, "a kernel report: %s",
				  ktap_console.line[i]);
		}
	if (atomic_read(&ktap_console.lost))
		ktap_diag(t, "%d console lines not looked at",
			  atomic_read(&ktap_console.lost));
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
 * console tracepoint, -EINVAL if "only" names no case.
 */
static int ktap_run(const struct ktap_case *cases, unsigned int n)
{
	const char *only = ktap_only;
	unsigned int i, nr = 0;
	int err;

	for (i = 0; i < n; i++)
		nr += ktap_chosen(only, cases[i].name);
	if (!nr) {
		pr_err(KBUILD_MODNAME ": only=%s names no case\n", only ?: "");
		return -EINVAL;
	}
	for_each_kernel_tracepoint(ktap_find_console, NULL);
	if (!ktap_console_tp) {
		pr_err(KBUILD_MODNAME ": the kernel has no console tracepoint\n");
		return -ENOENT;
	}
	err = tracepoint_probe_register(ktap_console_tp,
					(void *)ktap_probe_console, NULL);
	if (err)
		return err;
	pr_info("KTAP version 1\n");
	pr_info("1..1\n");
	pr_info(KTAP_INDENT "KTAP version 1\n");
	pr_info(KTAP_INDENT "# Subtest: " KBUILD_MODNAME "\n");
	pr_info(KTAP_INDENT "1..%u\n", nr);
	for (i = 0, nr = 0; i < n; i++)
		if (ktap_chosen(only, cases[i].name))
			ktap_failed_cases += !ktap_run_case(&cases[i], ++nr);
	pr_info("%sok 1 " KBUILD_MODNAME "\n", ktap_failed_cases ? "not " : "");
	tracepoint_probe_unregister(ktap_console_tp,
				    (void *)ktap_probe_console, NULL);
	tracepoint_synchronize_unregister();
	return 0;
}

#endif /* _CMSTAT_KTAP_H */
