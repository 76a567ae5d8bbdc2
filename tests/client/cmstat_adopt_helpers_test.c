// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_adopt_helpers_test: a module adopted with the one line
 * (include/cmstat/adopt.h, force-included by tests/client/Kbuild for this
 * file alone), that calls each of the kernel's helpers whose memory a
 * module frees with kfree(), kvfree() or kfree_const(), as a driver
 * would, with user memory where the helper copies from user space.  Each
 * object must count on the module's heap, one live object more while it
 * is held, and none once the module's own free has freed it: a helper
 * left to the kernel allocates uncounted, and its free then takes from
 * the heap what it never had.  A size overflow must allocate nothing.
 *
 * Prints KTAP through cmstat_ktap.h, a case per helper; its parameter
 * "failed" counts the cases that failed
 * (scripts/guest/checks/adopt-helpers.sh).
 */

#include "cmstat_ktap.h"

#include <linux/err.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/parser.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <cmstat/alloc.h>

#define USER_LEN	(4 * PAGE_SIZE)

static struct cmstat_heap_stats before, held, after;
static unsigned long ubuf;	/* user memory of insmod's, USER_LEN bytes */

/* The snapshot the case compares with, taken ahead of its helper. */
static bool helper_before(struct ktap_test *t)
{
	return KTAP_EXPECT(t, !cmstat_heap_read(cmstat_adopt_heap_of_module_init,
						&before));
}

/*
 * @p is what the case's helper returned, @ok whether it holds what it
 * should; freed @how the helper's documentation says.
 */
enum helper_free { BY_KFREE, BY_KVFREE, BY_KFREE_CONST };

static void helper_check(struct ktap_test *t, const void *p, bool ok,
			 enum helper_free how)
{
	int err = cmstat_heap_read(cmstat_adopt_heap_of_module_init, &held);
	u64 live = held.live_objects - before.live_objects;

	if (!KTAP_EXPECT(t, !IS_ERR_OR_NULL(p)))
		return;
	if (how == BY_KVFREE)
		kvfree(p);
	else if (how == BY_KFREE_CONST)
		kfree_const(p);
	else
		kfree(p);
	if (!err)
		err = cmstat_heap_read(cmstat_adopt_heap_of_module_init,
				       &after);
	ktap_diag(t, "live while held %llu, after the free %lld, read %d",
		  live, (s64)(after.live_objects - before.live_objects), err);
	KTAP_EXPECT(t, ok);
	KTAP_EXPECT(t, !err);
	KTAP_EXPECT(t, live == 1);
	KTAP_EXPECT(t, after.live_objects == before.live_objects);
}

static __printf(1, 2) const char *as_const(const char *fmt, ...)
{
	const char *s;
	va_list ap;

	va_start(ap, fmt);
	s = kvasprintf_const(GFP_KERNEL, fmt, ap);
	va_end(ap);
	return s;
}

static void kmemdup_nul_case(struct ktap_test *t)
{
	char *s;

	if (!helper_before(t))
		return;
	s = kmemdup_nul("abcdef", 3, GFP_KERNEL);
	helper_check(t, s, s && !strcmp(s, "abc"), BY_KFREE);
}

static void match_strdup_case(struct ktap_test *t)
{
	substring_t sub = { .from = (char *)"token=abc", };
	char *s;

	if (!helper_before(t))
		return;
	sub.to = sub.from + 5;
	s = match_strdup(&sub);
	helper_check(t, s, s && !strcmp(s, "token"), BY_KFREE);
}

static void kstrdup_const_case(struct ktap_test *t)
{
	const char *c;

	if (!helper_before(t))
		return;
	c = kstrdup_const("a literal", GFP_KERNEL);
	helper_check(t, c, c && !strcmp(c, "a literal"), BY_KFREE_CONST);
}

static void kvasprintf_const_case(struct ktap_test *t)
{
	const char *c;

	if (!helper_before(t))
		return;
	c = as_const("n=%d", 42);
	helper_check(t, c, c && !strcmp(c, "n=42"), BY_KFREE_CONST);
}

static void kvmemdup_case(struct ktap_test *t)
{
	char *s;

	if (!helper_before(t))
		return;
	s = kvmemdup("xyz", 4, GFP_KERNEL);
	helper_check(t, s, s && !strcmp(s, "xyz"), BY_KVFREE);
}

static void kmalloc_node_track_caller_case(struct ktap_test *t)
{
	char *p;

	if (!helper_before(t))
		return;
	p = kmalloc_node_track_caller(64, GFP_KERNEL, NUMA_NO_NODE);
	helper_check(t, p, true, BY_KFREE);
}

static void kvcalloc_node_case(struct ktap_test *t)
{
	char *p;

	if (!helper_before(t))
		return;
	p = kvcalloc_node(3, 1000, GFP_KERNEL, NUMA_NO_NODE);
	helper_check(t, p, p && !memchr_inv(p, 0, 3000), BY_KVFREE);
}

static void memdup_user_nul_case(struct ktap_test *t)
{
	char *p;

	if (!helper_before(t))
		return;
	p = memdup_user_nul((void __user *)ubuf, 5);
	helper_check(t, p, !IS_ERR(p) && !strcmp(p, "hello"), BY_KFREE);
}

static void strndup_user_case(struct ktap_test *t)
{
	char *p;

	if (!helper_before(t))
		return;
	p = strndup_user((void __user *)ubuf, 32);
	helper_check(t, p, !IS_ERR(p) && !strcmp(p, "hello world"), BY_KFREE);
}

static void memdup_array_user_case(struct ktap_test *t)
{
	char *p;

	if (!helper_before(t))
		return;
	p = memdup_array_user((void __user *)ubuf, 3, 2);
	helper_check(t, p, !IS_ERR(p) && !memcmp(p, "hello ", 6), BY_KFREE);
}

static void vmemdup_user_case(struct ktap_test *t)
{
	char *p;

	if (!helper_before(t))
		return;
	p = vmemdup_user((void __user *)ubuf, USER_LEN);
	helper_check(t, p, !IS_ERR(p) && !memcmp(p, "hello", 5), BY_KVFREE);
}

static void vmemdup_array_user_case(struct ktap_test *t)
{
	char *p;

	if (!helper_before(t))
		return;
	p = vmemdup_array_user((void __user *)ubuf, 2, 3 * PAGE_SIZE / 2);
	helper_check(t, p, !IS_ERR(p), BY_KVFREE);
}

/* A size that overflows allocates nothing, and counts nothing. */
static void memdup_array_user_overflow_case(struct ktap_test *t)
{
	void *p;

	if (!helper_before(t))
		return;
	p = memdup_array_user((void __user *)ubuf, SIZE_MAX / 2 + 1, 2);
	if (!KTAP_EXPECT(t, PTR_ERR(p) == -EOVERFLOW)) {
		if (!IS_ERR(p))
			kfree(p);
		return;
	}
	if (KTAP_EXPECT(t, !cmstat_heap_read(cmstat_adopt_heap_of_module_init,
					     &after))) {
		KTAP_EXPECT(t, after.mallocs == before.mallocs);
		KTAP_EXPECT(t, after.frees == before.frees);
	}
}

#define HELPER(name)	{ #name, name##_case }

static const struct ktap_case helper_cases[] = {
	HELPER(kmemdup_nul),
	HELPER(match_strdup),
	HELPER(kstrdup_const),
	HELPER(kvasprintf_const),
	HELPER(kvmemdup),
	HELPER(kmalloc_node_track_caller),
	HELPER(kvcalloc_node),
	HELPER(memdup_user_nul),
	HELPER(strndup_user),
	HELPER(memdup_array_user),
	HELPER(vmemdup_user),
	HELPER(vmemdup_array_user),
	HELPER(memdup_array_user_overflow),
};

static int __init helpers_init(void)
{
	static const char text[] = "hello world";
	int err;

	ubuf = vm_mmap(NULL, 0, USER_LEN, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(ubuf))
		return (int)ubuf;
	if (copy_to_user((void __user *)ubuf, text, sizeof(text))) {
		vm_munmap(ubuf, USER_LEN);
		return -EFAULT;
	}
	err = ktap_run(helper_cases, ARRAY_SIZE(helper_cases));
	vm_munmap(ubuf, USER_LEN);
	return err;
}

static void __exit helpers_exit(void)
{
}

module_init(helpers_init);
module_exit(helpers_exit);

MODULE_DESCRIPTION("cmstat: the kernel's allocating helpers in an adopted module");
MODULE_LICENSE("GPL");
