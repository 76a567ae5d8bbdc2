// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat's objects, told from others': for the frees that come without a
 * size or a cache (cmstat_kfree() and its family), which must free
 * anything kfree() frees and count only what a heap allocated.
 *
 * A slab object is cmstat's if the cache its slab records
 * (cmstat_slab_cache_of()) is a size class's or a typed cache's: the
 * class caches are in a table filled at load, the typed caches in a hash
 * table under RCU.  None of them is ever merged with another owner's
 * cache (CMSTAT_SLAB_NO_MERGE, and the class caches' usercopy regions),
 * so the test is exact.  Above the largest class, allocations come from
 * the page allocator, whose pages record no owner: cmstat records each of
 * those itself, by address, in an xarray.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "internal.h"

/* Set at load, read-only after: see internal.h. */
unsigned long cmstat_linear_span __ro_after_init;
unsigned long cmstat_class_hash_mult __ro_after_init;
struct kmem_cache *cmstat_class_by_cache[1 << CMSTAT_CLASS_HASH_BITS]
	__ro_after_init;
u8 cmstat_class_of_slot[1 << CMSTAT_CLASS_HASH_BITS] __ro_after_init;

/* The class whose cache is @s, or -1: probes from its home slot. */
static int cmstat_class_of_cache(const struct kmem_cache *s)
{
	unsigned int slot = cmstat_class_slot(s, cmstat_class_hash_mult);
	const struct kmem_cache *in_slot;

	while ((in_slot = cmstat_class_by_cache[slot]) != s) {
		if (!in_slot)
			return -1;
		slot = (slot + 1) & ((1 << CMSTAT_CLASS_HASH_BITS) - 1);
	}
	return cmstat_class_of_slot[slot];
}

/* The typed caches, by their slab cache; changed under the lock. */
static DEFINE_HASHTABLE(cmstat_typed_caches, 6);
static DEFINE_SPINLOCK(cmstat_typed_caches_lock);

/*
 * Large allocations, by address, in an xarray value: bit 0 set when
 * vmalloc() gave them (cmstat_kvmalloc_node()), the column of their call
 * site in a heap with site rows above it, and the bytes asked for above
 * that.  A 32-bit value has no room for a column beside a size of up to
 * a GiB: there, large allocations count unattributed.
 */
#define CMSTAT_LARGE_COL_BITS	(BITS_PER_LONG == 64 ? CMSTAT_SITE_COL_BITS : 0)
#define CMSTAT_LARGE_SIZE_SHIFT	(1 + CMSTAT_LARGE_COL_BITS)
static DEFINE_XARRAY_FLAGS(cmstat_large_objs, XA_FLAGS_LOCK_IRQ);

/**
 * cmstat_cache_of_slab() - the typed cache whose slab cache this is, of any heap
 * @s: a slab cache, any: the kernel's, a typed cache's, or NULL
 *
 * What include/cmstat/adopt.h's kmem_cache_*() calls fall back on when
 * the cache they are given is not one of their own heap's
 * (cmstat_heap_cache_of()): another adopted module's, whose header's
 * inline allocates from it (jbd2_alloc_inode() in ext4, with jbd2
 * adopted too) and must count in that module's heap, or the kernel's.
 * A hash table under RCU, in any context.  The cache returned stays
 * valid as long as the caller may use @s: destroying a cache that
 * another module still allocates from is that module's bug, as with the
 * kernel's caches.
 *
 * Return: the typed cache, or NULL if @s is no typed cache's.
 */
struct cmstat_cache *cmstat_cache_of_slab(const struct kmem_cache *s)
{
	struct cmstat_cache_priv *cp;
	struct cmstat_cache *cc = NULL;

	if (!s)
		return NULL;
	rcu_read_lock();
	hash_for_each_possible_rcu(cmstat_typed_caches, cp, hash,
				   (unsigned long)s)
		if (cp->cc.slab == s) {
			cc = &cp->cc;
			break;
		}
	rcu_read_unlock();
	return cc;
}
EXPORT_SYMBOL_GPL(cmstat_cache_of_slab);

static int cmstat_large_entry_col(void *entry)
{
	return (xa_to_value(entry) >> 1) & (BIT(CMSTAT_LARGE_COL_BITS) - 1);
}

/**
 * cmstat_owner_of() - what @obj is, as far as cmstat can tell
 * @obj: memory to be freed: valid, not NULL nor ZERO_SIZE_PTR
 * @owner: filled in
 *
 * No side effect: the free that follows decides what to do with it.
 */
void cmstat_owner_of(const void *obj, struct cmstat_owner *owner)
{
	struct kmem_cache *s = cmstat_slab_cache_of(obj);
	void *entry;
	int class;

	memset(owner, 0, sizeof(*owner));
	if (s) {
		class = cmstat_class_of_cache(s);
		if (class >= 0) {
			owner->kind = CMSTAT_OWNER_CLASS;
			owner->class = class;
			return;
		}
		owner->cc = cmstat_cache_of_slab(s);
		if (owner->cc)
			owner->kind = CMSTAT_OWNER_CACHE;
		return;
	}
	entry = xa_load(&cmstat_large_objs, (unsigned long)obj);
	if (entry) {
		owner->kind = CMSTAT_OWNER_LARGE;
		owner->size = xa_to_value(entry) >> CMSTAT_LARGE_SIZE_SHIFT;
		owner->col = cmstat_large_entry_col(entry);
		owner->vmalloc = xa_to_value(entry) & 1;
	}
}

/* The column the record of @obj, a large allocation, keeps; 0 if none. */
int cmstat_large_col(const void *obj)
{
	void *entry = xa_load(&cmstat_large_objs, (unsigned long)obj);

	return entry ? cmstat_large_entry_col(entry) : 0;
}

/* Make @cp's objects known to cmstat_owner_of(). */
void cmstat_owner_add_cache(struct cmstat_cache_priv *cp)
{
	spin_lock(&cmstat_typed_caches_lock);
	hash_add_rcu(cmstat_typed_caches, &cp->hash, (unsigned long)cp->cc.slab);
	spin_unlock(&cmstat_typed_caches_lock);
}

/* And forget them: the caller frees @cp after a grace period. */
void cmstat_owner_del_cache(struct cmstat_cache_priv *cp)
{
	spin_lock(&cmstat_typed_caches_lock);
	hash_del_rcu(&cp->hash);
	spin_unlock(&cmstat_typed_caches_lock);
}

/**
 * cmstat_large_record() - record a large allocation as cmstat's
 * @obj: what the page allocator (or vmalloc()) gave
 * @size: the bytes asked for
 * @vmalloc: whether vmalloc() gave it
 * @col: its call site's column in a heap with site rows, or 0
 * @gfp: the allocation's flags: the record is made in its context
 *
 * Return: 0, or -ENOMEM (then the caller frees @obj and fails).
 */
int cmstat_large_record(const void *obj, size_t size, bool vmalloc, int col,
			gfp_t gfp)
{
	unsigned long col_bits = col & (BIT(CMSTAT_LARGE_COL_BITS) - 1);
	void *entry = xa_mk_value(size << CMSTAT_LARGE_SIZE_SHIFT |
				  col_bits << 1 | vmalloc);
	unsigned long flags;

	/* Any context the allocation may run in, hardirq included. */
	xa_lock_irqsave(&cmstat_large_objs, flags);
	entry = __xa_store(&cmstat_large_objs, (unsigned long)obj, entry,
			   gfp & ~__GFP_ZERO);
	xa_unlock_irqrestore(&cmstat_large_objs, flags);
	return xa_err(entry);
}

/* Forget a large allocation: it is being freed. */
void cmstat_large_forget(const void *obj)
{
	unsigned long flags;

	xa_lock_irqsave(&cmstat_large_objs, flags);
	__xa_erase(&cmstat_large_objs, (unsigned long)obj);
	xa_unlock_irqrestore(&cmstat_large_objs, flags);
}

/*
 * The object a cache gives must be found in that cache, and a kmalloc()
 * object in none of cmstat's: else cmstat_slab_cache_of() does not know
 * this kernel's struct slab, and cmstat_kfree() would miscount.
 */
static int __init cmstat_owner_selftest(void)
{
	struct cmstat_owner owner;
	void *mine, *theirs;
	int err = 0;

	mine = kmem_cache_alloc(cmstat_class_caches[0], GFP_KERNEL);
	theirs = kmalloc(8, GFP_KERNEL);
	if (!mine || !theirs) {
		err = -ENOMEM;
		goto out;
	}
	cmstat_owner_of(mine, &owner);
	if (owner.kind != CMSTAT_OWNER_CLASS || owner.class != 0)
		err = -ENODEV;
	cmstat_owner_of(theirs, &owner);
	if (owner.kind != CMSTAT_OWNER_FOREIGN)
		err = -ENODEV;
	cmstat_owner_of(&owner, &owner);	/* a stack address */
	if (owner.kind != CMSTAT_OWNER_FOREIGN)
		err = -ENODEV;
	if (err)
		pr_err("this kernel's slab allocator does not record an object's cache where include/cmstat/compat.h looks for it: frees without a size could not tell cmstat's objects\n");
out:
	kfree(theirs);
	kfree(mine);
	return err;
}

/* Whether @mult gives each class cache a home slot of its own. */
static bool __init cmstat_class_hash_perfect(unsigned long mult)
{
	DECLARE_BITMAP(taken, 1 << CMSTAT_CLASS_HASH_BITS) = { };
	unsigned int class;

	for (class = 0; class < CMSTAT_NR_CLASSES; class++)
		if (__test_and_set_bit(cmstat_class_slot(cmstat_class_caches[class],
							 mult), taken))
			return false;
	return true;
}

/**
 * cmstat_owner_init() - fill the table of class caches, and check the test
 *
 * After cmstat_classes_init().
 *
 * Return: 0; -ENODEV if this kernel's slabs do not record their cache
 * where cmstat_slab_cache_of() reads it; -ENOMEM.
 */
int __init cmstat_owner_init(void)
{
	unsigned long mult = GOLDEN_RATIO_PRIME;
	unsigned int class, slot, tries;

	/*
	 * A multiplier that gives each class a slot of its own: about one
	 * in 17 does, at random, with 77 classes in 1,024 slots.  Should
	 * none of the tries, a class out of its home slot is still found,
	 * by cmstat_owner_of() on the unsized free's slow path.
	 */
	for (tries = 0; tries < 1024 && !cmstat_class_hash_perfect(mult);
	     tries++)
		mult = get_random_long() | 1;
	cmstat_class_hash_mult = mult;
	cmstat_linear_span = (unsigned long)high_memory - PAGE_OFFSET;
	for (class = 0; class < CMSTAT_NR_CLASSES; class++) {
		slot = cmstat_class_slot(cmstat_class_caches[class], mult);
		while (cmstat_class_by_cache[slot])
			slot = (slot + 1) & ((1 << CMSTAT_CLASS_HASH_BITS) - 1);
		cmstat_class_by_cache[slot] = cmstat_class_caches[class];
		cmstat_class_of_slot[slot] = class;
	}
	return cmstat_owner_selftest();
}
