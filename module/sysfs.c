// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat sysfs files, under /sys/kernel/cmstat/: all/ for all heaps and
 * heaps/<name>/ per heap, one value per file.
 *
 * Values come from the directory's epoch snapshot: reading "epoch" gives
 * its number, writing 1 to it takes a new one (jemalloc's model), so a tool
 * that writes epoch once and then reads several files gets values that
 * agree.  Documentation/ABI/testing/sysfs-kernel-cmstat is the contract.
 */

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "internal.h"

/**
 * struct cmstat_stats_kobj - a sysfs directory of one heap's statistics
 * @kobj: the directory
 * @heap: the heap, or NULL for all heaps
 * @lock: protects @st
 * @st: the epoch snapshot every value file reads
 */
struct cmstat_stats_kobj {
	struct kobject kobj;
	struct cmstat_heap *heap;
	struct mutex lock;	/* protects @st */
	struct cmstat_heap_stats st;
};

static struct kobject *cmstat_kobj, *cmstat_heaps_kobj;
static struct cmstat_stats_kobj *cmstat_all_kobj;

static struct cmstat_stats_kobj *to_stats_kobj(struct kobject *kobj)
{
	return container_of(kobj, struct cmstat_stats_kobj, kobj);
}

/* A value file: which of cmstat_stats_fields[] it shows. */
struct cmstat_value_attr {
	struct kobj_attribute attr;
	unsigned int field;
};

static ssize_t cmstat_value_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct cmstat_stats_kobj *sk = to_stats_kobj(kobj);
	struct cmstat_value_attr *va =
		container_of(attr, struct cmstat_value_attr, attr);
	u64 value;

	mutex_lock(&sk->lock);
	value = cmstat_stats_field(&sk->st, va->field);
	mutex_unlock(&sk->lock);
	return sysfs_emit(buf, "%llu\n", value);
}

static ssize_t epoch_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct cmstat_stats_kobj *sk = to_stats_kobj(kobj);
	u64 epoch;

	mutex_lock(&sk->lock);
	epoch = sk->st.epoch;
	mutex_unlock(&sk->lock);
	return sysfs_emit(buf, "%llu\n", epoch);
}

/* Only "1" (with or without a newline) takes a new snapshot: not "01". */
static ssize_t epoch_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct cmstat_stats_kobj *sk = to_stats_kobj(kobj);
	struct cmstat_heap_stats *st;
	int err;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	/*
	 * The snapshot is taken under the lock, so concurrent writers store
	 * theirs in the order they took them: epoch never goes backwards.
	 */
	err = mutex_lock_killable(&sk->lock);
	if (!err) {
		err = cmstat_snapshot(sk->heap, st);
		if (!err)
			sk->st = *st;
		mutex_unlock(&sk->lock);
	}
	kfree(st);
	return err ?: count;
}

static struct kobj_attribute cmstat_attr_epoch = __ATTR(epoch, 0600, epoch_show,
							 epoch_store);

static struct cmstat_value_attr cmstat_value_attrs[CMSTAT_NR_STATS_FIELDS];

/* epoch, a value file per field, NULL; filled by cmstat_sysfs_init(). */
static struct attribute *cmstat_stats_attrs[CMSTAT_NR_STATS_FIELDS + 2];
ATTRIBUTE_GROUPS(cmstat_stats);

static void cmstat_stats_release(struct kobject *kobj)
{
	struct cmstat_stats_kobj *sk = to_stats_kobj(kobj);

	mutex_destroy(&sk->lock);
	kfree(sk);
}

static const struct kobj_type cmstat_stats_ktype = {
	.release = cmstat_stats_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cmstat_stats_groups,
};

/* The first epoch is 0: the zeros a new heap starts from. */
static struct cmstat_stats_kobj *
cmstat_stats_kobj_add(struct cmstat_heap *heap, struct kobject *parent,
		      const char *name)
{
	struct cmstat_stats_kobj *sk = kzalloc(sizeof(*sk), GFP_KERNEL);
	unsigned int i;

	if (!sk)
		return NULL;
	sk->heap = heap;
	mutex_init(&sk->lock);
	for (i = 0; i < CMSTAT_NR_CLASSES; i++)
		sk->st.classes[i].size_bytes = cmstat_class_size(i);
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

	cmstat_stats_attrs[0] = &cmstat_attr_epoch.attr;
	for (i = 0; i < CMSTAT_NR_STATS_FIELDS; i++) {
		struct cmstat_value_attr *va = &cmstat_value_attrs[i];

		sysfs_attr_init(&va->attr.attr);
		va->attr.attr.name = cmstat_stats_fields[i].name;
		va->attr.attr.mode = 0400;
		va->attr.show = cmstat_value_show;
		va->field = i;
		cmstat_stats_attrs[i + 1] = &va->attr.attr;
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
	if (!cmstat_heaps_kobj || !cmstat_all_kobj) {
		cmstat_sysfs_exit();
		return -ENOMEM;
	}
	return 0;
}

void cmstat_sysfs_exit(void)
{
	cmstat_sysfs_remove(cmstat_all_kobj);
	kobject_put(cmstat_heaps_kobj);
	kobject_put(cmstat_kobj);
	cmstat_all_kobj = NULL;
	cmstat_heaps_kobj = NULL;
	cmstat_kobj = NULL;
}
