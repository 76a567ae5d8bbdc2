/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmstat call sites: which line of a module holds a heap's memory.
 *
 * A module built with CMSTAT_SITES defined (ccflags-y += -DCMSTAT_SITES)
 * gets a row per call site in each heap it creates: allocations, frees,
 * live objects and live bytes of every cmstat_alloc(), cmstat_kmalloc()
 * and the rest of their inline families, of the _node and kvmalloc()
 * families, the copies and strings (cmstat_kmemdup(), cmstat_kstrdup(),
 * cmstat_kasprintf() and the rest), the resizes (cmstat_realloc(),
 * cmstat_krealloc() and the rest), which pass their site to
 * cmstat.ko, and of the typed caches' allocations, counted in the same
 * writer section as the heap's totals, so that a heap's sites sum to its
 * totals in every snapshot.  A resize that moves an object counts the new
 * one at its own site, as allocation profiling does; one in place
 * allocates nothing, and the object stays at the site that allocated it.
 * Each call site has a static descriptor, as the kernel's allocation
 * profiling has a codetag; the first allocation from a heap binds it to a
 * column of that heap's site counters.  A free finds the column of the
 * site that allocated the object, wherever the object is freed, in a tag
 * the allocation left in a class object's last four bytes (the class is
 * chosen for the requested size plus the tag), or in the four bytes past
 * a typed cache's object (the cache is made that much larger), or in the
 * record cmstat keeps of an allocation above the largest class.
 *
 * A heap with site rows has a row per NUMA node of its memory too
 * (struct cmstat_node_stats), counted in the same sections: on a kernel
 * of one node that row is the sum of the site rows, and costs nothing.
 *
 * What no site is known for (a direct call, or one through a pointer, of
 * the exported function under a sited macro, such as __cmstat_kmalloc();
 * an object a module built without CMSTAT_SITES left untagged; sizes
 * above the largest class on a 32-bit kernel, whose records have no room
 * for a column) is counted in column 0, "unattributed", so the
 * sums hold all the same.
 * Documentation/allocator.rst has the costs and the rules.
 */
#ifndef _CMSTAT_SITE_H
#define _CMSTAT_SITE_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/types.h>

/**
 * struct cmstat_site - a call site's descriptor, static at the call site
 * @function: the calling function's name
 * @file: its source file
 * @line: its line
 * @binding: the heap the site was last bound to and its column there,
 *	%CMSTAT_SITE_COL_BITS bits of column under the heap's site key;
 *	0 until bound.  Written by cmstat.ko only.
 */
struct cmstat_site {
	const char *function;
	const char *file;
	unsigned int line;
	unsigned long binding;
};

/* Sites per heap: 256 per counter set of four counters each, 16 sets. */
#define CMSTAT_SITES_PER_SET	256
#define CMSTAT_SITE_SETS	16
#define CMSTAT_SITE_COL_BITS	12
#define CMSTAT_SITE_COL_MASK	(BIT(CMSTAT_SITE_COL_BITS) - 1)
static_assert(CMSTAT_SITES_PER_SET * CMSTAT_SITE_SETS ==
	      BIT(CMSTAT_SITE_COL_BITS));

/* A site's counters, within its set: column % 256 times CMSTAT_SC_NR. */
enum {
	CMSTAT_SC_MALLOCS,
	CMSTAT_SC_FREES,
	CMSTAT_SC_ALLOC_BYTES,	/* bytes held, as the heap counts them */
	CMSTAT_SC_FREE_BYTES,
	CMSTAT_SC_NR,
};

/*
 * The tag in a sited class object's last four bytes: the magic in the
 * upper half, so that a free can tell an object allocated without a tag
 * (by a module built without CMSTAT_SITES), and the column below.
 */
#define CMSTAT_SITE_TAG_SIZE	sizeof(u32)

/*
 * The most bytes a typed cache's object may grow by for its tag, past
 * the object and as the slab allocator aligns it: a cache whose alignment
 * the object fills (a 256-byte object aligned at 256) would double, and
 * counts unattributed instead.
 */
#define CMSTAT_CACHE_TAG_COST_MAX	8
#define CMSTAT_SITE_TAG_MAGIC	0xc5a70000U

/* The most node ids a heap's node rows count: one counter set's worth. */
#define CMSTAT_NODES_MAX	256

/* Column 0: what no site is known for. */
#define CMSTAT_SITE_UNATTRIBUTED	0

/* The row of one site in a snapshot; see cmstat_heap_sites_read(). */
#define CMSTAT_SITE_FUNCTION_MAX	63
#define CMSTAT_SITE_FILE_MAX		95

/**
 * struct cmstat_site_stats - one call site of a heap in a snapshot
 * @column: the site's column in its heap: 0 is "unattributed"
 * @function: the function that allocated (empty for column 0)
 * @file: its source file
 * @line: its line
 * @mallocs: objects it allocated, cumulative
 * @frees: objects freed of those, wherever freed, cumulative
 * @live_objects: @mallocs - @frees
 * @alloc_bytes: bytes held by its allocations (class size, whole pages
 *	above the largest class, a typed cache's object size), cumulative
 * @free_bytes: the same of the frees
 * @live_bytes: @alloc_bytes - @free_bytes
 */
struct cmstat_site_stats {
	unsigned int column;
	char function[CMSTAT_SITE_FUNCTION_MAX + 1];
	char file[CMSTAT_SITE_FILE_MAX + 1];
	unsigned int line;
	u64 mallocs;
	u64 frees;
	u64 live_objects;
	u64 alloc_bytes;
	u64 free_bytes;
	u64 live_bytes;
};

/**
 * struct cmstat_node_stats - one NUMA node of a heap's memory in a snapshot
 * @node: the node id
 * @mallocs: objects allocated in its memory, cumulative
 * @frees: objects freed of those, cumulative
 * @live_objects: @mallocs - @frees
 * @alloc_bytes: bytes held by those allocations, as in the site rows
 * @free_bytes: the same of the frees
 * @live_bytes: @alloc_bytes - @free_bytes
 *
 * The node is the memory's (page_to_nid()), not that of the CPU that
 * allocated; a vmalloc()ed object counts on the node of its first page.
 */
struct cmstat_node_stats {
	int node;
	u64 mallocs;
	u64 frees;
	u64 live_objects;
	u64 alloc_bytes;
	u64 free_bytes;
	u64 live_bytes;
};

struct cmstat_heap;
struct cmstat_heap_stats;

struct cmstat_heap *cmstat_heap_create_sites(const char *name);
int cmstat_heap_sites_read(struct cmstat_heap *heap,
			   struct cmstat_site_stats *rows, unsigned int nr_rows,
			   struct cmstat_heap_stats *st);
int cmstat_heap_nodes_read(struct cmstat_heap *heap,
			   struct cmstat_node_stats *rows, unsigned int nr_rows,
			   struct cmstat_heap_stats *st);
struct cmstat_leak_check;
struct cmstat_leak_check *cmstat_leak_check_start(struct cmstat_heap *heap);
long cmstat_leak_check_end(struct cmstat_leak_check *lc, char **report);

int __cmstat_site_bind(struct cmstat_heap *heap, struct cmstat_site *site);
int __cmstat_site_tag_bad(struct cmstat_heap *heap, u32 tag);
int __cmstat_obj_nid(const void *obj);
void *__cmstat_alloc_at(struct cmstat_heap *heap, size_t size, gfp_t gfp,
			int node, bool unsized, struct cmstat_site *site)
	__alloc_size(2);
void *__cmstat_kvmalloc_node_at(struct cmstat_heap *heap, size_t size,
				gfp_t gfp, int node, struct cmstat_site *site)
	__alloc_size(2);

#ifdef CMSTAT_SITES
/*
 * This call site's descriptor: one static per expansion, so per line of
 * the module that allocates.
 */
#define __CMSTAT_SITE_HERE() ({						\
	static struct cmstat_site __cmstat_site_desc = {		\
		.function = __func__,					\
		.file = __FILE__,					\
		.line = __LINE__,					\
	};								\
	&__cmstat_site_desc;						\
})
#else
#define __CMSTAT_SITE_HERE()	((struct cmstat_site *)NULL)
#endif

/*
 * Whether this build's inlines ask a heap whether it has site rows (then
 * tag its class objects and count its sites): a module built with
 * CMSTAT_SITES, and cmstat.ko, whose own calls serve every heap.  A
 * module built without sites pays nothing.
 */
#if defined(CMSTAT_SITES) || defined(CMSTAT_MODULE)
#define __CMSTAT_SITES_ASKED	true
#else
#define __CMSTAT_SITES_ASKED	false
#endif

#endif /* _CMSTAT_SITE_H */
