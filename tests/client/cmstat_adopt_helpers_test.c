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
 * Prints KTAP, one result per helper; the load fails (-EINVAL) if any
 * case failed (scripts/guest/checks/adopt-helpers.sh).
 */

#include <linux/err.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/parser.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <cmstat/alloc.h>

#define T_PFX		KBUILD_MODNAME ": "
#define USER_LEN	(4 * PAGE_SIZE)
#define NR_CASES	13

static struct cmstat_heap_stats before, held, after;
static int before_err;
static unsigned long ubuf;	/* user memory of insmod's, USER_LEN bytes */
static unsigned int ncase, nfailed;

/*
 * One case: @p is what the helper named @name returned (the snapshot
 * "before" taken ahead of it), @ok whether it holds what it should; freed
 * @how the helper's documentation says.
 */
enum helper_free { BY_KFREE, BY_KVFREE, BY_KFREE_CONST };

static void helper_case(const char *name, const void *p, bool ok,
			enum helper_free how)
{
	int err = cmstat_heap_read(cmstat_adopt_heap_of_module_init, &held);
	u64 live = held.live_objects - before.live_objects;

	if (IS_ERR_OR_NULL(p))
		ok = false;
	else if (how == BY_KVFREE)
		kvfree(p);
	else if (how == BY_KFREE_CONST)
		kfree_const(p);
	else
		kfree(p);
	if (!err)
		err = cmstat_heap_read(cmstat_adopt_heap_of_module_init,
				       &after);
	ncase++;
	pr_info(T_PFX "    # %s: live while held %llu, after the free %lld, read %d\n",
		name, live, (s64)(after.live_objects - before.live_objects),
		err);
	if (!ok || err || before_err || live != 1 ||
	    after.live_objects != before.live_objects) {
		nfailed++;
		pr_info(T_PFX "not ok %u %s\n", ncase, name);
	} else {
		pr_info(T_PFX "ok %u %s\n", ncase, name);
	}
}

/* The snapshot the next case compares with. */
static void helper_before(void)
{
	before_err = cmstat_heap_read(cmstat_adopt_heap_of_module_init,
				      &before);
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

static void strings_cases(void)
{
	substring_t sub = { .from = (char *)"token=abc", };
	const char *c;
	char *s;

	helper_before();
	s = kmemdup_nul("abcdef", 3, GFP_KERNEL);
	helper_case("kmemdup_nul", s, s && !strcmp(s, "abc"), BY_KFREE);

	sub.to = sub.from + 5;
	helper_before();
	s = match_strdup(&sub);
	helper_case("match_strdup", s, s && !strcmp(s, "token"), BY_KFREE);

	helper_before();
	c = kstrdup_const("a literal", GFP_KERNEL);
	helper_case("kstrdup_const", c, c && !strcmp(c, "a literal"),
		    BY_KFREE_CONST);

	helper_before();
	c = as_const("n=%d", 42);
	helper_case("kvasprintf_const", c, c && !strcmp(c, "n=42"),
		    BY_KFREE_CONST);

	helper_before();
	s = kvmemdup("xyz", 4, GFP_KERNEL);
	helper_case("kvmemdup", s, s && !strcmp(s, "xyz"), BY_KVFREE);
}

static void alloc_cases(void)
{
	char *p;

	helper_before();
	p = kmalloc_node_track_caller(64, GFP_KERNEL, NUMA_NO_NODE);
	helper_case("kmalloc_node_track_caller", p, true, BY_KFREE);

	helper_before();
	p = kvcalloc_node(3, 1000, GFP_KERNEL, NUMA_NO_NODE);
	helper_case("kvcalloc_node", p, p && !memchr_inv(p, 0, 3000), BY_KVFREE);
}

static void user_cases(void)
{
	void __user *u = (void __user *)ubuf;
	char *p;

	helper_before();
	p = memdup_user_nul(u, 5);
	helper_case("memdup_user_nul", p, !IS_ERR(p) && !strcmp(p, "hello"),
		    BY_KFREE);

	helper_before();
	p = strndup_user(u, 32);
	helper_case("strndup_user", p, !IS_ERR(p) && !strcmp(p, "hello world"),
		    BY_KFREE);

	helper_before();
	p = memdup_array_user(u, 3, 2);
	helper_case("memdup_array_user", p, !IS_ERR(p) && !memcmp(p, "hello ", 6),
		    BY_KFREE);

	helper_before();
	p = vmemdup_user(u, USER_LEN);
	helper_case("vmemdup_user", p, !IS_ERR(p) && !memcmp(p, "hello", 5),
		    BY_KVFREE);

	helper_before();
	p = vmemdup_array_user(u, 2, 3 * PAGE_SIZE / 2);
	helper_case("vmemdup_array_user", p, !IS_ERR(p), BY_KVFREE);
}

/* A size that overflows allocates nothing, and counts nothing. */
static void overflow_case(void)
{
	void *p;

	helper_before();
	p = memdup_array_user((void __user *)ubuf, SIZE_MAX / 2 + 1, 2);
	ncase++;
	if (!before_err && PTR_ERR(p) == -EOVERFLOW &&
	    !cmstat_heap_read(cmstat_adopt_heap_of_module_init, &after) &&
	    after.mallocs == before.mallocs && after.frees == before.frees) {
		pr_info(T_PFX "ok %u memdup_array_user_overflow\n", ncase);
	} else {
		nfailed++;
		if (!IS_ERR(p))
			kfree(p);
		pr_info(T_PFX "not ok %u memdup_array_user_overflow\n", ncase);
	}
}

static int __init helpers_init(void)
{
	static const char text[] = "hello world";

	ubuf = vm_mmap(NULL, 0, USER_LEN, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(ubuf))
		return (int)ubuf;
	if (copy_to_user((void __user *)ubuf, text, sizeof(text))) {
		vm_munmap(ubuf, USER_LEN);
		return -EFAULT;
	}
	pr_info(T_PFX "KTAP version 1\n");
	pr_info(T_PFX "1..%u\n", NR_CASES);
	strings_cases();
	alloc_cases();
	user_cases();
	overflow_case();
	vm_munmap(ubuf, USER_LEN);
	return nfailed || ncase != NR_CASES ? -EINVAL : 0;
}

static void __exit helpers_exit(void)
{
}

module_init(helpers_init);
module_exit(helpers_exit);

MODULE_DESCRIPTION("cmstat: the kernel's allocating helpers in an adopted module");
MODULE_LICENSE("GPL");
