// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_sites_test: a client module built with CMSTAT_SITES
 * (tests/client/Kbuild), as a module that wants its call sites would be.
 * At load it creates heap "client_sites", allocates from SITES_NR call
 * sites, site i taking i + 1 objects, and frees the first object of each
 * from one function of its own: so each site's row must show i live
 * objects, whoever freed.  The last sites are out of line in cmstat.ko,
 * with their site: a cmstat_kmemdup(), a cmstat_kstrdup(), and a
 * cmstat_krealloc() that moves what one more site allocated, whose row
 * then holds nothing.  A typed cache's objects have a site of their own,
 * their tag past the object, and so does an allocation above the largest
 * class, its column in cmstat's record of it (on a 64-bit kernel; on a
 * 32-bit one it is unattributed).  Nothing else is left to the
 * unattributed row.  Two objects on each node with memory,
 * from one more site, cmstat_kmalloc_node() with __GFP_THISNODE, fill the
 * node table.
 *
 * It keeps its own ledger of what each site holds, and shows it in
 * /sys/kernel/debug/cmstat_sites_test/ledger, one line per site, as the
 * stats file's site table names them: "function line live_objects
 * live_bytes", the unattributed row as "- 0 ...".  scripts/guest/checks/
 * client-sites.sh compares it with the stats file, the viewer and
 * cmstat-drgn.  Writing "free" to the file frees everything: every row
 * then holds nothing.  The bytes are the class's: each request is 4 bytes
 * short of a class, the room of the site tag (allocator.rst, "Call sites").
 * The file "nodes" beside it is the ledger by node of the memory: "node
 * live_objects live_bytes" for each possible node, as the stats file's node
 * table names them.
 */

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/kmalloc.h>

#define SITES_NR	15
#define SITES_CACHED	5	/* typed-cache objects, at one site */
#define SITES_OBJ_SIZE	100
#define SITES_PER_NODE	2	/* objects on each node with memory */
#define SITES_NODE_SIZE	60	/* their request, and with the tag */
#define SITES_NODE_HELD	64	/* the class that holds it */
#define SITES_SEED_SIZE	8	/* what site 14 moves: the 16-byte class */
#define SITES_LARGE_SIZE	(512 * 1024)	/* above the largest class */

/* Requests and the classes that hold them with the tag. */
static const struct {
	size_t request;
	size_t class;
} sites_sizes[] = { { 28, 32 }, { 60, 64 }, { 124, 128 }, { 252, 256 } };

/**
 * struct sites_entry - what one call site holds, by this module's count
 * @function: the function of the call
 * @line: its line
 * @sized: allocated with cmstat_alloc(), freed with cmstat_free()
 * @objs: the objects; NULL once freed
 * @size: their request
 * @class: the bytes each holds
 */
struct sites_entry {
	const char *function;
	unsigned int line;
	bool sized;
	void *objs[SITES_NR];
	size_t size;
	size_t class;
};

static struct cmstat_heap *sites_heap;
static struct cmstat_cache *sites_cache;
static void *sites_cached[SITES_CACHED];
static const char *sites_cached_function;	/* and their site */
static unsigned int sites_cached_line;
static void *sites_large;
static const char *sites_large_function;
static unsigned int sites_large_line;
static void **sites_on_node;	/* SITES_PER_NODE per node id */
static const char *sites_node_function;	/* and their site */
static unsigned int sites_node_line;
static const char *sites_seed_function;	/* the site of the moved objects */
static unsigned int sites_seed_line;
static char sites_text[256];	/* what sites 12 and 13 copy: 'x's, a NUL */
static struct sites_entry sites[SITES_NR];
static struct dentry *sites_dir;
static DEFINE_MUTEX(sites_lock);	/* the ledger, and the objects */

/* Note the line and function of the call that follows, in the ledger. */
#define SITES_AT(e, call)					\
	({							\
		struct sites_entry *__e = (e);			\
		__e->function = __func__;			\
		__e->line = __LINE__;				\
		call;						\
	})

/*
 * What site 14 moves, allocated here: once moved, freed by cmstat_krealloc(),
 * counted against this line.
 */
static void *sites_seed(gfp_t gfp)
{
	sites_seed_function = __func__;
	sites_seed_line = __LINE__ + 1;
	return cmstat_kmalloc(sites_heap, SITES_SEED_SIZE, gfp);
}

/* The call of site @i: a line of its own each. */
static void *sites_alloc(unsigned int i, struct sites_entry *e, gfp_t gfp)
{
	size_t n = e->size;
	void *seed, *obj;

	switch (i) {
	case 0:
		return SITES_AT(e, cmstat_kmalloc(sites_heap, n, gfp));
	case 1:
		return SITES_AT(e, cmstat_kzalloc(sites_heap, n, gfp));
	case 2:
		return SITES_AT(e, cmstat_kmalloc_array(sites_heap, 1, n, gfp));
	case 3:
		return SITES_AT(e, cmstat_kcalloc(sites_heap, 1, n, gfp));
	case 4:
		e->sized = true;
		return SITES_AT(e, cmstat_alloc(sites_heap, n, gfp));
	case 5:
		e->sized = true;
		return SITES_AT(e, cmstat_zalloc(sites_heap, n, gfp));
	case 6:
		e->sized = true;
		return SITES_AT(e, cmstat_alloc_array(sites_heap, 1, n, gfp));
	case 7:
		return SITES_AT(e, cmstat_kmalloc(sites_heap, n, gfp));
	case 8:
		return SITES_AT(e, cmstat_kmalloc(sites_heap, n, gfp | __GFP_ZERO));
	case 9:
		return SITES_AT(e, cmstat_kzalloc(sites_heap, n, gfp));
	case 10:
		return SITES_AT(e, cmstat_kmalloc(sites_heap, n, gfp));
	case 11:
		return SITES_AT(e, cmstat_kmalloc(sites_heap, n, gfp));
	case 12:
		return SITES_AT(e, cmstat_kmemdup(sites_heap, sites_text, n, gfp));
	case 13:
		/* The last n bytes of the text: n - 1 'x's and the NUL. */
		return SITES_AT(e, cmstat_kstrdup(sites_heap,
						  sites_text + sizeof(sites_text) - n,
						  gfp));
	default:
		/* Moved: the request and the tag do not fit the seed's class. */
		seed = sites_seed(gfp);
		if (!seed)
			return NULL;
		obj = SITES_AT(e, cmstat_krealloc(sites_heap, seed, n, gfp));
		if (!obj)
			cmstat_kfree(sites_heap, seed);
		return obj;
	}
}

/* Frees are counted against the site that allocated, not this one. */
static void sites_free(struct sites_entry *e, unsigned int k)
{
	if (e->sized)
		cmstat_free(sites_heap, e->objs[k], e->size);
	else
		cmstat_kfree(sites_heap, e->objs[k]);
	e->objs[k] = NULL;
}

static void sites_free_all(void)
{
	unsigned int i, k;

	for (i = 0; i < SITES_NR; i++)
		for (k = 0; k < SITES_NR; k++)
			if (sites[i].objs[k])
				sites_free(&sites[i], k);
	for (k = 0; k < SITES_CACHED && sites_cached[k]; k++) {
		cmstat_cache_free(sites_cache, sites_cached[k]);
		sites_cached[k] = NULL;
	}
	cmstat_kfree(sites_heap, sites_large);
	sites_large = NULL;
	for (k = 0; sites_on_node && k < nr_node_ids * SITES_PER_NODE; k++) {
		cmstat_kfree(sites_heap, sites_on_node[k]);
		sites_on_node[k] = NULL;
	}
}

/* The site of the objects on each node: one line, on the node only. */
static void *sites_node_alloc(int nid)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_THISNODE;

	sites_node_function = __func__;
	sites_node_line = __LINE__ + 1;
	return cmstat_kmalloc_node(sites_heap, SITES_NODE_SIZE, gfp, nid);
}

/* Two objects in the memory of each node that has some. */
static int sites_fill_nodes(void)
{
	int nid, k;

	sites_on_node = kcalloc(nr_node_ids * SITES_PER_NODE,
				sizeof(*sites_on_node), GFP_KERNEL);
	if (!sites_on_node)
		return -ENOMEM;
	for_each_node_state(nid, N_NORMAL_MEMORY) {
		for (k = 0; k < SITES_PER_NODE; k++) {
			void **p = &sites_on_node[nid * SITES_PER_NODE + k];

			*p = sites_node_alloc(nid);
			if (!*p)
				return -ENOMEM;
		}
	}
	return 0;
}

static int sites_fill(void)
{
	unsigned int i, k;

	for (i = 0; i < SITES_NR; i++) {
		struct sites_entry *e = &sites[i];

		e->size = sites_sizes[i % ARRAY_SIZE(sites_sizes)].request;
		e->class = sites_sizes[i % ARRAY_SIZE(sites_sizes)].class;
		for (k = 0; k <= i; k++) {
			e->objs[k] = sites_alloc(i, e, GFP_KERNEL);
			if (!e->objs[k])
				return -ENOMEM;
		}
		sites_free(e, 0);
	}
	sites_cached_function = __func__;
	for (k = 0; k < SITES_CACHED; k++) {
		sites_cached_line = __LINE__ + 1;
		sites_cached[k] = cmstat_cache_alloc(sites_cache, GFP_KERNEL);
		if (!sites_cached[k])
			return -ENOMEM;
	}
	sites_large_function = __func__;
	sites_large_line = __LINE__ + 1;
	sites_large = cmstat_kmalloc(sites_heap, SITES_LARGE_SIZE, GFP_KERNEL);
	if (!sites_large)
		return -ENOMEM;
	return sites_fill_nodes();
}

static unsigned int sites_live(const struct sites_entry *e)
{
	unsigned int k, n = 0;

	for (k = 0; k < SITES_NR; k++)
		n += !!e->objs[k];
	return n;
}

static int sites_ledger_show(struct seq_file *m, void *unused)
{
	unsigned int i, k, cached = 0, node_objs = 0;

	mutex_lock(&sites_lock);
	for (k = 0; k < SITES_CACHED; k++)
		cached += !!sites_cached[k];
	for (k = 0; k < nr_node_ids * SITES_PER_NODE; k++)
		node_objs += !!sites_on_node[k];
	seq_printf(m, "%s %u %u %u\n", sites_cached_function, sites_cached_line,
		   cached, cached * SITES_OBJ_SIZE);
	/* A 32-bit record has no room for the large one's column. */
	if (BITS_PER_LONG == 64) {
		seq_puts(m, "- 0 0 0\n");
		seq_printf(m, "%s %u %u %u\n", sites_large_function,
			   sites_large_line, !!sites_large,
			   sites_large ? SITES_LARGE_SIZE : 0);
	} else {
		seq_printf(m, "- 0 %u %u\n", !!sites_large,
			   sites_large ? SITES_LARGE_SIZE : 0);
	}
	seq_printf(m, "%s %u %u %u\n", sites_node_function, sites_node_line,
		   node_objs, node_objs * SITES_NODE_HELD);
	/* Every object of the seed's site was moved away, and freed. */
	seq_printf(m, "%s %u 0 0\n", sites_seed_function, sites_seed_line);
	for (i = 0; i < SITES_NR; i++) {
		unsigned int live = sites_live(&sites[i]);

		seq_printf(m, "%s %u %u %zu\n", sites[i].function,
			   sites[i].line, live, live * sites[i].class);
	}
	mutex_unlock(&sites_lock);
	return 0;
}

static int sites_ledger_open(struct inode *inode, struct file *file)
{
	return single_open(file, sites_ledger_show, NULL);
}

/* Add @obj, live, of @bytes, to the count of its memory's node. */
static void sites_node_count(unsigned int *objs, u64 *bytes, const void *obj,
			     size_t held)
{
	int nid;

	if (!obj)
		return;
	nid = page_to_nid(virt_to_page(obj));
	objs[nid]++;
	bytes[nid] += held;
}

static int sites_nodes_show(struct seq_file *m, void *unused)
{
	unsigned int i, k, *objs;
	u64 *bytes;
	int nid;

	objs = kcalloc(nr_node_ids, sizeof(*objs), GFP_KERNEL);
	bytes = kcalloc(nr_node_ids, sizeof(*bytes), GFP_KERNEL);
	if (!objs || !bytes) {
		kfree(objs);
		kfree(bytes);
		return -ENOMEM;
	}
	mutex_lock(&sites_lock);
	for (i = 0; i < SITES_NR; i++)
		for (k = 0; k < SITES_NR; k++)
			sites_node_count(objs, bytes, sites[i].objs[k],
					 sites[i].class);
	for (k = 0; k < SITES_CACHED; k++)
		sites_node_count(objs, bytes, sites_cached[k], SITES_OBJ_SIZE);
	sites_node_count(objs, bytes, sites_large, SITES_LARGE_SIZE);
	for (k = 0; k < nr_node_ids * SITES_PER_NODE; k++)
		sites_node_count(objs, bytes, sites_on_node[k],
				 SITES_NODE_HELD);
	mutex_unlock(&sites_lock);
	for_each_node(nid)
		seq_printf(m, "%d %u %llu\n", nid, objs[nid], bytes[nid]);
	kfree(objs);
	kfree(bytes);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sites_nodes);

static ssize_t sites_ledger_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *ppos)
{
	char cmd[8];

	if (count >= sizeof(cmd) || copy_from_user(cmd, buf, count))
		return -EINVAL;
	cmd[count] = '\0';
	if (!sysfs_streq(cmd, "free"))
		return -EINVAL;
	mutex_lock(&sites_lock);
	sites_free_all();
	mutex_unlock(&sites_lock);
	return count;
}

static const struct file_operations sites_ledger_fops = {
	.owner = THIS_MODULE,
	.open = sites_ledger_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = sites_ledger_write,
	.release = single_release,
};

static int __init sites_test_init(void)
{
	int err;

	memset(sites_text, 'x', sizeof(sites_text) - 1);
	sites_heap = cmstat_heap_create("client_sites");
	if (IS_ERR(sites_heap))
		return PTR_ERR(sites_heap);
	sites_cache = cmstat_cache_create(sites_heap, "client_sites_obj",
					  SITES_OBJ_SIZE, 0, 0, NULL);
	err = sites_cache ? sites_fill() : -ENOMEM;
	if (err)
		goto fail;
	sites_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("ledger", 0600, sites_dir, NULL, &sites_ledger_fops);
	debugfs_create_file("nodes", 0400, sites_dir, NULL, &sites_nodes_fops);
	return 0;
fail:
	sites_free_all();
	if (sites_cache)
		cmstat_cache_destroy(sites_cache);
	cmstat_heap_destroy(sites_heap);
	kfree(sites_on_node);
	return err;
}

static void __exit sites_test_exit(void)
{
	debugfs_remove(sites_dir);
	sites_free_all();
	cmstat_cache_destroy(sites_cache);
	cmstat_heap_destroy(sites_heap);
	kfree(sites_on_node);
}

module_init(sites_test_init);
module_exit(sites_test_exit);

MODULE_DESCRIPTION("cmstat: a client module built with call-site rows");
MODULE_LICENSE("GPL");
