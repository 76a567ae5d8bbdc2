// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_alloc_test: the allocator's edges a driver meets, called from
 * outside as a driver calls them, on every kernel (the stock ones have no
 * KUnit):
 *
 *	align		16 objects of every class and some large sizes
 *			have the alignment the documentation promises (as
 *			kmalloc() aligns, DMA cache lines included)
 *	realloc		cmstat_realloc() as krealloc(): in place within a
 *			class, moved across classes and to and from large
 *			sizes, to 0 and from NULL; the contents kept, the
 *			statistics back where they were after the last free
 *			(with debug_free=1, a wrong old size refused too)
 *	dma		GFP_DMA and GFP_DMA32: refused where cmstat's class
 *			caches would ignore the zone, with one message that
 *			names the caller; GFP_DMA above the largest class
 *			from the DMA zone
 *	kvmalloc	cmstat_kvmalloc() as kvmalloc() (mm/util.c): served
 *			or refused as it would be, failed_allocs moved once
 *			per refusal, never for a success
 *	wrong_size_and_heap
 *			frees with the wrong size and into the wrong heap,
 *			twice: the memory goes back where it came from (KASAN
 *			would see anything else), the statistics go wrong,
 *			and cmstat says so once per heap, naming it; only
 *			when only= names it (cmstat's totals stay broken)
 *	cache_rcu_destroy
 *			a typed cache destroyed right after
 *			cmstat_kfree_rcu() of its objects, while kfree_rcu()
 *			still holds them: no warning (before 6.12 the slab
 *			allocator's "still has objects" unless cmstat waits)
 *	cache_merge	three typed caches a kernel before 6.5 would merge
 *			(Debian's 6.1 has no SLAB_NO_MERGE), two of one
 *			geometry and one as kmalloc-96: each has a slab
 *			cache of its own, and an unsized free of each
 *			object counts in its own cache.  They stay until
 *			the module unloads, for /sys/kernel/slab to be
 *			looked at.
 *
 * Prints KTAP through cmstat_ktap.h, whose parameter "failed" counts the
 * cases that failed.
 * only=NAME[,NAME...] runs only those cases (each of the checks
 * scripts/guest/checks/client-{usercopy,realloc,kvmalloc,dma,misuse,
 * cache-rcu,cache-merge}.sh runs one).
 */

#include "cmstat_ktap.h"

#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/counters.h>
#include <cmstat/kmalloc.h>

static struct cmstat_heap *alloc_heap;

#define ALIGN_OBJECTS	16

/*
 * What the documentation promises (Documentation/allocator.rst): aligned
 * as kmalloc() aligns the size, computed here from kmalloc()'s and the
 * DMA API's answers on this boot.  The size's largest power-of-two factor;
 * at least kmalloc()'s smallest object, its minimum alignment; and a
 * whole DMA cache line when kmalloc() serves the size from a bucket of a
 * line or more, which the DMA API maps without bouncing.  Large sizes
 * come from the page allocator.
 */
static size_t promised_align(size_t size)
{
	size_t line = dma_get_cache_alignment();
	size_t align = max_t(size_t, size & -size, kmalloc_size_roundup(1));

	if (size > CMSTAT_MAX_CLASS_SIZE)
		return PAGE_SIZE;
	if (kmalloc_size_roundup(size) >= line)
		align = max(align, line);
	return align;
}

/*
 * Where the promise is a DMA cache line, what it is for: no two of @objs
 * share a line, so DMA into one cannot touch another.
 */
static bool share_line(size_t size, void **objs, unsigned int n)
{
	size_t line = dma_get_cache_alignment();
	unsigned long first_i, last_i, first_j, last_j;
	unsigned int i, j;

	if (promised_align(size) < line)
		return false;
	for (i = 0; i < n; i++) {
		first_i = (unsigned long)objs[i] / line;
		last_i = ((unsigned long)objs[i] + size - 1) / line;
		for (j = i + 1; j < n; j++) {
			first_j = (unsigned long)objs[j] / line;
			last_j = ((unsigned long)objs[j] + size - 1) / line;
			if (first_i <= last_j && first_j <= last_i)
				return true;
		}
	}
	return false;
}

/*
 * Return: how many of @n objects of @size were misaligned (all of them
 * when two share a DMA cache line), or -ENOMEM.
 */
static int check_align(size_t size, void **objs, unsigned int n)
{
	size_t want = promised_align(size);
	unsigned int i, bad = 0;
	int err = 0;

	for (i = 0; i < n; i++) {
		objs[i] = cmstat_alloc(alloc_heap, size, GFP_KERNEL);
		if (!objs[i])
			err = -ENOMEM;
		else if (!IS_ALIGNED((unsigned long)objs[i], want))
			bad++;
	}
	if (!err && share_line(size, objs, n))
		bad = n;
	for (i = 0; i < n; i++)
		cmstat_free(alloc_heap, objs[i], size);
	return err ?: bad;
}

static void align_case(struct ktap_test *t)
{
	static const size_t large[] = { CMSTAT_MAX_CLASS_SIZE + 1, 70000 };
	void *objs[ALIGN_OBJECTS];
	size_t size;
	int bad, i;

	ktap_diag(t, "kmalloc's smallest object %zu bytes, DMA cache line %d bytes",
		  kmalloc_size_roundup(1), dma_get_cache_alignment());
	for (i = 0; i < CMSTAT_NR_CLASSES + (int)ARRAY_SIZE(large); i++) {
		size = i < CMSTAT_NR_CLASSES ? cmstat_class_size(i) :
		       large[i - CMSTAT_NR_CLASSES];
		bad = check_align(size, objs, ALIGN_OBJECTS);
		if (!KTAP_EXPECT(t, bad >= 0))
			return;
		if (bad)
			ktap_fail(t,
				  "size %zu: %d of %u objects not %zu-aligned, or sharing a DMA cache line",
				  size, bad, ALIGN_OBJECTS, promised_align(size));
	}
	ktap_diag(t, "checked %d sizes (%u classes), %u objects each", i,
		  CMSTAT_NR_CLASSES, ALIGN_OBJECTS);
}

/* The heap's failed_allocs; U64_MAX if it cannot be read. */
static u64 alloc_failed_allocs(void)
{
	struct cmstat_heap_stats *st = kmalloc(sizeof(*st), GFP_KERNEL);
	u64 failed = U64_MAX;

	if (st && !cmstat_heap_read(alloc_heap, st))
		failed = st->failed_allocs;
	kfree(st);
	return failed;
}

/* Whether @p holds the pattern realloc_case() wrote, over @n bytes. */
static bool realloc_pattern(const u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (u8)(i * 7 + 1))
			return false;
	return true;
}

/*
 * Bytes @from to @to of @p are zero.  @to may be past the size asked for,
 * in the object's class slack, which cmstat_realloc() zeroes too; its
 * __realloc_size() tells FORTIFY_SOURCE the size asked for, so the pointer
 * is hidden from it first.
 */
static bool realloc_zero(const u8 *p, size_t from, size_t to)
{
	OPTIMIZER_HIDE_VAR(p);
	return !memchr_inv(p + from, 0, to - from);
}

/* A resize of *@p, of *@size bytes, returned @q: take it if it is one. */
static void realloc_took(u8 **p, size_t *size, u8 *q, size_t new_size)
{
	if (q) {
		*p = q;
		*size = new_size;
	}
}

/* Each step of realloc_case(), from an object of 100 bytes at @p. */
static void realloc_steps(struct ktap_test *t, u8 *p)
{
	size_t size = 100;
	u8 *q;

	/* 100 and 110 bytes share the 112-byte class. */
	q = cmstat_realloc(alloc_heap, p, size, 110, GFP_KERNEL | __GFP_ZERO);
	KTAP_EXPECT(t, q == p);
	KTAP_EXPECT(t, q && realloc_pattern(q, 100) && realloc_zero(q, 100, 112));
	realloc_took(&p, &size, q, 110);
	q = cmstat_realloc(alloc_heap, p, size, 5000, GFP_KERNEL);
	KTAP_EXPECT(t, q && q != p && realloc_pattern(q, 100));
	realloc_took(&p, &size, q, 5000);
	q = cmstat_realloc(alloc_heap, p, size, 300000, GFP_KERNEL);
	KTAP_EXPECT(t, q && realloc_pattern(q, 100));
	realloc_took(&p, &size, q, 300000);
	q = cmstat_realloc(alloc_heap, p, size, 64, GFP_KERNEL);
	KTAP_EXPECT(t, q && realloc_pattern(q, 64));
	realloc_took(&p, &size, q, 64);
	if (cmstat_debug_free_enabled()) {
		/* A wrong old size: refused, reported, the object kept. */
		q = cmstat_realloc(alloc_heap, p, 65, 64, GFP_KERNEL);
		KTAP_EXPECT(t, !q && realloc_pattern(p, 64));
		realloc_took(&p, &size, q, 64);
		KTAP_EXPECT(t, ktap_console_lines("into heap alloc_test",
						  "with size 65,") == 1);
	}
	q = cmstat_realloc(alloc_heap, p, size, 0, GFP_KERNEL);
	KTAP_EXPECT(t, q == ZERO_SIZE_PTR);
	q = cmstat_realloc(alloc_heap, NULL, 0, 200, GFP_KERNEL);
	if (KTAP_EXPECT(t, !ZERO_OR_NULL_PTR(q)))
		cmstat_free(alloc_heap, q, 200);
}

static void realloc_case(struct ktap_test *t)
{
	struct cmstat_heap_stats *before, *after;
	u8 *p;
	size_t i;

	before = kmalloc(sizeof(*before), GFP_KERNEL);
	after = kmalloc(sizeof(*after), GFP_KERNEL);
	if (!KTAP_EXPECT(t, before && after) ||
	    !KTAP_EXPECT(t, !cmstat_heap_read(alloc_heap, before)))
		goto out;
	p = cmstat_alloc(alloc_heap, 100, GFP_KERNEL);
	if (!KTAP_EXPECT(t, p))
		goto out;
	for (i = 0; i < 100; i++)
		p[i] = i * 7 + 1;
	realloc_steps(t, p);
	if (!KTAP_EXPECT(t, !cmstat_heap_read(alloc_heap, after)))
		goto out;
	ktap_diag(t, "allocations %llu, frees %llu",
		  after->mallocs - before->mallocs, after->frees - before->frees);
	KTAP_EXPECT(t, after->live_objects == before->live_objects);
	KTAP_EXPECT(t, after->live_bytes == before->live_bytes);
	KTAP_EXPECT(t, after->live_requested_bytes ==
		    before->live_requested_bytes);
	KTAP_EXPECT(t, cmstat_heap_stats_valid(after));
out:
	kfree(before);
	kfree(after);
}

/* A GFP_DMA32 allocation served from above 4 GiB was not honoured. */
static bool kv_zone_honoured(struct page *page, gfp_t gfp)
{
#ifdef CONFIG_ZONE_DMA32
	if (gfp & __GFP_DMA32)
		return page_zonenum(page) <= ZONE_DMA32;
#endif
	return true;
}

/* One cmstat_kvmalloc(), checked: served or not, and failed_allocs. */
static void kv_try(struct ktap_test *t, const char *what, size_t size,
		   gfp_t gfp, bool atomic, bool served)
{
	u64 failed = alloc_failed_allocs();
	struct page *page = NULL;
	void *p;

	if (atomic)
		preempt_disable();
	p = cmstat_kvmalloc(alloc_heap, size, gfp);
	if (atomic)
		preempt_enable();
	failed = alloc_failed_allocs() - failed;
	if (p)
		page = is_vmalloc_addr(p) ? vmalloc_to_page(p) : virt_to_page(p);
	ktap_diag(t, "%s, %zu bytes: %s%s%s, failed_allocs moved by %llu",
		  what, size, p ? "served, zone " : "refused",
		  page ? page_zone(page)->name : "",
		  p && is_vmalloc_addr(p) ? " (vmalloc)" : "", failed);
	KTAP_EXPECT(t, !!p == served);
	KTAP_EXPECT(t, failed == !served);
	KTAP_EXPECT(t, !page || kv_zone_honoured(page, gfp));
	cmstat_kvfree(alloc_heap, p);
}

static void kvmalloc_case(struct ktap_test *t)
{
	size_t beyond = CMSTAT_ALLOC_MAX + PAGE_SIZE;

	/* As kvmalloc(): vmalloc() may sleep, so no fallback there. */
	kv_try(t, "GFP_ATOMIC beyond KMALLOC_MAX_SIZE, preemption off",
	       beyond, GFP_ATOMIC | __GFP_NOWARN, true, false);
	kv_try(t, "GFP_NOWAIT beyond KMALLOC_MAX_SIZE", beyond,
	       GFP_NOWAIT | __GFP_NOWARN, false, false);
	kv_try(t, "GFP_KERNEL beyond KMALLOC_MAX_SIZE", beyond, GFP_KERNEL,
	       false, true);
	/* Refused by cmstat's caches, honoured by vmalloc() before 6.19. */
	kv_try(t, "GFP_DMA32", 3 * PAGE_SIZE, GFP_KERNEL | GFP_DMA32, false,
	       cmstat_vmalloc_serves_zone(GFP_DMA32));
	kv_try(t, "__GFP_HIGHMEM", 3 * PAGE_SIZE, GFP_KERNEL | __GFP_HIGHMEM,
	       false, true);
	kv_try(t, "GFP_DMA32", 100, GFP_KERNEL | GFP_DMA32, false, false);
	kv_try(t, "GFP_DMA32 with GFP_ATOMIC", 3 * PAGE_SIZE,
	       GFP_ATOMIC | GFP_DMA32, false, false);
}

/*
 * One allocation with a zone modifier: refused (counted in @refused), or
 * served from @zones, a list of the zones' names split by "|".
 */
static void dma_try(struct ktap_test *t, const char *what, size_t size,
		    void *obj, const char *zones, unsigned int *refused)
{
	const char *zone;

	if (!obj) {
		(*refused)++;
		ktap_diag(t, "%s %zu: refused", what, size);
		return;
	}
	zone = page_zone(virt_to_page(obj))->name;
	ktap_diag(t, "%s %zu: zone %s", what, size, zone);
	/* Without ZONE_DMA, the kernel has no zone to check against. */
	if (IS_ENABLED(CONFIG_ZONE_DMA))
		KTAP_EXPECT(t, strstr(zones, zone));
	cmstat_free(alloc_heap, obj, size);
}

static void dma_case(struct ktap_test *t)
{
	u64 failed = alloc_failed_allocs();
	unsigned int refused = 0;

	/* Constant flags: the inline fast path's own test. */
	dma_try(t, "GFP_DMA", 100,
		cmstat_alloc(alloc_heap, 100, GFP_KERNEL | GFP_DMA),
		"DMA", &refused);
	dma_try(t, "GFP_DMA", CMSTAT_MAX_CLASS_SIZE,
		cmstat_alloc(alloc_heap, CMSTAT_MAX_CLASS_SIZE,
			     GFP_KERNEL | GFP_DMA), "DMA", &refused);
	dma_try(t, "GFP_DMA32", 100,
		cmstat_alloc(alloc_heap, 100, GFP_KERNEL | GFP_DMA32),
		"DMA|DMA32", &refused);
	dma_try(t, "GFP_DMA32", CMSTAT_MAX_CLASS_SIZE,
		cmstat_alloc(alloc_heap, CMSTAT_MAX_CLASS_SIZE,
			     GFP_KERNEL | GFP_DMA32), "DMA|DMA32", &refused);
	dma_try(t, "GFP_DMA", 300000,
		cmstat_alloc(alloc_heap, 300000, GFP_KERNEL | GFP_DMA),
		"DMA", &refused);
	failed = alloc_failed_allocs() - failed;
	ktap_diag(t, "refused %u, failed_allocs moved by %llu", refused, failed);
	KTAP_EXPECT(t, failed == refused);
	/*
	 * cmstat's message is once per load: this case runs before
	 * kvmalloc, which provokes it too (client-kvmalloc.sh loads cmstat
	 * afresh after it).
	 */
	if (refused)
		KTAP_EXPECT(t, ktap_console_lines("refused", "dma_case") == 1);
}

/* One round of wrong_size_and_heap_case(), on heaps @a and @b. */
static bool misuse_round(struct cmstat_heap *a, struct cmstat_heap *b)
{
	void *p = cmstat_alloc(a, 100, GFP_KERNEL);
	void *q = cmstat_alloc(b, 200, GFP_KERNEL);
	void *r = cmstat_alloc(a, 100, GFP_KERNEL);

	if (!p || !q || !r) {
		cmstat_free(a, p, 100);
		cmstat_free(b, q, 200);
		cmstat_free(a, r, 100);
		return false;
	}
	/* 100 bytes come from the 112-byte class; 2000 names the 2048. */
	cmstat_free(a, p, 2000);
	/* Two objects swap heaps: each heap's totals stay balanced. */
	cmstat_free(b, r, 100);
	cmstat_free(a, q, 200);
	return true;
}

/*
 * The heaps' broken statistics stay in cmstat's totals of all heaps once
 * they are destroyed: the case runs only when only= names it, and its
 * check loads cmstat afresh after it.
 */
static void wrong_size_and_heap_case(struct ktap_test *t)
{
	struct cmstat_heap *a, *b;
	struct cmstat_heap_stats *st;
	bool freed;
	int i;

	if (!ktap_only_names(t) || !cmstat_accounting_enabled() ||
	    cmstat_debug_free_enabled()) {
		ktap_skip(t,
			  "breaks cmstat's totals for good: only when named by only=, with accounting and without debug_free=1");
		return;
	}
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	a = cmstat_heap_create("misuse_a");
	b = cmstat_heap_create("misuse_b");
	if (!KTAP_EXPECT(t, st && !IS_ERR(a) && !IS_ERR(b)))
		goto out;
	for (i = 0; i < 2; i++) {
		freed = misuse_round(a, b);
		KTAP_EXPECT(t, freed);
		/* A snapshot is where cmstat finds the statistics broken. */
		KTAP_EXPECT(t, !cmstat_heap_read(a, st));
		KTAP_EXPECT(t, !cmstat_heap_read(b, st));
	}
	/* Once per heap, whatever it says. */
	KTAP_EXPECT(t, ktap_console_lines("heap misuse_a:", NULL) == 1);
	KTAP_EXPECT(t, ktap_console_lines("heap misuse_b:", NULL) == 1);
out:
	if (!IS_ERR(b))
		cmstat_heap_destroy(b);
	if (!IS_ERR(a))
		cmstat_heap_destroy(a);
	kfree(st);
}

struct rcu_obj {
	struct rcu_head rcu;
	u64 payload[4];
};

/* A constructor, which no kernel merges: merging is not tested here. */
static void rcu_obj_ctor(void *obj)
{
}

static void cache_rcu_destroy_case(struct ktap_test *t)
{
	struct cmstat_cache *cc;
	struct rcu_obj *obj;
	int i;

	cc = cmstat_cache_create(alloc_heap, "alloc_test_rcu", sizeof(*obj), 0,
				 0, rcu_obj_ctor);
	if (!KTAP_EXPECT(t, cc))
		return;
	for (i = 0; i < 16; i++) {
		obj = cmstat_cache_alloc(cc, GFP_KERNEL);
		if (!KTAP_EXPECT(t, obj))
			break;
		cmstat_kfree_rcu(alloc_heap, obj, rcu);
	}
	/* At once: kfree_rcu() still holds every object. */
	cmstat_cache_destroy(cc);
	KTAP_EXPECT(t, !ktap_console_lines("left allocated", NULL));
}

/* cache_merge's heap and caches, which stay until the module unloads. */
#define NR_MERGE	3
static struct cmstat_heap *merge_heap;
static struct cmstat_cache *merge_caches[NR_MERGE];
static const char * const merge_names[NR_MERGE] = {
	"alloc_test_merge_a", "alloc_test_merge_b", "alloc_test_merge_k"
};

static const unsigned int merge_sizes[NR_MERGE] = { 64, 64, 96 };

static void merge_destroy(void)
{
	unsigned int i;

	for (i = 0; i < NR_MERGE; i++) {
		cmstat_cache_destroy(merge_caches[i]);
		merge_caches[i] = NULL;
	}
	if (merge_heap)
		cmstat_heap_destroy(merge_heap);
	merge_heap = NULL;
}

/* Each cache counted what was allocated from it, and nothing else. */
static void merge_counted(struct ktap_test *t)
{
	struct cmstat_cache_stats st;
	unsigned int i;

	for (i = 0; i < NR_MERGE; i++) {
		if (!KTAP_EXPECT(t, !cmstat_cache_read(merge_caches[i], &st)))
			continue;
		ktap_diag(t, "%s: mallocs %llu frees %llu", merge_names[i],
			  st.mallocs, st.frees);
		KTAP_EXPECT(t, st.mallocs == 1 && st.frees == 1);
	}
}

static void cache_merge_case(struct ktap_test *t)
{
	struct kmem_cache *kmalloc_96;
	unsigned int i;
	void *obj;

	merge_heap = cmstat_heap_create("alloc_test_merge");
	if (!KTAP_EXPECT(t, !IS_ERR(merge_heap))) {
		merge_heap = NULL;
		return;
	}
	for (i = 0; i < NR_MERGE; i++) {
		merge_caches[i] = cmstat_cache_create(merge_heap, merge_names[i],
						      merge_sizes[i], 0, 0,
						      NULL);
		if (!KTAP_EXPECT(t, merge_caches[i]))
			return;
	}
	obj = kmalloc(96, GFP_KERNEL);
	if (!KTAP_EXPECT(t, obj))
		return;
	kmalloc_96 = cmstat_slab_cache_of(obj);
	kfree(obj);
	KTAP_EXPECT(t, merge_caches[0]->slab != merge_caches[1]->slab);
	KTAP_EXPECT(t, merge_caches[2]->slab != kmalloc_96);
	/* An unsized free finds the cache by the object's slab cache. */
	for (i = 0; i < NR_MERGE; i++) {
		obj = cmstat_cache_alloc(merge_caches[i], GFP_KERNEL);
		if (!KTAP_EXPECT(t, obj))
			return;
		cmstat_kfree(merge_heap, obj);
	}
	merge_counted(t);
}

static const struct ktap_case alloc_cases[] = {
	{ "align", align_case },
	{ "realloc", realloc_case },
	{ "dma", dma_case },
	{ "kvmalloc", kvmalloc_case },
	{ "wrong_size_and_heap", wrong_size_and_heap_case },
	{ "cache_rcu_destroy", cache_rcu_destroy_case },
	{ "cache_merge", cache_merge_case },
};

static int __init alloc_test_init(void)
{
	int err;

	alloc_heap = cmstat_heap_create("alloc_test");
	if (IS_ERR(alloc_heap))
		return PTR_ERR(alloc_heap);
	err = ktap_run(alloc_cases, ARRAY_SIZE(alloc_cases));
	cmstat_heap_destroy(alloc_heap);
	return err;
}

static void __exit alloc_test_exit(void)
{
	merge_destroy();
}

module_init(alloc_test_init);
module_exit(alloc_test_exit);

MODULE_DESCRIPTION("cmstat: the allocator's edges, called as a driver calls them");
MODULE_LICENSE("GPL");
