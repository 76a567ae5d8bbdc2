// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat sysfs files, under /sys/kernel/cmstat/: epoch, then all/ for all
 * heaps and heaps/<name>/ per heap, one value per file.
 *
 * Every value comes from one cut, the epoch: reading "epoch" gives its
 * number, writing 1 to it takes a new one of every heap at once (jemalloc's
 * model), so a tool that writes epoch once and then reads files of several
 * directories gets values that agree, and heaps that sum to all/.
 * Documentation/ABI/testing/sysfs-kernel-cmstat is the contract.
 */

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "internal.h"

/*
 * The directories are plain kobjects of the kernel's own type: their
 * release, which CONFIG_DEBUG_KOBJECT_RELEASE runs seconds after the last
 * put, is the kernel's, never code of cmstat.ko, which may be gone by
 * then.  So a heap's directory holds no pointer: a value file finds its
 * heap by the directory's name, among the live heaps.
 */
static struct kobject *cmstat_kobj, *cmstat_heaps_kobj, *cmstat_all_kobj;

/*
 * The epoch's cut, NULL until the first write to epoch.  The lock is held
 * only to read or swap the pointer, never across a cut, so a value file
 * never waits for a writer section.
 */
static struct cmstat_cut *cmstat_epoch_cut;
static DEFINE_MUTEX(cmstat_epoch_lock);	/* protects cmstat_epoch_cut */

/* A value file: which of cmstat_stats_fields[] it shows. */
struct cmstat_value_attr {
	struct kobj_attribute attr;
	unsigned int field;
};

/*
 * A heap created after the epoch's cut, and every heap before the first
 * write to epoch, shows zeros: what it held at that instant.  Removing a
 * heap's directory waits for the shows running on it (kernfs drains
 * them), so a heap found here by name is the directory's own.
 */
static ssize_t cmstat_value_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct cmstat_value_attr *va =
		container_of(attr, struct cmstat_value_attr, attr);
	bool all = kobj == cmstat_all_kobj;
	u64 id = all ? 0 : cmstat_heap_id(kobject_name(kobj));
	struct cmstat_heap_stats *st = kzalloc(sizeof(*st), GFP_KERNEL);
	const struct cmstat_cut *cut;
	const struct cmstat_row *row;
	u64 value;

	if (!st)
		return -ENOMEM;
	mutex_lock(&cmstat_epoch_lock);
	cut = cmstat_epoch_cut;
	if (cut && all) {
		cmstat_derive(cut->all, cut->epoch, st);
	} else if (cut && id) {
		row = cmstat_cut_find(cut, id);
		if (row)
			cmstat_derive(row->c, cut->epoch, st);
	}
	mutex_unlock(&cmstat_epoch_lock);
	value = cmstat_stats_field(st, va->field);
	kfree(st);
	return sysfs_emit(buf, "%llu\n", value);
}

static ssize_t epoch_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	u64 epoch;

	mutex_lock(&cmstat_epoch_lock);
	epoch = cmstat_epoch_cut ? cmstat_epoch_cut->epoch : 0;
	mutex_unlock(&cmstat_epoch_lock);
	return sysfs_emit(buf, "%llu\n", epoch);
}

/*
 * Only "1" (with or without a newline) takes a new cut: not "01".  The cut
 * is taken without the lock, killably; concurrent writers may finish in
 * any order, and the newest cut is kept, so epoch never goes backwards.
 */
static ssize_t epoch_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct cmstat_cut *cut;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	cut = cmstat_cut_take();
	if (IS_ERR(cut))
		return PTR_ERR(cut);
	mutex_lock(&cmstat_epoch_lock);
	if (!cmstat_epoch_cut || cut->epoch > cmstat_epoch_cut->epoch)
		swap(cut, cmstat_epoch_cut);
	mutex_unlock(&cmstat_epoch_lock);
	kvfree(cut);
	return count;
}

static struct kobj_attribute cmstat_attr_epoch = __ATTR(epoch, 0600, epoch_show,
							 epoch_store);

static struct cmstat_value_attr cmstat_value_attrs[CMSTAT_NR_STATS_FIELDS];

/* A value file per field, NULL; filled by cmstat_sysfs_init(). */
static struct attribute *cmstat_stats_attrs[CMSTAT_NR_STATS_FIELDS + 1];

static const struct attribute_group cmstat_stats_group = {
	.attrs = cmstat_stats_attrs,
};

static struct kobject *cmstat_stats_dir_add(struct kobject *parent,
					    const char *name)
{
	struct kobject *kobj = kobject_create_and_add(name, parent);

	if (kobj && sysfs_create_group(kobj, &cmstat_stats_group)) {
		kobject_put(kobj);
		kobj = NULL;
	}
	return kobj;
}

/*
 * Removed from sysfs now, not at the last put: the name is free for a new
 * heap's directory at once.  Removal waits for the callbacks running on
 * the directory's files, and later opens fail, so the heap can be freed
 * as soon as this returns.
 */
void cmstat_sysfs_remove(struct kobject *kobj)
{
	if (!kobj)
		return;
	kobject_del(kobj);
	kobject_put(kobj);
}

struct kobject *cmstat_sysfs_add_heap(const char *name)
{
	if (!cmstat_heaps_kobj)
		return NULL;
	return cmstat_stats_dir_add(cmstat_heaps_kobj, name);
}

static void __init cmstat_value_attrs_init(void)
{
	unsigned int i;

	for (i = 0; i < CMSTAT_NR_STATS_FIELDS; i++) {
		struct cmstat_value_attr *va = &cmstat_value_attrs[i];

		sysfs_attr_init(&va->attr.attr);
		va->attr.attr.name = cmstat_stats_fields[i].name;
		va->attr.attr.mode = 0400;
		va->attr.show = cmstat_value_show;
		va->field = i;
		cmstat_stats_attrs[i] = &va->attr.attr;
	}
}

/* The directories and the epoch file: on a failed load, and at unload. */
static void cmstat_sysfs_remove_dirs(void)
{
	if (cmstat_kobj)
		sysfs_remove_file(cmstat_kobj, &cmstat_attr_epoch.attr);
	cmstat_sysfs_remove(cmstat_all_kobj);
	cmstat_sysfs_remove(cmstat_heaps_kobj);
	cmstat_sysfs_remove(cmstat_kobj);
	cmstat_all_kobj = NULL;
	cmstat_heaps_kobj = NULL;
	cmstat_kobj = NULL;
}

int __init cmstat_sysfs_init(void)
{
	cmstat_value_attrs_init();
	cmstat_kobj = kobject_create_and_add("cmstat", kernel_kobj);
	if (!cmstat_kobj)
		return -ENOMEM;
	cmstat_heaps_kobj = kobject_create_and_add("heaps", cmstat_kobj);
	cmstat_all_kobj = cmstat_stats_dir_add(cmstat_kobj, "all");
	if (!cmstat_heaps_kobj || !cmstat_all_kobj ||
	    sysfs_create_file(cmstat_kobj, &cmstat_attr_epoch.attr)) {
		cmstat_sysfs_remove_dirs();
		return -ENOMEM;
	}
	return 0;
}

/* After the files are gone, no read can cache a cut any more. */
void __exit cmstat_sysfs_exit(void)
{
	cmstat_sysfs_remove_dirs();
	kvfree(cmstat_epoch_cut);
	cmstat_epoch_cut = NULL;
}
