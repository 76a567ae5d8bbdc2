// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat heaps: the registry of named heaps, consistent snapshots of their
 * statistics, and the lifetime of heaps destroyed while they hold objects.
 *
 * Each heap has a counter set (laid out in heap_layout.h), and one more set
 * counts all heaps together.  Every allocation or free updates both sets in
 * a single writer section (alloc.c), so a snapshot of either is exact, and
 * the all-heaps snapshot is one instant across every heap.
 *
 * Every heap holds a reference on this module from its creation until it
 * is destroyed and, by its statistics, empty: while a client may still
 * free into it, or its objects sit in cmstat's caches, cmstat stays loaded.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "internal.h"

/* All heaps together; allocated at load, before any heap exists. */
struct cmstat_counters *cmstat_all;

/*
 * Live heaps; orphans, destroyed while their statistics showed live
 * objects; and, with accounting=0, every destroyed heap, kept until cmstat
 * unloads since nothing tells whether it still holds objects.
 */
static LIST_HEAD(cmstat_heaps);
static LIST_HEAD(cmstat_orphans);
static LIST_HEAD(cmstat_kept);
static DEFINE_MUTEX(cmstat_heaps_lock);	/* protects the three lists */

/* The all-heaps row's CMSTAT_HEAP_MISUSE_REPORTED. */
static unsigned long cmstat_all_flags;

/*
 * Orphans are released by a worker that looks at their statistics, first
 * a second after an orphan appears, then less and less often while some
 * still hold objects; a snapshot of all heaps brings it forward.
 */
#define CMSTAT_REAP_MAX_DELAY	(32 * HZ)
static void cmstat_reap(struct work_struct *work);
static void cmstat_reap_soon(void);
static DECLARE_DELAYED_WORK(cmstat_reaper, cmstat_reap);
static unsigned long cmstat_reap_delay = HZ;	/* under cmstat_heaps_lock */

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
 * A snapshot that breaks the identities.  With debug_free=1 every wrong
 * free is refused before it reaches the statistics, so that is a cmstat
 * bug, and warns.  Without it, a client that freed with the wrong size or
 * heap, twice, or memory cmstat never gave it, breaks them too: that is
 * reported once per heap, naming it, not as a kernel warning.
 */
static void cmstat_report_broken(const char *name, unsigned long *flags)
{
	if (WARN_ON_ONCE(cmstat_debug_free_enabled()))
		return;
	if (!test_and_set_bit(CMSTAT_HEAP_MISUSE_REPORTED, flags))
		pr_warn("heap %s: statistics broken by a client: a free with the wrong size or heap, a double free, or a free of memory cmstat did not allocate (debug_free=1 finds it)\n",
			name);
}

/* One snapshot of @heap's counters, or of all heaps' if @heap is NULL. */
int cmstat_snapshot(struct cmstat_heap *heap, struct cmstat_heap_stats *st)
{
	u64 *c = kmalloc_array(HC_NR, sizeof(u64), GFP_KERNEL);
	u64 epoch;
	int err;

	if (!c)
		return -ENOMEM;
	err = cmstat_counters_read(heap ? heap->stats : cmstat_all, c, &epoch);
	if (!err) {
		cmstat_derive(c, epoch, st);
		if (!cmstat_heap_stats_valid(st))
			cmstat_report_broken(heap ? heap->name : "all",
					     heap ? &heap->flags :
						    &cmstat_all_flags);
	}
	kfree(c);
	if (!heap && !err)
		cmstat_reap_soon();
	return err;
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
 * Return: 0; -EINVAL if @heap is NULL; -ENOMEM, -EINTR or -EDEADLK (see
 * cmstat_counters_read()), with @st untouched.
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
 * Return: 0, or as cmstat_heap_read(), with @st untouched.
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

/*
 * Names become file names: ASCII letters, digits, '_', '-' and '.', not
 * "." or "..".  isascii() first: the kernel's ctype table calls Latin-1
 * bytes 0xc0-0xff letters.
 */
static bool cmstat_heap_name_ok(const char *name)
{
	size_t len = strnlen(name, CMSTAT_HEAP_NAME_MAX + 1);
	size_t i;

	if (len == 0 || len > CMSTAT_HEAP_NAME_MAX ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (!isascii(name[i]) ||
		    (!isalnum(name[i]) && !strchr("_-.", name[i])))
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

/* Free a heap that is off every list, and let go of its module reference. */
static void cmstat_heap_release(struct cmstat_heap *heap)
{
	cmstat_heap_free(heap);
	module_put(THIS_MODULE);
}

/*
 * The live objects of a destroyed heap, by its statistics: 0 when it can
 * be freed.  More frees than allocations (a client's bug, reported by the
 * snapshot) count as none.  Without memory for the snapshot, assume some.
 */
static s64 cmstat_heap_live_objects(struct cmstat_heap *heap)
{
	struct cmstat_heap_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);
	s64 live = 1;

	if (st && !cmstat_snapshot(heap, st))
		live = max_t(s64, st->live_objects, 0);
	kfree(st);
	return live;
}

/* Run the reaper now, if there is anything to reap. */
static void cmstat_reap_soon(void)
{
	mutex_lock(&cmstat_heaps_lock);
	if (!list_empty(&cmstat_orphans))
		mod_delayed_work(system_wq, &cmstat_reaper, 0);
	mutex_unlock(&cmstat_heaps_lock);
}

/* Free the orphans whose last object has been freed. */
static void cmstat_reap(struct work_struct *work)
{
	struct cmstat_heap *heap, *tmp;
	LIST_HEAD(empty);

	mutex_lock(&cmstat_heaps_lock);
	list_for_each_entry_safe(heap, tmp, &cmstat_orphans, node)
		if (!cmstat_heap_live_objects(heap))
			list_move(&heap->node, &empty);
	if (!list_empty(&cmstat_orphans)) {
		schedule_delayed_work(&cmstat_reaper, cmstat_reap_delay);
		cmstat_reap_delay = min(2 * cmstat_reap_delay,
					CMSTAT_REAP_MAX_DELAY);
	}
	mutex_unlock(&cmstat_heaps_lock);

	list_for_each_entry_safe(heap, tmp, &empty, node)
		cmstat_heap_release(heap);
}

/**
 * cmstat_heap_create() - create a named heap
 * @name: 1 to %CMSTAT_HEAP_NAME_MAX characters from ``[A-Za-z0-9_.-]``, unique
 *	among existing heaps; copied
 *
 * The heap holds a reference on cmstat until it is destroyed and empty.
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
	/* Our caller is a module using our symbols: we cannot be going. */
	__module_get(THIS_MODULE);
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
 * visible.  The orphan, and cmstat's module reference, go once its last
 * object is freed.  With accounting=0, cmstat cannot tell whether a heap
 * holds objects, and keeps every destroyed heap until it is unloaded.
 * Process context; sleeps.
 */
void cmstat_heap_destroy(struct cmstat_heap *heap)
{
	struct list_head *keep = NULL;
	s64 live = 0;

	if (IS_ERR_OR_NULL(heap))
		return;
	if (test_and_set_bit(CMSTAT_HEAP_DESTROYED, &heap->flags)) {
		pr_err("heap %s destroyed twice; ignored\n", heap->name);
		return;
	}
	/* Before the name is free: a new heap of that name gets new files. */
	debugfs_remove(heap->debugfs);
	cmstat_sysfs_remove(heap->sysfs);
	heap->debugfs = NULL;
	heap->sysfs = NULL;

	if (cmstat_accounting_enabled()) {
		live = cmstat_heap_live_objects(heap);
		if (live)
			keep = &cmstat_orphans;
	} else {
		keep = &cmstat_kept;
	}
	/* Before the reaper can see it, and free it. */
	if (live)
		pr_warn("heap %s destroyed with %lld live objects; they stay allocated, and cmstat loaded, until freed\n",
			heap->name, live);
	mutex_lock(&cmstat_heaps_lock);
	list_del(&heap->node);
	if (keep)
		list_add_tail(&heap->node, keep);
	if (keep == &cmstat_orphans) {
		cmstat_reap_delay = HZ;
		mod_delayed_work(system_wq, &cmstat_reaper, cmstat_reap_delay);
	}
	mutex_unlock(&cmstat_heaps_lock);

	if (!keep) {
		cmstat_heap_release(heap);
	} else if (keep == &cmstat_kept) {
		/* Nothing counts, and with no statistics nothing reads it. */
		cmstat_counters_free(heap->stats);
		heap->stats = NULL;
		module_put(THIS_MODULE);
	}
}
EXPORT_SYMBOL_GPL(cmstat_heap_destroy);

int cmstat_heaps_init(void)
{
	cmstat_all = cmstat_counters_alloc(HC_NR);
	return PTR_ERR_OR_ZERO(cmstat_all);
}

/*
 * At unload every heap has been destroyed (each holds a module reference
 * until then) and every orphan released (likewise): only the heaps kept
 * with accounting=0 are left, and no client can use them any more.
 */
void cmstat_heaps_exit(void)
{
	struct cmstat_heap *heap, *tmp;

	cancel_delayed_work_sync(&cmstat_reaper);
	WARN_ON_ONCE(!list_empty(&cmstat_heaps) || !list_empty(&cmstat_orphans));
	list_for_each_entry_safe(heap, tmp, &cmstat_kept, node) {
		list_del(&heap->node);
		cmstat_heap_free(heap);
	}
	cmstat_counters_free(cmstat_all);
	cmstat_all = NULL;
}
