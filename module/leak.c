// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat leak checks: a heap's live objects, per call site where it has
 * site rows, at the start and at the end of a test, compared exactly.
 * No KUnit here: include/cmstat/kunit.h hooks this into a KUnit case, and
 * cmstat.ko loads on kernels without KUnit.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

/* The most site lines a report names, by column. */
#define CMSTAT_LEAK_SITES_SHOWN	16

/**
 * struct cmstat_leak_check - a heap at the start of a leak check
 * @heap: the heap
 * @live_objects: its live objects then
 * @live_bytes: its live bytes then
 * @nr_rows: columns in @rows; 0 for a heap without site rows
 * @rows: its site rows then, by column
 */
struct cmstat_leak_check {
	struct cmstat_heap *heap;
	u64 live_objects;
	u64 live_bytes;
	unsigned int nr_rows;
	struct cmstat_site_stats rows[] __counted_by(nr_rows);
};

/*
 * @heap's snapshot, and its site rows if it has any, in @rows (a
 * kvmalloc()ed array of *@nr_rows, replaced with one big enough).
 */
static int cmstat_leak_read(struct cmstat_heap *heap,
			    struct cmstat_heap_stats *st,
			    struct cmstat_site_stats **rows,
			    unsigned int *nr_rows)
{
	int n;

	if (!cmstat_heap_priv(heap)->sites) {
		*nr_rows = 0;
		return cmstat_heap_read(heap, st);
	}
	for (;;) {
		n = cmstat_heap_sites_read(heap, *rows, *nr_rows, st);
		if (n < 0 || n <= *nr_rows)
			break;
		/* Sites bound since: room for them, and read again. */
		kvfree(*rows);
		*rows = kvcalloc(n, sizeof(**rows), GFP_KERNEL);
		*nr_rows = *rows ? n : 0;
		if (!*rows)
			return -ENOMEM;
	}
	if (n >= 0)
		*nr_rows = n;
	return n < 0 ? n : 0;
}

/**
 * cmstat_leak_check_start() - start a leak check of a heap
 * @heap: the heap
 *
 * Takes a snapshot of @heap, per site if it has site rows, for
 * cmstat_leak_check_end() to compare with.  Process context; sleeps.
 *
 * Return: the check, to end with cmstat_leak_check_end(); or an
 * ERR_PTR(): -EINVAL for a NULL heap, or as cmstat_heap_read().
 */
struct cmstat_leak_check *cmstat_leak_check_start(struct cmstat_heap *heap)
{
	struct cmstat_site_stats *rows = NULL;
	struct cmstat_heap_stats *st;
	struct cmstat_leak_check *lc;
	unsigned int nr_rows = 0;
	int err;

	if (IS_ERR_OR_NULL(heap))
		return ERR_PTR(-EINVAL);
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return ERR_PTR(-ENOMEM);
	err = cmstat_leak_read(heap, st, &rows, &nr_rows);
	lc = err ? NULL : kvmalloc(struct_size(lc, rows, nr_rows), GFP_KERNEL);
	if (lc) {
		lc->heap = heap;
		lc->live_objects = st->live_objects;
		lc->live_bytes = st->live_bytes;
		lc->nr_rows = nr_rows;
		if (nr_rows)
			memcpy(lc->rows, rows, nr_rows * sizeof(*rows));
	} else if (!err) {
		err = -ENOMEM;
	}
	kvfree(rows);
	kfree(st);
	return err ? ERR_PTR(err) : lc;
}
EXPORT_SYMBOL_GPL(cmstat_leak_check_start);

/* Objects and bytes at @row's column more than @lc started with. */
static void cmstat_leak_grown(const struct cmstat_leak_check *lc,
			      const struct cmstat_site_stats *row,
			      s64 *objects, s64 *bytes)
{
	*objects = row->live_objects;
	*bytes = row->live_bytes;
	if (row->column < lc->nr_rows) {
		*objects -= lc->rows[row->column].live_objects;
		*bytes -= lc->rows[row->column].live_bytes;
	}
}

/*
 * The objects and bytes the sites of @rows hold more than at the start,
 * the sites that hold fewer left out: an object a test frees of those
 * the heap held before hides no leak at another site.
 */
static s64 cmstat_leak_sites_grown(const struct cmstat_leak_check *lc,
				   const struct cmstat_site_stats *rows,
				   unsigned int nr_rows, s64 *bytes)
{
	s64 objects, grown, b;
	unsigned int col;

	*bytes = 0;
	for (grown = 0, col = 0; col < nr_rows; col++) {
		cmstat_leak_grown(lc, &rows[col], &objects, &b);
		if (objects > 0) {
			grown += objects;
			*bytes += b;
		}
	}
	return grown;
}

/* The site lines of a report: the sites that hold more than at the start. */
static void cmstat_leak_sites(const struct cmstat_leak_check *lc,
			      const struct cmstat_site_stats *rows,
			      unsigned int nr_rows, struct seq_buf *s)
{
	unsigned int shown = 0, col;
	s64 objects, bytes;

	for (col = 0; col < nr_rows; col++) {
		cmstat_leak_grown(lc, &rows[col], &objects, &bytes);
		if (objects <= 0)
			continue;
		if (++shown > CMSTAT_LEAK_SITES_SHOWN) {
			seq_buf_printf(s, "\n  and more sites");
			return;
		}
		seq_buf_printf(s, "\n  %lld object%s, %lld bytes: ", objects,
			       objects == 1 ? "" : "s", bytes);
		if (col == CMSTAT_SITE_UNATTRIBUTED)
			seq_buf_printf(s,
				       "unattributed (typed caches, large or out-of-line allocations)");
		else
			seq_buf_printf(s, "%s() at %s:%u", rows[col].function,
				       rows[col].file, rows[col].line);
	}
}

/**
 * cmstat_leak_check_end() - end a leak check, and say what leaked
 * @lc: the check, from cmstat_leak_check_start(); freed
 * @report: if not NULL, set to a kmalloc()ed report when objects leaked
 *	(how many, then each site that holds more than at the start, with
 *	the function, file and line), else to NULL
 *
 * Exact: in a heap with site rows, a leak is an object more at a site
 * than at the start, whatever the test allocated and freed between, and
 * whatever it freed of what other sites held; in a heap without, an
 * object more in the heap.  Objects of the heap that another thread holds
 * count too.  Process context; sleeps.
 *
 * Return: the objects leaked, 0 if none; or a negative error as
 * cmstat_heap_read().
 */
long cmstat_leak_check_end(struct cmstat_leak_check *lc, char **report)
{
	struct cmstat_site_stats *rows = NULL;
	struct cmstat_heap_stats *st;
	unsigned int nr_rows = 0;
	struct seq_buf s;
	s64 bytes = 0;
	long leaked;
	char *buf;
	int err;

	if (report)
		*report = NULL;
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	err = st ? cmstat_leak_read(lc->heap, st, &rows, &nr_rows) : -ENOMEM;
	leaked = err;
	if (!err && nr_rows) {
		leaked = cmstat_leak_sites_grown(lc, rows, nr_rows, &bytes);
	} else if (!err) {
		leaked = max_t(s64, st->live_objects - lc->live_objects, 0);
		bytes = st->live_bytes - lc->live_bytes;
	}
	if (leaked > 0 && report) {
		buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (buf) {
			seq_buf_init(&s, buf, PAGE_SIZE);
			seq_buf_printf(&s,
				       "heap %s holds %ld object%s (%lld bytes) more than at the start",
				       cmstat_heap_name(lc->heap), leaked,
				       leaked == 1 ? "" : "s", bytes);
			if (nr_rows)
				cmstat_leak_sites(lc, rows, nr_rows, &s);
			else
				seq_buf_printf(&s,
					       " (a module built with CMSTAT_SITES gets the lines)");
			*report = buf;
		}
	}
	kvfree(rows);
	kfree(st);
	kvfree(lc);
	return leaked;
}
EXPORT_SYMBOL_GPL(cmstat_leak_check_end);
