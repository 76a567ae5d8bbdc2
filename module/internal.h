/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared between cmstat's own source files, not exported. */
#ifndef _CMSTAT_INTERNAL_H
#define _CMSTAT_INTERNAL_H

#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>
#include <cmstat/counters.h>

#include "mutation.h"	/* mutation.c's hooks; stubs outside test builds */

/* counters.c */
void __init cmstat_accounting_init(bool enable);
int cmstat_group_init(struct cmstat_group *group);
void cmstat_group_destroy(struct cmstat_group *group);
int cmstat_group_snapshot(struct cmstat_group *group);
void cmstat_group_snapshot_done(struct cmstat_group *group);
void cmstat_counters_totals(const struct cmstat_counters *set, u64 *totals);
void cmstat_counters_sum_into(struct cmstat_counters *set, u64 *sum);
int cmstat_read_refused(unsigned long caller);

/* classes.c: the tables of include/cmstat/alloc.h, filled at load. */
int __init cmstat_classes_init(void);
void cmstat_classes_exit(bool loaded);

/* alloc.c */
void __init cmstat_alloc_init(void);

/* The heaps (heap.c), their statistics (stats.c) and their readers */
struct dentry;
struct kobject;
struct seq_file;

/* Bits of struct cmstat_heap_priv.flags. */
enum {
	CMSTAT_HEAP_DESTROYED,		/* cmstat_heap_destroy() was called */
	CMSTAT_HEAP_MISUSE_REPORTED,	/* broken statistics were reported */
	CMSTAT_HEAP_ORPHAN_REPORTED,	/* destroyed holding objects: said */
};

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
 * @flags: CMSTAT_HEAP_* bits
 * @name: as given to cmstat_heap_create()
 */
struct cmstat_heap_priv {
	struct cmstat_heap heap;
	struct cmstat_counters *stats;
	struct list_head node;
	u64 id;
	struct dentry *debugfs;
	struct kobject *sysfs;
	unsigned long flags;
	char name[CMSTAT_HEAP_NAME_MAX + 1];
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
 * struct cmstat_row - one row of a cut
 * @kind: what the row counts
 * @id: the heap's id (not for %CMSTAT_ROW_DESTROYED)
 * @name: the heap's name (empty for %CMSTAT_ROW_DESTROYED)
 * @c: its cumulative counters, CMSTAT_HC_* of include/cmstat/alloc.h
 */
struct cmstat_row {
	enum cmstat_row_kind kind;
	u64 id;
	char name[CMSTAT_HEAP_NAME_MAX + 1];
	u64 c[CMSTAT_HC_NR];
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

/* heap.c: the heaps, and cuts of them */
int __init cmstat_heaps_init(void);
void cmstat_heaps_uninit(void);
void __exit cmstat_heaps_exit(void);
void cmstat_heaps_print_names(struct seq_file *m);
u64 cmstat_heap_id(const char *name);
struct cmstat_cut *cmstat_cut_take(void);
const struct cmstat_row *cmstat_cut_find(const struct cmstat_cut *cut, u64 id);
int cmstat_heap_counters(struct cmstat_heap *heap, u64 *c, u64 *epoch);
int cmstat_heaps_counters(struct cmstat_heap *const *heaps, unsigned int n,
			  u64 *c, u64 *all, u64 *epoch);

/* stats.c: what counters mean; calls nothing in heap.c */
void cmstat_derive(const u64 *c, u64 epoch, struct cmstat_heap_stats *st);
s64 cmstat_counters_live_objects(const u64 *c);
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

#define CMSTAT_NR_STATS_FIELDS	16
extern const struct cmstat_stats_field
	cmstat_stats_fields[CMSTAT_NR_STATS_FIELDS];

static inline u64 cmstat_stats_field(const struct cmstat_heap_stats *st,
				     unsigned int i)
{
	return *(const u64 *)((const char *)st + cmstat_stats_fields[i].offset);
}

/* debugfs.c */
void __init cmstat_debugfs_init(void);
void __exit cmstat_debugfs_exit(void);
struct dentry *cmstat_debugfs_add_heap(const char *name, u64 id);

/* sysfs.c */
int __init cmstat_sysfs_init(void);
void __exit cmstat_sysfs_exit(void);
struct kobject *cmstat_sysfs_add_heap(const char *name);
void cmstat_sysfs_remove(struct kobject *kobj);

/* debug_free.c: hooks that cost a patched-out branch unless debug_free=1 */
void __init cmstat_debug_init(bool enable);
void __exit cmstat_debug_exit(void);
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
