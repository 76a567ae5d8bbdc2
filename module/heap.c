// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat heaps: the registry of named heaps, the lifetime of heaps
 * destroyed while they hold objects, and cuts: the counters of every heap
 * at one instant.
 *
 * Each heap has a counter set (CMSTAT_HC_* in include/cmstat/alloc.h), and
 * all of them belong to one group, cmstat_heap_group: one read closes a
 * generation for every heap at once.  Writer sections write only their own heap's set;
 * the all-heaps figures are the sum, at one cut, of every live heap, every
 * orphan, and the final totals of the heaps destroyed so far, folded in
 * when each went so that no cumulative counter ever goes down.
 *
 * Every heap holds a reference on this module from its creation until it
 * is destroyed and, by its statistics, empty: while a client may still
 * free into it, or its objects sit in cmstat's caches, cmstat stays loaded.
 * With accounting=0 there are no statistics to go by: a heap destroyed
 * then drops its reference at once, and classes.c's exit asks the slab
 * allocator instead.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "internal.h"

/*
 * The group of every heap's counter set, set up at load.  The inline fast
 * path of include/cmstat/alloc.h reads its slot offset, which only a cut
 * writes.
 */
struct cmstat_group cmstat_heap_group __read_mostly;
EXPORT_SYMBOL_GPL(cmstat_heap_group);

/*
 * Live heaps; orphans, destroyed while their statistics showed live
 * objects; and, with accounting=0, every destroyed heap, kept until cmstat
 * unloads since nothing tells whether it still holds objects.  Then the
 * cumulative counters of the heaps destroyed so far, and the id the next
 * heap gets.
 */
static LIST_HEAD(cmstat_heaps);
static LIST_HEAD(cmstat_orphans);
static LIST_HEAD(cmstat_kept);
static u64 cmstat_destroyed[CMSTAT_HC_NR];
static u64 cmstat_next_id = 1;
/*
 * A cut judges an orphan (reports it, or releases it empty) by its
 * counters, which are final only if the heap was destroyed, and its last
 * typed cache too, before the cut's snapshot began: a client may still
 * allocate and free up to then, and a snapshot taken earlier, which a cut
 * waiting for a writer section finishes late, misses it.  So those two
 * changes are numbered, and each orphan keeps the number of its last one
 * (->changed) for the cut to compare with the count it took before its
 * snapshot.
 */
static u64 cmstat_orphan_changes;
/*
 * Every heap's counters folded so far, added up by the folds themselves
 * (cmstat_counters_sum_into()): what a cut's rows sum to, live heaps,
 * orphans and destroyed ones, without a pass over the heaps.  Under the
 * group's reader lock.
 */
static u64 cmstat_heaps_sum[CMSTAT_HC_NR];
/*
 * Protects all of the above.  Held only to change or copy them, never
 * across a wait for writer sections: a cut takes it inside the group's
 * reader lock, after the wait (cmstat_cut_take()), so heap_names, the
 * sysfs values and cmstat_heap_create() never wait for a section.
 */
static DEFINE_MUTEX(cmstat_heaps_lock);

/*
 * Orphans are released by cuts that find them empty: any reader's, or the
 * reaper's, which takes one a second after an orphan is first found
 * holding objects, then 2, 4 and 8 s later, and then stops.  Objects freed
 * later (or never) cost no more cuts: the next read of the statistics
 * releases the orphan.  Documentation/admin-guide.rst says so.
 */
#define CMSTAT_REAP_TRIES	4
static void cmstat_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(cmstat_reaper, cmstat_reap);
static unsigned int cmstat_reap_tries;	/* left; under cmstat_heaps_lock */

/**
 * cmstat_heap_name() - a heap's name
 * @heap: the heap
 *
 * Return: the name given to cmstat_heap_create().
 */
const char *cmstat_heap_name(const struct cmstat_heap *heap)
{
	return container_of(heap, const struct cmstat_heap_priv, heap)->name;
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

static struct cmstat_heap_priv *cmstat_heap_find(const char *name)
{
	struct cmstat_heap_priv *hp;

	lockdep_assert_held(&cmstat_heaps_lock);
	list_for_each_entry(hp, &cmstat_heaps, node)
		if (!strcmp(hp->name, name))
			return hp;
	return NULL;
}

/* The id of the live heap called @name, or 0: for sysfs. */
u64 cmstat_heap_id(const char *name)
{
	struct cmstat_heap_priv *hp;
	u64 id;

	mutex_lock(&cmstat_heaps_lock);
	hp = cmstat_heap_find(name);
	id = hp ? hp->id : 0;
	mutex_unlock(&cmstat_heaps_lock);
	return id;
}

/* Names of the live heaps, one per line, for debugfs. */
void cmstat_heaps_print_names(struct seq_file *m)
{
	struct cmstat_heap_priv *hp;

	mutex_lock(&cmstat_heaps_lock);
	list_for_each_entry(hp, &cmstat_heaps, node)
		seq_printf(m, "%s\n", hp->name);
	mutex_unlock(&cmstat_heaps_lock);
}

/* Free a heap that is off every list, and let go of its module reference. */
static void cmstat_heap_release(struct cmstat_heap_priv *hp, bool put)
{
	debugfs_remove(hp->debugfs);
	cmstat_sysfs_remove(hp->sysfs);
	cmstat_sites_release(hp);
	cmstat_counters_free(hp->stats);
	kfree(hp);
	if (put)
		module_put(THIS_MODULE);
}

/* A destroyed heap's last totals join the destroyed heaps' for good. */
static void cmstat_heap_retire(const u64 *c)
{
	unsigned int i;

	lockdep_assert_held(&cmstat_heaps_lock);
	for (i = 0; i < CMSTAT_HC_NR; i++)
		cmstat_destroyed[i] += c[i];
}

static unsigned int cmstat_nr_rows(void)
{
	struct cmstat_heap_priv *hp;
	unsigned int n = 1;	/* the destroyed heaps */

	list_for_each_entry(hp, &cmstat_heaps, node)
		n++;
	list_for_each_entry(hp, &cmstat_orphans, node)
		n++;
	return n;
}

/* (Re)start the reaper's tries; under cmstat_heaps_lock. */
static void cmstat_reap_soon(void)
{
	lockdep_assert_held(&cmstat_heaps_lock);
	cmstat_reap_tries = CMSTAT_REAP_TRIES - 1;
	mod_delayed_work(cmstat_system_wq, &cmstat_reaper, HZ);
}

static int cmstat_cut_add(struct cmstat_cut *cut,
			  const struct cmstat_heap_priv *hp,
			  enum cmstat_row_kind kind, bool sites)
{
	struct cmstat_row *row = &cut->rows[cut->nr_rows++];
	unsigned int col;
	int n;

	row->kind = kind;
	row->id = hp->id;
	strscpy(row->name, hp->name, sizeof(row->name));
	cmstat_counters_totals(hp->stats, row->c);
	for (col = 0; col < CMSTAT_HEAP_CACHES; col++) {
		const struct cmstat_cache_priv *cp = hp->caches[col];

		if (!cp)
			continue;
		row->caches[col].size = cp->cc.size;
		strscpy(row->caches[col].name, cp->name,
			sizeof(row->caches[col].name));
	}
	if (!sites)
		return 0;
	n = cmstat_sites_take(hp, &row->sites);
	if (n < 0)
		return n;
	row->nr_sites = n;
	n = cmstat_nodes_take(hp, &row->nodes);
	if (n < 0)
		return n;
	row->nr_nodes = n;
	return 0;
}

/*
 * A heap's table of typed caches by slab cache (struct cmstat_heap_by_slab,
 * read by the inline cmstat_heap_cache_of()): written under
 * cmstat_heaps_lock, read without a lock.  A slot is published by the
 * smp_store_release() of its @slab, which pairs with the reader's
 * smp_load_acquire() of it: the reader that sees the key sees the @cc
 * written before, and the cache @cc points to, made before.  A destroyed
 * cache's slot becomes CMSTAT_SLAB_GONE, not empty, so that a lookup of a
 * key stored further along the probe goes on past it; a tombstone with a
 * slot never used after it is never on any key's probe, and becomes empty
 * again, with those before it.  An insertion takes the first free or
 * tombstone slot of its probe: with at most %CMSTAT_HEAP_CACHES live in
 * twice as many slots, it always finds one.
 */
static struct cmstat_heap_by_slab *
cmstat_heap_by_slab_slot(struct cmstat_heap *heap, unsigned int i)
{
	return &heap->by_slab[i % CMSTAT_HEAP_BY_SLAB];
}

/**
 * __cmstat_heap_cache_probe() - cmstat_heap_cache_of(), past the home slot
 * @heap: the heap
 * @s: a slab cache, any, or NULL
 *
 * For the inline cmstat_heap_cache_of().  Not for direct use.
 *
 * Return: as cmstat_heap_cache_of().
 */
struct cmstat_cache *__cmstat_heap_cache_probe(const struct cmstat_heap *heap,
					       const struct kmem_cache *s)
{
	unsigned int i, h = hash_ptr(s, CMSTAT_HEAP_BY_SLAB_BITS);
	const struct cmstat_heap_by_slab *slot;
	const struct kmem_cache *key;

	for (i = 0; i < CMSTAT_HEAP_BY_SLAB; i++) {
		slot = &heap->by_slab[(h + i) % CMSTAT_HEAP_BY_SLAB];
		/* Pairs with cmstat_heap_map_cache()'s release. */
		key = smp_load_acquire(&slot->slab);
		if (key == s)
			return READ_ONCE(slot->cc);
		if (key == CMSTAT_SLAB_EMPTY)
			return NULL;
	}
	return NULL;
}
EXPORT_SYMBOL_GPL(__cmstat_heap_cache_probe);

static void cmstat_heap_map_cache(struct cmstat_heap *heap,
				  struct cmstat_cache *cc)
{
	unsigned int i, h = hash_ptr(cc->slab, CMSTAT_HEAP_BY_SLAB_BITS);
	struct cmstat_heap_by_slab *slot;

	lockdep_assert_held(&cmstat_heaps_lock);
	for (i = 0; i < CMSTAT_HEAP_BY_SLAB; i++) {
		slot = cmstat_heap_by_slab_slot(heap, h + i);
		if (slot->slab == CMSTAT_SLAB_EMPTY ||
		    slot->slab == CMSTAT_SLAB_GONE) {
			WRITE_ONCE(slot->cc, cc);
			/* Pairs with cmstat_heap_cache_of()'s acquire. */
			smp_store_release(&slot->slab, cc->slab);
			return;
		}
	}
	WARN_ON_ONCE(1);	/* more live caches than CMSTAT_HEAP_CACHES */
}

/**
 * cmstat_heap_unmap_cache() - take a typed cache out of its heap's table
 * @heap: the heap
 * @cc: the cache, whose slab cache is about to be destroyed
 *
 * Before kmem_cache_destroy() of @cc's slab cache: from then on,
 * cmstat_heap_cache_of() never returns @cc, whatever slab cache the kernel
 * makes at the same address.
 */
void cmstat_heap_unmap_cache(struct cmstat_heap *heap, struct cmstat_cache *cc)
{
	unsigned int h = hash_ptr(cc->slab, CMSTAT_HEAP_BY_SLAB_BITS);
	struct cmstat_heap_by_slab *slot;
	unsigned int i, n, live;

	mutex_lock(&cmstat_heaps_lock);
	for (i = 0; i < CMSTAT_HEAP_BY_SLAB; i++) {
		slot = cmstat_heap_by_slab_slot(heap, h + i);
		if (slot->slab == CMSTAT_SLAB_EMPTY)
			break;
		if (slot->slab == cc->slab && slot->cc == cc) {
			WRITE_ONCE(slot->slab, CMSTAT_SLAB_GONE);
			break;
		}
	}
	/*
	 * Trailing tombstones, last first: on no key's probe.  And when no
	 * live key is left, every tombstone: so that a heap whose caches
	 * come and go does not end with a table of tombstones, which every
	 * lookup of a kernel's cache would probe whole.
	 */
	for (n = 0, live = 0; n < CMSTAT_HEAP_BY_SLAB; n++) {
		slot = cmstat_heap_by_slab_slot(heap, n);
		live += slot->slab != CMSTAT_SLAB_EMPTY &&
			slot->slab != CMSTAT_SLAB_GONE;
	}
	for (n = 0, i = h + i; n < CMSTAT_HEAP_BY_SLAB;
	     n++, i += CMSTAT_HEAP_BY_SLAB - 1) {
		slot = cmstat_heap_by_slab_slot(heap, i);
		if (slot->slab != CMSTAT_SLAB_GONE) {
			if (live)
				break;
			continue;
		}
		if (live &&
		    cmstat_heap_by_slab_slot(heap, i + 1)->slab != CMSTAT_SLAB_EMPTY)
			break;
		WRITE_ONCE(slot->cc, NULL);
		/* Pairs with cmstat_heap_cache_of()'s acquire, as above. */
		smp_store_release(&slot->slab, CMSTAT_SLAB_EMPTY);
	}
	mutex_unlock(&cmstat_heaps_lock);
}

/**
 * cmstat_heap_add_cache() - give a new typed cache a column of its heap
 * @heap: the heap
 * @cp: the cache, its slab cache made
 *
 * Sets @cp's column.  The column starts at 0 in every snapshot that can
 * see @cp: a destroyed cache's counts were moved out of it before it was
 * freed (cmstat_heap_retire_cache()).
 *
 * Return: 0, or -ENOSPC when @heap has %CMSTAT_HEAP_CACHES typed caches
 * (said once, naming the heap and the cache).
 */
int cmstat_heap_add_cache(struct cmstat_heap *heap,
			  struct cmstat_cache_priv *cp)
{
	struct cmstat_heap_priv *hp = cmstat_heap_priv(heap);
	unsigned int col;

	mutex_lock(&cmstat_heaps_lock);
	for (col = 0; col < CMSTAT_HEAP_CACHES && hp->caches[col]; col++)
		;
	if (col < CMSTAT_HEAP_CACHES) {
		hp->caches[col] = cp;
		hp->nr_caches++;
		cp->cc.mallocs_slot =
			CMSTAT_COUNTER_SLOT(CMSTAT_HC_CACHE_MALLOCS + col);
		cp->cc.frees_slot = CMSTAT_COUNTER_SLOT(CMSTAT_HC_CACHE_FREES +
							col);
		cmstat_heap_map_cache(heap, &cp->cc);
	}
	mutex_unlock(&cmstat_heaps_lock);
	if (col < CMSTAT_HEAP_CACHES) {
		/*
		 * Best effort, as the heap's own files.  Not under the lock:
		 * a read of a value file takes it inside sysfs's locks.  The
		 * heap, and its directory, stay (the client's contract).
		 */
		cp->sysfs = cmstat_sysfs_add_cache(hp->sysfs_caches, hp->id, col,
						   cp->cc.size, cp->name);
		return 0;
	}
	pr_warn_once("heap %s has %u typed caches: no column for cache %s\n",
		     hp->name, CMSTAT_HEAP_CACHES, cp->name);
	return -ENOSPC;
}

/*
 * Move a typed cache's counts, @c of its heap, to the heap's retired
 * totals: in one section, so that no snapshot sees them in both places or
 * in neither.
 */
static void cmstat_cache_retire(struct cmstat_cache *cc, const u64 *c)
{
	unsigned int mallocs_idx = cmstat_cache_mallocs_idx(cc);
	unsigned int frees_idx = mallocs_idx + CMSTAT_HEAP_CACHES;
	u64 mallocs = c[mallocs_idx], frees = c[frees_idx];
	struct cmstat_section sec;
	u64 __percpu *slot;

	if (!cmstat_section_begin(&sec, &cmstat_heap_group))
		return;
	slot = __cmstat_slot(&sec, cc->heap->slots);
	cmstat_section_add(slot, mallocs_idx, -mallocs);
	cmstat_section_add(slot, frees_idx, -frees);
	cmstat_section_add(slot, CMSTAT_HC_RETIRED_CACHE_MALLOCS, mallocs);
	cmstat_section_add(slot, CMSTAT_HC_RETIRED_CACHE_FREES, frees);
	cmstat_section_end(&sec);
}

/**
 * cmstat_heap_retire_cache() - take an empty typed cache's column back
 * @heap: its heap
 * @cp: the cache
 * @live: set to the live objects its statistics show, on -EBUSY
 *
 * For cmstat_cache_destroy(), with accounting on.  One snapshot of the
 * heaps; if it shows @cp empty, one section moves @cp's counts to the
 * heap's retired totals and the column is freed for the next cache, and
 * @cp's sysfs directory goes.
 *
 * A cut names a column's cache after its snapshot (cmstat_cut_take()), so
 * a column must never change hands between the two: the new cache would
 * get the old one's counts (a cumulative counter that later goes down),
 * or the old one's counts, not yet retired in that snapshot, would lose
 * their row.  Hence the snapshot, the retiring section and the column's
 * release all happen under the group's reader lock, which a cut holds
 * from its snapshot to the copy of the names: a cut finished before has
 * neither; one begun after has both, the section having ended before its
 * snapshot began.  A column gains a cache whenever one is created, with
 * counts that start at 0 in every snapshot after its release: so
 * whatever counts a cut finds in a column are those of the cache it names
 * there, as the orphans' numbering ensures for heaps.
 *
 * Return: 0; -EBUSY if @cp holds objects; -EINTR (killed) or -ENOMEM,
 * with nothing changed.
 */
int cmstat_heap_retire_cache(struct cmstat_heap *heap,
			     struct cmstat_cache_priv *cp, s64 *live)
{
	struct cmstat_heap_priv *hp = cmstat_heap_priv(heap);
	unsigned int idx = cmstat_cache_mallocs_idx(&cp->cc);
	struct cmstat_sysfs_cache *sc = NULL;
	u64 *c;
	int err;

	c = kmalloc_array(CMSTAT_HC_NR, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	err = cmstat_group_snapshot(&cmstat_heap_group, NULL);
	if (err)
		goto out;
	cmstat_counters_totals(hp->stats, c);
	*live = c[idx] - c[idx + CMSTAT_HEAP_CACHES];
	if (*live) {
		err = -EBUSY;
	} else {
		cmstat_cache_retire(&cp->cc, c);
		mutex_lock(&cmstat_heaps_lock);
		hp->caches[idx - CMSTAT_HC_CACHE_MALLOCS] = NULL;
		sc = cp->sysfs;
		cp->sysfs = NULL;
		mutex_unlock(&cmstat_heaps_lock);
	}
	cmstat_group_snapshot_done(&cmstat_heap_group);
	/* Not under the locks: removal waits for the value files' reads. */
	cmstat_sysfs_remove_cache(sc);
out:
	kfree(c);
	return err;
}

/*
 * A destroyed typed cache lets go of its heap, and of its column if
 * cmstat_heap_retire_cache() did not (accounting=0).
 */
void cmstat_heap_del_cache(struct cmstat_heap *heap,
			   struct cmstat_cache_priv *cp)
{
	struct cmstat_heap_priv *hp = cmstat_heap_priv(heap);
	unsigned int col = cmstat_cache_mallocs_idx(&cp->cc) -
			   CMSTAT_HC_CACHE_MALLOCS;
	struct cmstat_sysfs_cache *sc;

	mutex_lock(&cmstat_heaps_lock);
	/* Retired, the column may be another cache's already. */
	if (hp->caches[col] == cp)
		hp->caches[col] = NULL;
	hp->nr_caches--;
	/* An orphan waiting for its last cache: the next cut releases it. */
	if (!hp->nr_caches && test_bit(CMSTAT_HEAP_DESTROYED, &hp->flags)) {
		hp->changed = ++cmstat_orphan_changes;
		cmstat_reap_soon();
	}
	/* Gone already if the heap, or the column, went first. */
	sc = cp->sysfs;
	cp->sysfs = NULL;
	mutex_unlock(&cmstat_heaps_lock);
	cmstat_sysfs_remove_cache(sc);
}

/*
 * A heap's sysfs directory, its typed caches' first.  Not under the lock:
 * removal waits for the value files' reads, which may take it.
 */
static void cmstat_heap_sysfs_remove(struct cmstat_heap_priv *hp)
{
	struct cmstat_sysfs_cache *dirs[CMSTAT_HEAP_CACHES] = {};
	unsigned int col;

	mutex_lock(&cmstat_heaps_lock);
	for (col = 0; col < CMSTAT_HEAP_CACHES; col++) {
		if (!hp->caches[col])
			continue;
		dirs[col] = hp->caches[col]->sysfs;
		hp->caches[col]->sysfs = NULL;
	}
	mutex_unlock(&cmstat_heaps_lock);
	for (col = 0; col < CMSTAT_HEAP_CACHES; col++)
		cmstat_sysfs_remove_cache(dirs[col]);
	cmstat_sysfs_remove(hp->sysfs_caches);
	cmstat_sysfs_remove(hp->sysfs);
	hp->sysfs_caches = NULL;
	hp->sysfs = NULL;
}

/*
 * After the cut, under the lock: check each heap's statistics, report the
 * orphans found holding objects for the first time, and release those
 * found empty (their totals stay in this cut as an orphan's, and go to the
 * destroyed heaps' for the next).  Only the orphans whose last change
 * numbered @settled or less: a later one's counters may be stale, and the
 * cut that follows that change (the destroy's own, or the reaper's)
 * judges it.
 */
static void cmstat_cut_review(struct cmstat_cut *cut, u64 settled,
			      struct list_head *empty)
{
	struct cmstat_heap_priv *hp, *tmp;
	unsigned int r = 0;
	s64 live;

	list_for_each_entry(hp, &cmstat_heaps, node)
		cmstat_check_counters(hp->name, cut->rows[r++].c, &hp->flags);
	list_for_each_entry_safe(hp, tmp, &cmstat_orphans, node) {
		struct cmstat_row *row = &cut->rows[r++];

		cmstat_check_counters(hp->name, row->c, &hp->flags);
		if (hp->changed > settled)
			continue;
		live = cmstat_counters_live_objects(row->c);
		/* Its typed caches point to it: it goes after them. */
		if (live <= 0 && !hp->nr_caches) {
			cmstat_heap_retire(row->c);
			list_move(&hp->node, empty);
		} else if (!test_and_set_bit(CMSTAT_HEAP_ORPHAN_REPORTED,
					     &hp->flags)) {
			if (live > 0)
				pr_warn("heap %s destroyed with %lld live objects; they stay allocated, and cmstat loaded, until freed\n",
					hp->name, live);
			else
				pr_warn("heap %s destroyed before its %u typed caches; it stays, and cmstat loaded, until they are destroyed\n",
					hp->name, hp->nr_caches);
			cmstat_reap_soon();
		}
	}
}

/**
 * cmstat_cut_take() - the counters of every heap at one instant
 * @sites: with each heap's site rows too
 *
 * One snapshot of cmstat_heap_group: a row per live heap, then per orphan,
 * then the destroyed heaps' totals, which always sum to the all-heaps
 * figures.  Orphans found empty are released.  The typed caches are named
 * after the snapshot, which is right because no column loses its cache
 * while we hold the group's reader lock (cmstat_heap_retire_cache()).
 * With @sites, a heap's site rows are copied too, in the same snapshot.
 * Process context; sleeps, killably, holding only the group's reader lock
 * while it waits for writer sections: heaps come and go meanwhile.
 *
 * Return: the cut, to free with cmstat_cut_free(); or ERR_PTR(-ENOMEM)
 * or -EINTR.
 */
struct cmstat_cut *cmstat_cut_take(bool sites)
{
	struct cmstat_heap_priv *hp, *tmp;
	struct cmstat_cut *cut;
	LIST_HEAD(empty);
	u64 settled, epoch;
	int err = 0;

	/*
	 * Before the snapshot: a client's sections before its destroy are
	 * ordered before the destroy's change by program order and the lock,
	 * and the change before our snapshot by the lock, so it holds them.
	 */
	mutex_lock(&cmstat_heaps_lock);
	settled = cmstat_orphan_changes;
	mutex_unlock(&cmstat_heaps_lock);
	err = cmstat_group_snapshot(&cmstat_heap_group, &epoch);
	if (err)
		return ERR_PTR(err);
	mutex_lock(&cmstat_heaps_lock);
	cut = kvzalloc(struct_size(cut, rows, cmstat_nr_rows()), GFP_KERNEL);
	if (cut) {
		cut->epoch = epoch;
		/* What the rows add up to: the stats file's check sums them. */
		memcpy(cut->all, cmstat_heaps_sum, sizeof(cut->all));
		list_for_each_entry(hp, &cmstat_heaps, node)
			err = err ?: cmstat_cut_add(cut, hp, CMSTAT_ROW_HEAP, sites);
		list_for_each_entry(hp, &cmstat_orphans, node)
			err = err ?: cmstat_cut_add(cut, hp, CMSTAT_ROW_ORPHAN, sites);
		/* The destroyed heaps, as of this cut: before any reaping. */
		cut->rows[cut->nr_rows].kind = CMSTAT_ROW_DESTROYED;
		memcpy(cut->rows[cut->nr_rows].c, cmstat_destroyed,
		       sizeof(cmstat_destroyed));
		cut->nr_rows++;
		if (!err)
			cmstat_cut_review(cut, settled, &empty);
	}
	mutex_unlock(&cmstat_heaps_lock);
	cmstat_group_snapshot_done(&cmstat_heap_group);

	list_for_each_entry_safe(hp, tmp, &empty, node)
		cmstat_heap_release(hp, true);
	if (cut && err) {
		cmstat_cut_free(cut);
		cut = NULL;
	}
	if (!cut)
		return ERR_PTR(-ENOMEM);
	return cut;
}

/* Free @cut, from cmstat_cut_take(), and its site and node rows. */
void cmstat_cut_free(struct cmstat_cut *cut)
{
	unsigned int r;

	for (r = 0; cut && r < cut->nr_rows; r++) {
		kvfree(cut->rows[r].sites);
		kvfree(cut->rows[r].nodes);
	}
	kvfree(cut);
}

/* The row of the heap with @id in @cut, or NULL. */
const struct cmstat_row *cmstat_cut_find(const struct cmstat_cut *cut, u64 id)
{
	unsigned int r;

	for (r = 0; r < cut->nr_rows; r++)
		if (cut->rows[r].kind == CMSTAT_ROW_HEAP && cut->rows[r].id == id)
			return &cut->rows[r];
	return NULL;
}

static bool cmstat_heap_live(const struct cmstat_heap_priv *hp)
{
	const struct cmstat_heap_priv *p;

	lockdep_assert_held(&cmstat_heaps_lock);
	list_for_each_entry(p, &cmstat_heaps, node)
		if (p == hp)
			return true;
	return false;
}

/**
 * cmstat_heaps_counters() - the counters of some heaps and of all, at one cut
 * @heaps: live heaps
 * @n: how many
 * @c: @n times %CMSTAT_HC_NR counters, filled with those of @heaps in
 *	order
 * @all: filled with what every heap's counters add up to: live heaps,
 *	orphans and destroyed ones
 * @epoch: the cut's number
 *
 * As cmstat_cut_take(), without a row per heap: a cut of a few heaps
 * costs what was written since the last one, however many heaps there
 * are.  Process context; sleeps, killably.
 *
 * Return: 0; -EINVAL if one of @heaps is not, as far as cmstat can tell,
 * a live heap; -EINTR.
 */
int cmstat_heaps_counters(struct cmstat_heap *const *heaps, unsigned int n,
			  u64 *c, u64 *all, u64 *epoch)
{
	unsigned int i;
	int err;

	err = cmstat_group_snapshot(&cmstat_heap_group, epoch);
	if (err)
		return err;
	mutex_lock(&cmstat_heaps_lock);
	for (i = 0; i < n && !err; i++) {
		struct cmstat_heap_priv *hp = cmstat_heap_priv(heaps[i]);

		if (cmstat_heap_live(hp))
			cmstat_counters_totals(hp->stats, c + i * CMSTAT_HC_NR);
		else	/* a destroyed heap's handle, still in memory */
			err = -EINVAL;
	}
	mutex_unlock(&cmstat_heaps_lock);
	memcpy(all, cmstat_heaps_sum, sizeof(cmstat_heaps_sum));
	cmstat_group_snapshot_done(&cmstat_heap_group);
	return err;
}

/* One heap's counters; @heap must stay valid (the client's contract). */
int cmstat_heap_counters(struct cmstat_heap *heap, u64 *c, u64 *epoch)
{
	return cmstat_group_read(&cmstat_heap_group,
				 &cmstat_heap_priv(heap)->stats, &c, 1, epoch);
}

/* Take a cut now, if there is an orphan that it may release. */
static void cmstat_reap(struct work_struct *work)
{
	struct cmstat_cut *cut = cmstat_cut_take(false);

	if (!IS_ERR(cut))
		cmstat_cut_free(cut);
	mutex_lock(&cmstat_heaps_lock);
	if (!list_empty(&cmstat_orphans) && cmstat_reap_tries) {
		cmstat_reap_tries--;
		schedule_delayed_work(&cmstat_reaper,
				      HZ << (CMSTAT_REAP_TRIES - 1 - cmstat_reap_tries));
	}
	mutex_unlock(&cmstat_heaps_lock);
}

/* cmstat_heap_create(), with site rows if @sites, for @caller. */
static struct cmstat_heap *cmstat_heap_create_from(const char *name,
						   bool sites,
						   unsigned long caller)
{
	struct cmstat_heap_priv *hp;
	unsigned int i;
	int err = 0;

	if (!name || !cmstat_heap_name_ok(name)) {
		pr_err_ratelimited("%pS: heap name \"%*pE\" refused: 1 to %d characters of [A-Za-z0-9_.-]\n",
				   (void *)caller,
				   name ? (int)strnlen(name, 64) : 0, name,
				   (int)CMSTAT_HEAP_NAME_MAX);
		return ERR_PTR(-EINVAL);
	}

	hp = kzalloc(sizeof(*hp), GFP_KERNEL);
	if (!hp)
		return ERR_PTR(-ENOMEM);
	strscpy(hp->name, name, sizeof(hp->name));
	hp->stats = cmstat_counters_alloc(&cmstat_heap_group, CMSTAT_HC_NR);
	if (IS_ERR(hp->stats)) {
		err = PTR_ERR(hp->stats);
		kfree(hp);
		return ERR_PTR(err);
	}
	hp->heap.slots = hp->stats->delta;
	hp->heap.site_key = CMSTAT_SITE_KEY_NONE;
	if (sites) {
		err = cmstat_sites_create(hp);
		if (err) {
			cmstat_counters_free(hp->stats);
			kfree(hp);
			return ERR_PTR(err);
		}
	}
	for (i = 0; i < CMSTAT_HEAP_BY_SLAB; i++)
		hp->heap.by_slab[i].slab = CMSTAT_SLAB_EMPTY;
	cmstat_counters_sum_into(hp->stats, cmstat_heaps_sum);

	mutex_lock(&cmstat_heaps_lock);
	if (cmstat_heap_find(name)) {
		err = -EEXIST;
	} else {
		hp->id = cmstat_next_id++;
		list_add_tail(&hp->node, &cmstat_heaps);
	}
	mutex_unlock(&cmstat_heaps_lock);
	if (err) {
		pr_err_ratelimited("%pS: heap %s exists: each heap needs a name of its own\n",
				   (void *)caller, name);
		cmstat_heap_release(hp, false);
		return ERR_PTR(err);
	}
	/* Our caller is a module using our symbols: we cannot be going. */
	__module_get(THIS_MODULE);
	/* Files are best effort: a heap works without them. */
	hp->debugfs = cmstat_debugfs_add_heap(hp->name, hp->id);
	hp->sysfs = cmstat_sysfs_add_heap(hp->name, &hp->sysfs_caches);
	return &hp->heap;
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
	return cmstat_heap_create_from(name, false, _RET_IP_);
}
EXPORT_SYMBOL_GPL(cmstat_heap_create);

/**
 * cmstat_heap_create_sites() - create a heap with a row per call site
 * @name: as for cmstat_heap_create()
 *
 * cmstat_heap_create(), and the heap counts each object in the row of
 * the line that allocated it (include/cmstat/site.h): what a module built
 * with CMSTAT_SITES gets from cmstat_heap_create().  Every module that
 * allocates from the heap or frees into it must be built so.
 *
 * Return: as cmstat_heap_create(); ERR_PTR(-ENOSPC) on a 32-bit kernel
 * that has created a million heaps with site rows since cmstat loaded.
 */
struct cmstat_heap *cmstat_heap_create_sites(const char *name)
{
	return cmstat_heap_create_from(name, true, _RET_IP_);
}
EXPORT_SYMBOL_GPL(cmstat_heap_create_sites);

/**
 * cmstat_heap_destroy() - destroy a heap
 * @heap: the heap; NULL or an error pointer is a no-op
 *
 * The heap's name is free for reuse when this returns, and its totals
 * stay in the all-heaps statistics.  If the heap still holds objects,
 * cmstat warns once for this heap with the count, and the heap becomes an
 * orphan: its objects stay allocated and valid, @heap stays valid for
 * cmstat_free() of those objects (and for nothing else), and they keep
 * counting in the all-heaps statistics, so the leak stays visible.  The
 * orphan, and cmstat's module reference, go once a snapshot finds its
 * last object freed.  With accounting=0, cmstat cannot tell whether a
 * heap holds objects, and keeps every destroyed heap until it is
 * unloaded.  Process context; takes a snapshot, so sleeps, killably, while
 * a writer section open at that instant runs; killed, it leaves the heap
 * an orphan for the next snapshot to release.
 */
void cmstat_heap_destroy(struct cmstat_heap *heap)
{
	char name[CMSTAT_HEAP_NAME_MAX + 1];
	struct cmstat_heap_priv *hp;
	struct cmstat_cut *cut;

	if (IS_ERR_OR_NULL(heap))
		return;
	hp = cmstat_heap_priv(heap);
	if (test_and_set_bit(CMSTAT_HEAP_DESTROYED, &hp->flags)) {
		pr_err("heap %s destroyed twice; ignored\n", hp->name);
		return;
	}
	/* Before the name is free: a new heap of that name gets new files. */
	debugfs_remove(hp->debugfs);
	hp->debugfs = NULL;
	cmstat_heap_sysfs_remove(hp);

	mutex_lock(&cmstat_heaps_lock);
	if (!cmstat_accounting_enabled()) {
		/* Nothing counts, and with no statistics nothing reads it. */
		list_move_tail(&hp->node, &cmstat_kept);
		mutex_unlock(&cmstat_heaps_lock);
		cmstat_counters_free(hp->stats);
		hp->stats = NULL;
		module_put(THIS_MODULE);
		return;
	}
	list_move_tail(&hp->node, &cmstat_orphans);
	hp->changed = ++cmstat_orphan_changes;
	strscpy(name, hp->name, sizeof(name));
	mutex_unlock(&cmstat_heaps_lock);

	/*
	 * The cut releases the heap if it is empty, and reports it if not.
	 * From here on @heap may be freed by any reader's cut: not ours.
	 */
	cut = cmstat_cut_take(false);
	if (!IS_ERR(cut)) {
		cmstat_cut_free(cut);
		return;
	}
	pr_warn("heap %s destroyed, its statistics unread (%pe); kept, and cmstat loaded, until a snapshot shows it empty\n",
		name, cut);
	mutex_lock(&cmstat_heaps_lock);
	cmstat_reap_soon();
	mutex_unlock(&cmstat_heaps_lock);
}
EXPORT_SYMBOL_GPL(cmstat_heap_destroy);

int __init cmstat_heaps_init(void)
{
	return cmstat_group_init(&cmstat_heap_group);
}

/*
 * Undo cmstat_heaps_init(), at unload or on a failed load.  At unload
 * every heap has been destroyed (each holds a module reference until
 * then) and every orphan released (likewise): only the heaps kept with
 * accounting=0 are left, and no client can use them any more.  On a
 * failed load there is no heap at all: no client links to a module whose
 * init failed.
 */
void cmstat_heaps_exit(void)
{
	struct cmstat_heap_priv *hp, *tmp;

	cancel_delayed_work_sync(&cmstat_reaper);
	WARN_ON_ONCE(!list_empty(&cmstat_heaps) || !list_empty(&cmstat_orphans));
	list_for_each_entry_safe(hp, tmp, &cmstat_kept, node) {
		list_del(&hp->node);
		cmstat_heap_release(hp, false);
	}
	cmstat_group_destroy(&cmstat_heap_group);
}
