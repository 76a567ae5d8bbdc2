// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat debugfs files, under /sys/kernel/debug/cmstat/:
 *
 *	stats			every heap, orphan, the destroyed heaps and all
 *				heaps together, at one cut
 *	heap_names		names of the live heaps, one per line
 *	all/stats		all heaps together
 *	heaps/<name>/stats	one heap
 *
 * A stats file shows one cut, taken when it is opened: everything read
 * through one open file belongs together, and the rows of "stats" sum to
 * its "all" exactly, as a heap's typed caches sum to its cache_* keys.
 * Documentation/admin-guide.rst describes the format.
 */

#include <linux/debugfs.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * First line of every stats file: format name and version.  3 added the
 * typed-cache table of each record, 4 the site table, 5 the node table.
 */
#define CMSTAT_STATS_FORMAT	"cmstat-stats 5"

static struct dentry *cmstat_debugfs_root;
static struct dentry *cmstat_debugfs_heaps;

/* What a stats file shows of its cut. */
enum cmstat_view_rows {
	CMSTAT_VIEW_EVERYTHING,	/* every row, then all */
	CMSTAT_VIEW_ALL,	/* all alone */
	CMSTAT_VIEW_HEAP,	/* one heap alone */
};

/**
 * struct cmstat_view - an open stats file
 * @cut: its cut
 * @rows: which rows it shows
 * @heap_id: with %CMSTAT_VIEW_HEAP, the heap
 * @st: scratch for the statistics of one row
 * @function: scratch for a site's function, as shown
 * @file: scratch for a site's file, as shown
 */
struct cmstat_view {
	struct cmstat_cut *cut;
	enum cmstat_view_rows rows;
	u64 heap_id;
	struct cmstat_heap_stats st;
	char function[CMSTAT_SITE_FUNCTION_MAX * 3 + 1];
	char file[CMSTAT_SITE_FILE_MAX * 3 + 1];
};

/*
 * The typed-cache table: a row per typed cache of the heap, in the order
 * of its columns; none for the destroyed heaps and all (@caches NULL).
 */
static void cmstat_print_caches(struct seq_file *m, const u64 *c, u64 epoch,
				const struct cmstat_row_cache *caches)
{
	char name[CMSTAT_CACHE_NAME_SHOWN];
	struct cmstat_cache_stats cs;
	unsigned int col;

	seq_puts(m, "cache_name object_bytes mallocs frees live_objects live_bytes\n");
	for (col = 0; caches && col < CMSTAT_HEAP_CACHES; col++) {
		if (!caches[col].size)
			continue;
		cmstat_derive_cache(c, col, caches[col].size, epoch, &cs);
		cmstat_name_show(name, caches[col].name);
		seq_printf(m, "%s %llu %llu %llu %llu %llu\n", name,
			   cs.size_bytes, cs.mallocs, cs.frees, cs.live_objects,
			   cs.live_bytes);
	}
}

/*
 * The site table: a row per site of the heap, by column, the unattributed
 * one first, as "- - 0"; none for a heap without site rows, the destroyed
 * heaps and all.
 */
static void cmstat_print_sites(struct seq_file *m, struct cmstat_view *v,
			       const struct cmstat_site_stats *sites,
			       unsigned int nr_sites)
{
	const struct cmstat_site_stats *row;

	seq_puts(m, "site_function site_file site_line mallocs frees live_objects live_bytes\n");
	for (row = sites; row < sites + nr_sites; row++) {
		if (row->column == CMSTAT_SITE_UNATTRIBUTED) {
			seq_puts(m, "- - 0");
		} else {
			cmstat_name_show(v->function, row->function);
			cmstat_name_show(v->file, row->file);
			seq_printf(m, "%s %s %u", v->function, v->file,
				   row->line);
		}
		seq_printf(m, " %llu %llu %llu %llu\n", row->mallocs, row->frees,
			   row->live_objects, row->live_bytes);
	}
}

/*
 * The node table: a row per possible node, by id, for a heap with site
 * rows; none for the rest.
 */
static void cmstat_print_nodes(struct seq_file *m,
			       const struct cmstat_node_stats *nodes,
			       unsigned int nr_nodes)
{
	const struct cmstat_node_stats *row;

	seq_puts(m, "node mallocs frees live_objects live_bytes\n");
	for (row = nodes; row < nodes + nr_nodes; row++)
		if (node_possible(row->node))
			seq_printf(m, "%d %llu %llu %llu %llu\n", row->node,
				   row->mallocs, row->frees, row->live_objects,
				   row->live_bytes);
}

/*
 * One record: a header line, the key lines, the class table, the
 * typed-cache table, the site table, the node table.  @row: NULL for all.
 */
static void cmstat_print_record(struct seq_file *m, struct cmstat_view *v,
				const char *kind, const char *name,
				const u64 *c, const struct cmstat_row *row)
{
	struct cmstat_heap_stats *st = &v->st;
	unsigned int i;

	cmstat_derive(c, v->cut->epoch, st);
	seq_printf(m, "\n%s%s%s\n", kind, *name ? " " : "", name);
	for (i = 0; i < CMSTAT_NR_STATS_FIELDS; i++)
		seq_printf(m, "%s %llu\n", cmstat_stats_fields[i].name,
			   cmstat_stats_field(st, i));
	seq_puts(m, "class_bytes mallocs frees live_objects live_bytes\n");
	for (i = 0; i < CMSTAT_NR_CLASSES; i++) {
		const struct cmstat_class_stats *cs = &st->classes[i];

		seq_printf(m, "%llu %llu %llu %llu %llu\n", cs->size_bytes,
			   cs->mallocs, cs->frees, cs->live_objects,
			   cs->size_bytes * cs->live_objects);
	}
	if (row && row->kind != CMSTAT_ROW_DESTROYED) {
		cmstat_print_caches(m, c, v->cut->epoch, row->caches);
		cmstat_print_sites(m, v, row->sites, row->nr_sites);
		cmstat_print_nodes(m, row->nodes, row->nr_nodes);
	} else {
		cmstat_print_caches(m, c, v->cut->epoch, NULL);
		cmstat_print_sites(m, v, NULL, 0);
		cmstat_print_nodes(m, NULL, 0);
	}
}

static const char * const cmstat_row_kinds[] = {
	[CMSTAT_ROW_HEAP] = "heap",
	[CMSTAT_ROW_ORPHAN] = "orphan",
	[CMSTAT_ROW_DESTROYED] = "destroyed",
};

/*
 * A stats file is a sequence of records, shown one by one so that seq_file
 * formats each once into its page-sized buffer, whatever the number of
 * heaps: the header (format and epoch) at 0, then the rows its view shows.
 */
static loff_t cmstat_view_records(const struct cmstat_view *v)
{
	switch (v->rows) {
	case CMSTAT_VIEW_EVERYTHING:
		return 1 + v->cut->nr_rows + 1;
	case CMSTAT_VIEW_ALL:
		return 2;
	default:
		return 1 + !!cmstat_cut_find(v->cut, v->heap_id);
	}
}

static void *cmstat_stats_start(struct seq_file *m, loff_t *pos)
{
	return *pos < cmstat_view_records(m->private) ? pos : NULL;
}

static void *cmstat_stats_next(struct seq_file *m, void *p, loff_t *pos)
{
	++*pos;
	return cmstat_stats_start(m, pos);
}

static void cmstat_stats_stop(struct seq_file *m, void *p)
{
}

static int cmstat_stats_show(struct seq_file *m, void *p)
{
	struct cmstat_view *v = m->private;
	const struct cmstat_cut *cut = v->cut;
	loff_t rec = *(loff_t *)p;
	const struct cmstat_row *row;

	if (rec == 0) {
		seq_printf(m, "%s\nepoch %llu\n", CMSTAT_STATS_FORMAT,
			   cut->epoch);
	} else if (v->rows == CMSTAT_VIEW_HEAP) {
		row = cmstat_cut_find(cut, v->heap_id);
		cmstat_print_record(m, v, "heap", row->name, row->c, row);
	} else if (v->rows == CMSTAT_VIEW_EVERYTHING && rec <= cut->nr_rows) {
		row = &cut->rows[rec - 1];
		cmstat_print_record(m, v, cmstat_row_kinds[row->kind],
				    row->name, row->c, row);
	} else {
		cmstat_print_record(m, v, "all", "", cut->all, NULL);
	}
	return 0;
}

static const struct seq_operations cmstat_stats_sops = {
	.start = cmstat_stats_start,
	.next = cmstat_stats_next,
	.stop = cmstat_stats_stop,
	.show = cmstat_stats_show,
};

static int cmstat_stats_open_view(struct file *file,
				  enum cmstat_view_rows rows, u64 heap_id)
{
	struct cmstat_view *v = kmalloc(sizeof(*v), GFP_KERNEL);
	int err;

	if (!v)
		return -ENOMEM;
	v->rows = rows;
	v->heap_id = heap_id;
	/* all/stats has no site table to fill. */
	v->cut = cmstat_cut_take(rows != CMSTAT_VIEW_ALL);
	err = PTR_ERR_OR_ZERO(v->cut);
	if (!err) {
		err = seq_open(file, &cmstat_stats_sops);
		if (err)
			cmstat_cut_free(v->cut);
	}
	if (err) {
		kfree(v);
		return err;
	}
	((struct seq_file *)file->private_data)->private = v;
	return 0;
}

/* i_private: NULL for "stats", &cmstat_debugfs_root for all/stats. */
static int cmstat_stats_open(struct inode *inode, struct file *file)
{
	return cmstat_stats_open_view(file, inode->i_private ?
				      CMSTAT_VIEW_ALL : CMSTAT_VIEW_EVERYTHING, 0);
}

/* i_private: the heap's id (see cmstat_debugfs_add_heap()). */
static int cmstat_heap_stats_open(struct inode *inode, struct file *file)
{
	return cmstat_stats_open_view(file, CMSTAT_VIEW_HEAP,
				      (unsigned long)inode->i_private);
}

static int cmstat_stats_release(struct inode *inode, struct file *file)
{
	struct cmstat_view *v = ((struct seq_file *)file->private_data)->private;

	cmstat_cut_free(v->cut);
	kfree(v);
	return seq_release(inode, file);
}

static const struct file_operations cmstat_stats_fops = {
	.owner = THIS_MODULE,
	.open = cmstat_stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = cmstat_stats_release,
};

static const struct file_operations cmstat_heap_stats_fops = {
	.owner = THIS_MODULE,
	.open = cmstat_heap_stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = cmstat_stats_release,
};

static int cmstat_heaps_list_show(struct seq_file *m, void *unused)
{
	cmstat_heaps_print_names(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cmstat_heaps_list);

/*
 * A heap's file holds the heap's id, not a pointer to it: an open looks
 * the id up in the cut it takes, and finds nothing once the heap is gone.
 * So the file needs no protection from debugfs_remove(), and goes without
 * debugfs's proxy (_unsafe), whose removal waits for every open in
 * progress: an open waits for writer sections, and cmstat_heap_destroy()
 * must not wait for it.  A 32-bit kernel keeps the id's low half, enough
 * for 4 billion heaps; the module itself is held by .owner.
 */
struct dentry *cmstat_debugfs_add_heap(const char *name, u64 id)
{
	struct dentry *dir;

	if (IS_ERR_OR_NULL(cmstat_debugfs_heaps))
		return NULL;
	dir = debugfs_create_dir(name, cmstat_debugfs_heaps);
	debugfs_create_file_unsafe("stats", 0400, dir, (void *)(unsigned long)id,
				   &cmstat_heap_stats_fops);
	return dir;
}

void __init cmstat_debugfs_init(void)
{
	struct dentry *all;

	cmstat_debugfs_root = debugfs_create_dir("cmstat", NULL);
	debugfs_create_file("stats", 0400, cmstat_debugfs_root, NULL,
			    &cmstat_stats_fops);
	debugfs_create_file("heap_names", 0400, cmstat_debugfs_root, NULL,
			    &cmstat_heaps_list_fops);
	cmstat_debugfs_heaps = debugfs_create_dir("heaps", cmstat_debugfs_root);
	all = debugfs_create_dir("all", cmstat_debugfs_root);
	debugfs_create_file("stats", 0400, all, &cmstat_debugfs_root,
			    &cmstat_stats_fops);
}

void cmstat_debugfs_exit(void)
{
	debugfs_remove(cmstat_debugfs_root);
	cmstat_debugfs_root = NULL;
	cmstat_debugfs_heaps = NULL;
}
