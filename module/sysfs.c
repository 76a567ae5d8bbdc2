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

/**
 * struct cmstat_stats_kobj - a sysfs directory of one heap's statistics
 * @kobj: the directory
 * @heap: the heap, or NULL for all heaps
 */
struct cmstat_stats_kobj {
	struct kobject kobj;
	struct cmstat_heap *heap;
};

static struct kobject *cmstat_kobj, *cmstat_heaps_kobj;
static struct cmstat_stats_kobj *cmstat_all_kobj;

/* The epoch's cut, NULL until the first write to epoch. */
static struct cmstat_cut *cmstat_epoch_cut;
static DEFINE_MUTEX(cmstat_epoch_lock);	/* protects cmstat_epoch_cut */

static struct cmstat_stats_kobj *to_stats_kobj(struct kobject *kobj)
{
	return container_of(kobj, struct cmstat_stats_kobj, kobj);
}

/* A value file: which of cmstat_stats_fields[] it shows. */
struct cmstat_value_attr {
	struct kobj_attribute attr;
	unsigned int field;
};

/*
 * A heap created after the epoch's cut, and every heap before the first
 * write to epoch, shows zeros: what it held at that instant.
 */
static ssize_t cmstat_value_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct cmstat_stats_kobj *sk = to_stats_kobj(kobj);
	struct cmstat_value_attr *va =
		container_of(attr, struct cmstat_value_attr, attr);
	struct cmstat_heap_stats *st = kzalloc(sizeof(*st), GFP_KERNEL);
	const struct cmstat_cut *cut;
	const struct cmstat_row *row;
	u64 value;

	if (!st)
		return -ENOMEM;
	mutex_lock(&cmstat_epoch_lock);
	cut = cmstat_epoch_cut;
	if (cut && !sk->heap) {
		cmstat_derive(cut->all, cut->epoch, st);
	} else if (cut) {
		row = cmstat_cut_find(cut, sk->heap->id);
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
 * Only "1" (with or without a newline) takes a new cut: not "01".  Taken
 * under the lock, so concurrent writers store theirs in the order they took
 * them: epoch never goes backwards.
 */
static ssize_t epoch_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct cmstat_cut *cut;
	int err;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	err = mutex_lock_killable(&cmstat_epoch_lock);
	if (err)
		return err;
	cut = cmstat_cut_take();
	err = PTR_ERR_OR_ZERO(cut);
	if (!err) {
		kvfree(cmstat_epoch_cut);
		cmstat_epoch_cut = cut;
	}
	mutex_unlock(&cmstat_epoch_lock);
	return err ?: count;
}

static struct kobj_attribute cmstat_attr_epoch = __ATTR(epoch, 0600, epoch_show,
							 epoch_store);

static struct cmstat_value_attr cmstat_value_attrs[CMSTAT_NR_STATS_FIELDS];

/* A value file per field, NULL; filled by cmstat_sysfs_init(). */
static struct attribute *cmstat_stats_attrs[CMSTAT_NR_STATS_FIELDS + 1];
ATTRIBUTE_GROUPS(cmstat_stats);

static void cmstat_stats_release(struct kobject *kobj)
{
	kfree(to_stats_kobj(kobj));
}

static const struct kobj_type cmstat_stats_ktype = {
	.release = cmstat_stats_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cmstat_stats_groups,
};

static struct cmstat_stats_kobj *
cmstat_stats_kobj_add(struct cmstat_heap *heap, struct kobject *parent,
		      const char *name)
{
	struct cmstat_stats_kobj *sk = kzalloc(sizeof(*sk), GFP_KERNEL);

	if (!sk)
		return NULL;
	sk->heap = heap;
	if (kobject_init_and_add(&sk->kobj, &cmstat_stats_ktype, parent, "%s",
				 name)) {
		kobject_put(&sk->kobj);
		return NULL;
	}
	return sk;
}

/*
 * Removal waits for the callbacks running on the directory's files (kernfs
 * drains their active references), and later reads get -ENODEV, so the
 * heap can be freed as soon as this returns.
 */
void cmstat_sysfs_remove(struct cmstat_stats_kobj *sk)
{
	if (!sk)
		return;
	kobject_del(&sk->kobj);
	kobject_put(&sk->kobj);
}

struct cmstat_stats_kobj *cmstat_sysfs_add_heap(struct cmstat_heap *heap)
{
	if (!cmstat_heaps_kobj)
		return NULL;
	return cmstat_stats_kobj_add(heap, cmstat_heaps_kobj,
				     cmstat_heap_name(heap));
}

static void cmstat_value_attrs_init(void)
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

int cmstat_sysfs_init(void)
{
	cmstat_value_attrs_init();
	cmstat_kobj = kobject_create_and_add("cmstat", kernel_kobj);
	if (!cmstat_kobj)
		return -ENOMEM;
	cmstat_heaps_kobj = kobject_create_and_add("heaps", cmstat_kobj);
	cmstat_all_kobj = cmstat_stats_kobj_add(NULL, cmstat_kobj, "all");
	if (!cmstat_heaps_kobj || !cmstat_all_kobj ||
	    sysfs_create_file(cmstat_kobj, &cmstat_attr_epoch.attr)) {
		cmstat_sysfs_exit();
		return -ENOMEM;
	}
	return 0;
}

void cmstat_sysfs_exit(void)
{
	if (cmstat_kobj)
		sysfs_remove_file(cmstat_kobj, &cmstat_attr_epoch.attr);
	cmstat_sysfs_remove(cmstat_all_kobj);
	kobject_put(cmstat_heaps_kobj);
	kobject_put(cmstat_kobj);
	cmstat_all_kobj = NULL;
	cmstat_heaps_kobj = NULL;
	cmstat_kobj = NULL;
	kvfree(cmstat_epoch_cut);
	cmstat_epoch_cut = NULL;
}
