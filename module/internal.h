/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared between cmstat's own source files, not exported. */
#ifndef _CMSTAT_INTERNAL_H
#define _CMSTAT_INTERNAL_H

#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/kasan.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/kmalloc.h>
#include <cmstat/counters.h>

#include "mutation.h"	/* mutation.c's hooks; stubs outside test builds */

/* counters.c */
void __init cmstat_accounting_init(bool enable);
int cmstat_group_init(struct cmstat_group *group);
void cmstat_group_destroy(struct cmstat_group *group);
int cmstat_group_snapshot(struct cmstat_group *group, u64 *epoch);
void cmstat_group_snapshot_done(struct cmstat_group *group);
void cmstat_counters_totals(const struct cmstat_counters *set, u64 *totals);
void cmstat_counters_sum_into(struct cmstat_counters *set, u64 *sum);
int cmstat_read_refused(unsigned long caller);

/* classes.c: the tables of include/cmstat/alloc.h, filled at load. */
int __init cmstat_classes_init(void);
void cmstat_classes_exit(bool loaded);

/* alloc.c */
void __init cmstat_alloc_init(void);
void cmstat_account(struct cmstat_heap *heap, unsigned int count_idx,
		    unsigned int requested_idx, size_t size, int held_idx,
		    size_t held, struct cmstat_site_count site);
#define CMSTAT_AF_UNSIZED	1	/* may be freed without a size */
#define CMSTAT_AF_QUIET		2	/* a failure is not counted */
void *cmstat_alloc_from(struct cmstat_heap *heap, size_t size, gfp_t gfp,
			int node, unsigned int how, unsigned long caller,
			struct cmstat_site *site);
void *cmstat_large_done(struct cmstat_heap *heap, void *obj, size_t size,
			bool vmalloc, gfp_t gfp, unsigned int how,
			struct cmstat_site *site);

/*
 * Whether cmstat_alloc_from() refuses @gfp for @size: any zone modifier
 * but GFP_DMA above the largest class, which the page allocator honours
 * (see __CMSTAT_GFP_ZONES in include/cmstat/alloc.h).
 */
static inline bool cmstat_gfp_zone_refused(size_t size, gfp_t gfp)
{
	gfp_t zones = gfp & __CMSTAT_GFP_ZONES;

	return zones && (zones != __GFP_DMA || size <= CMSTAT_MAX_CLASS_SIZE);
}

struct cmstat_sysfs_cache;

/**
 * struct cmstat_cache_priv - a typed cache, as cmstat.ko keeps it
 * @cc: what clients see (include/cmstat/alloc.h)
 * @hash: in owner.c's table of typed caches, by @cc.slab
 * @rcu: frees it after the lookups that may still see it
 * @name: as given to cmstat_cache_create(), cut to fit
 * @sysfs: its sysfs directory (sysfs.c), or NULL.  Under heap.c's lock.
 */
struct cmstat_cache_priv {
	struct cmstat_cache cc;
	unsigned int obj_size;	/* cc.size, and a sited heap's tag after it */
	struct hlist_node hash;
	struct rcu_head rcu;
	char name[CMSTAT_CACHE_NAME_MAX + 1];
	struct cmstat_sysfs_cache *sysfs;
};

static inline struct cmstat_cache_priv *
cmstat_cache_priv(const struct cmstat_cache *cc)
{
	return container_of(cc, struct cmstat_cache_priv, cc);
}

/* The index of @cc's allocation counter in its heap's counters. */
static inline unsigned int cmstat_cache_mallocs_idx(const struct cmstat_cache *cc)
{
	return cc->mallocs_slot / CMSTAT_RING_SLOTS;
}

/* owner.c: what an object is, as far as cmstat can tell */
enum cmstat_owner_kind {
	CMSTAT_OWNER_FOREIGN,	/* not cmstat's: another owner's, or none */
	CMSTAT_OWNER_CLASS,	/* in a size class's cache */
	CMSTAT_OWNER_CACHE,	/* in a typed cache */
	CMSTAT_OWNER_LARGE,	/* a large allocation cmstat recorded */
};

/**
 * struct cmstat_owner - what an object is
 * @kind: which of the below is set
 * @class: its size class, for %CMSTAT_OWNER_CLASS
 * @cc: its typed cache, for %CMSTAT_OWNER_CACHE: valid while the object
 *	lives (a cache is destroyed empty)
 * @size: for %CMSTAT_OWNER_LARGE, the bytes asked for
 * @vmalloc: for %CMSTAT_OWNER_LARGE, whether vmalloc() gave it
 * @site: what its free adds to its heap's site rows (kmalloc.c)
 */
struct cmstat_owner {
	enum cmstat_owner_kind kind;
	unsigned int class;
	struct cmstat_cache *cc;
	size_t size;
	bool vmalloc;
	int col;
	struct cmstat_site_count site;
};

/*
 * The class caches by a hash of their address, open addressing: 77 in
 * 1,024 slots, under a multiplier cmstat_owner_init() chooses so that each
 * has a slot of its own.  A free without a size then finds its class in
 * one compare, whatever addresses the caches got in this boot.
 */
#define CMSTAT_CLASS_HASH_BITS	10
extern unsigned long cmstat_class_hash_mult;
extern struct kmem_cache *cmstat_class_by_cache[1 << CMSTAT_CLASS_HASH_BITS];
extern u8 cmstat_class_of_slot[1 << CMSTAT_CLASS_HASH_BITS];

/*
 * The linear map's extent at load, high_memory - PAGE_OFFSET: where a
 * slab's memory is, and what virt_to_folio() reads right.  Memory added
 * later lies above it, and its objects take the unsized free's slow path.
 */
extern unsigned long cmstat_linear_span;

/*
 * Whether @obj is in the linear map as it was at load: not NULL nor
 * ZERO_SIZE_PTR, not vmalloc()'s memory nor the kernel image's.  One
 * compare, where is_vmalloc_addr() is an out-of-line call.
 */
static __always_inline bool cmstat_in_linear_map(const void *obj)
{
	unsigned long addr = (unsigned long)kasan_reset_tag(obj);

	return addr - PAGE_OFFSET < cmstat_linear_span;
}

/* The home slot of @s under @mult: hash_ptr() with a multiplier of choice. */
static inline unsigned int cmstat_class_slot(const struct kmem_cache *s,
					     unsigned long mult)
{
	return ((unsigned long)s * mult) >>
	       (BITS_PER_LONG - CMSTAT_CLASS_HASH_BITS);
}

/*
 * The class whose cache is @s if @s is in its home slot, else -1: for the
 * unsized free's fast path, which leaves the rest to cmstat_owner_of().
 * Every class is, unless cmstat_owner_init() found no multiplier that
 * gave each a slot of its own.
 */
static inline int cmstat_class_at_home(const struct kmem_cache *s)
{
	unsigned int slot = cmstat_class_slot(s, cmstat_class_hash_mult);

	if (likely(cmstat_class_by_cache[slot] == s))
		return cmstat_class_of_slot[slot];
	return -1;
}

int __init cmstat_owner_init(void);
void cmstat_owner_of(const void *obj, struct cmstat_owner *owner);
void cmstat_owner_add_cache(struct cmstat_cache_priv *cp);
void cmstat_owner_del_cache(struct cmstat_cache_priv *cp);
int cmstat_large_record(const void *obj, size_t size, bool vmalloc, int col,
			gfp_t gfp);
void cmstat_large_forget(const void *obj);
int cmstat_large_col(const void *obj);

/* free_later.c: frees where PREEMPT_RT's allocators cannot take them. */
void cmstat_large_release(const void *obj);
void cmstat_free_rcu(const void *obj, size_t head_offset, bool large);
unsigned int cmstat_later_cache_size(unsigned int size, bool ctor,
				     slab_flags_t flags);
void cmstat_free_later_flush(void);

/* The heaps (heap.c), their statistics (stats.c) and their readers */
struct dentry;
struct kobject;
struct seq_file;

/* Bits of struct cmstat_heap_priv.flags. */
enum {
	CMSTAT_HEAP_DESTROYED,		/* cmstat_heap_destroy() was called */
	CMSTAT_HEAP_MISUSE_REPORTED,	/* broken statistics were reported */
	CMSTAT_HEAP_ORPHAN_REPORTED,	/* destroyed holding objects: said */
	CMSTAT_HEAP_SITE_TAG_REPORTED,	/* an object without a site tag: said */
};

struct cmstat_heap_sites;

/**
 * struct cmstat_heap_priv - a heap, as cmstat.ko keeps it
 * @heap: what clients see (include/cmstat/alloc.h): the fast path's slots,
 *	which are @stats' own
 * @stats: the heap's counter set, in cmstat_heap_group; NULL for a heap
 *	destroyed by a cmstat loaded with accounting=0
 * @node: in the list of live heaps, of orphans, or of kept heaps (heap.c)
 * @id: unique while cmstat is loaded: finds the heap's row in a cut
 * @debugfs: the heap's debugfs directory, or NULL or an error pointer
 * @sysfs: the heap's sysfs directory, or NULL
 * @sysfs_caches: its caches/ subdirectory, or NULL
 * @flags: CMSTAT_HEAP_* bits
 * @name: as given to cmstat_heap_create()
 * @caches: its typed caches, by column of its counters; NULL for a free
 *	column.  Under heap.c's lock.
 * @nr_caches: how many of @caches are set: a heap destroyed before its
 *	typed caches stays, an orphan, until they go
 * @changed: for an orphan, the number of its last change that a cut
 *	judges it by (heap.c).  Under heap.c's lock.
 * @sites: its site rows (site.c), or NULL for a heap without
 */
struct cmstat_heap_priv {
	struct cmstat_heap heap;
	struct cmstat_counters *stats;
	struct list_head node;
	u64 id;
	struct dentry *debugfs;
	struct kobject *sysfs;
	struct kobject *sysfs_caches;
	unsigned long flags;
	char name[CMSTAT_HEAP_NAME_MAX + 1];
	struct cmstat_cache_priv *caches[CMSTAT_HEAP_CACHES];
	unsigned int nr_caches;
	u64 changed;
	struct cmstat_heap_sites *sites;
};

/* The private part of a client's handle. */
static inline struct cmstat_heap_priv *
cmstat_heap_priv(struct cmstat_heap *heap)
{
	return container_of(heap, struct cmstat_heap_priv, heap);
}

enum cmstat_row_kind {
	CMSTAT_ROW_HEAP,	/* a live heap */
	CMSTAT_ROW_ORPHAN,	/* destroyed while holding objects */
	CMSTAT_ROW_DESTROYED,	/* the totals of every heap destroyed */
};

/**
 * struct cmstat_row_cache - a typed cache of a heap, in a cut
 * @size: its object size; 0 for a column no cache uses
 * @name: its name
 */
struct cmstat_row_cache {
	unsigned int size;
	char name[CMSTAT_CACHE_NAME_MAX + 1];
};

/**
 * struct cmstat_row - one row of a cut
 * @kind: what the row counts
 * @id: the heap's id (not for %CMSTAT_ROW_DESTROYED)
 * @name: the heap's name (empty for %CMSTAT_ROW_DESTROYED)
 * @c: its cumulative counters, CMSTAT_HC_* of include/cmstat/alloc.h
 * @caches: its typed caches, by column (live heaps and orphans only)
 * @nr_sites: the number of @sites
 * @sites: its site rows, if the cut was taken with them and it has some
 * @nr_nodes: the number of @nodes
 * @nodes: its node rows, by node id, when it has @sites
 */
struct cmstat_row {
	enum cmstat_row_kind kind;
	u64 id;
	char name[CMSTAT_HEAP_NAME_MAX + 1];
	u64 c[CMSTAT_HC_NR];
	struct cmstat_row_cache caches[CMSTAT_HEAP_CACHES];
	unsigned int nr_sites;
	struct cmstat_site_stats *sites;
	unsigned int nr_nodes;
	struct cmstat_node_stats *nodes;
};

/**
 * struct cmstat_cut - the counters of every heap at one instant
 * @epoch: the number of the snapshot, as cmstat_group_read() gives it
 * @nr_rows: number of @rows
 * @all: all heaps together, the folds' running total: what the rows sum to
 * @rows: live heaps, then orphans, then the destroyed heaps' totals
 */
struct cmstat_cut {
	u64 epoch;
	unsigned int nr_rows;
	u64 all[CMSTAT_HC_NR];
	struct cmstat_row rows[];
};

/* site.c: a heap's site rows */
int cmstat_sites_create(struct cmstat_heap_priv *hp);
void cmstat_sites_release(struct cmstat_heap_priv *hp);
int cmstat_sites_take(const struct cmstat_heap_priv *hp,
		      struct cmstat_site_stats **rows);
int cmstat_nodes_take(const struct cmstat_heap_priv *hp,
		      struct cmstat_node_stats **rows);

/*
 * What freeing or allocating @obj (if @free, or not), a class object of
 * @held bytes, adds to @heap's site rows, for cmstat_account(): the column
 * in its tag, nothing for a heap without site rows.  Read while @obj is
 * still allocated.  Inline: cmstat_kfree() calls it.
 */
static inline struct cmstat_site_count
cmstat_site_count_of(struct cmstat_heap *heap, const void *obj, size_t held,
		     bool free)
{
	struct cmstat_site_count count = {
		.heap = heap,
		.col = __cmstat_site_col_of(heap, obj, held),
		.held = held,
		.free = free,
	};

	if (count.col >= 0)
		count.nid = __cmstat_node_of(obj);
	return count;
}

/*
 * What a large allocation at column @col (from its record: see
 * cmstat_large_record()) adds to @heap's site and node rows, or takes
 * from them if @free.  A column @heap has no set for, which only a free
 * through the wrong heap can give, counts unattributed.
 */
static inline struct cmstat_site_count
cmstat_large_site(struct cmstat_heap *heap, const void *obj, int col,
		  size_t held, bool free)
{
	struct cmstat_site_count count = {
		.heap = heap,
		.col = -1,
		.held = held,
		.free = free,
	};

	if (!__cmstat_heap_has_sites(heap))
		return count;
	/* Published before any record holds its column: __cmstat_site_col(). */
	count.col = READ_ONCE(heap->site_slots[col / CMSTAT_SITES_PER_SET]) ?
		    col : CMSTAT_SITE_UNATTRIBUTED;
	count.nid = __cmstat_node_of(obj);
	return count;
}

/* heap.c: the heaps, and cuts of them */
int cmstat_heap_add_cache(struct cmstat_heap *heap,
			  struct cmstat_cache_priv *cp);
int cmstat_heap_retire_cache(struct cmstat_heap *heap,
			     struct cmstat_cache_priv *cp, s64 *live);
void cmstat_heap_del_cache(struct cmstat_heap *heap,
			   struct cmstat_cache_priv *cp);
void cmstat_heap_unmap_cache(struct cmstat_heap *heap, struct cmstat_cache *cc);
int __init cmstat_heaps_init(void);
void cmstat_heaps_exit(void);
void cmstat_heaps_print_names(struct seq_file *m);
u64 cmstat_heap_id(const char *name);
struct cmstat_cut *cmstat_cut_take(bool sites);
void cmstat_cut_free(struct cmstat_cut *cut);
const struct cmstat_row *cmstat_cut_find(const struct cmstat_cut *cut, u64 id);
int cmstat_heap_counters(struct cmstat_heap *heap, u64 *c, u64 *epoch);
int cmstat_heaps_counters(struct cmstat_heap *const *heaps, unsigned int n,
			  u64 *c, u64 *all, u64 *epoch);

/* stats.c: what counters mean; calls nothing in heap.c */
void cmstat_derive(const u64 *c, u64 epoch, struct cmstat_heap_stats *st);
s64 cmstat_counters_live_objects(const u64 *c);
void cmstat_derive_cache(const u64 *c, unsigned int column, unsigned int size,
			 u64 epoch, struct cmstat_cache_stats *st);
void cmstat_check_counters(const char *name, const u64 *c,
			   unsigned long *flags);

/*
 * The u64 fields of struct cmstat_heap_stats that debugfs prints and sysfs
 * gives a file each, epoch and the class table aside: one list, so that
 * the two cannot drift apart.  Its order is the debugfs format's.
 */
struct cmstat_stats_field {
	const char *name;
	size_t offset;
};

#define CMSTAT_NR_STATS_FIELDS	22
extern const struct cmstat_stats_field
	cmstat_stats_fields[CMSTAT_NR_STATS_FIELDS];

static inline u64 cmstat_stats_field(const struct cmstat_heap_stats *st,
				     unsigned int i)
{
	return *(const u64 *)((const char *)st + cmstat_stats_fields[i].offset);
}

/* debugfs.c */
void __init cmstat_debugfs_init(void);
void cmstat_debugfs_exit(void);
struct dentry *cmstat_debugfs_add_heap(const char *name, u64 id);

/* sysfs.c */
int __init cmstat_sysfs_init(void);
void cmstat_sysfs_exit(void);
struct kobject *cmstat_sysfs_add_heap(const char *name,
				      struct kobject **caches);
void cmstat_sysfs_remove(struct kobject *kobj);
struct cmstat_sysfs_cache *cmstat_sysfs_add_cache(struct kobject *caches,
						  u64 heap_id,
						  unsigned int column,
						  unsigned int size,
						  const char *name);
void cmstat_sysfs_remove_cache(struct cmstat_sysfs_cache *sc);

/*
 * A typed cache's name as the files show it (cmstat_name_show()):
 * each byte at most 3 characters, and the NUL.
 */
#define CMSTAT_CACHE_NAME_SHOWN	(CMSTAT_CACHE_NAME_MAX * 3 + 1)
void cmstat_name_show(char *buf, const char *name);

/* debug_free.c: hooks that cost a patched-out branch unless debug_free=1 */
void __init cmstat_debug_init(bool enable);
void cmstat_debug_exit(void);
int __cmstat_debug_track(struct cmstat_heap *heap, const void *obj,
			 size_t size, gfp_t gfp);
bool __cmstat_debug_untrack(struct cmstat_heap *heap, const void *obj,
			    size_t size);
bool __cmstat_debug_resize(struct cmstat_heap *heap, const void *obj,
			   size_t old_size, size_t new_size);

static inline int cmstat_debug_track(struct cmstat_heap *heap, const void *obj,
				     size_t size, gfp_t gfp)
{
	if (!static_branch_unlikely(&cmstat_debug_free_key))
		return 0;
	return __cmstat_debug_track(heap, obj, size, gfp);
}

/* Return: whether the free may go ahead. */
static inline bool cmstat_debug_untrack(struct cmstat_heap *heap,
					const void *obj, size_t size)
{
	if (!static_branch_unlikely(&cmstat_debug_free_key))
		return true;
	return __cmstat_debug_untrack(heap, obj, size);
}

/* Return: whether a resize in place to @new_size (not 0) may go ahead. */
static inline bool cmstat_debug_resize(struct cmstat_heap *heap,
				       const void *obj, size_t old_size,
				       size_t new_size)
{
	if (!static_branch_unlikely(&cmstat_debug_free_key))
		return true;
	return __cmstat_debug_resize(heap, obj, old_size, new_size);
}

#endif /* _CMSTAT_INTERNAL_H */
