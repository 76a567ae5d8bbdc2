// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat call sites (include/cmstat/site.h): a heap's site rows, the
 * binding of a call site's descriptor to one of its columns, and the
 * reading of the rows in the same cut as the heap's totals.
 *
 * A heap created by a module built with CMSTAT_SITES has counter sets of
 * 256 sites each, in cmstat_heap_group, so that every section that counts
 * an object in the heap counts it in its site's column too, and no
 * snapshot sees one without the other.  Column 0 is the unattributed one.
 * The first set comes with the heap; the next is allocated by a work item
 * once fewer than %CMSTAT_SITES_LOW columns are left, as binding happens
 * in any context, and until it is published the sites that find no column
 * count as unattributed.
 *
 * On a kernel of more than one node such a heap has one more set, its
 * node rows, %CMSTAT_SC_NR counters per node id, written in the same
 * sections as the site columns.  On a kernel of one node there is no such
 * set, and node 0's row is the sum of the site rows.  On one of more than
 * %CMSTAT_NODES_MAX node ids, more than a set holds, there are no node rows.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "internal.h"

/**
 * struct cmstat_site_col - a column of a heap's site rows
 * @hash: in the heap's table of bound sites, by @site
 * @site: the descriptor bound to it; NULL for column 0
 * @col: its number
 * @line: the descriptor's line
 * @function: the descriptor's function, copied when bound: the row
 *	outlives the module that allocated, whose leaks it may show
 * @file: its file, copied too
 */
struct cmstat_site_col {
	struct hlist_node hash;
	const struct cmstat_site *site;
	unsigned int col;
	unsigned int line;
	char function[CMSTAT_SITE_FUNCTION_MAX + 1];
	char file[CMSTAT_SITE_FILE_MAX + 1];
};

/**
 * struct cmstat_heap_sites - a heap's site rows
 * @lock: serialises binding, which runs in any context but NMI
 * @nr_cols: columns bound, column 0 included.  Under @lock.
 * @nr_sets: sets published.  Written under @lock once the heap is
 *	published, by @grow only.
 * @sets: the counter sets, %CMSTAT_SITES_PER_SET columns each
 * @nodes: the node rows, with cmstat_by_node_key; NULL without
 * @cols: each set's columns
 * @by_site: the bound columns, by descriptor
 * @grow: allocates the next set
 * @heap: the heap
 */
struct cmstat_heap_sites {
	raw_spinlock_t lock;
	unsigned int nr_cols;
	unsigned int nr_sets;
	struct cmstat_counters *sets[CMSTAT_SITE_SETS];
	struct cmstat_counters *nodes;
	struct cmstat_site_col *cols[CMSTAT_SITE_SETS];
	DECLARE_HASHTABLE(by_site, 8);
	struct work_struct grow;
	struct cmstat_heap *heap;
};

/*
 * Whether the heaps with site rows count their objects per node of their
 * memory: on a kernel of more than one node (cmstat_alloc_init()).
 */
DEFINE_STATIC_KEY_FALSE(cmstat_by_node_key);
EXPORT_SYMBOL_GPL(cmstat_by_node_key);

/* The last site key handed out; keys start at 1, and never reach NONE. */
static atomic_long_t cmstat_site_keys = ATOMIC_LONG_INIT(0);

/*
 * Allocate and publish the next counter set of @hs.  Process context.
 * Return: 0, or -ENOMEM.
 */
static int cmstat_sites_add_set(struct cmstat_heap_sites *hs)
{
	unsigned int n = hs->nr_sets;
	struct cmstat_counters *set;
	struct cmstat_site_col *cols;

	if (n == CMSTAT_SITE_SETS)
		return 0;
	cols = kcalloc(CMSTAT_SITES_PER_SET, sizeof(*cols), GFP_KERNEL);
	if (!cols)
		return -ENOMEM;
	set = cmstat_counters_alloc(&cmstat_heap_group,
				    CMSTAT_SITES_PER_SET * CMSTAT_SC_NR);
	if (IS_ERR(set)) {
		kfree(cols);
		return PTR_ERR(set);
	}
	hs->sets[n] = set;
	hs->cols[n] = cols;
	/*
	 * Pairs with the READ_ONCE()s of site_slots[] in include/cmstat/
	 * alloc.h, through the binding: a column of this set is bound, under
	 * @lock, only once @nr_sets says the set is there, and its binding
	 * is released after (__cmstat_site_bind()).
	 */
	WRITE_ONCE(hs->heap->site_slots[n], set->delta);
	raw_spin_lock_irq(&hs->lock);
	hs->nr_sets = n + 1;
	raw_spin_unlock_irq(&hs->lock);
	return 0;
}

static void cmstat_sites_grow(struct work_struct *work)
{
	struct cmstat_heap_sites *hs = container_of(work, typeof(*hs), grow);

	/* Failed, the sites beyond stay unattributed: the sums still hold. */
	cmstat_sites_add_set(hs);
}

/* Free @hs and its sets; no binding can reach it any more. */
static void cmstat_sites_release_sets(struct cmstat_heap_sites *hs)
{
	unsigned int n;

	cancel_work_sync(&hs->grow);
	for (n = 0; n < hs->nr_sets; n++) {
		cmstat_counters_free(hs->sets[n]);
		kfree(hs->cols[n]);
	}
	if (hs->nodes)
		cmstat_counters_free(hs->nodes);
	kfree(hs);
}

/* Give @hs its node rows, on a kernel that counts them.  0 or -errno. */
static int cmstat_sites_add_nodes(struct cmstat_heap_sites *hs)
{
	struct cmstat_counters *nodes;

	if (!static_branch_unlikely(&cmstat_by_node_key))
		return 0;
	nodes = cmstat_counters_alloc(&cmstat_heap_group,
				      nr_node_ids * CMSTAT_SC_NR);
	if (IS_ERR(nodes))
		return PTR_ERR(nodes);
	hs->nodes = nodes;
	/* Before the heap is returned: __cmstat_node_add() reads it plain. */
	hs->heap->node_slots = nodes->delta;
	return 0;
}

/**
 * cmstat_sites_create() - give a new heap its site rows
 * @hp: the heap, not yet published
 *
 * Return: 0, -ENOMEM, or -ENOSPC once a 32-bit kernel has given out every
 * key.
 */
int cmstat_sites_create(struct cmstat_heap_priv *hp)
{
	struct cmstat_heap_sites *hs;
	long key;
	int err;

	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs)
		return -ENOMEM;
	raw_spin_lock_init(&hs->lock);
	hash_init(hs->by_site);
	INIT_WORK(&hs->grow, cmstat_sites_grow);
	hs->heap = &hp->heap;
	err = cmstat_sites_add_set(hs) ?: cmstat_sites_add_nodes(hs);
	if (err) {
		cmstat_sites_release_sets(hs);
		return err;
	}
	/*
	 * Keys are never reused: a site still bound to a heap gone must not
	 * match a new one.  2^52 of them on a 64-bit kernel; on a 32-bit one,
	 * a million heaps with site rows, and then no more.
	 */
	key = atomic_long_inc_return(&cmstat_site_keys);
	if (key <= 0 || key >= CMSTAT_SITE_KEY_NONE) {
		cmstat_sites_release_sets(hs);
		return -ENOSPC;
	}
	hs->nr_cols = 1;	/* column 0, unattributed, has no site */
	hp->sites = hs;
	hp->heap.site_key = key;
	return 0;
}

/* Free @hp's site rows, if it has any: the heap is off every list. */
void cmstat_sites_release(struct cmstat_heap_priv *hp)
{
	if (hp->sites)
		cmstat_sites_release_sets(hp->sites);
}

/* Whether column @c was bound to @site, and not to a namesake's address. */
static bool cmstat_site_col_is(const struct cmstat_site_col *c,
			       const struct cmstat_site *site)
{
	return c->site == site && c->line == site->line &&
	       !strncmp(c->function, site->function, sizeof(c->function) - 1) &&
	       !strncmp(c->file, site->file, sizeof(c->file) - 1);
}

/*
 * Columns left when the next set is asked for: it comes from a work item,
 * and the sites that find no column until then count unattributed, and
 * take the lock at each allocation.
 */
#define CMSTAT_SITES_LOW	32

/* A free column of @hs for @site, or NULL; under @hs->lock. */
static struct cmstat_site_col *cmstat_site_col_new(struct cmstat_heap_sites *hs,
						   const struct cmstat_site *site)
{
	unsigned int col = hs->nr_cols;
	unsigned int room = hs->nr_sets * CMSTAT_SITES_PER_SET;
	struct cmstat_site_col *c;

	if (room - col <= CMSTAT_SITES_LOW && hs->nr_sets < CMSTAT_SITE_SETS)
		queue_work(system_unbound_wq, &hs->grow);
	if (col == room)
		return NULL;
	hs->nr_cols++;
	c = &hs->cols[col / CMSTAT_SITES_PER_SET][col % CMSTAT_SITES_PER_SET];
	c->site = site;
	c->col = col;
	c->line = site->line;
	strscpy(c->function, site->function, sizeof(c->function));
	strscpy(c->file, site->file, sizeof(c->file));
	hash_add(hs->by_site, &c->hash, (unsigned long)site);
	return c;
}

/**
 * __cmstat_site_bind() - bind a call site to its column in a heap
 * @heap: the heap it allocates from
 * @site: the call site's descriptor
 *
 * For the inline allocations of a module built with CMSTAT_SITES, on the
 * first allocation of @site from @heap, or when it last allocated from
 * another heap.  Any context: in NMI context, where the lock cannot be
 * taken, and while the heap waits for its next set of columns, the
 * allocation counts as unattributed and @site stays unbound; once all
 * %CMSTAT_SITES_PER_SET * %CMSTAT_SITE_SETS columns are taken, a new site
 * is bound to the unattributed column.  Not for direct use.
 *
 * Return: the column; -1 if @heap has no site rows.
 */
int __cmstat_site_bind(struct cmstat_heap *heap, struct cmstat_site *site)
{
	struct cmstat_heap_sites *hs = cmstat_heap_priv(heap)->sites;
	struct cmstat_site_col *c;
	unsigned long flags;
	int col = CMSTAT_SITE_UNATTRIBUTED;

	if (!hs)
		return -1;
	if (in_nmi())
		return col;
	raw_spin_lock_irqsave(&hs->lock, flags);
	hash_for_each_possible(hs->by_site, c, hash, (unsigned long)site)
		if (cmstat_site_col_is(c, site))
			goto bind;
	c = cmstat_site_col_new(hs, site);
	if (!c && hs->nr_sets < CMSTAT_SITE_SETS)
		goto out;	/* unbound: a column may come */
	if (!c)
		goto bind_col;	/* every column taken: unattributed for good */
bind:
	col = c->col;
bind_col:
	/*
	 * Pairs with smp_load_acquire() in __cmstat_site_col(): whoever
	 * finds the binding finds the column's set published.  A site that
	 * alternates between two heaps is bound again each time: slow, and
	 * right.
	 */
	smp_store_release(&site->binding,
			  heap->site_key << CMSTAT_SITE_COL_BITS | col);
out:
	raw_spin_unlock_irqrestore(&hs->lock, flags);
	return col;
}
EXPORT_SYMBOL_GPL(__cmstat_site_bind);

/**
 * __cmstat_site_tag_bad() - a sited heap's object without a tag
 * @heap: the heap
 * @tag: what the object's last four bytes held
 *
 * Reported once per heap: the object was allocated by a module built
 * without CMSTAT_SITES, or its allocation was written past its end.  It
 * counts as unattributed.  Not for direct use.
 *
 * Return: %CMSTAT_SITE_UNATTRIBUTED.
 */
int __cmstat_site_tag_bad(struct cmstat_heap *heap, u32 tag)
{
	struct cmstat_heap_priv *hp = cmstat_heap_priv(heap);

	if (!test_and_set_bit(CMSTAT_HEAP_SITE_TAG_REPORTED, &hp->flags))
		pr_warn("heap %s: %ps freed an object without its site tag (%#x): allocated by a module built without CMSTAT_SITES, or written past its end; counted unattributed\n",
			hp->name, __builtin_return_address(0), tag);
	return CMSTAT_SITE_UNATTRIBUTED;
}
EXPORT_SYMBOL_GPL(__cmstat_site_tag_bad);

/**
 * __cmstat_obj_nid() - the node of an object's memory
 * @obj: an object of a heap with site rows, still allocated
 *
 * For the inline paths and cmstat.ko's, on a kernel that counts node rows
 * (cmstat_by_node_key).  A vmalloc()ed
 * object counts on the node of its first page.  Not for direct use.
 *
 * Return: the node id.
 */
int __cmstat_obj_nid(const void *obj)
{
	struct page *page;

	if (!is_vmalloc_addr(obj))
		return page_to_nid(virt_to_page(obj));
	page = vmalloc_to_page(obj);
	return page ? page_to_nid(page) : 0;
}
EXPORT_SYMBOL_GPL(__cmstat_obj_nid);

/*
 * @rows, up to @nr_rows, from @hs's first @nr_sets sets, in a snapshot:
 * the first @nr_cols columns, which are bound, and what a column not bound
 * counts (a stale tag's, which only a module that breaks the rules can
 * leave) added to the unattributed row, so that the rows still sum to
 * the heap.  @sc: room for one set's totals.
 */
static void cmstat_sites_fill(const struct cmstat_heap_sites *hs,
			      unsigned int nr_sets, unsigned int nr_cols,
			      struct cmstat_site_stats *rows,
			      unsigned int nr_rows, u64 *sc)
{
	unsigned int col, i;

	for (col = 0; col < nr_sets * CMSTAT_SITES_PER_SET; col++) {
		const struct cmstat_site_col *c;
		struct cmstat_site_stats *row;
		const u64 *s;

		i = col % CMSTAT_SITES_PER_SET;
		c = &hs->cols[col / CMSTAT_SITES_PER_SET][i];
		s = sc + i * CMSTAT_SC_NR;
		if (!i)
			cmstat_counters_totals(hs->sets[col / CMSTAT_SITES_PER_SET],
					       sc);
		if (col < nr_cols && col < nr_rows) {
			row = &rows[col];
			memset(row, 0, sizeof(*row));
			row->column = col;
			strscpy(row->function, c->function, sizeof(row->function));
			strscpy(row->file, c->file, sizeof(row->file));
			row->line = c->line;
		} else if (col >= nr_cols && nr_rows) {
			row = &rows[CMSTAT_SITE_UNATTRIBUTED];
		} else {
			continue;
		}
		row->mallocs += s[CMSTAT_SC_MALLOCS];
		row->frees += s[CMSTAT_SC_FREES];
		row->alloc_bytes += s[CMSTAT_SC_ALLOC_BYTES];
		row->free_bytes += s[CMSTAT_SC_FREE_BYTES];
	}
	for (col = 0; col < min(nr_cols, nr_rows); col++) {
		rows[col].live_objects = rows[col].mallocs - rows[col].frees;
		rows[col].live_bytes = rows[col].alloc_bytes - rows[col].free_bytes;
	}
}

/*
 * @hp's site rows, into @rows (up to @nr_rows), in the snapshot the caller
 * holds of cmstat_heap_group.  A column bound after the snapshot began
 * counts nothing in it: its sections write the next generation, as the
 * heap's do.  Its name was written before it was counted in @nr_cols,
 * under the lock.  Return: the columns bound, or -ENOMEM.
 */
static int cmstat_sites_snap(const struct cmstat_heap_priv *hp,
			     struct cmstat_site_stats *rows,
			     unsigned int nr_rows)
{
	struct cmstat_heap_sites *hs = hp->sites;
	unsigned int nr_cols, nr_sets;
	u64 *sc;

	sc = kmalloc_array(CMSTAT_SITES_PER_SET * CMSTAT_SC_NR, sizeof(u64),
			   GFP_KERNEL);
	if (!sc)
		return -ENOMEM;
	raw_spin_lock_irq(&hs->lock);
	nr_cols = hs->nr_cols;
	nr_sets = hs->nr_sets;
	raw_spin_unlock_irq(&hs->lock);
	cmstat_sites_fill(hs, nr_sets, nr_cols, rows, nr_rows, sc);
	kfree(sc);
	return nr_cols;
}

/**
 * cmstat_sites_take() - a heap's site rows, for a cut
 * @hp: a heap, live or orphan, with or without site rows
 * @rows: set to the rows, to free with kvfree(); NULL for a heap without
 *
 * In the snapshot of cmstat_heap_group the caller holds, under
 * cmstat_heaps_lock.
 *
 * Return: the number of @rows, 0 for a heap without site rows, or -ENOMEM.
 */
int cmstat_sites_take(const struct cmstat_heap_priv *hp,
		      struct cmstat_site_stats **rows)
{
	struct cmstat_heap_sites *hs = hp->sites;
	unsigned int nr_rows;
	int n;

	*rows = NULL;
	if (!hs)
		return 0;
	/* Room for what is bound now; a set added meanwhile, and we retry. */
	raw_spin_lock_irq(&hs->lock);
	n = hs->nr_cols;
	raw_spin_unlock_irq(&hs->lock);
	do {
		kvfree(*rows);
		nr_rows = n;
		*rows = kvmalloc_array(nr_rows, sizeof(**rows), GFP_KERNEL);
		n = *rows ? cmstat_sites_snap(hp, *rows, nr_rows) : -ENOMEM;
	} while (n > (int)nr_rows);
	if (n < 0) {
		kvfree(*rows);
		*rows = NULL;
	}
	return n;
}

/* Whether @hs has no node rows: more node ids than they count. */
static bool cmstat_no_node_rows(const struct cmstat_heap_sites *hs)
{
	return !hs->nodes && nr_node_ids > 1;
}

/* @row, of node @nid, from its four counters @s. */
static void cmstat_node_row(struct cmstat_node_stats *row, int nid,
			    const u64 *s)
{
	row->node = nid;
	row->mallocs = s[CMSTAT_SC_MALLOCS];
	row->frees = s[CMSTAT_SC_FREES];
	row->alloc_bytes = s[CMSTAT_SC_ALLOC_BYTES];
	row->free_bytes = s[CMSTAT_SC_FREE_BYTES];
	row->live_objects = row->mallocs - row->frees;
	row->live_bytes = row->alloc_bytes - row->free_bytes;
}

/*
 * On a kernel of one node, its row: every column of @hs's first @nr_sets
 * sets, summed, which is what the site rows sum to.  @sc: room for one
 * set's totals.
 */
static void cmstat_nodes_one(const struct cmstat_heap_sites *hs,
			     unsigned int nr_sets, struct cmstat_node_stats *row,
			     u64 *sc)
{
	u64 sum[CMSTAT_SC_NR] = {};
	unsigned int n, i;

	for (n = 0; n < nr_sets; n++) {
		cmstat_counters_totals(hs->sets[n], sc);
		for (i = 0; i < CMSTAT_SITES_PER_SET * CMSTAT_SC_NR; i++)
			sum[i % CMSTAT_SC_NR] += sc[i];
	}
	cmstat_node_row(row, 0, sum);
}

/*
 * @hp's node rows, by node id, into @rows (up to @nr_rows), in the
 * snapshot the caller holds of cmstat_heap_group.  Return: nr_node_ids,
 * or -ENOMEM.
 */
static int cmstat_nodes_snap(const struct cmstat_heap_priv *hp,
			     struct cmstat_node_stats *rows,
			     unsigned int nr_rows)
{
	struct cmstat_heap_sites *hs = hp->sites;
	unsigned int nr_sets, size;
	int nid;
	u64 *sc;

	size = hs->nodes ? nr_node_ids : CMSTAT_SITES_PER_SET;
	sc = kmalloc_array(size * CMSTAT_SC_NR, sizeof(u64), GFP_KERNEL);
	if (!sc)
		return -ENOMEM;
	if (!hs->nodes) {
		raw_spin_lock_irq(&hs->lock);
		nr_sets = hs->nr_sets;
		raw_spin_unlock_irq(&hs->lock);
		if (nr_rows)
			cmstat_nodes_one(hs, nr_sets, rows, sc);
	} else {
		cmstat_counters_totals(hs->nodes, sc);
		for (nid = 0; nid < min(nr_node_ids, nr_rows); nid++)
			cmstat_node_row(&rows[nid], nid, sc + nid * CMSTAT_SC_NR);
	}
	kfree(sc);
	return nr_node_ids;
}

/**
 * cmstat_nodes_take() - a heap's node rows, for a cut
 * @hp: a heap, live or orphan, with or without site rows
 * @rows: set to the rows, by node id, to free with kvfree(); NULL for a
 *	heap without site rows
 *
 * In the snapshot of cmstat_heap_group the caller holds, under
 * cmstat_heaps_lock.
 *
 * Return: the number of @rows (nr_node_ids), 0 for a heap without site
 * rows or on a kernel of more than %CMSTAT_NODES_MAX node ids, or -ENOMEM.
 */
int cmstat_nodes_take(const struct cmstat_heap_priv *hp,
		      struct cmstat_node_stats **rows)
{
	int n;

	*rows = NULL;
	if (!hp->sites || cmstat_no_node_rows(hp->sites))
		return 0;
	*rows = kvcalloc(nr_node_ids, sizeof(**rows), GFP_KERNEL);
	if (!*rows)
		return -ENOMEM;
	n = cmstat_nodes_snap(hp, *rows, nr_node_ids);
	if (n < 0) {
		kvfree(*rows);
		*rows = NULL;
	}
	return n;
}

/*
 * What cmstat_heap_sites_read() and cmstat_heap_nodes_read() share: the
 * heap's totals into @st and, in the same snapshot, its node rows into
 * @nodes if @by_node, else its site rows into @sites.
 */
static int cmstat_heap_where_read(struct cmstat_heap *heap,
				  struct cmstat_site_stats *sites,
				  struct cmstat_node_stats *nodes,
				  bool by_node, unsigned int nr_rows,
				  struct cmstat_heap_stats *st,
				  unsigned long caller)
{
	struct cmstat_heap_priv *hp;
	u64 *c, epoch;
	int err;

	if (IS_ERR_OR_NULL(heap) || !cmstat_heap_priv(heap)->sites)
		return -EINVAL;
	hp = cmstat_heap_priv(heap);
	if (by_node && cmstat_no_node_rows(hp->sites))
		return -EOPNOTSUPP;
	err = cmstat_read_refused(caller);
	if (err)
		return err;
	c = kmalloc_array(CMSTAT_HC_NR, sizeof(u64), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	err = cmstat_group_snapshot(&cmstat_heap_group, &epoch);
	if (err)
		goto out;
	cmstat_counters_totals(hp->stats, c);
	if (by_node)
		err = cmstat_nodes_snap(hp, nodes, nr_rows);
	else
		err = cmstat_sites_snap(hp, sites, nr_rows);
	cmstat_group_snapshot_done(&cmstat_heap_group);
	if (st && err >= 0) {
		cmstat_check_counters(hp->name, c, &hp->flags);
		cmstat_derive(c, epoch, st);
	}
out:
	kfree(c);
	return err;
}

/**
 * cmstat_heap_sites_read() - a heap's site rows and totals, at one cut
 * @heap: a heap created with site rows (by a module built with
 *	CMSTAT_SITES, or cmstat_heap_create_sites())
 * @rows: filled with the site rows, by column: column 0, unattributed,
 *	first
 * @nr_rows: how many @rows can hold
 * @st: if not NULL, filled with the heap's snapshot of the same cut
 *
 * The rows sum to @st: live objects and live bytes, allocations and
 * frees.  Rows beyond @nr_rows are left out of @rows, not of @st.
 * Process context; sleeps, killably, as cmstat_heap_read().
 *
 * Return: the number of columns the heap has bound, which may exceed
 * @nr_rows; -EINVAL for a heap without site rows; -ENOMEM, -EINTR or
 * -EDEADLK as cmstat_heap_read().
 */
int cmstat_heap_sites_read(struct cmstat_heap *heap,
			   struct cmstat_site_stats *rows, unsigned int nr_rows,
			   struct cmstat_heap_stats *st)
{
	return cmstat_heap_where_read(heap, rows, NULL, false, nr_rows, st,
				      _RET_IP_);
}
EXPORT_SYMBOL_GPL(cmstat_heap_sites_read);

/**
 * cmstat_heap_nodes_read() - a heap's node rows and totals, at one cut
 * @heap: a heap created with site rows (by a module built with
 *	CMSTAT_SITES, or cmstat_heap_create_sites())
 * @rows: filled with a row per node id, from 0: what was allocated in
 *	each node's memory, freed, and is live
 * @nr_rows: how many @rows can hold; nr_node_ids is enough
 * @st: if not NULL, filled with the heap's snapshot of the same cut
 *
 * The rows sum to @st's live objects and live bytes, allocations and
 * frees, as the site rows do; a node id that is not possible counts
 * nothing.  Process context; sleeps, killably, as cmstat_heap_read().
 *
 * Return: the number of node ids, which may exceed @nr_rows; -EINVAL for
 * a heap without site rows; -EOPNOTSUPP on a kernel of more than
 * %CMSTAT_NODES_MAX node ids; -ENOMEM, -EINTR or -EDEADLK as
 * cmstat_heap_read().
 */
int cmstat_heap_nodes_read(struct cmstat_heap *heap,
			   struct cmstat_node_stats *rows, unsigned int nr_rows,
			   struct cmstat_heap_stats *st)
{
	return cmstat_heap_where_read(heap, NULL, rows, true, nr_rows, st,
				      _RET_IP_);
}
EXPORT_SYMBOL_GPL(cmstat_heap_nodes_read);
