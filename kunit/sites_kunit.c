// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of call-site rows (include/cmstat/site.h) and of the leak
 * check (include/cmstat/kunit.h).  Built with CMSTAT_SITES (kunit/Kbuild),
 * as a module that wants its sites would be: each allocation below is a
 * site of its own, and the heaps this file creates have site rows.
 */

#include <kunit/test.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <cmstat/kunit.h>

#include "cmstat_kunit.h"

/* Enough rows for every case here. */
#define SITES_ROWS	16

/* Whether large allocations have rows: a 32-bit record has no room. */
#define SITES_LARGE_ROWS	(BITS_PER_LONG == 64)

/* The rows and totals of @heap, at one cut; the number of rows. */
static unsigned int sites_read(struct kunit *test, struct cmstat_heap *heap,
			       struct cmstat_site_stats *rows,
			       struct cmstat_heap_stats *st)
{
	int n = cmstat_heap_sites_read(heap, rows, SITES_ROWS, st);

	KUNIT_ASSERT_GE(test, n, 1);
	KUNIT_ASSERT_LE(test, n, SITES_ROWS);
	return n;
}

/* The row of the site at @line of @function, or NULL. */
static const struct cmstat_site_stats *
sites_row(const struct cmstat_site_stats *rows, unsigned int n,
	  const char *function, unsigned int line)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (rows[i].line == line && !strcmp(rows[i].function, function))
			return &rows[i];
	return NULL;
}

/* The rows of @st's heap sum to its totals: objects, bytes and counts. */
static void sites_expect_sums(struct kunit *test,
			      const struct cmstat_site_stats *rows,
			      unsigned int n, const struct cmstat_heap_stats *st)
{
	u64 mallocs = 0, frees = 0, live = 0, bytes = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, rows[i].column, i);
		mallocs += rows[i].mallocs;
		frees += rows[i].frees;
		live += rows[i].live_objects;
		bytes += rows[i].live_bytes;
	}
	KUNIT_EXPECT_EQ(test, mallocs, st->mallocs);
	KUNIT_EXPECT_EQ(test, frees, st->frees);
	KUNIT_EXPECT_EQ(test, live, st->live_objects);
	KUNIT_EXPECT_EQ(test, bytes, st->live_bytes);
}

/* Frees elsewhere than the site: the row is the allocating line's. */
static noinline void sites_free_elsewhere(struct cmstat_heap *heap, void *obj)
{
	cmstat_kfree(heap, obj);
}

static struct cmstat_heap_stats *sites_stats(struct kunit *test)
{
	struct cmstat_heap_stats *st = kunit_kzalloc(test, sizeof(*st),
						     GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	return st;
}

static struct cmstat_site_stats *sites_rows(struct kunit *test)
{
	struct cmstat_site_stats *rows = kunit_kcalloc(test, SITES_ROWS,
						       sizeof(*rows),
						       GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rows);
	return rows;
}

/*
 * Each line its row, exact: sized and unsized allocations, frees in
 * another function, the _node and kvmalloc() families and a copy, which
 * pass their site to cmstat.ko, a typed cache's object, tagged past the
 * client's, and a large allocation, whose record keeps its column; the
 * rows sum to the heap at every read.
 */
static void sites_rows_exact(struct kunit *test)
{
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_rows");
	struct cmstat_cache *cc = cmstat_kunit_cache(test, heap, "sites_typed",
						     72, 0, 0, NULL);
	struct cmstat_site_stats *rows = sites_rows(test);
	struct cmstat_heap_stats *st = sites_stats(test);
	const struct cmstat_site_stats *row;
	unsigned int n, sized_line, unsized_line, node_line, kv_line, dup_line;
	unsigned int typed_line, large_line, i;
	void *sized[3], *unsized[2], *dup, *typed, *large, *on_node, *kv;

	for (i = 0; i < ARRAY_SIZE(sized); i++) {
		sized_line = __LINE__ + 1;
		sized[i] = cmstat_alloc(heap, 24, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, sized[i]);
	}
	for (i = 0; i < ARRAY_SIZE(unsized); i++) {
		unsized_line = __LINE__ + 1;
		unsized[i] = cmstat_kzalloc(heap, 100, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, unsized[i]);
	}
	/* Out of line, in cmstat.ko, with this line's site. */
	node_line = __LINE__ + 1;
	on_node = cmstat_kzalloc_node(heap, 40, GFP_KERNEL, NUMA_NO_NODE);
	kv_line = __LINE__ + 1;
	kv = cmstat_kvmalloc(heap, 200, GFP_KERNEL);
	dup_line = __LINE__ + 1;
	dup = cmstat_kmemdup(heap, "twelve bytes", 12, GFP_KERNEL);
	typed_line = __LINE__ + 1;
	typed = cmstat_cache_alloc(cc, GFP_KERNEL);
	large_line = __LINE__ + 1;
	large = cmstat_kmalloc(heap, SZ_512K, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, on_node);
	KUNIT_ASSERT_NOT_NULL(test, kv);
	KUNIT_ASSERT_NOT_NULL(test, dup);
	KUNIT_ASSERT_NOT_NULL(test, typed);
	KUNIT_ASSERT_NOT_NULL(test, large);

	n = sites_read(test, heap, rows, st);
	KUNIT_EXPECT_EQ(test, n, 7 + SITES_LARGE_ROWS);
	sites_expect_sums(test, rows, n, st);
	row = sites_row(rows, n, __func__, sized_line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->mallocs, 3);
	/* 24 bytes and the tag: the 32-byte class. */
	KUNIT_EXPECT_EQ(test, row->live_bytes, 3 * 32);
	KUNIT_EXPECT_EQ(test, strncmp(row->file, __FILE__, sizeof(row->file) - 1),
			0);
	row = sites_row(rows, n, __func__, unsized_line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->live_objects, 2);
	KUNIT_EXPECT_EQ(test, row->live_bytes, 2 * 112);
	/* 40 and the tag, 48; 200 and the tag, 208. */
	row = sites_row(rows, n, __func__, node_line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->live_bytes, 48);
	row = sites_row(rows, n, __func__, kv_line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->live_bytes, 208);
	/* 12 and the tag, 16. */
	row = sites_row(rows, n, __func__, dup_line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->live_bytes, 16);
	/* The cache's object size, and the large one's pages. */
	row = sites_row(rows, n, __func__, typed_line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->live_bytes, 72);
	row = sites_row(rows, n, __func__, large_line);
	if (SITES_LARGE_ROWS) {
		KUNIT_ASSERT_NOT_NULL(test, row);
		KUNIT_EXPECT_EQ(test, row->live_bytes, SZ_512K);
	}
	/* The unattributed: nothing (on 32-bit, the large one). */
	KUNIT_EXPECT_EQ(test, rows[0].live_objects, 1 - SITES_LARGE_ROWS);
	KUNIT_EXPECT_EQ(test, rows[0].function[0], '\0');

	for (i = 0; i < ARRAY_SIZE(sized); i++)
		cmstat_free(heap, sized[i], 24);
	sites_free_elsewhere(heap, unsized[0]);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	row = sites_row(rows, n, __func__, sized_line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->frees, 3);
	KUNIT_EXPECT_EQ(test, row->live_bytes, 0);
	row = sites_row(rows, n, __func__, unsized_line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->live_objects, 1);

	sites_free_elsewhere(heap, unsized[1]);
	sites_free_elsewhere(heap, on_node);
	cmstat_kvfree(heap, kv);
	cmstat_kfree(heap, dup);
	cmstat_cache_free(cc, typed);
	cmstat_kfree(heap, large);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	KUNIT_EXPECT_EQ(test, st->live_objects, 0);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, rows[i].live_bytes, 0);
}

/* cmstat_kvasprintf()'s site: the line below, in this function. */
static __printf(3, 4) char *sites_vasprintf(struct cmstat_heap *heap,
					    unsigned int *line,
					    const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	*line = __LINE__ + 1;
	p = cmstat_kvasprintf(heap, GFP_KERNEL, fmt, ap);
	va_end(ap);
	return p;
}

/* @line's row of @rows holds one object of @bytes, and has held only it. */
static void sites_expect_one(struct kunit *test,
			     const struct cmstat_site_stats *rows,
			     unsigned int n, const char *function,
			     unsigned int line, u64 bytes)
{
	const struct cmstat_site_stats *row = sites_row(rows, n, function,
							line);

	KUNIT_ASSERT_NOT_NULL_MSG(test, row, "%s:%u", function, line);
	KUNIT_EXPECT_EQ_MSG(test, row->mallocs, 1, "%s:%u", function, line);
	KUNIT_EXPECT_EQ_MSG(test, row->live_objects, 1, "%s:%u", function,
			    line);
	KUNIT_EXPECT_EQ_MSG(test, row->live_bytes, bytes, "%s:%u", function,
			    line);
}

/*
 * The copies, the strings and the resizes, out of line in cmstat.ko, pass
 * their site too: each line its row, freed elsewhere.  A resize that
 * moves the object is an allocation at its own line, and the old object's
 * free counts at the line that allocated it, as allocation profiling
 * counts a krealloc() that moves; one in place allocates nothing, and the
 * object stays where it was counted.  An overflow of
 * cmstat_krealloc_array() counts nothing.  The rows sum to the heap at
 * every read.
 */
static void sites_dup_rows(struct kunit *test)
{
	static const u64 words[] = { 1, 2, 3 };
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_dup");
	struct cmstat_site_stats *rows = sites_rows(test);
	struct cmstat_heap_stats *st = sites_stats(test);
	unsigned int n, i, arr_line, str_line, strn_line, fmt_line, vfmt_line;
	unsigned int seed_line, same_line, moved_line, grown_line, kv_line;
	unsigned int fresh_line, from[3];
	void *arr, *seed, *same, *moved, *grown, *kv, *fresh, *none;
	char *str, *strn, *fmt, *vfmt;
	const struct cmstat_site_stats *row;
	u64 failed;

	arr_line = __LINE__ + 1;
	arr = cmstat_kmemdup_array(heap, words, 3, sizeof(u64), GFP_KERNEL);
	str_line = __LINE__ + 1;
	str = cmstat_kstrdup(heap, "kstrdup", GFP_KERNEL);
	strn_line = __LINE__ + 1;
	strn = cmstat_kstrndup(heap, "kstrndup, cut", 8, GFP_KERNEL);
	fmt_line = __LINE__ + 1;
	fmt = cmstat_kasprintf(heap, GFP_KERNEL, "%s-%d", "sites", 42);
	vfmt = sites_vasprintf(heap, &vfmt_line, "%s-%d", "vsites", 7);
	seed_line = __LINE__ + 1;
	seed = cmstat_kmalloc(heap, 20, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, arr);
	KUNIT_ASSERT_NOT_NULL(test, str);
	KUNIT_ASSERT_NOT_NULL(test, strn);
	KUNIT_ASSERT_NOT_NULL(test, fmt);
	KUNIT_ASSERT_NOT_NULL(test, vfmt);
	KUNIT_ASSERT_NOT_NULL(test, seed);
	KUNIT_EXPECT_EQ(test, memcmp(arr, words, sizeof(words)), 0);
	KUNIT_EXPECT_STREQ(test, str, "kstrdup");
	KUNIT_EXPECT_STREQ(test, strn, "kstrndup");
	KUNIT_EXPECT_STREQ(test, fmt, "sites-42");
	KUNIT_EXPECT_STREQ(test, vfmt, "vsites-7");
	memcpy(seed, "sixteen bytes..", 16);

	/* In place: 16 bytes in the 24-byte class with the tag. */
	same_line = __LINE__ + 1;
	same = cmstat_krealloc(heap, seed, 16, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, same, seed);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	KUNIT_EXPECT_NULL(test, sites_row(rows, n, __func__, same_line));
	/* Each and the tag: 24 and 28 bytes, 32; 8 and 9, 16; 20, 24. */
	sites_expect_one(test, rows, n, __func__, arr_line, 32);
	sites_expect_one(test, rows, n, __func__, str_line, 16);
	sites_expect_one(test, rows, n, __func__, strn_line, 16);
	sites_expect_one(test, rows, n, __func__, fmt_line, 16);
	sites_expect_one(test, rows, n, "sites_vasprintf", vfmt_line, 16);
	sites_expect_one(test, rows, n, __func__, seed_line, 24);
	KUNIT_EXPECT_EQ(test, rows[0].mallocs, 0);

	/* Moved, each time: 100 bytes, 30 of 8, 1000 (kvrealloc). */
	moved_line = __LINE__ + 1;
	moved = cmstat_krealloc(heap, same, 100, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, moved);
	grown_line = __LINE__ + 1;
	grown = cmstat_krealloc_array(heap, moved, 30, 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, grown);
	kv_line = __LINE__ + 1;
	kv = cmstat_kvrealloc(heap, grown, 1000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kv);
	KUNIT_EXPECT_EQ(test, memcmp(kv, "sixteen bytes..", 16), 0);
	fresh_line = __LINE__ + 1;
	fresh = cmstat_krealloc(heap, NULL, 40, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fresh);
	failed = st->failed_allocs;
	none = cmstat_krealloc_array(heap, fresh, SIZE_MAX / 2, 4, GFP_KERNEL);
	KUNIT_EXPECT_NULL(test, none);

	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	KUNIT_EXPECT_EQ(test, st->failed_allocs, failed);
	KUNIT_EXPECT_EQ(test, n, 11);
	sites_expect_one(test, rows, n, __func__, kv_line, 1024);
	sites_expect_one(test, rows, n, __func__, fresh_line, 48);
	/* Each moved away from: freed at the line that allocated it. */
	from[0] = seed_line;
	from[1] = moved_line;
	from[2] = grown_line;
	for (i = 0; i < ARRAY_SIZE(from); i++) {
		row = sites_row(rows, n, __func__, from[i]);
		KUNIT_ASSERT_NOT_NULL_MSG(test, row, "line %u", from[i]);
		KUNIT_EXPECT_EQ(test, row->mallocs, 1);
		KUNIT_EXPECT_EQ(test, row->frees, 1);
		KUNIT_EXPECT_EQ(test, row->live_bytes, 0);
	}
	KUNIT_EXPECT_EQ(test, rows[0].mallocs, 0);

	sites_free_elsewhere(heap, arr);
	sites_free_elsewhere(heap, str);
	sites_free_elsewhere(heap, strn);
	sites_free_elsewhere(heap, fmt);
	sites_free_elsewhere(heap, vfmt);
	sites_free_elsewhere(heap, kv);
	sites_free_elsewhere(heap, fresh);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	row = sites_row(rows, n, __func__, str_line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->frees, 1);
	KUNIT_EXPECT_EQ(test, row->live_objects, 0);
	KUNIT_EXPECT_EQ(test, st->live_objects, 0);
}

static struct cmstat_node_stats *sites_node_rows(struct kunit *test)
{
	struct cmstat_node_stats *rows = kunit_kcalloc(test, nr_node_ids,
						       sizeof(*rows),
						       GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rows);
	return rows;
}

/* The node rows and totals of @heap, at one cut. */
static void sites_nodes_read(struct kunit *test, struct cmstat_heap *heap,
			     struct cmstat_node_stats *rows,
			     struct cmstat_heap_stats *st)
{
	KUNIT_ASSERT_EQ(test,
			cmstat_heap_nodes_read(heap, rows, nr_node_ids, st),
			nr_node_ids);
}

/* Whether node rows @rows sum to @st: objects, bytes, counts. */
static bool sites_nodes_sum_to(const struct cmstat_node_stats *rows,
			       const struct cmstat_heap_stats *st)
{
	u64 mallocs = 0, frees = 0, live = 0, bytes = 0;
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++) {
		mallocs += rows[nid].mallocs;
		frees += rows[nid].frees;
		live += rows[nid].live_objects;
		bytes += rows[nid].live_bytes;
	}
	return mallocs == st->mallocs && frees == st->frees &&
	       live == st->live_objects && bytes == st->live_bytes;
}

#define SITES_PER_NODE	3
#define SITES_BULK	4

/* Add @obj, of @held bytes, to the live figures of its memory's node. */
static void sites_node_expect(u64 *live, u64 *bytes, const void *obj,
			      size_t held)
{
	int nid = is_vmalloc_addr(obj) ? page_to_nid(vmalloc_to_page(obj)) :
					 page_to_nid(virt_to_page(obj));

	live[nid]++;
	bytes[nid] += held;
}

/*
 * cmstat_realloc(), sized, out of line: the memory a resize moves to is an
 * allocation at its line, and the old object's free counts at the line
 * that allocated it.
 */
static void sites_realloc_moves(struct kunit *test)
{
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_realloc");
	struct cmstat_site_stats *rows = sites_rows(test);
	struct cmstat_heap_stats *st = sites_stats(test);
	const struct cmstat_site_stats *row;
	unsigned int n, from_line, to_line;
	void *obj, *moved;

	from_line = __LINE__ + 1;
	obj = cmstat_alloc(heap, 24, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	to_line = __LINE__ + 1;
	moved = cmstat_realloc(heap, obj, 24, 200, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, moved);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	row = sites_row(rows, n, __func__, from_line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->frees, 1);
	KUNIT_EXPECT_EQ(test, row->live_objects, 0);
	/* 200 and the tag, 208. */
	sites_expect_one(test, rows, n, __func__, to_line, 208);
	KUNIT_EXPECT_EQ(test, rows[0].mallocs, 0);

	cmstat_free(heap, moved, 200);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	KUNIT_EXPECT_EQ(test, st->live_objects, 0);
}

/* A typed cache's object that a constructor fills, freed after RCU. */
struct sites_ctor_obj {
	struct rcu_head rcu;
	u8 body[40];
};

#define SITES_CTOR_BYTE	0x5a

static void sites_ctor(void *obj)
{
	memset(obj, SITES_CTOR_BYTE, sizeof(struct sites_ctor_obj));
}

/* The live objects of the row of @line, which must be there. */
static u64 sites_live_at(struct kunit *test,
			 const struct cmstat_site_stats *rows, unsigned int n,
			 const char *function, unsigned int line, u64 *bytes)
{
	const struct cmstat_site_stats *row = sites_row(rows, n, function,
							line);

	KUNIT_ASSERT_NOT_NULL_MSG(test, row, "no row for line %u", line);
	*bytes = row->live_bytes;
	return row->live_objects;
}

/*
 * A typed cache's objects and large allocations keep their sites however
 * they are freed: through the cache, in bulk, without a size, after a
 * grace period, with a size (whose free reads the large record).  The
 * cache has a constructor and SLAB_TYPESAFE_BY_RCU, whose objects the tag,
 * past the client's object, must leave as the constructor made them.
 */
static void sites_typed_large_frees(struct kunit *test)
{
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_frees");
	struct cmstat_cache *cc =
		cmstat_kunit_cache(test, heap, "sites_ctor",
				   sizeof(struct sites_ctor_obj), 0,
				   SLAB_TYPESAFE_BY_RCU, sites_ctor);
	const size_t vsize = CMSTAT_ALLOC_MAX + PAGE_SIZE;
	struct cmstat_site_stats *rows = sites_rows(test);
	struct cmstat_heap_stats *st = sites_stats(test);
	unsigned int one_line, bulk_line, rcu_line, big_line, vbig_line, n, i;
	void *bulk[SITES_BULK], *one, *big, *vbig;
	struct sites_ctor_obj *rcu;
	u64 bytes;

	cmstat_kunit_expect_no_leak(test, heap);
	one_line = __LINE__ + 1;
	one = cmstat_cache_alloc(cc, GFP_KERNEL);
	bulk_line = __LINE__ + 1;
	KUNIT_ASSERT_EQ(test, cmstat_cache_alloc_bulk(cc, GFP_KERNEL, SITES_BULK,
						      bulk), SITES_BULK);
	rcu_line = __LINE__ + 1;
	rcu = cmstat_cache_alloc(cc, GFP_KERNEL);
	big_line = __LINE__ + 1;
	big = cmstat_alloc(heap, SZ_512K, GFP_KERNEL);
	vbig_line = __LINE__ + 1;
	vbig = cmstat_kvmalloc(heap, vsize, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, one);
	KUNIT_ASSERT_NOT_NULL(test, rcu);
	KUNIT_ASSERT_NOT_NULL(test, big);
	KUNIT_ASSERT_NOT_NULL(test, vbig);
	KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(vbig));
	KUNIT_EXPECT_NULL(test, memchr_inv(one, SITES_CTOR_BYTE,
					   sizeof(struct sites_ctor_obj)));

	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	KUNIT_EXPECT_EQ(test, sites_live_at(test, rows, n, __func__, one_line,
					    &bytes), 1);
	KUNIT_EXPECT_EQ(test, bytes, sizeof(struct sites_ctor_obj));
	KUNIT_EXPECT_EQ(test, sites_live_at(test, rows, n, __func__, bulk_line,
					    &bytes), SITES_BULK);
	KUNIT_EXPECT_EQ(test, sites_live_at(test, rows, n, __func__, rcu_line,
					    &bytes), 1);
	if (SITES_LARGE_ROWS) {
		KUNIT_EXPECT_EQ(test, sites_live_at(test, rows, n, __func__,
						    big_line, &bytes), 1);
		KUNIT_EXPECT_EQ(test, bytes, SZ_512K);
		KUNIT_EXPECT_EQ(test, sites_live_at(test, rows, n, __func__,
						    vbig_line, &bytes), 1);
		KUNIT_EXPECT_EQ(test, bytes, vsize);
	}
	KUNIT_EXPECT_EQ(test, rows[0].mallocs, 2 - 2 * SITES_LARGE_ROWS);

	sites_free_elsewhere(heap, one);
	cmstat_cache_free(cc, bulk[0]);
	cmstat_cache_free_bulk(cc, SITES_BULK - 1, bulk + 1);
	cmstat_kfree_rcu(heap, rcu, rcu);
	cmstat_free(heap, big, SZ_512K);
	sites_free_elsewhere(heap, vbig);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, rows[i].live_objects, 0);
		KUNIT_EXPECT_EQ(test, rows[i].mallocs, rows[i].frees);
	}
	KUNIT_EXPECT_EQ(test, rows[0].frees, 2 - 2 * SITES_LARGE_ROWS);
}

/*
 * A typed cache whose objects fill their alignment has no room for a tag
 * but a whole alignment more: its objects count unattributed, and the rows
 * still sum.
 */
static void sites_typed_untagged(struct kunit *test)
{
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_aligned");
	struct cmstat_cache *cc = cmstat_kunit_cache(test, heap, "sites_al64",
						     64, 64, 0, NULL);
	struct cmstat_site_stats *rows = sites_rows(test);
	struct cmstat_heap_stats *st = sites_stats(test);
	unsigned int n;
	void *obj;

	KUNIT_EXPECT_EQ(test, cc->tag_end, CMSTAT_CACHE_UNTAGGED);
	obj = cmstat_cache_alloc(cc, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	KUNIT_EXPECT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, rows[0].live_objects, 1);
	KUNIT_EXPECT_EQ(test, rows[0].live_bytes, 64);
	sites_free_elsewhere(heap, obj);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	KUNIT_EXPECT_EQ(test, rows[0].frees, 1);
}

/*
 * Each node its row, by the node of the memory: on every node with
 * memory a slab may use, two class objects and a typed cache's,
 * allocated there with __GFP_THISNODE; one allocated anywhere, a
 * vmalloc()ed one and a typed cache's bulk, counted where they landed.  The rows sum to
 * the heap at every read, and a node without memory counts nothing.  On
 * a kernel of one node, node 0 holds all.
 */
static void sites_nodes_exact(struct kunit *test)
{
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_nodes");
	struct cmstat_cache *cc = cmstat_kunit_cache(test, heap, "sites_ntyped",
						     40, 0, 0, NULL);
	struct cmstat_node_stats *rows = sites_node_rows(test);
	struct cmstat_heap_stats *st = sites_stats(test);
	const gfp_t gfp = GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN;
	void *(*objs)[SITES_PER_NODE], *anywhere, *vobj, *bulk[SITES_BULK];
	u64 *live, *bytes;
	int nid, i;

	cmstat_kunit_expect_no_leak(test, heap);
	objs = kunit_kcalloc(test, nr_node_ids, sizeof(*objs), GFP_KERNEL);
	live = kunit_kcalloc(test, nr_node_ids, sizeof(*live), GFP_KERNEL);
	bytes = kunit_kcalloc(test, nr_node_ids, sizeof(*bytes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_NOT_NULL(test, live);
	KUNIT_ASSERT_NOT_NULL(test, bytes);
	for_each_node_state(nid, N_NORMAL_MEMORY) {
		objs[nid][0] = cmstat_kmalloc_node(heap, 50, gfp, nid);
		objs[nid][1] = cmstat_kmalloc_node(heap, 4000, gfp, nid);
		objs[nid][2] = cmstat_cache_alloc_node(cc, gfp, nid);
		KUNIT_ASSERT_NOT_NULL(test, objs[nid][0]);
		KUNIT_ASSERT_NOT_NULL(test, objs[nid][1]);
		KUNIT_ASSERT_NOT_NULL(test, objs[nid][2]);
		/* 50, 4000 and their tags, the cache's 40: on @nid. */
		KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(objs[nid][0])),
				nid);
		live[nid] += SITES_PER_NODE;
		bytes[nid] += 64 + 4096 + 40;
	}
	anywhere = cmstat_kmalloc(heap, 60, GFP_KERNEL);
	vobj = cmstat_kvmalloc(heap, CMSTAT_ALLOC_MAX + PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, anywhere);
	KUNIT_ASSERT_NOT_NULL(test, vobj);
	KUNIT_ASSERT_EQ(test, cmstat_cache_alloc_bulk(cc, GFP_KERNEL, SITES_BULK,
						      bulk), SITES_BULK);
	sites_node_expect(live, bytes, anywhere, 64);
	KUNIT_EXPECT_TRUE(test, is_vmalloc_addr(vobj));
	sites_node_expect(live, bytes, vobj, CMSTAT_ALLOC_MAX + PAGE_SIZE);
	for (i = 0; i < SITES_BULK; i++)
		sites_node_expect(live, bytes, bulk[i], 40);

	sites_nodes_read(test, heap, rows, st);
	KUNIT_EXPECT_TRUE(test, sites_nodes_sum_to(rows, st));
	for (nid = 0; nid < nr_node_ids; nid++) {
		KUNIT_EXPECT_EQ(test, rows[nid].node, nid);
		KUNIT_EXPECT_EQ_MSG(test, rows[nid].live_objects, live[nid],
				    "node %d", nid);
		KUNIT_EXPECT_EQ_MSG(test, rows[nid].live_bytes, bytes[nid],
				    "node %d", nid);
		if (!node_state(nid, N_MEMORY))
			KUNIT_EXPECT_EQ(test, rows[nid].mallocs, 0);
	}

	for_each_node_state(nid, N_NORMAL_MEMORY) {
		cmstat_kfree(heap, objs[nid][0]);
		cmstat_kfree(heap, objs[nid][1]);
		cmstat_cache_free(cc, objs[nid][2]);
	}
	cmstat_kfree(heap, anywhere);
	cmstat_kvfree(heap, vobj);
	cmstat_cache_free_bulk(cc, SITES_BULK, bulk);
	sites_nodes_read(test, heap, rows, st);
	KUNIT_EXPECT_TRUE(test, sites_nodes_sum_to(rows, st));
	for (nid = 0; nid < nr_node_ids; nid++)
		KUNIT_EXPECT_EQ_MSG(test, rows[nid].live_bytes, 0, "node %d",
				    nid);
	KUNIT_EXPECT_EQ(test, st->mallocs,
			SITES_PER_NODE * num_node_state(N_NORMAL_MEMORY) + 2 +
			SITES_BULK);
}

/*
 * The tag's room: a size whose class has no slack takes the next one, a
 * size the largest class cannot hold with its tag goes to the page
 * allocator, and resizes in place keep the tag.
 */
static void sites_tag_room(struct kunit *test)
{
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_room");
	struct cmstat_site_stats *rows = sites_rows(test);
	struct cmstat_heap_stats *st = sites_stats(test);
	const struct cmstat_site_stats *row;
	unsigned int n, line;
	void *full, *edge, *grown;

	line = __LINE__ + 1;
	full = cmstat_alloc(heap, 64, GFP_KERNEL);
	edge = cmstat_alloc(heap, CMSTAT_MAX_CLASS_SIZE - 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, full);
	KUNIT_ASSERT_NOT_NULL(test, edge);
	memset(full, 0xff, 64);		/* all the caller may write */
	n = sites_read(test, heap, rows, st);
	row = sites_row(rows, n, __func__, line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->live_bytes, 80);
	KUNIT_EXPECT_EQ(test, st->large_live_objects, 1);

	/* In place within the 80-byte class: 70 bytes and the tag fit. */
	grown = cmstat_realloc(heap, full, 64, 70, GFP_KERNEL | __GFP_ZERO);
	KUNIT_EXPECT_PTR_EQ(test, grown, full);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	row = sites_row(rows, n, __func__, line);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->live_objects, 1);

	cmstat_free(heap, grown, 70);
	cmstat_free(heap, edge, CMSTAT_MAX_CLASS_SIZE - 2);
	n = sites_read(test, heap, rows, st);
	sites_expect_sums(test, rows, n, st);
	KUNIT_EXPECT_EQ(test, st->live_objects, 0);
	KUNIT_EXPECT_EQ(test, rows[0].live_objects, 0);
}

/*
 * The negative control: the report of a leak names the line, and an
 * object freed of those the heap held before does not hide it.
 */
static void sites_leak_report_names_line(struct kunit *test)
{
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_leaky");
	void *kept, *freed, *before = cmstat_kmalloc(heap, 16, GFP_KERNEL);
	struct cmstat_leak_check *lc = cmstat_leak_check_start(heap);
	char want[32], *report;
	unsigned int line;
	long leaked;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, lc);
	freed = cmstat_kmalloc(heap, 200, GFP_KERNEL);
	line = __LINE__ + 1;
	kept = cmstat_kmalloc(heap, 40, GFP_KERNEL);
	cmstat_kfree(heap, freed);
	cmstat_kfree(heap, before);
	leaked = cmstat_leak_check_end(lc, &report);
	KUNIT_ASSERT_NOT_NULL(test, kept);
	cmstat_kfree(heap, kept);

	KUNIT_EXPECT_EQ(test, leaked, 1);
	KUNIT_ASSERT_NOT_NULL(test, report);
	kunit_info(test, "the report: %s\n", report);
	snprintf(want, sizeof(want), ":%u", line);
	KUNIT_EXPECT_NOT_NULL(test, strstr(report, want));
	KUNIT_EXPECT_NOT_NULL(test, strstr(report, __func__));
	KUNIT_EXPECT_NOT_NULL(test, strstr(report, "1 object, 48 bytes"));
	kfree(report);
}

/*
 * cmstat_kunit_expect_no_leak() fails a case that leaks and only that:
 * run on cases of a test of our own, ended here by kunit_cleanup().
 */
static void sites_kunit_check_fails_leaky_case(struct kunit *test)
{
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_check");
	struct kunit *leaky = kunit_kzalloc(test, sizeof(*leaky), GFP_KERNEL);
	struct kunit *clean = kunit_kzalloc(test, sizeof(*clean), GFP_KERNEL);
	void *kept, *freed;

	KUNIT_ASSERT_NOT_NULL(test, leaky);
	KUNIT_ASSERT_NOT_NULL(test, clean);
	kunit_init_test(clean, "clean_on_purpose", NULL);
	cmstat_kunit_expect_no_leak(clean, heap);
	freed = cmstat_kmalloc(heap, 16, GFP_KERNEL);
	cmstat_kfree(heap, freed);
	kunit_cleanup(clean);
	KUNIT_EXPECT_EQ(test, clean->status, KUNIT_SUCCESS);
	/* kunit_cleanup() forgets the running case: this one still runs. */
	current->kunit_test = test;

	kunit_init_test(leaky, "leaks_on_purpose", NULL);
	cmstat_kunit_expect_no_leak(leaky, heap);
	kept = cmstat_alloc(heap, 300, GFP_KERNEL);
	kunit_cleanup(leaky);
	current->kunit_test = test;
	KUNIT_ASSERT_NOT_NULL(test, kept);
	cmstat_free(heap, kept, 300);
	KUNIT_EXPECT_EQ(test, leaky->status, KUNIT_FAILURE);
}

/*
 * A module built with sites, on a heap without site rows: its objects
 * there are as any other module's, sized frees and resizes included.
 */
static void sites_heap_without_rows(struct kunit *test)
{
	/* The function, not this build's macro, which would give rows. */
	struct cmstat_heap *heap = (cmstat_heap_create)("sites_none");
	struct cmstat_heap_stats *st = sites_stats(test);
	void *obj, *grown;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, heap);
	cmstat_kunit_defer(test, __cmstat_kunit_heap_destroy, heap);
	KUNIT_EXPECT_EQ(test, cmstat_heap_sites_read(heap, NULL, 0, NULL),
			-EINVAL);
	obj = cmstat_alloc(heap, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	/* 64 bytes fill their class: 70 move, counted in the 80-byte one. */
	grown = cmstat_realloc(heap, obj, 64, 70, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, grown);
	KUNIT_ASSERT_EQ(test, cmstat_heap_read(heap, st), 0);
	KUNIT_EXPECT_TRUE(test, cmstat_heap_stats_valid(st));
	KUNIT_EXPECT_EQ(test, st->live_bytes, 80);
	cmstat_free(heap, grown, 70);
	KUNIT_ASSERT_EQ(test, cmstat_heap_read(heap, st), 0);
	KUNIT_EXPECT_TRUE(test, cmstat_heap_stats_valid(st));
	KUNIT_EXPECT_EQ(test, st->live_objects, 0);
}

/* A case that frees all it allocates passes the check. */
static void sites_leak_check_passes(struct kunit *test)
{
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_tidy");
	void *obj;
	int i;

	cmstat_kunit_expect_no_leak(test, heap);
	for (i = 0; i < 100; i++) {
		obj = cmstat_kmalloc(heap, 8 * i + 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj);
		cmstat_kfree(heap, obj);
	}
}

/*
 * The stress: a writer on every CPU and a timer on each, allocating at
 * two sites and freeing elsewhere, while the reader checks that every
 * snapshot's rows sum to its heap's totals.  The control reads the totals
 * and the rows at two cuts, which must disagree while the writers run:
 * else the check could not see a broken protocol either.  With mutation
 * 5 (module/mutation.h) a site's row is counted in a section of its own,
 * and the snapshots must show it.
 */
#define SITES_RING		32
#define SITES_MUTANT_SHOWN	4
#define SITES_IRQ_PERIOD_NS	(50 * NSEC_PER_USEC)

/*
 * Each snapshot is two cuts, the checked one and the control's (of the
 * site rows or, every other one, of the node rows), and a cut
 * waits for the sections of four busy CPUs: up to 2.7 s under TCG on a
 * busy host (50 took 270 s there).  So few, well inside KUnit's 300 s per
 * case; a mutant that has not shown reads up to four times as many.
 */
static unsigned int sites_snapshots = 20;
module_param(sites_snapshots, uint, 0444);
MODULE_PARM_DESC(sites_snapshots,
		 "Snapshots the cmstat_sites stress takes (default 20)");

/* The mutation cmstat was built and loaded with; 0 for none. */
#ifdef CMSTAT_MUTATIONS
static int sites_mutation(void)
{
	return READ_ONCE(cmstat_mutation);
}

#define SITES_APART	CMSTAT_MUTATE_SITE_APART
#else
static int sites_mutation(void)
{
	return 0;
}

#define SITES_APART	(-1)
#endif

struct sites_writer {
	struct cmstat_heap *heap;
	struct task_struct *task;
	struct hrtimer timer;
	void *ring[SITES_RING];	/* the task's objects; even slots sized */
	void *irq_ring[SITES_RING];
	unsigned int next, irq_next;
	unsigned long irq_allocs;
	bool stop;
};

static DEFINE_PER_CPU(struct sites_writer, sites_writers);

/* Replace the object in @slot: sized in even slots, unsized in odd ones. */
static void sites_churn(struct cmstat_heap *heap, void **ring,
			unsigned int slot, gfp_t gfp)
{
	void **p = &ring[slot % SITES_RING];

	if (slot % 2) {
		sites_free_elsewhere(heap, *p);
		*p = cmstat_kmalloc(heap, 1 + get_random_u32_below(600), gfp);
	} else {
		cmstat_free(heap, *p, 48);
		*p = cmstat_alloc(heap, 48, gfp);
	}
}

static void sites_drain(struct cmstat_heap *heap, void **ring)
{
	unsigned int i;

	for (i = 0; i < SITES_RING; i++) {
		if (i % 2)
			cmstat_kfree(heap, ring[i]);
		else
			cmstat_free(heap, ring[i], 48);
		ring[i] = NULL;
	}
}

static int sites_writer_fn(void *arg)
{
	struct sites_writer *w = arg;

	while (!kthread_should_stop()) {
		sites_churn(w->heap, w->ring, w->next++, GFP_KERNEL);
		if (w->next % 64 == 0)
			cond_resched();
	}
	sites_drain(w->heap, w->ring);
	return 0;
}

static enum hrtimer_restart sites_timer_fn(struct hrtimer *timer)
{
	struct sites_writer *w = container_of(timer, struct sites_writer,
					      timer);

	sites_churn(w->heap, w->irq_ring, w->irq_next++,
		    GFP_ATOMIC | __GFP_NOWARN);
	w->irq_allocs++;
	if (READ_ONCE(w->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(SITES_IRQ_PERIOD_NS));
	return HRTIMER_RESTART;
}

static void sites_timer_start(void *unused)
{
	hrtimer_start(&this_cpu_ptr(&sites_writers)->timer,
		      ns_to_ktime(SITES_IRQ_PERIOD_NS), HRTIMER_MODE_REL_PINNED);
}

/* Stop the timers and free what they hold; the tasks are stopped first. */
static void sites_timers_stop(void *heap)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct sites_writer *w = per_cpu_ptr(&sites_writers, cpu);

		WRITE_ONCE(w->stop, true);
		hrtimer_cancel(&w->timer);
		sites_drain(heap, w->irq_ring);
	}
}

static void sites_writers_start(struct kunit *test, struct cmstat_heap *heap)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct sites_writer *w = per_cpu_ptr(&sites_writers, cpu);

		memset(w, 0, sizeof(*w));
		w->heap = heap;
		cmstat_hrtimer_setup(&w->timer, sites_timer_fn, CLOCK_MONOTONIC,
				     HRTIMER_MODE_REL_PINNED);
	}
	cmstat_kunit_defer(test, sites_timers_stop, heap);
	on_each_cpu(sites_timer_start, NULL, 1);
	for_each_online_cpu(cpu) {
		struct sites_writer *w = per_cpu_ptr(&sites_writers, cpu);
		struct task_struct *t;

		t = kthread_create(sites_writer_fn, w, "cmstat_sites/%u", cpu);
		w->task = cmstat_kunit_kthread(test, t);
		kthread_bind(w->task, cpu);
		wake_up_process(w->task);
	}
}

static void sites_writers_stop(struct kunit *test, struct cmstat_heap *heap)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		cmstat_kunit_kthread_stop(test,
					  per_cpu_ptr(&sites_writers, cpu)->task);
	kunit_release_action(test, sites_timers_stop, heap);
}

/* Whether @rows sum to @st: objects, bytes, allocations and frees. */
static bool sites_sum_to(const struct cmstat_site_stats *rows, unsigned int n,
			 const struct cmstat_heap_stats *st)
{
	u64 mallocs = 0, frees = 0, bytes = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		mallocs += rows[i].mallocs;
		frees += rows[i].frees;
		bytes += rows[i].live_bytes;
	}
	return mallocs == st->mallocs && frees == st->frees &&
	       bytes == st->live_bytes;
}

static void sites_stress(struct kunit *test)
{
	struct cmstat_heap *heap = cmstat_kunit_heap(test, "sites_stress");
	struct cmstat_site_stats *rows = sites_rows(test);
	struct cmstat_node_stats *nodes = sites_node_rows(test);
	struct cmstat_heap_stats *st = sites_stats(test);
	unsigned long snapshots = 0, violations = 0, control = 0, irq = 0;
	unsigned long node_violations = 0, node_control = 0;
	unsigned long want = sites_snapshots;
	unsigned int n, cpu;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs 2 CPUs: the writers and the reader side by side");
	sites_writers_start(test, heap);
	while (snapshots < want) {
		/*
		 * Site rows and node rows in turn, each against its totals
		 * and, the control, against the totals of the next cut: two
		 * cuts a snapshot, whichever rows it reads.
		 */
		if (snapshots++ % 2) {
			sites_nodes_read(test, heap, nodes, st);
			node_violations += !sites_nodes_sum_to(nodes, st);
			KUNIT_ASSERT_EQ(test, cmstat_heap_read(heap, st), 0);
			node_control += !sites_nodes_sum_to(nodes, st);
		} else {
			n = sites_read(test, heap, rows, st);
			violations += !sites_sum_to(rows, n, st);
			KUNIT_ASSERT_EQ(test, cmstat_heap_read(heap, st), 0);
			control += !sites_sum_to(rows, n, st);
		}
		/* A mutant that has not shown yet: read on, by count. */
		if (snapshots == want && sites_mutation() == SITES_APART &&
		    min(violations, node_violations) < SITES_MUTANT_SHOWN &&
		    want < 4 * sites_snapshots)
			want += sites_snapshots;
		cond_resched();
	}
	sites_writers_stop(test, heap);
	for_each_possible_cpu(cpu)
		irq += per_cpu_ptr(&sites_writers, cpu)->irq_allocs;
	n = sites_read(test, heap, rows, st);
	kunit_info(test, "cpus=%u nodes=%u mutation=%d snapshots=%lu violations=%lu control_violations=%lu node_violations=%lu node_control_violations=%lu allocs=%llu irq_allocs=%lu live=%llu\n",
		   num_online_cpus(), num_node_state(N_MEMORY), sites_mutation(),
		   snapshots, violations, control, node_violations,
		   node_control, st->mallocs, irq, st->live_objects);
	/* The other mutations break the counters' protocol, its suite's. */
	if (sites_mutation() == SITES_APART) {
		KUNIT_EXPECT_GT(test, violations, 0);
		KUNIT_EXPECT_GT(test, node_violations, 0);
	} else if (!sites_mutation()) {
		KUNIT_EXPECT_EQ(test, violations, 0);
		KUNIT_EXPECT_EQ(test, node_violations, 0);
	}
	KUNIT_EXPECT_GT(test, control, 0);
	KUNIT_EXPECT_GT(test, node_control, 0);
	KUNIT_EXPECT_GT(test, irq, 0);
	KUNIT_EXPECT_TRUE(test, sites_sum_to(rows, n, st));
	sites_nodes_read(test, heap, nodes, st);
	KUNIT_EXPECT_TRUE(test, sites_nodes_sum_to(nodes, st));
	KUNIT_EXPECT_EQ(test, st->live_objects, 0);
}

static struct kunit_case sites_cases[] = {
	KUNIT_CASE(sites_rows_exact),
	KUNIT_CASE(sites_typed_large_frees),
	KUNIT_CASE(sites_typed_untagged),
	KUNIT_CASE(sites_dup_rows),
	KUNIT_CASE(sites_realloc_moves),
	KUNIT_CASE(sites_nodes_exact),
	KUNIT_CASE(sites_tag_room),
	KUNIT_CASE(sites_leak_report_names_line),
	KUNIT_CASE(sites_kunit_check_fails_leaky_case),
	KUNIT_CASE(sites_heap_without_rows),
	KUNIT_CASE(sites_leak_check_passes),
	KUNIT_CASE_SLOW(sites_stress),
	{}
};

static struct kunit_suite sites_suite = {
	.name = "cmstat_sites",
	.test_cases = sites_cases,
};

kunit_test_suites(&sites_suite);
