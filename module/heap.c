// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat heaps: the registry of named heaps, and consistent snapshots of
 * their statistics.
 *
 * Each heap has a counter set (laid out in heap_layout.h), and one more set
 * counts all heaps together.  Every allocation or free updates both sets in
 * a single writer section (alloc.c), so a snapshot of either is exact, and
 * the all-heaps snapshot is one instant across every heap.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

/* All heaps together; allocated at load, before any heap exists. */
struct cmstat_counters *cmstat_all;

/* Live heaps, and destroyed ones kept for their live objects. */
static LIST_HEAD(cmstat_heaps);
static LIST_HEAD(cmstat_orphans);
static DEFINE_MUTEX(cmstat_heaps_lock);	/* protects both lists */

#define CMSTAT_FIELD(field) { #field, offsetof(struct cmstat_heap_stats, field) }

const struct cmstat_stats_field cmstat_stats_fields[] = {
	CMSTAT_FIELD(live_bytes),
	CMSTAT_FIELD(live_requested_bytes),
	CMSTAT_FIELD(live_objects),
	CMSTAT_FIELD(alloc_bytes),
	CMSTAT_FIELD(free_bytes),
	CMSTAT_FIELD(requested_alloc_bytes),
	CMSTAT_FIELD(requested_free_bytes),
	CMSTAT_FIELD(mallocs),
	CMSTAT_FIELD(frees),
	CMSTAT_FIELD(large_mallocs),
	CMSTAT_FIELD(large_frees),
	CMSTAT_FIELD(large_live_objects),
	CMSTAT_FIELD(large_alloc_bytes),
	CMSTAT_FIELD(large_free_bytes),
	CMSTAT_FIELD(large_live_bytes),
	CMSTAT_FIELD(failed_allocs),
};

/* Fill @st from the cumulative counters @c; derive the live values. */
static void cmstat_derive(const u64 *c, unsigned long epoch,
			  struct cmstat_heap_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	st->epoch = epoch;
	st->alloc_bytes = c[HC_ALLOC_BYTES];
	st->free_bytes = c[HC_FREE_BYTES];
	st->live_bytes = st->alloc_bytes - st->free_bytes;
	st->requested_alloc_bytes = c[HC_REQUESTED_ALLOC_BYTES];
	st->requested_free_bytes = c[HC_REQUESTED_FREE_BYTES];
	st->live_requested_bytes = st->requested_alloc_bytes -
				   st->requested_free_bytes;
	st->large_mallocs = c[HC_LARGE_MALLOCS];
	st->large_frees = c[HC_LARGE_FREES];
	st->large_live_objects = st->large_mallocs - st->large_frees;
	st->large_alloc_bytes = c[HC_LARGE_ALLOC_BYTES];
	st->large_free_bytes = c[HC_LARGE_FREE_BYTES];
	st->large_live_bytes = st->large_alloc_bytes - st->large_free_bytes;
	st->failed_allocs = c[HC_FAILED_ALLOCS];
	st->mallocs = st->large_mallocs;
	st->frees = st->large_frees;
	for (i = 0; i < CMSTAT_NR_CLASSES; i++) {
		struct cmstat_class_stats *cs = &st->classes[i];

		cs->size_bytes = cmstat_class_size(i);
		cs->mallocs = c[HC_CLASS_MALLOCS + i];
		cs->frees = c[HC_CLASS_FREES + i];
		cs->live_objects = cs->mallocs - cs->frees;
		st->mallocs += cs->mallocs;
		st->frees += cs->frees;
	}
	st->live_objects = st->mallocs - st->frees;
}

/*
 * One snapshot of @heap's counters, or of all heaps' if @heap is NULL.
 * A statistics bug warns once, never more.
 */
int cmstat_snapshot(struct cmstat_heap *heap, struct cmstat_heap_stats *st)
{
	u64 *c = kmalloc_array(HC_NR, sizeof(u64), GFP_KERNEL);
	unsigned long epoch;

	if (!c)
		return -ENOMEM;
	epoch = cmstat_counters_read(heap ? heap->stats : cmstat_all, c);
	cmstat_derive(c, epoch, st);
	kfree(c);
	WARN_ON_ONCE(!cmstat_heap_stats_valid(st));
	return 0;
}

/**
 * cmstat_heap_stats_valid() - check the invariants of a snapshot
 * @st: snapshot from cmstat_heap_read() or cmstat_heaps_read_all()
 *
 * Return: true if every derived value is non-negative and the byte and
 * object totals equal the sums over the classes and large allocations.
 */
bool cmstat_heap_stats_valid(const struct cmstat_heap_stats *st)
{
	u64 class_bytes = 0, class_objects = 0;
	unsigned int i;

	for (i = 0; i < CMSTAT_NR_CLASSES; i++) {
		const struct cmstat_class_stats *cs = &st->classes[i];

		if (cs->frees > cs->mallocs)
			return false;
		class_bytes += cs->size_bytes * cs->live_objects;
		class_objects += cs->live_objects;
	}
	return st->free_bytes <= st->alloc_bytes &&
	       st->requested_free_bytes <= st->requested_alloc_bytes &&
	       st->large_frees <= st->large_mallocs &&
	       st->large_free_bytes <= st->large_alloc_bytes &&
	       st->frees <= st->mallocs &&
	       st->live_requested_bytes <= st->live_bytes &&
	       st->live_bytes == class_bytes + st->large_live_bytes &&
	       st->live_objects == class_objects + st->large_live_objects;
}
EXPORT_SYMBOL_GPL(cmstat_heap_stats_valid);

/**
 * cmstat_heap_read() - take a consistent snapshot of a heap's statistics
 * @heap: the heap
 * @st: filled with the snapshot
 *
 * Process context; sleeps (see cmstat_counters_read()).
 *
 * Return: 0; -EINVAL if @heap is NULL; -ENOMEM, with @st untouched.
 */
int cmstat_heap_read(struct cmstat_heap *heap, struct cmstat_heap_stats *st)
{
	if (!heap)
		return -EINVAL;
	return cmstat_snapshot(heap, st);
}
EXPORT_SYMBOL_GPL(cmstat_heap_read);

/**
 * cmstat_heaps_read_all() - snapshot of all heaps together
 * @st: filled with the snapshot
 *
 * One instant across every heap, destroyed ones included while they still
 * hold objects.  Process context; sleeps.
 *
 * Return: 0, or -ENOMEM with @st untouched.
 */
int cmstat_heaps_read_all(struct cmstat_heap_stats *st)
{
	return cmstat_snapshot(NULL, st);
}
EXPORT_SYMBOL_GPL(cmstat_heaps_read_all);

/**
 * cmstat_heap_name() - a heap's name
 * @heap: the heap
 *
 * Return: the name given to cmstat_heap_create().
 */
const char *cmstat_heap_name(const struct cmstat_heap *heap)
{
	return heap->name;
}
EXPORT_SYMBOL_GPL(cmstat_heap_name);

/* Names become file names: letters, digits, '_', '-' and '.', no "." "..". */
static bool cmstat_heap_name_ok(const char *name)
{
	size_t len = strnlen(name, CMSTAT_HEAP_NAME_MAX + 1);
	size_t i;

	if (len == 0 || len > CMSTAT_HEAP_NAME_MAX ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("_-.", name[i]))
			return false;
	return true;
}

static struct cmstat_heap *cmstat_heap_find(const char *name)
{
	struct cmstat_heap *heap;

	lockdep_assert_held(&cmstat_heaps_lock);
	list_for_each_entry(heap, &cmstat_heaps, node)
		if (!strcmp(heap->name, name))
			return heap;
	return NULL;
}

/* Names of the live heaps, one per line, for debugfs. */
void cmstat_heaps_print_names(struct seq_file *m)
{
	struct cmstat_heap *heap;

	mutex_lock(&cmstat_heaps_lock);
	list_for_each_entry(heap, &cmstat_heaps, node)
		seq_printf(m, "%s\n", heap->name);
	mutex_unlock(&cmstat_heaps_lock);
}

static void cmstat_heap_free(struct cmstat_heap *heap)
{
	debugfs_remove(heap->debugfs);
	cmstat_sysfs_remove(heap->sysfs);
	cmstat_counters_free(heap->stats);
	kfree(heap);
}

/**
 * cmstat_heap_create() - create a named heap
 * @name: 1 to %CMSTAT_HEAP_NAME_MAX characters from ``[A-Za-z0-9_.-]``, unique
 *	among existing heaps; copied
 *
 * Process context; may sleep.
 *
 * Return: the heap; ERR_PTR(-EINVAL) for a NULL, empty, too long or badly
 * formed name; ERR_PTR(-EEXIST) if a heap of that name exists;
 * ERR_PTR(-ENOMEM).
 */
struct cmstat_heap *cmstat_heap_create(const char *name)
{
	struct cmstat_heap *heap;
	int err = 0;

	if (!name || !cmstat_heap_name_ok(name))
		return ERR_PTR(-EINVAL);

	heap = kzalloc(sizeof(*heap), GFP_KERNEL);
	if (!heap)
		return ERR_PTR(-ENOMEM);
	strscpy(heap->name, name, sizeof(heap->name));
	heap->stats = cmstat_counters_alloc(HC_NR);
	if (IS_ERR(heap->stats)) {
		err = PTR_ERR(heap->stats);
		kfree(heap);
		return ERR_PTR(err);
	}

	mutex_lock(&cmstat_heaps_lock);
	if (cmstat_heap_find(name))
		err = -EEXIST;
	else
		list_add_tail(&heap->node, &cmstat_heaps);
	mutex_unlock(&cmstat_heaps_lock);
	if (err) {
		cmstat_heap_free(heap);
		return ERR_PTR(err);
	}
	/* Files are best effort: a heap works without them. */
	heap->debugfs = cmstat_debugfs_add_heap(heap);
	heap->sysfs = cmstat_sysfs_add_heap(heap);
	return heap;
}
EXPORT_SYMBOL_GPL(cmstat_heap_create);

/**
 * cmstat_heap_destroy() - destroy a heap
 * @heap: the heap; NULL or an error pointer is a no-op
 *
 * The heap's name is free for reuse when this returns.  If the heap still
 * holds objects, cmstat warns once for this heap with the counts, and the
 * heap becomes an orphan: its objects stay allocated and valid, @heap stays
 * valid for cmstat_free() of those objects (and for nothing else), and
 * they keep counting in the all-heaps statistics, so the leak stays
 * visible.  An orphan's own memory is released when cmstat unloads.
 * Process context; sleeps.
 */
void cmstat_heap_destroy(struct cmstat_heap *heap)
{
	struct cmstat_heap_stats *st;
	bool orphan;

	if (IS_ERR_OR_NULL(heap))
		return;
	/* Before the name is free: a new heap of that name gets new files. */
	debugfs_remove(heap->debugfs);
	cmstat_sysfs_remove(heap->sysfs);
	heap->debugfs = NULL;
	heap->sysfs = NULL;

	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (st && cmstat_snapshot(heap, st)) {
		kfree(st);
		st = NULL;
	}
	/* Without memory for the check, keep the heap: never free in use. */
	orphan = !st || st->live_objects;

	mutex_lock(&cmstat_heaps_lock);
	list_del(&heap->node);
	if (orphan)
		list_add_tail(&heap->node, &cmstat_orphans);
	mutex_unlock(&cmstat_heaps_lock);

	if (orphan && st)
		pr_warn("heap %s destroyed with %llu live objects (%llu bytes held, %llu large); they stay allocated\n",
			heap->name, st->live_objects, st->live_bytes,
			st->large_live_objects);
	else if (!orphan)
		cmstat_heap_free(heap);
	kfree(st);
}
EXPORT_SYMBOL_GPL(cmstat_heap_destroy);

int cmstat_heaps_init(void)
{
	cmstat_all = cmstat_counters_alloc(HC_NR);
	return PTR_ERR_OR_ZERO(cmstat_all);
}

/*
 * At unload no client is left (module refcounts): free the heaps they
 * left, with their files.  The all-heaps set goes in cmstat_heaps_exit(),
 * after the files that read it.
 */
void cmstat_heaps_free_all(void)
{
	struct cmstat_heap *heap, *tmp;

	list_for_each_entry_safe(heap, tmp, &cmstat_heaps, node) {
		pr_warn("heap %s was never destroyed\n", heap->name);
		list_del(&heap->node);
		cmstat_heap_free(heap);
	}
	list_for_each_entry_safe(heap, tmp, &cmstat_orphans, node) {
		list_del(&heap->node);
		cmstat_heap_free(heap);
	}
}

void cmstat_heaps_exit(void)
{
	cmstat_counters_free(cmstat_all);
	cmstat_all = NULL;
}
