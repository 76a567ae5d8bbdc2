// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_adopt_miss: three calls past adopt.h's routing, each on a line
 * marked ADOPT-MISS, which cmstat-adopt-check must name, and no other
 * (scripts/check.sh, build_adopted()).  Built, never loaded: with
 * misuse=1 it would leave the heap's figures wrong, as the report says.
 */

#include <linux/module.h>
#include <linux/slab.h>

static bool misuse;
module_param(misuse, bool, 0);
MODULE_PARM_DESC(misuse, "run the calls past the routing (never: a test)");

/* A form of kmalloc() that adopt.h does not route. */
#ifdef CMSTAT_HAVE_ALLOC_HOOKS
#define unrouted_kmalloc(size, gfp)	kmalloc_noprof(size, gfp)
#else
#define unrouted_kmalloc(size, gfp)	kmalloc_large(size, gfp)
#endif

/*
 * What a driver's release hook might keep: the kernel's kfree itself.
 * Read and written once, so that the compiler cannot turn the calls
 * through it into direct calls, on other lines than those marked.
 */
static void (*release)(const void *obj);

static int __init adopt_miss_init(void)
{
	void *obj;

	if (!misuse)
		return 0;
	WRITE_ONCE(release, kfree);				/* ADOPT-MISS */
	obj = unrouted_kmalloc(64, GFP_KERNEL);			/* ADOPT-MISS */
	READ_ONCE(release)(obj);
	obj = kvmalloc(64, GFP_KERNEL);
	WRITE_ONCE(release, kvfree);				/* ADOPT-MISS */
	READ_ONCE(release)(obj);
	return 0;
}

static void __exit adopt_miss_exit(void)
{
}

module_init(adopt_miss_init);
module_exit(adopt_miss_exit);
MODULE_DESCRIPTION("cmstat: an adopted module's calls past the routing");
MODULE_LICENSE("GPL");
