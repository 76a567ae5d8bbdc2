// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat debugfs files, under /sys/kernel/debug/cmstat/:
 *
 *	heap_names		names of the live heaps, one per line
 *	all/stats		all heaps together
 *	heaps/<name>/stats	one heap
 *
 * A stats file is rendered from one snapshot each time it is read from
 * the start, so everything one read() sequence returns is consistent.
 * Documentation/admin-guide.rst describes the format.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"

/* First line of every stats file: format name and version. */
#define CMSTAT_STATS_FORMAT	"cmstat-stats 1"

static struct dentry *cmstat_debugfs_root;
static struct dentry *cmstat_debugfs_heaps;

static void cmstat_print_stats(struct seq_file *m, const char *name,
			       const struct cmstat_heap_stats *st)
{
	unsigned int i;

	seq_puts(m, CMSTAT_STATS_FORMAT "\n");
	seq_printf(m, "heap %s\n", name);
	seq_printf(m, "epoch %llu\n", st->epoch);
	for (i = 0; i < CMSTAT_NR_STATS_FIELDS; i++)
		seq_printf(m, "%s %llu\n", cmstat_stats_fields[i].name,
			   cmstat_stats_field(st, i));
	seq_puts(m, "\nclass_bytes mallocs frees live_objects live_bytes\n");
	for (i = 0; i < CMSTAT_NR_CLASSES; i++) {
		const struct cmstat_class_stats *cs = &st->classes[i];

		seq_printf(m, "%llu %llu %llu %llu %llu\n", cs->size_bytes,
			   cs->mallocs, cs->frees, cs->live_objects,
			   cs->size_bytes * cs->live_objects);
	}
}

/* m->private: the heap, or NULL for all heaps. */
static int cmstat_stats_show(struct seq_file *m, void *unused)
{
	struct cmstat_heap *heap = m->private;
	struct cmstat_heap_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);

	int err = st ? cmstat_snapshot(heap, st) : -ENOMEM;

	if (!err)
		cmstat_print_stats(m, heap ? cmstat_heap_name(heap) : "all", st);
	kfree(st);
	return err;
}
DEFINE_SHOW_ATTRIBUTE(cmstat_stats);

static int cmstat_heaps_list_show(struct seq_file *m, void *unused)
{
	cmstat_heaps_print_names(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cmstat_heaps_list);

/*
 * The files go through debugfs's proxy (debugfs_create_file, not the
 * _unsafe variant): once debugfs_remove() has returned, a reader that
 * still holds one open gets -EIO, and no read runs past it, so the heap
 * can be freed right after.
 */
struct dentry *cmstat_debugfs_add_heap(struct cmstat_heap *heap)
{
	struct dentry *dir;

	if (IS_ERR_OR_NULL(cmstat_debugfs_heaps))
		return NULL;
	dir = debugfs_create_dir(cmstat_heap_name(heap), cmstat_debugfs_heaps);
	debugfs_create_file("stats", 0400, dir, heap, &cmstat_stats_fops);
	return dir;
}

void cmstat_debugfs_init(void)
{
	struct dentry *all;

	cmstat_debugfs_root = debugfs_create_dir("cmstat", NULL);
	debugfs_create_file("heap_names", 0400, cmstat_debugfs_root, NULL,
			    &cmstat_heaps_list_fops);
	cmstat_debugfs_heaps = debugfs_create_dir("heaps", cmstat_debugfs_root);
	all = debugfs_create_dir("all", cmstat_debugfs_root);
	debugfs_create_file("stats", 0400, all, NULL, &cmstat_stats_fops);
}

void cmstat_debugfs_exit(void)
{
	debugfs_remove(cmstat_debugfs_root);
	cmstat_debugfs_root = NULL;
	cmstat_debugfs_heaps = NULL;
}
