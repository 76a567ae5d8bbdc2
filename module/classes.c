// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat size classes: the table, size-to-class lookup, and the kmem_cache
 * that backs each class.
 *
 * Eight classes per doubling from 128 B to 32 KiB bound the rounding waste
 * at 1/9 (11.1%) of the object from 128 B up, where kmalloc's power-of-two
 * caches waste up to half.  Below 128 B the steps are 8 then 16 bytes, as
 * in Go's table.  Above 32 KiB the classes are powers of two, to 256 KiB:
 * the slab allocator gives objects that large a slab each, of a
 * power-of-two number of pages, so any other size would waste the rest of
 * it; and a cache serves them several times faster than the page
 * allocator behind kmalloc() does.  Documentation/allocator.rst lists
 * every class and its worst waste; Documentation/performance.rst has the
 * figures.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/kernel.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "internal.h"

const u32 cmstat_class_sizes[CMSTAT_NR_CLASSES] = {
	8, 16, 24, 32, 48, 64, 80, 96, 112, 128,
	144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512,
	576, 640, 704, 768, 832, 896, 960, 1024,
	1152, 1280, 1408, 1536, 1664, 1792, 1920, 2048,
	2304, 2560, 2816, 3072, 3328, 3584, 3840, 4096,
	4608, 5120, 5632, 6144, 6656, 7168, 7680, 8192,
	9216, 10240, 11264, 12288, 13312, 14336, 15360, 16384,
	18432, 20480, 22528, 24576, 26624, 28672, 30720, 32768,
	65536, 131072, 262144,
};
EXPORT_SYMBOL_GPL(cmstat_class_sizes);

/*
 * Filled at load, read inline by the allocator (include/cmstat/alloc.h),
 * and read-only after load: a cache pointer that could be overwritten
 * would redirect allocations.
 */
u8 cmstat_class_by_8[CMSTAT_BY_8_ENTRIES] __ro_after_init;
EXPORT_SYMBOL_GPL(cmstat_class_by_8);
u8 cmstat_class_by_128[CMSTAT_BY_128_ENTRIES] __ro_after_init;
EXPORT_SYMBOL_GPL(cmstat_class_by_128);
struct kmem_cache *cmstat_class_caches[CMSTAT_NR_CLASSES] __ro_after_init;
EXPORT_SYMBOL_GPL(cmstat_class_caches);
/* "cmstat-<size>", or "cmstat-<size>.<n>": see cmstat_cache_names(). */
static char class_cache_names[CMSTAT_NR_CLASSES][24];
#define CMSTAT_NAME_SUFFIX_MAX	999

/**
 * cmstat_class_size() - object size of a size class
 * @class: class index, 0 to %CMSTAT_NR_CLASSES - 1
 *
 * Return: the size in bytes, or 0 for a bad index.
 */
size_t cmstat_class_size(unsigned int class)
{
	return class < CMSTAT_NR_CLASSES ? cmstat_class_sizes[class] : 0;
}
EXPORT_SYMBOL_GPL(cmstat_class_size);

/**
 * cmstat_size_to_class() - the size class an allocation of @size uses
 * @size: requested bytes
 *
 * Return: the smallest class that holds @size, or -1 when @size is 0 or
 * above %CMSTAT_MAX_CLASS_SIZE (a large allocation, or none).
 */
int cmstat_size_to_class(size_t size)
{
	if (size == 0 || size > CMSTAT_MAX_CLASS_SIZE)
		return -1;
	return __cmstat_class_lookup(size);
}
EXPORT_SYMBOL_GPL(cmstat_size_to_class);

/**
 * cmstat_alloc_held_bytes() - bytes an allocation of @size really holds
 * @size: requested bytes, 1 to %CMSTAT_ALLOC_MAX
 *
 * Return: the class size, or for a large allocation the whole pages the
 * page allocator hands out (a power-of-two number of pages); 0 when @size
 * is 0 or above the maximum.
 */
size_t cmstat_alloc_held_bytes(size_t size)
{
	if (size == 0 || size > CMSTAT_ALLOC_MAX)
		return 0;
	if (size <= CMSTAT_MAX_CLASS_SIZE)
		return cmstat_class_sizes[__cmstat_class_lookup(size)];
	return PAGE_SIZE << get_order(size);
}
EXPORT_SYMBOL_GPL(cmstat_alloc_held_bytes);

static void __init cmstat_fill_lookup(void)
{
	unsigned int class = 0;
	size_t granule;

	for (granule = 0; granule < CMSTAT_BY_8_ENTRIES; granule++) {
		while (cmstat_class_sizes[class] < granule * 8)
			class++;
		cmstat_class_by_8[granule] = class;
	}
	for (granule = 0, class = 0; granule < CMSTAT_BY_128_ENTRIES;
	     granule++) {
		while (cmstat_class_sizes[class] < granule * 128)
			class++;
		cmstat_class_by_128[granule] = class;
	}
}

/*
 * kmem_cache_destroy() of a cache that still holds objects WARNs (and a
 * panic_on_warn host panics).  Cmstat cannot be unloaded while a heap's
 * statistics show live objects (heap.c holds a reference), but with
 * accounting=0 it cannot see them, and a client may have freed memory
 * with the wrong heap or size: so ask the slab allocator, which knows.  A
 * cache that still holds objects is left allocated, as leaked memory is
 * (the next load names its caches afresh: cmstat_cache_names()).
 *
 * Only CONFIG_SLUB_DEBUG counts a cache's slabs (kmem_cache_shrink() says
 * 0 without it, full slabs or not).  Without it, the statistics decide:
 * with accounting on, cmstat unloads only once every heap's statistics
 * show it empty, and only frees that corrupt memory anyway (of foreign
 * memory, or twice) can make them show fewer objects than the caches
 * hold; with accounting=0 nothing tells, and every cache is left.
 *
 * @loaded is false on a failed load: no client could allocate yet (a
 * module cannot link to one whose init has not returned), the caches are
 * empty by construction and are destroyed.  Not __exit, since the failed
 * load calls it too: the loop over the caches is the same either way, and
 * split in two it would only be written twice.
 */
void cmstat_classes_exit(bool loaded)
{
	bool unknown = loaded && !IS_ENABLED(CONFIG_SLUB_DEBUG) &&
		       !cmstat_accounting_enabled();
	unsigned int class;

	if (unknown)
		pr_warn("accounting=0, and no CONFIG_SLUB_DEBUG to ask the slab allocator: whether the caches still hold objects is unknown; left allocated\n");
	/* Not reset to NULL: read-only once loaded, and never read again. */
	for (class = 0; class < CMSTAT_NR_CLASSES; class++) {
		struct kmem_cache *cache = cmstat_class_caches[class];

		if (!cache || unknown)
			continue;
		if (loaded && IS_ENABLED(CONFIG_SLUB_DEBUG) &&
		    kmem_cache_shrink(cache)) {
			pr_warn("cache %s still holds objects no client freed; left allocated\n",
				class_cache_names[class]);
			continue;
		}
		kmem_cache_destroy(cache);
	}
}

/*
 * The alignment of a class's objects: as kmalloc() aligns an object of
 * @size, for the CPU and for DMA.
 *
 * Power-of-two sizes naturally, others to their largest power-of-two
 * factor.  Not capped at PAGE_SIZE: under KASAN or slub_debug red zones
 * objects are spaced wider than their size, and only this keeps an 8 KiB
 * object 8 KiB aligned.
 *
 * At least kmalloc()'s smallest object, kmalloc_size_roundup(1): its
 * minimum alignment, set at boot by __kmalloc_minalign().  That is a DMA
 * cache line where DMA is not coherent and small buffers cannot be
 * bounced (armhf; arm64 without a swiotlb, as with swiotlb=noforce).
 *
 * And a whole DMA cache line for every size that kmalloc() serves from a
 * bucket of a cache line or more.  Where small kmalloc() buffers are
 * bounced (arm64 with a swiotlb), the DMA API bounces a buffer by its
 * size alone (dma_kmalloc_needs_bounce()), and maps a buffer in place
 * when kmalloc() would have given it whole cache lines: a driver DMAing
 * into a 48-byte object that shared a line with its neighbour would
 * corrupt one of them.  (The DMA API's own test, dma_kmalloc_size_aligned(),
 * is a bucket that is a multiple of the line, or a size of at least
 * 2 * ARCH_DMA_MINALIGN: a bucket of at least a line covers both.)
 * Smaller sizes are bounced, as kmalloc()'s small buckets are.
 * Where DMA is coherent (x86) the line is 1 and kmalloc's minimum 8: the
 * classes keep their own alignment, and their memory use.
 */
static unsigned int __init class_align(u32 size)
{
	size_t line = dma_get_cache_alignment();
	size_t align = max_t(size_t, size & -size, kmalloc_size_roundup(1));

	if (kmalloc_size_roundup(size) >= line)
		align = max(align, line);
	return align;
}

/*
 * Whether a slab cache named @name exists: its directory (or, for a cache
 * merged into another, its link) in /sys/kernel/slab, @slab.  The slab
 * allocator keeps its list of caches to itself.
 */
static bool __init cmstat_cache_name_taken(struct kernfs_node *slab,
					   const char *name)
{
	struct kernfs_node *kn = kernfs_find_and_get(slab, name);

	kernfs_put(kn);
	return kn;
}

/*
 * Name the class caches "cmstat-<size>", unless caches an earlier load
 * left (objects leaked, see cmstat_classes_exit()) hold those names.
 * Where caches cannot merge (hardened usercopy, red zones, KASAN), the
 * slab allocator would make a second cache of the name, silently, and
 * give it the name's /sys/kernel/slab directory, removing the leaked
 * cache's (sysfs_slab_add() in 6.12): two caches of one name in
 * /proc/slabinfo, one of them gone from sysfs.  Then "cmstat-<size>.<n>",
 * the first n free for every class, with one message.
 * slub_debug=...,cmstat-* still matches them.
 */
static int __init cmstat_cache_names(void)
{
	struct kernfs_node *slab = NULL;
	unsigned int class, n;
	u32 taken = 0;

	if (kernel_kobj && kernel_kobj->sd)
		slab = kernfs_find_and_get(kernel_kobj->sd, "slab");
	for (n = 0; n <= CMSTAT_NAME_SUFFIX_MAX; n++) {
		for (class = 0; class < CMSTAT_NR_CLASSES; class++) {
			char *name = class_cache_names[class];
			u32 size = cmstat_class_sizes[class];

			if (n)
				snprintf(name, sizeof(class_cache_names[0]),
					 "cmstat-%u.%u", size, n);
			else
				snprintf(name, sizeof(class_cache_names[0]),
					 "cmstat-%u", size);
			if (slab && cmstat_cache_name_taken(slab, name))
				break;
		}
		if (class == CMSTAT_NR_CLASSES)
			break;
		if (!n)
			taken = cmstat_class_sizes[class];
	}
	kernfs_put(slab);
	if (n > CMSTAT_NAME_SUFFIX_MAX) {
		pr_err("caches of earlier loads still hold objects, under every name up to cmstat-<size>.%u: reboot to load cmstat again\n",
		       CMSTAT_NAME_SUFFIX_MAX);
		return -EEXIST;
	}
	if (n)
		pr_warn("caches of an earlier load still hold objects (cache cmstat-%u exists): this load's are named cmstat-<size>.%u\n",
			taken, n);
	return 0;
}

int __init cmstat_classes_init(void)
{
	struct kmem_cache *cache;
	unsigned int class;
	int err;

	cmstat_fill_lookup();
	err = cmstat_cache_names();
	if (err)
		return err;
	for (class = 0; class < CMSTAT_NR_CLASSES; class++) {
		u32 size = cmstat_class_sizes[class];
		unsigned int align = class_align(size);

		/*
		 * The whole object is a usercopy region, as in kmalloc's
		 * caches: drivers copy_{to,from}_user() their buffers, and
		 * hardened usercopy (on in Debian's kernels) kills a copy
		 * from a cache without one.  Never merged: a free without a
		 * size knows the class by the cache (owner.c), and without
		 * hardened usercopy the region alone would not keep
		 * kmalloc-8 out of cmstat-8.
		 */
		cache = kmem_cache_create_usercopy(class_cache_names[class],
						   size, align,
						   CMSTAT_SLAB_NO_MERGE, 0,
						   size, NULL);
		if (!cache) {
			pr_err("cannot create cache %s\n",
			       class_cache_names[class]);
			cmstat_classes_exit(false);
			return -ENOMEM;
		}
		cmstat_class_caches[class] = cache;
	}
	return 0;
}
