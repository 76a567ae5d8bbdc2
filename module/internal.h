/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared between cmstat's own source files, not exported. */
#ifndef _CMSTAT_INTERNAL_H
#define _CMSTAT_INTERNAL_H

#include <linux/jump_label.h>

#include <cmstat/alloc.h>
#include <cmstat/counters.h>

/* counters.c */
void cmstat_accounting_init(bool enable);

/* classes.c */
int cmstat_classes_init(void);
void cmstat_classes_exit(void);
struct kmem_cache *cmstat_class_cache(unsigned int class);
size_t cmstat_class_held_bytes(int class, size_t size);

/* heap.c */
int cmstat_heaps_init(void);
void cmstat_heaps_free_all(void);
void cmstat_heaps_exit(void);
void cmstat_account_alloc(struct cmstat_heap *heap, int class, size_t size,
			  size_t held);
void cmstat_account_free(struct cmstat_heap *heap, int class, size_t size,
			 size_t held);
void cmstat_account_failure(struct cmstat_heap *heap);
struct seq_file;
void cmstat_heaps_print_names(struct seq_file *m);
int cmstat_snapshot(struct cmstat_heap *heap, struct cmstat_heap_stats *st);

/* debugfs.c */
struct dentry;
void cmstat_debugfs_init(void);
void cmstat_debugfs_exit(void);
struct dentry *cmstat_debugfs_add_heap(struct cmstat_heap *heap);

/* sysfs.c */
struct cmstat_stats_kobj;
int cmstat_sysfs_init(void);
void cmstat_sysfs_exit(void);
struct cmstat_stats_kobj *cmstat_sysfs_add_heap(struct cmstat_heap *heap);
void cmstat_sysfs_remove(struct cmstat_stats_kobj *sk);

/* alloc.c */
void cmstat_release(int class, const void *obj);

/* debug_free.c: hooks that cost a patched-out branch unless debug_free=1 */
DECLARE_STATIC_KEY_FALSE(cmstat_debug_free_key);
void cmstat_debug_init(bool enable);
void cmstat_debug_exit(void);
int __cmstat_debug_track(struct cmstat_heap *heap, const void *obj,
			 size_t size, gfp_t gfp);
bool __cmstat_debug_untrack(struct cmstat_heap *heap, const void *obj,
			    size_t size);

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

#endif /* _CMSTAT_INTERNAL_H */
