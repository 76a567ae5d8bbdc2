/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmstat/adopt.h - a whole module's allocations on a heap of its own, with
 * one line in its Kbuild file:
 *
 *	subdir-ccflags-y += -I$(CMSTAT_INCLUDE) -include cmstat/adopt.h
 *
 * Force-included ahead of every file of the module, it routes the
 * kmalloc() family, kfree_rcu() and the kmem_cache_*() calls of the
 * module's own code to cmstat, on a heap named after the module
 * (KBUILD_MODNAME, or -DCMSTAT_ADOPT_HEAP=NAME), which exists from before
 * the module's init function to after its exit function: each module of a
 * directory that builds several gets its own.  How it does it, in order:
 *
 *  1. the kernel headers that declare or define a name routed in 4., or
 *     have inlines that allocate or free the kernel's own memory, or that
 *     this file itself uses, are included first, with their kernel
 *     meaning: a routed name's macro must come after the kernel's
 *     declaration of it, which it would otherwise rewrite, and the
 *     kernel's memory stays the kernel's; their include guards keep the
 *     module's own #includes from reading them again.  Every other header
 *     the module includes is read with the routed names, and is safe with
 *     them: see 3.;
 *  2. the kernel entry points behind the routed kmem_cache_*() names are
 *     kept in inline functions, for the kernel's caches: once a name is
 *     #undef'd, nothing can reach it;
 *  3. the module keeps real struct kmem_cache pointers.  Its
 *     kmem_cache_create() (every form, KMEM_CACHE() too) makes a typed
 *     cache of cmstat's on the heap and returns the typed cache's slab
 *     cache; each routed kmem_cache_*() call looks the cache it is given
 *     up among the heap's typed caches (cmstat_heap_cache_of(), a probe
 *     of a table in the heap), then among every heap's
 *     (cmstat_cache_of_slab(), out of line), and calls cmstat's for a
 *     typed cache, counted in that cache's heap, the kernel's own for any
 *     other cache.  So a cache of the kernel's never reaches cmstat's
 *     typed-cache functions, whichever header's inline allocates from it
 *     (jbd2_alloc_inode() on the kernel's jbd2's); another adopted
 *     module's is counted in that module's heap, whoever allocates and
 *     frees (ext4's jbd2_alloc_inode() on an adopted jbd2's); and a cache
 *     of the module's that it hands to the kernel (mempool_create_slab_pool(),
 *     lc_create()) is a real kmem_cache: the kernel's allocations from
 *     it, and their frees, are not counted, on either side;
 *  4. each allocator name is defined to its cmstat_*() counterpart on the
 *     module's heap; what cannot be adopted safely (slab sheaves, where the
 *     kernel has them) is refused at build time, by name;
 *  5. module_init() and module_exit() are wrapped: the heap is created
 *     before the module's init function and destroyed after its exit
 *     function and an rcu_barrier(), which kfree_rcu() needs.  A module
 *     without module_init() (a library) has no heap: modpost refuses it,
 *     naming cmstat_adopt_heap_of_module_init.
 *
 * Documentation/allocator.rst, "Adopting a module", says what is routed
 * and what is not.
 */
#ifndef _CMSTAT_ADOPT_H
#define _CMSTAT_ADOPT_H

#ifdef CMSTAT_ADOPT_HEAP
#define __CMSTAT_ADOPT_NAME	__stringify(CMSTAT_ADOPT_HEAP)
#else
#define __CMSTAT_ADOPT_NAME	KBUILD_MODNAME
#endif

/*
 * 1. <linux/slab.h>: the kmalloc(), kvmalloc() and kmem_cache_*()
 * families, kfree() and the rest, __free(kfree); <linux/string.h>:
 * kstrdup() and the rest, memdup_user(); <linux/kernel.h>: kasprintf()
 * (through <linux/sprintf.h> from 6.6 on), COUNT_ARGS(); <linux/rcupdate.h>:
 * kfree_rcu() and the rest, rcu_barrier(); <linux/module.h>: module_init()
 * and module_exit(); <linux/fs.h>: alloc_inode_sb(); <linux/parser.h>:
 * match_strdup(); <linux/uaccess.h> and <linux/stringify.h>: what the
 * wrappers below use.  The rest have inlines that allocate or free the
 * kernel's own memory (posix_acl_release(), the networking and crypto
 * headers' helpers): read with the routed names, those would count on the
 * heap memory the kernel frees, or free from it memory the kernel gave.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/bpf.h>
#include <linux/bpfptr.h>
#include <linux/fault-inject.h>
#include <linux/fs.h>
#include <linux/generic-radix-tree.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kmsan.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/parser.h>
#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/posix_acl.h>
#include <linux/rcupdate.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>
#include <linux/sockptr.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/uaccess.h>
#include <crypto/aead.h>
#include <crypto/hash.h>
#ifdef CONFIG_NET
#include <linux/tcp.h>
#include <net/dst_ops.h>
#include <net/fib_rules.h>
#include <net/inet_frag.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/request_sock.h>
#include <net/sock.h>
#include <net/timewait_sock.h>
#include <net/xfrm.h>
#endif

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/compat.h>
#include <cmstat/kmalloc.h>

#if defined(CONFIG_NET) && defined(CMSTAT_HAVE_NET_HOTDATA)
#include <net/hotdata.h>
#endif

/* 2. */
static __always_inline void *
__cmstat_kernel_cache_alloc(struct kmem_cache *s, gfp_t gfp)
{
	return kmem_cache_alloc(s, gfp);
}

static __always_inline void *
__cmstat_kernel_cache_alloc_node(struct kmem_cache *s, gfp_t gfp, int node)
{
	return kmem_cache_alloc_node(s, gfp, node);
}

static __always_inline void *
__cmstat_kernel_cache_alloc_lru(struct kmem_cache *s, struct list_lru *lru,
				gfp_t gfp)
{
	return kmem_cache_alloc_lru(s, lru, gfp);
}

static __always_inline void
__cmstat_kernel_cache_free(struct kmem_cache *s, void *obj)
{
	kmem_cache_free(s, obj);
}

static __always_inline int
__cmstat_kernel_cache_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n,
				 void **objs)
{
	return kmem_cache_alloc_bulk(s, gfp, n, objs);
}

static __always_inline void
__cmstat_kernel_cache_free_bulk(struct kmem_cache *s, size_t n, void **objs)
{
	kmem_cache_free_bulk(s, n, objs);
}

static inline unsigned int __cmstat_kernel_cache_size(struct kmem_cache *s)
{
	return kmem_cache_size(s);
}

static inline int __cmstat_kernel_cache_shrink(struct kmem_cache *s)
{
	return kmem_cache_shrink(s);
}

static inline void __cmstat_kernel_cache_destroy(struct kmem_cache *s)
{
	kmem_cache_destroy(s);
}

/*
 * 5., and the heap every name of 4. allocates from.  Defined by
 * module_init(): its name is what modpost says of a module without one.
 */
extern struct cmstat_heap *cmstat_adopt_heap_of_module_init;
#define __CMSTAT_ADOPT_H	(cmstat_adopt_heap_of_module_init)

/* Before the module's init and after a failed one, as after its exit. */
static inline void __cmstat_adopt_heap_end(void)
{
	rcu_barrier();	/* the kfree_rcu()s: counted, not yet freed */
	cmstat_heap_destroy(__CMSTAT_ADOPT_H);
}

static inline int __cmstat_adopt_init(int (*initfn)(void))
{
	struct cmstat_heap *heap;
	int ret;

	heap = cmstat_heap_create(__CMSTAT_ADOPT_NAME);
	if (IS_ERR(heap))
		return PTR_ERR(heap);
	__CMSTAT_ADOPT_H = heap;
	ret = initfn();
	if (ret)
		__cmstat_adopt_heap_end();
	return ret;
}

static inline void __cmstat_adopt_exit(void (*exitfn)(void))
{
	exitfn();
	__cmstat_adopt_heap_end();
}

/*
 * What <linux/module.h>'s module_init() and module_exit() make of a
 * module's functions (the same from 6.1 to 7.x), made of wrappers that
 * create the heap first and destroy it last.
 */
#undef module_init
/**
 * module_init() - the adopted module's init function, run on its heap
 * @initfn: the module's init function
 *
 * As <linux/module.h>'s, with the module's heap created first: if that
 * fails, the module does not load, with its error (cmstat's log names the
 * heap).  If @initfn
 * fails, the heap is destroyed after an rcu_barrier().  Defines the
 * module's heap pointer, so a module adopted needs a module_init().
 */
#define module_init(initfn)						\
	struct cmstat_heap *cmstat_adopt_heap_of_module_init;		\
	static int __init __cmstat_adopt_##initfn(void)			\
	{								\
		return __cmstat_adopt_init(initfn);			\
	}								\
	static inline initcall_t __maybe_unused __inittest(void)	\
	{								\
		return __cmstat_adopt_##initfn;				\
	}								\
	__copy(__cmstat_adopt_##initfn)					\
		__alias(__cmstat_adopt_##initfn) int init_module(void);	\
	___ADDRESSABLE(init_module, __initdata)

#undef module_exit
/**
 * module_exit() - the adopted module's exit function, then its heap's end
 * @exitfn: the module's exit function
 *
 * As <linux/module.h>'s, then an rcu_barrier(), so that the module's
 * kfree_rcu()s are done, and the heap destroyed: gone from the statistics,
 * its counts in the destroyed record; or an orphan, if the module left
 * objects live.
 */
#define module_exit(exitfn)						\
	static void __exit __cmstat_adopt_##exitfn(void)		\
	{								\
		__cmstat_adopt_exit(exitfn);				\
	}								\
	static inline exitcall_t __maybe_unused __exittest(void)	\
	{								\
		return __cmstat_adopt_##exitfn;				\
	}								\
	__copy(__cmstat_adopt_##exitfn)					\
		__alias(__cmstat_adopt_##exitfn) void cleanup_module(void); \
	___ADDRESSABLE(cleanup_module, __exitdata)

/* 4. The kmalloc() family. */
#undef kmalloc
#define kmalloc(size, gfp)	cmstat_kmalloc(__CMSTAT_ADOPT_H, size, gfp)
#undef kzalloc
#define kzalloc(size, gfp)	cmstat_kzalloc(__CMSTAT_ADOPT_H, size, gfp)
#undef kmalloc_node
#define kmalloc_node(size, gfp, node)					\
	cmstat_kmalloc_node(__CMSTAT_ADOPT_H, size, gfp, node)
#undef kzalloc_node
#define kzalloc_node(size, gfp, node)					\
	cmstat_kzalloc_node(__CMSTAT_ADOPT_H, size, gfp, node)
#undef kmalloc_array
#define kmalloc_array(n, size, gfp)					\
	cmstat_kmalloc_array(__CMSTAT_ADOPT_H, n, size, gfp)
#undef kcalloc
#define kcalloc(n, size, gfp)	cmstat_kcalloc(__CMSTAT_ADOPT_H, n, size, gfp)
#undef kmalloc_array_node
#define kmalloc_array_node(n, size, gfp, node)				\
	cmstat_kmalloc_array_node(__CMSTAT_ADOPT_H, n, size, gfp, node)
#undef kcalloc_node
#define kcalloc_node(n, size, gfp, node)				\
	cmstat_kcalloc_node(__CMSTAT_ADOPT_H, n, size, gfp, node)
#undef kmalloc_track_caller
#define kmalloc_track_caller(size, gfp)					\
	cmstat_kmalloc(__CMSTAT_ADOPT_H, size, gfp)
#undef krealloc
#define krealloc(obj, size, gfp)					\
	cmstat_krealloc(__CMSTAT_ADOPT_H, obj, size, gfp)
#undef krealloc_array
#define krealloc_array(obj, n, size, gfp)				\
	cmstat_krealloc_array(__CMSTAT_ADOPT_H, obj, n, size, gfp)
#undef kfree
#define kfree(obj)		cmstat_kfree(__CMSTAT_ADOPT_H, obj)
#undef kfree_sensitive
#define kfree_sensitive(obj)	cmstat_kfree_sensitive(__CMSTAT_ADOPT_H, obj)
#undef kvmalloc
#define kvmalloc(size, gfp)	cmstat_kvmalloc(__CMSTAT_ADOPT_H, size, gfp)
#undef kvzalloc
#define kvzalloc(size, gfp)	cmstat_kvzalloc(__CMSTAT_ADOPT_H, size, gfp)
#undef kvmalloc_node
#define kvmalloc_node(size, gfp, node)					\
	cmstat_kvmalloc_node(__CMSTAT_ADOPT_H, size, gfp, node)
#undef kvzalloc_node
#define kvzalloc_node(size, gfp, node)					\
	cmstat_kvmalloc_node(__CMSTAT_ADOPT_H, size, (gfp) | __GFP_ZERO, node)
#undef kvmalloc_array
#define kvmalloc_array(n, size, gfp)					\
	cmstat_kvmalloc_array(__CMSTAT_ADOPT_H, n, size, gfp)
#undef kvcalloc
#define kvcalloc(n, size, gfp)	cmstat_kvcalloc(__CMSTAT_ADOPT_H, n, size, gfp)
#undef kvfree
#define kvfree(obj)		cmstat_kvfree(__CMSTAT_ADOPT_H, obj)
#undef kstrdup
#define kstrdup(s, gfp)		cmstat_kstrdup(__CMSTAT_ADOPT_H, s, gfp)
#undef kstrndup
#define kstrndup(s, max, gfp)	cmstat_kstrndup(__CMSTAT_ADOPT_H, s, max, gfp)
#undef kmemdup
#define kmemdup(src, len, gfp)	cmstat_kmemdup(__CMSTAT_ADOPT_H, src, len, gfp)
#undef kmemdup_array
#define kmemdup_array(src, n, size, gfp)				\
	cmstat_kmemdup_array(__CMSTAT_ADOPT_H, src, n, size, gfp)
#undef kasprintf
#define kasprintf(gfp, ...)	cmstat_kasprintf(__CMSTAT_ADOPT_H, gfp, __VA_ARGS__)
#undef kvasprintf
#define kvasprintf(gfp, fmt, ap)					\
	cmstat_kvasprintf(__CMSTAT_ADOPT_H, gfp, fmt, ap)

/*
 * kstrdup_const() copies every string, the kernel's .rodata too, which a
 * module cannot tell (__start_rodata is not exported): kfree_const() frees
 * the copy, and leaves alone a string of the kernel's .rodata that the
 * kernel's own kstrdup_const() gave the module.  kvasprintf_const() so.
 */
#undef kstrdup_const
#define kstrdup_const(s, gfp)						\
	((const char *)cmstat_kstrdup(__CMSTAT_ADOPT_H, s, gfp))
#undef kvasprintf_const
#define kvasprintf_const(gfp, fmt, ap)					\
	((const char *)cmstat_kvasprintf(__CMSTAT_ADOPT_H, gfp, fmt, ap))
#undef kfree_const
#define kfree_const(obj)	cmstat_kfree_const(__CMSTAT_ADOPT_H, obj)

/*
 * The helpers below allocate for @site, the module's call site: the macro
 * that routes each helper's name passes __CMSTAT_SITE_HERE() from where
 * the module calls it, and wraps the call for allocation profiling, so
 * that in a module built with CMSTAT_SITES the row, and /proc/allocinfo's
 * line, is the module's line, not one of this file's.  Without
 * CMSTAT_SITES @site is NULL, and they allocate as they did before sites:
 * __cmstat_alloc_inline() for a NULL site is cmstat_kmalloc(), and
 * __cmstat_kvmalloc_node_site() cmstat_kvmalloc_node().
 */
#define __cmstat_adopt_at(helper, ...)					\
	__cmstat_site_hooks(helper(__VA_ARGS__, __CMSTAT_SITE_HERE()))

/*
 * memdup_user() and its kin: memory the module kfree()s or kvfree()s, so
 * the heap's; @nul: a NUL after the @len bytes copied; @kv: kvmalloc()ed.
 * cmstat_kvfree() frees either kind.
 */
static inline void *__cmstat_adopt_dup_user(const void __user *src,
					    size_t len, gfp_t gfp, bool nul,
					    bool kv, struct cmstat_site *site)
{
	char *obj = kv ? __cmstat_kvmalloc_node_site(__CMSTAT_ADOPT_H,
						     len + nul, gfp,
						     NUMA_NO_NODE, site) :
			 __cmstat_alloc_inline(__CMSTAT_ADOPT_H, len + nul,
					       gfp, true, site);

	if (!obj)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(obj, src, len)) {
		cmstat_kvfree(__CMSTAT_ADOPT_H, obj);
		return ERR_PTR(-EFAULT);
	}
	if (nul)
		obj[len] = '\0';
	return obj;
}

static inline void *__cmstat_adopt_memdup_user(const void __user *src,
					       size_t len,
					       struct cmstat_site *site)
{
	return __cmstat_adopt_dup_user(src, len, GFP_USER | __GFP_NOWARN,
				       false, false, site);
}

#undef memdup_user
#define memdup_user(src, len)						\
	__cmstat_adopt_at(__cmstat_adopt_memdup_user, src, len)

/*
 * The rest of the kernel's helpers whose memory the module frees with
 * kfree() or kvfree(), as lib/string_helpers.c and mm/util.c make it:
 * the heap's, so that the free has an allocation to pair with.  Those the
 * kernel has as inlines of pre-included headers (memdup_array_user()) are
 * defined again here, or they would reach the kernel's memdup_user().
 */
static inline char *__cmstat_adopt_kmemdup_nul(const char *s, size_t len,
					       gfp_t gfp,
					       struct cmstat_site *site)
{
	char *buf;

	if (!s)
		return NULL;
	buf = __cmstat_alloc_inline(__CMSTAT_ADOPT_H, len + 1, gfp, true,
				    site);
	if (buf) {
		memcpy(buf, s, len);
		buf[len] = '\0';
	}
	return buf;
}

static inline void *__cmstat_adopt_memdup_user_nul(const void __user *src,
						   size_t len,
						   struct cmstat_site *site)
{
	return __cmstat_adopt_dup_user(src, len, GFP_KERNEL, true, false,
				       site);
}

static inline void *__cmstat_adopt_vmemdup_user(const void __user *src,
						size_t len,
						struct cmstat_site *site)
{
	return __cmstat_adopt_dup_user(src, len, GFP_USER, false, true, site);
}

static inline void *__cmstat_adopt_memdup_array_user(const void __user *src,
						     size_t n, size_t size,
						     bool kv,
						     struct cmstat_site *site)
{
	size_t len;

	if (check_mul_overflow(n, size, &len))
		return ERR_PTR(-EOVERFLOW);
	return kv ? __cmstat_adopt_vmemdup_user(src, len, site) :
		    __cmstat_adopt_memdup_user(src, len, site);
}

static inline char *__cmstat_adopt_strndup_user(const char __user *s, long n,
						struct cmstat_site *site)
{
	long len = strnlen_user(s, n);
	char *p;

	if (!len)
		return ERR_PTR(-EFAULT);
	if (len > n)
		return ERR_PTR(-EINVAL);
	p = __cmstat_adopt_memdup_user(s, len, site);
	if (!IS_ERR(p))
		p[len - 1] = '\0';
	return p;
}

static inline void *__cmstat_adopt_kvmemdup(const void *src, size_t len,
					    gfp_t gfp,
					    struct cmstat_site *site)
{
	void *obj = __cmstat_kvmalloc_node_site(__CMSTAT_ADOPT_H, len, gfp,
						NUMA_NO_NODE, site);

	if (obj)
		memcpy(obj, src, len);
	return obj;
}

static inline void *__cmstat_adopt_kvmalloc_array_node(size_t n, size_t size,
						       gfp_t gfp, int node,
						       struct cmstat_site *site)
{
	size_t len;

	if (check_mul_overflow(n, size, &len))
		return NULL;
	return __cmstat_kvmalloc_node_site(__CMSTAT_ADOPT_H, len, gfp, node,
					   site);
}

static inline char *__cmstat_adopt_match_strdup(const substring_t *s,
						struct cmstat_site *site)
{
	return __cmstat_adopt_kmemdup_nul(s->from, s->to - s->from,
					  GFP_KERNEL, site);
}

#undef kmemdup_nul
#define kmemdup_nul(s, len, gfp)					\
	__cmstat_adopt_at(__cmstat_adopt_kmemdup_nul, s, len, gfp)
#undef memdup_user_nul
#define memdup_user_nul(src, len)					\
	__cmstat_adopt_at(__cmstat_adopt_memdup_user_nul, src, len)
#undef vmemdup_user
#define vmemdup_user(src, len)						\
	__cmstat_adopt_at(__cmstat_adopt_vmemdup_user, src, len)
#undef memdup_array_user
#define memdup_array_user(src, n, size)					\
	__cmstat_adopt_at(__cmstat_adopt_memdup_array_user, src, n, size, \
			  false)
#undef vmemdup_array_user
#define vmemdup_array_user(src, n, size)				\
	__cmstat_adopt_at(__cmstat_adopt_memdup_array_user, src, n, size, \
			  true)
#undef strndup_user
#define strndup_user(s, n)						\
	__cmstat_adopt_at(__cmstat_adopt_strndup_user, s, n)
#undef kvmemdup
#define kvmemdup(src, len, gfp)						\
	__cmstat_adopt_at(__cmstat_adopt_kvmemdup, src, len, gfp)
#undef kvmalloc_array_node
#define kvmalloc_array_node(n, size, gfp, node)				\
	__cmstat_adopt_at(__cmstat_adopt_kvmalloc_array_node, n, size, gfp, \
			  node)
#undef kvcalloc_node
#define kvcalloc_node(n, size, gfp, node)				\
	__cmstat_adopt_at(__cmstat_adopt_kvmalloc_array_node, n, size,	\
			  (gfp) | __GFP_ZERO, node)
#undef kmalloc_node_track_caller
#define kmalloc_node_track_caller(size, gfp, node)			\
	cmstat_kmalloc_node(__CMSTAT_ADOPT_H, size, gfp, node)
#undef match_strdup
#define match_strdup(s)		__cmstat_adopt_at(__cmstat_adopt_match_strdup, s)

/*
 * kvrealloc(obj, size, gfp) since 6.12; kvrealloc(obj, old_size, size,
 * gfp) before, whose old size cmstat evaluates and ignores: it knows it.
 */
#define __cmstat_adopt_kvrealloc3(obj, size, gfp)			\
	cmstat_kvrealloc(__CMSTAT_ADOPT_H, obj, size, gfp)
#define __cmstat_adopt_kvrealloc4(obj, old_size, size, gfp)		\
	cmstat_kvrealloc(__CMSTAT_ADOPT_H, obj, ((void)(old_size), (size)), gfp)
#undef kvrealloc
#define kvrealloc(...)							\
	CONCATENATE(__cmstat_adopt_kvrealloc, COUNT_ARGS(__VA_ARGS__))(__VA_ARGS__)

/*
 * Scope-based cleanup: __free(kfree) pastes the name __free_kfree, which
 * the kfree() above never sees.
 */
static inline void __cmstat_adopt_free_scoped(void *obj)
{
	if (!IS_ERR_OR_NULL(obj))
		cmstat_kfree(__CMSTAT_ADOPT_H, obj);
}

DEFINE_FREE(cmstat_adopt_kfree, void *, __cmstat_adopt_free_scoped(_T))
#define __free_kfree		__free_cmstat_adopt_kfree
#define __free_kvfree		__free_cmstat_adopt_kfree

/*
 * kfree_rcu(ptr, rhf) and, as 6.1 still has it, kfree_rcu(ptr):
 * cmstat_kfree_rcu() expands to the kernel's own two forms by the names
 * compat.h gives them, never to kfree_rcu, which would stay unexpanded
 * inside its own expansion.
 */
#define __cmstat_adopt_kfree_rcu_2(ptr, rhf)				\
	cmstat_kfree_rcu(__CMSTAT_ADOPT_H, ptr, rhf)
#define __cmstat_adopt_kfree_rcu_1(ptr)					\
	cmstat_kfree_rcu_mightsleep(__CMSTAT_ADOPT_H, ptr)
#undef kfree_rcu
#define kfree_rcu(...)							\
	CONCATENATE(__cmstat_adopt_kfree_rcu_, COUNT_ARGS(__VA_ARGS__))(__VA_ARGS__)
#undef kvfree_rcu
#define kvfree_rcu(...)		kfree_rcu(__VA_ARGS__)
#undef kfree_rcu_mightsleep
#define kfree_rcu_mightsleep(ptr)	__cmstat_adopt_kfree_rcu_1(ptr)
#undef kvfree_rcu_mightsleep
#define kvfree_rcu_mightsleep(ptr)	__cmstat_adopt_kfree_rcu_1(ptr)

/*
 * 4. kmem_cache_*(), and 3.: the module's caches are the slab caches of
 * typed caches of its heap, each call picks cmstat's or the kernel's by
 * __cmstat_adopt_cache_of().  From 6.12 on, kmem_cache_create() (and
 * KMEM_CACHE()) is a macro that picks one of three functions by its
 * arguments: those three are what is routed.
 */
static inline struct kmem_cache *
__cmstat_adopt_cache_slab(struct cmstat_cache *cc)
{
	return cc ? cc->slab : NULL;	/* NULL as kmem_cache_create() */
}

#ifdef CMSTAT_HAVE_KMEM_CACHE_ARGS
static inline struct kmem_cache *
__cmstat_adopt_cache_create_args(const char *name, unsigned int size,
				 struct kmem_cache_args *args,
				 slab_flags_t flags)
{
	return __cmstat_adopt_cache_slab(cmstat_cache_create_args(__CMSTAT_ADOPT_H,
								  name, size,
								  args, flags));
}

static inline struct kmem_cache *
__cmstat_adopt_cache_create_default(const char *name, unsigned int size,
				    struct kmem_cache_args *null,
				    slab_flags_t flags)
{
	struct kmem_cache_args args = {};

	return __cmstat_adopt_cache_create_args(name, size, &args, flags);
}

static inline struct kmem_cache *
__cmstat_adopt_cache_create(const char *name, unsigned int size,
			    unsigned int align, slab_flags_t flags,
			    void (*ctor)(void *))
{
	return __cmstat_adopt_cache_slab(cmstat_cache_create(__CMSTAT_ADOPT_H,
							     name, size, align,
							     flags, ctor));
}

#define __kmem_cache_create_args	__cmstat_adopt_cache_create_args
#define __kmem_cache_default_args	__cmstat_adopt_cache_create_default
#define __kmem_cache_create		__cmstat_adopt_cache_create
#else
#undef kmem_cache_create
#define kmem_cache_create(name, size, align, flags, ctor)		\
	__cmstat_adopt_cache_slab(cmstat_cache_create(__CMSTAT_ADOPT_H, name, \
						      size, align, flags, \
						      ctor))
#endif
#undef kmem_cache_create_usercopy
#define kmem_cache_create_usercopy(name, size, align, flags, useroffset, \
				   usersize, ctor)			\
	__cmstat_adopt_cache_slab(cmstat_cache_create_usercopy(__CMSTAT_ADOPT_H, \
							       name, size, \
							       align, flags, \
							       useroffset, \
							       usersize, ctor))

/*
 * The typed cache whose slab cache @s is, or NULL: the heap's own, else
 * another adopted module's (counted in that module's heap), found out of
 * line.
 */
static __always_inline struct cmstat_cache *
__cmstat_adopt_cache_of(struct kmem_cache *s)
{
	struct cmstat_cache *cc = cmstat_heap_cache_of(__CMSTAT_ADOPT_H, s);

	return likely(cc) ? cc : cmstat_cache_of_slab(s);
}

/*
 * The allocations take the call site's descriptor: NULL in a module built
 * without CMSTAT_SITES, where it folds away.
 */
static __always_inline void *
__cmstat_adopt_cache_alloc(struct kmem_cache *s, gfp_t gfp, int node,
			   struct cmstat_site *site)
{
	struct cmstat_cache *cc = __cmstat_adopt_cache_of(s);

	if (likely(cc))
		return __cmstat_cache_alloc_at(cc, gfp, node, site);
	if (__builtin_constant_p(node) && node == NUMA_NO_NODE)
		return __cmstat_kernel_cache_alloc(s, gfp);
	return __cmstat_kernel_cache_alloc_node(s, gfp, node);
}

static __always_inline void *
__cmstat_adopt_cache_alloc_lru(struct kmem_cache *s, struct list_lru *lru,
			       gfp_t gfp, struct cmstat_site *site)
{
	struct cmstat_cache *cc = __cmstat_adopt_cache_of(s);

	if (likely(cc))
		return __cmstat_cache_alloc_lru_at(cc, lru, gfp, site);
	return __cmstat_kernel_cache_alloc_lru(s, lru, gfp);
}

static __always_inline void
__cmstat_adopt_cache_free(struct kmem_cache *s, void *obj)
{
	struct cmstat_cache *cc = __cmstat_adopt_cache_of(s);

	if (likely(cc))
		cmstat_cache_free(cc, obj);
	else
		__cmstat_kernel_cache_free(s, obj);
}

static inline int __cmstat_adopt_cache_alloc_bulk(struct kmem_cache *s,
						  gfp_t gfp, size_t n,
						  void **objs,
						  struct cmstat_site *site)
{
	struct cmstat_cache *cc = __cmstat_adopt_cache_of(s);

	if (cc)
		return __cmstat_cache_alloc_bulk_at(cc, gfp, n, objs, site);
	return __cmstat_kernel_cache_alloc_bulk(s, gfp, n, objs);
}

/* kfree_bulk(), below too: each object freed as cmstat_kfree() frees it. */
static inline void __cmstat_adopt_kfree_bulk(size_t n, void **objs)
{
	while (n--)
		cmstat_kfree(__CMSTAT_ADOPT_H, objs[n]);
}

/* A NULL cache is kfree_bulk()'s: objects of any cache. */
static inline void __cmstat_adopt_cache_free_bulk(struct kmem_cache *s,
						  size_t n, void **objs)
{
	struct cmstat_cache *cc;

	if (!s) {
		__cmstat_adopt_kfree_bulk(n, objs);
		return;
	}
	cc = __cmstat_adopt_cache_of(s);
	if (cc)
		cmstat_cache_free_bulk(cc, n, objs);
	else
		__cmstat_kernel_cache_free_bulk(s, n, objs);
}

static inline unsigned int __cmstat_adopt_cache_size(struct kmem_cache *s)
{
	struct cmstat_cache *cc = __cmstat_adopt_cache_of(s);

	return cc ? cmstat_cache_size(cc) : __cmstat_kernel_cache_size(s);
}

static inline int __cmstat_adopt_cache_shrink(struct kmem_cache *s)
{
	struct cmstat_cache *cc = __cmstat_adopt_cache_of(s);

	return cc ? cmstat_cache_shrink(cc) : __cmstat_kernel_cache_shrink(s);
}

static inline void __cmstat_adopt_cache_destroy(struct kmem_cache *s)
{
	struct cmstat_cache *cc = __cmstat_adopt_cache_of(s);

	if (cc)
		cmstat_cache_destroy(cc);
	else
		__cmstat_kernel_cache_destroy(s);	/* NULL: a no-op */
}

#undef kmem_cache_destroy
#define kmem_cache_destroy(cache)	__cmstat_adopt_cache_destroy(cache)
/*
 * With CMSTAT_SITES, each a call site of the typed cache's heap, and of
 * allocation profiling (see __cmstat_site_hooks()); a kernel cache's
 * allocation is profiled where the kernel's own macro is, in this file.
 */
#undef kmem_cache_alloc
#define kmem_cache_alloc(cache, gfp)					\
	__cmstat_site_hooks(__cmstat_adopt_cache_alloc(cache, gfp,	\
						       NUMA_NO_NODE,	\
						       __CMSTAT_SITE_HERE()))
#undef kmem_cache_zalloc
#define kmem_cache_zalloc(cache, gfp)					\
	kmem_cache_alloc(cache, (gfp) | __GFP_ZERO)
#undef kmem_cache_alloc_node
#define kmem_cache_alloc_node(cache, gfp, node)				\
	__cmstat_site_hooks(__cmstat_adopt_cache_alloc(cache, gfp, node, \
						       __CMSTAT_SITE_HERE()))
#undef kmem_cache_alloc_lru
#define kmem_cache_alloc_lru(cache, lru, gfp)				\
	__cmstat_site_hooks(__cmstat_adopt_cache_alloc_lru(cache, lru, gfp, \
							   __CMSTAT_SITE_HERE()))
#undef kmem_cache_free
#define kmem_cache_free(cache, obj)	__cmstat_adopt_cache_free(cache, obj)
#undef kmem_cache_alloc_bulk
#define kmem_cache_alloc_bulk(cache, gfp, n, objs)			\
	__cmstat_site_hooks(__cmstat_adopt_cache_alloc_bulk(cache, gfp, n, \
							    objs,	\
							    __CMSTAT_SITE_HERE()))
#undef kmem_cache_free_bulk
#define kmem_cache_free_bulk(cache, n, objs)				\
	__cmstat_adopt_cache_free_bulk(cache, n, objs)
#undef kmem_cache_size
#define kmem_cache_size(cache)		__cmstat_adopt_cache_size(cache)
#undef kmem_cache_shrink
#define kmem_cache_shrink(cache)	__cmstat_adopt_cache_shrink(cache)

/*
 * What cannot be adopted safely, refused by name where the module uses
 * it.  A slab sheaf (7.x) hands out objects the slab allocator took from
 * the cache without cmstat, which the module then frees with
 * kmem_cache_free(), counted: its heap's figures would go wrong.
 */
#define __cmstat_adopt_refused(name)					\
	({ static_assert(0, "cmstat/adopt.h: " #name "() cannot be adopted; " \
			 "see Documentation/allocator.rst"); 0; })
#ifdef CMSTAT_HAVE_KMEM_CACHE_SHEAVES
#undef kmem_cache_prefill_sheaf
#define kmem_cache_prefill_sheaf(...)					\
	((struct slab_sheaf *)__cmstat_adopt_refused(kmem_cache_prefill_sheaf))
#undef kmem_cache_alloc_from_sheaf
#define kmem_cache_alloc_from_sheaf(...)				\
	((void *)__cmstat_adopt_refused(kmem_cache_alloc_from_sheaf))
#endif

#undef kfree_bulk
#define kfree_bulk(n, objs)	__cmstat_adopt_kfree_bulk(n, objs)

/*
 * kfree_link(), which a file system's ->get_link() hands the VFS to free
 * the link body it allocated (set_delayed_call()), as ext4 does: the
 * module's own function, so that the VFS's free is counted on the heap
 * that counted the allocation.  The module outlives the call: its inode is
 * in use until the VFS has called it.
 */
static inline void __cmstat_adopt_kfree_link(void *link)
{
	cmstat_kfree(__CMSTAT_ADOPT_H, link);
}

#define kfree_link		__cmstat_adopt_kfree_link

/* An inline on struct kmem_cache before 6.4, a macro after. */
#undef alloc_inode_sb
#define alloc_inode_sb(sb, cache, gfp)					\
	kmem_cache_alloc_lru(cache, &(sb)->s_inode_lru, gfp)

/*
 * Last, so that nothing above expands pr_fmt(): a file that defines its
 * own pr_fmt() before its first #include, or in a header of its own it
 * includes first, is built with -DCMSTAT_ADOPT_OWN_PR_FMT (scripts/cmstat-adopt
 * writes the line).  <linux/printk.h>, read above, has defined the
 * default, which the file's definition would redefine, with a warning gcc
 * has no option for, and which a definition under #ifndef pr_fmt (fs/fuse's)
 * would lose to without a word.
 */
#ifdef CMSTAT_ADOPT_OWN_PR_FMT
#undef pr_fmt
#endif

#endif /* _CMSTAT_ADOPT_H */
