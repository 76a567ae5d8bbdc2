// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat sysfs files, under /sys/kernel/cmstat/: epoch, then all/ for all
 * heaps and heaps/<name>/ per heap, one value per file, and in the latter
 * caches/<cache>/ per typed cache of the heap.
 *
 * Every value comes from one cut, the epoch: reading "epoch" gives its
 * number, writing 1 to it takes a new one of every heap at once (jemalloc's
 * model), so a tool that writes epoch once and then reads files of several
 * directories gets values that agree, and heaps that sum to all/.
 * Documentation/ABI/testing/sysfs-kernel-cmstat is the contract.
 */

#include <linux/ctype.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/string.h>
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
	cut = cmstat_cut_take(false);
	if (IS_ERR(cut))
		return PTR_ERR(cut);
	mutex_lock(&cmstat_epoch_lock);
	if (!cmstat_epoch_cut || cut->epoch > cmstat_epoch_cut->epoch)
		swap(cut, cmstat_epoch_cut);
	mutex_unlock(&cmstat_epoch_lock);
	cmstat_cut_free(cut);
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

/* parent/name/, with the files of @group. */
static struct kobject *
cmstat_stats_dir_add_group(struct kobject *parent, const char *name,
			   const struct attribute_group *group)
{
	struct kobject *kobj = kobject_create_and_add(name, parent);

	if (kobj && sysfs_create_group(kobj, group)) {
		kobject_del(kobj);
		kobject_put(kobj);
		kobj = NULL;
	}
	return kobj;
}

static struct kobject *cmstat_stats_dir_add(struct kobject *parent,
					    const char *name)
{
	return cmstat_stats_dir_add_group(parent, name, &cmstat_stats_group);
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

/* heaps/<name>/, and in it caches/ (in *@caches, or NULL). */
struct kobject *cmstat_sysfs_add_heap(const char *name,
				      struct kobject **caches)
{
	struct kobject *kobj;

	*caches = NULL;
	if (!cmstat_heaps_kobj)
		return NULL;
	kobj = cmstat_stats_dir_add(cmstat_heaps_kobj, name);
	if (kobj)
		*caches = kobject_create_and_add("caches", kobj);
	return kobj;
}

/**
 * cmstat_name_show() - a name as cmstat's files show it
 * @buf: three bytes per byte of @name, and one more; at least four
 * @name: a typed cache's name, or a call site's function or file
 *
 * Percent-encoded (RFC 3986): every byte but the ASCII letters and digits,
 * '_', '-' and '.' as %XX, in upper-case hex.  So the name is one word of
 * the stats file, a label value needing no escapes, and a file name: the
 * dots of "." and ".." are encoded too, and the empty name (a string
 * cannot hold a NUL) is "%00".  Kernel cache names ("ext4_inode_cache",
 * "kmalloc-rcl-8", "TCP") show as they are.
 */
void cmstat_name_show(char *buf, const char *name)
{
	bool dots = !strcmp(name, ".") || !strcmp(name, "..");
	const unsigned char *p = (const unsigned char *)name;

	if (!*p) {
		strscpy(buf, "%00", 4);
		return;
	}
	for (; *p; p++) {
		/* isascii() first: ctype calls Latin-1 0xc0-0xff letters. */
		if (isascii(*p) && (isalnum(*p) || *p == '_' || *p == '-' ||
				    (*p == '.' && !dots))) {
			*buf++ = *p;
		} else {
			*buf++ = '%';
			buf = hex_byte_pack_upper(buf, *p);
		}
	}
	*buf = '\0';
}

/* The values of a typed cache's directory. */
enum {
	CMSTAT_CV_OBJECT_BYTES,
	CMSTAT_CV_MALLOCS,
	CMSTAT_CV_FREES,
	CMSTAT_CV_LIVE_OBJECTS,
	CMSTAT_CV_LIVE_BYTES,
	CMSTAT_NR_CACHE_VALUES
};

static const char * const cmstat_cache_value_names[] = {
	[CMSTAT_CV_OBJECT_BYTES] = "object_bytes",
	[CMSTAT_CV_MALLOCS] = "mallocs",
	[CMSTAT_CV_FREES] = "frees",
	[CMSTAT_CV_LIVE_OBJECTS] = "live_objects",
	[CMSTAT_CV_LIVE_BYTES] = "live_bytes",
};

struct cmstat_cache_value_attr {
	struct kobj_attribute attr;
	struct cmstat_sysfs_cache *sc;
	unsigned int value;
};

/**
 * struct cmstat_sysfs_cache - a typed cache's directory
 * @kobj: heaps/<heap>/caches/<name>/
 * @heap_id: its heap's id, which finds the heap's row in a cut
 * @column: the cache's column of the heap's counters
 * @size: its object size
 * @name: its name, unencoded
 * @values: its value files, which find all of the above through @sc
 * @attrs: those, NULL-terminated
 * @group: of @attrs
 *
 * The value files are the directory's own, freed with it once the
 * directory is gone (no read runs on them then): the kobject itself stays
 * a plain one of the kernel's type, as the heaps' directories.
 */
struct cmstat_sysfs_cache {
	struct kobject *kobj;
	u64 heap_id;
	unsigned int column;
	unsigned int size;
	char name[CMSTAT_CACHE_NAME_MAX + 1];
	struct cmstat_cache_value_attr values[CMSTAT_NR_CACHE_VALUES];
	struct attribute *attrs[CMSTAT_NR_CACHE_VALUES + 1];
	struct attribute_group group;
};

/* Serializes the directories' creation: two caches of one name. */
static DEFINE_MUTEX(cmstat_cache_dirs_lock);

/*
 * From the epoch's cut, as the heap's files: the cache found there in its
 * column, by its name and size; zeros but the object size if the cut has
 * not got it (the cut is older than the cache, or than its heap).
 */
static ssize_t cmstat_cache_value_show(struct kobject *kobj,
				       struct kobj_attribute *attr, char *buf)
{
	struct cmstat_cache_value_attr *va =
		container_of(attr, struct cmstat_cache_value_attr, attr);
	const struct cmstat_sysfs_cache *sc = va->sc;
	struct cmstat_cache_stats cs = { .size_bytes = sc->size };
	const struct cmstat_row_cache *rc;
	const struct cmstat_cut *cut;
	const struct cmstat_row *row;
	u64 v[CMSTAT_NR_CACHE_VALUES];

	mutex_lock(&cmstat_epoch_lock);
	cut = cmstat_epoch_cut;
	row = cut ? cmstat_cut_find(cut, sc->heap_id) : NULL;
	rc = row ? &row->caches[sc->column] : NULL;
	if (rc && rc->size == sc->size && !strcmp(rc->name, sc->name))
		cmstat_derive_cache(row->c, sc->column, sc->size, cut->epoch,
				    &cs);
	mutex_unlock(&cmstat_epoch_lock);
	v[CMSTAT_CV_OBJECT_BYTES] = cs.size_bytes;
	v[CMSTAT_CV_MALLOCS] = cs.mallocs;
	v[CMSTAT_CV_FREES] = cs.frees;
	v[CMSTAT_CV_LIVE_OBJECTS] = cs.live_objects;
	v[CMSTAT_CV_LIVE_BYTES] = cs.live_bytes;
	return sysfs_emit(buf, "%llu\n", v[va->value]);
}

/**
 * cmstat_sysfs_add_cache() - a typed cache's directory
 * @caches: its heap's caches/ directory, or NULL
 * @heap_id: its heap's id
 * @column: its column of the heap's counters
 * @size: its object size
 * @name: its name
 *
 * Named as cmstat_name_show() shows @name.  Best effort, as the
 * heap's directory: a cache whose name another of the heap's caches has
 * already gets none (the kernel would warn of the duplicate).  Process
 * context.
 *
 * Return: the directory, for cmstat_sysfs_remove_cache(); or NULL.
 */
struct cmstat_sysfs_cache *cmstat_sysfs_add_cache(struct kobject *caches,
						  u64 heap_id,
						  unsigned int column,
						  unsigned int size,
						  const char *name)
{
	char shown[CMSTAT_CACHE_NAME_SHOWN];
	struct cmstat_sysfs_cache *sc;
	struct kernfs_node *dup;
	unsigned int i;

	if (!caches)
		return NULL;
	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		return NULL;
	sc->heap_id = heap_id;
	sc->column = column;
	sc->size = size;
	strscpy(sc->name, name, sizeof(sc->name));
	for (i = 0; i < CMSTAT_NR_CACHE_VALUES; i++) {
		struct cmstat_cache_value_attr *va = &sc->values[i];

		sysfs_attr_init(&va->attr.attr);
		va->attr.attr.name = cmstat_cache_value_names[i];
		va->attr.attr.mode = 0400;
		va->attr.show = cmstat_cache_value_show;
		va->sc = sc;
		va->value = i;
		sc->attrs[i] = &va->attr.attr;
	}
	sc->group.attrs = sc->attrs;
	cmstat_name_show(shown, sc->name);

	mutex_lock(&cmstat_cache_dirs_lock);
	dup = sysfs_get_dirent(caches->sd, shown);
	if (dup)
		sysfs_put(dup);
	else
		sc->kobj = cmstat_stats_dir_add_group(caches, shown, &sc->group);
	mutex_unlock(&cmstat_cache_dirs_lock);
	if (!sc->kobj) {
		kfree(sc);
		return NULL;
	}
	return sc;
}

/* Remove and free @sc (NULL is a no-op), once no read runs on it. */
void cmstat_sysfs_remove_cache(struct cmstat_sysfs_cache *sc)
{
	if (!sc)
		return;
	cmstat_sysfs_remove(sc->kobj);
	kfree(sc);
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
void cmstat_sysfs_exit(void)
{
	cmstat_sysfs_remove_dirs();
	cmstat_cut_free(cmstat_epoch_cut);
	cmstat_epoch_cut = NULL;
}
