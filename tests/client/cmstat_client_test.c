// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_client_test: cmstat used the way a driver uses it, from outside.
 *
 * The in-VM checks (scripts/guest/checks/client-*.sh and the stock-kernel
 * VMs) drive it through debugfs, /sys/kernel/debug/cmstat_client_test/:
 *
 *	buf	write(): cmstat_alloc() of the write's size, copy_from_user()
 *		into it, keep it; read(): copy_to_user() out of it.  What a
 *		driver's write() and read() handlers do with a buffer, under
 *		hardened usercopy.
 *	misuse	write() one command a buggy driver would run:
 *		"kfree": free a new object with kfree(), not cmstat's free;
 *		"orphan N": create heap "client-orphan", allocate N objects,
 *		destroy the heap with them still allocated;
 *		"orphan_free N": free N of those through the old handle;
 *		"orphan_bad_free": free the last of them with a wrong size
 *		(for cmstat loaded with debug_free=1, which refuses it);
 *		"open CPU": open a writer section on CPU and leave it open,
 *		as a driver that returned early between begin and end would
 *		(preemption enabled again, the sequence counter left odd);
 *		"close": close that section;
 *		"leak CPU": open a writer section on CPU and never close it
 *		(the thread that opened it ends);
 *		"cycle_create": create heap "client-cycle" and allocate an
 *		object in it, as a module's init does;
 *		"cycle_destroy": free the object and destroy the heap, as
 *		that module's exit does;
 *		"create": create heap "client-new", allocate and free an
 *		object in it (a module's init that takes no snapshot); the
 *		heap goes at unload;
 *		"cache_alloc N": allocate N objects from each of two typed
 *		caches of the heap "client", creating them first if need
 *		be: "client_obj", of 200-byte objects, and one of 72-byte
 *		objects whose name needs encoding in cmstat's files,
 *		CLIENT_ODD_NAME;
 *		"cache_free N": free the last N allocated from each;
 *		"cache_destroy": free the rest and destroy both caches (as
 *		unload does);
 *		"cache_orphan": create heap "client-corphan" and a typed
 *		cache "corphan_obj" of it, allocate an object from the
 *		cache, and destroy the heap first: an orphan that waits for
 *		its cache;
 *		"cache_orphan_free": free that object and destroy the cache;
 *		"linger CPU": on CPU, open a writer section, sleep in it a
 *		tenth of a second, close it, and again, until "unlinger":
 *		every reader waits for one;
 *		"recycle_alloc N": allocate and free N objects of the typed
 *		cache of heap "client-recycle" (both made first if need
 *		be), "recycle_a" of 136-byte objects or "recycle_b" of 152;
 *		"recycle": destroy that cache and create the other, which
 *		gets its column, allocating nothing from it;
 *		"recycle_end": destroy the cache and the heap.
 *
 * Only cmstat's exported API and headers are used, as by any client.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/counters.h>
#include <cmstat/kmalloc.h>

static struct cmstat_heap *client_heap, *orphan_heap;
static struct cmstat_heap *cycle_heap, *new_heap;
static void *cycle_obj;
static struct dentry *client_dir;
static DEFINE_MUTEX(client_lock);	/* protects everything below */

/* The buffer of the last write to "buf". */
static void *kept_buf;
static size_t kept_size;

/* Objects left in the destroyed heap "client-orphan", freed by command. */
#define MAX_ORPHANS	64
static void *orphans[MAX_ORPHANS];
static size_t orphan_sizes[MAX_ORPHANS];
static unsigned int nr_orphans;

/*
 * The typed caches of "cache_alloc", and the objects allocated from each.
 * A space, quotes and a percent sign: what cmstat's files encode.
 */
#define CLIENT_ODD_NAME	"client \"odd\" 50%"
#define NR_CACHES	2
#define MAX_CACHE_OBJS	256
static const char * const cache_names[NR_CACHES] = {
	"client_obj", CLIENT_ODD_NAME
};

static const unsigned int cache_sizes[NR_CACHES] = { 200, 72 };
static struct cmstat_cache *caches[NR_CACHES];
static void *cache_objs[NR_CACHES][MAX_CACHE_OBJS];
static unsigned int nr_cache_objs;	/* in each cache */

/* "cache_orphan": the cache of the destroyed heap, and its object. */
static struct cmstat_cache *corphan_cache;
static void *corphan_obj;

/*
 * The section "open" left open, the thread that runs it on its CPU, and
 * the thread's word that the section is open (or that it opened none).
 */
static struct cmstat_counters *open_set;
static struct task_struct *open_task;
static DECLARE_COMPLETION(open_done);

/* "linger": the set its thread writes, and the thread. */
static struct cmstat_counters *linger_set;
static struct task_struct *linger_task;

/* "recycle": the heap, its one typed cache, and which of the two it is. */
static struct cmstat_heap *recycle_heap;
static struct cmstat_cache *recycle_cache;
static unsigned int recycle_which;
static const char * const recycle_names[] = { "recycle_a", "recycle_b" };
static const unsigned int recycle_sizes[] = { 136, 152 };

/* The set "leak" writes in the sections it leaves open; its thread's end. */
static struct cmstat_counters *leak_set;
static DECLARE_COMPLETION(leak_done);

static ssize_t buf_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	void *buf;

	if (!count || count > CMSTAT_ALLOC_MAX)
		return -EINVAL;
	buf = cmstat_alloc(client_heap, count, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, ubuf, count)) {
		cmstat_free(client_heap, buf, count);
		return -EFAULT;
	}
	mutex_lock(&client_lock);
	cmstat_free(client_heap, kept_buf, kept_size);
	kept_buf = buf;
	kept_size = count;
	mutex_unlock(&client_lock);
	return count;
}

static ssize_t buf_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&client_lock);
	/* copy_to_user() straight out of the cmstat object. */
	ret = simple_read_from_buffer(ubuf, count, ppos, kept_buf, kept_size);
	mutex_unlock(&client_lock);
	return ret;
}

static const struct file_operations buf_fops = {
	.owner = THIS_MODULE,
	.write = buf_write,
	.read = buf_read,
	.llseek = default_llseek,
};

/* A free the contract forbids; returns 0 or -ENOMEM. */
static int misuse_kfree(void)
{
	void *p = cmstat_alloc(client_heap, 64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	kfree(p);
	return 0;
}

static int misuse_orphan(unsigned int n)
{
	unsigned int i;

	if (orphan_heap || !n || n > MAX_ORPHANS)
		return -EINVAL;
	orphan_heap = cmstat_heap_create("client-orphan");
	if (IS_ERR(orphan_heap)) {
		int err = PTR_ERR(orphan_heap);

		orphan_heap = NULL;
		return err;
	}
	for (i = 0; i < n; i++) {
		/* Classes and one large object. */
		orphan_sizes[i] = i == 0 ? 50000 : 16 << (i % 8);
		orphans[i] = cmstat_alloc(orphan_heap, orphan_sizes[i],
					  GFP_KERNEL);
		if (!orphans[i])
			break;
	}
	nr_orphans = i;
	cmstat_heap_destroy(orphan_heap);
	return i == n ? 0 : -ENOMEM;
}

static int misuse_orphan_bad_free(void)
{
	if (!orphan_heap || !nr_orphans)
		return -EINVAL;
	cmstat_free(orphan_heap, orphans[nr_orphans - 1],
		    orphan_sizes[nr_orphans - 1] + 1000);
	return 0;
}

static int misuse_orphan_free(unsigned int n)
{
	if (!orphan_heap || n > nr_orphans)
		return -EINVAL;
	while (n--) {
		nr_orphans--;
		cmstat_free(orphan_heap, orphans[nr_orphans],
			    orphan_sizes[nr_orphans]);
	}
	if (!nr_orphans)
		orphan_heap = NULL;	/* the handle is dead once empty */
	return 0;
}

/*
 * The thread behind "open": opens a section on its CPU, adds to the set,
 * and lets preemption back on with the section still open, as a driver
 * that returned early between begin and end would (minus the preemption
 * count it would leak, which the kernel itself reports).  Told to stop, it
 * closes the section on the same CPU.
 */
static int open_fn(void *unused)
{
	struct cmstat_section sec;
	bool open;

	open = cmstat_section_begin(&sec, cmstat_counters_group(open_set));
	if (open) {
		cmstat_section_add(cmstat_section_slot(&sec, open_set), 0, 1);
		preempt_enable();
	}
	complete(&open_done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	if (open) {
		preempt_disable();
		cmstat_section_add(cmstat_section_slot(&sec, open_set), 1, 1);
		cmstat_section_end(&sec);
	}
	return 0;
}

/*
 * The thread of "open" or "linger", bound to @cpu and not yet woken, and
 * the set of @nr counters it writes, in *@set: freed again if no thread.
 */
static struct task_struct *misuse_thread(int (*fn)(void *), unsigned int cpu,
					 struct cmstat_counters **set,
					 unsigned int nr, const char *name)
{
	struct task_struct *t;

	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return ERR_PTR(-EINVAL);
	*set = cmstat_counters_alloc(NULL, nr);
	if (IS_ERR(*set))
		return ERR_CAST(*set);
	t = kthread_create_on_cpu(fn, NULL, cpu, name);
	if (IS_ERR(t))
		cmstat_counters_free(*set);
	return t;
}

/* Stop what misuse_thread() started. */
static int misuse_stop(struct task_struct **t, struct cmstat_counters *set)
{
	if (!*t)
		return -EINVAL;
	kthread_stop(*t);
	*t = NULL;
	cmstat_counters_free(set);
	return 0;
}

static int misuse_open(unsigned int cpu)
{
	struct task_struct *t;

	if (open_task)
		return -EINVAL;
	t = misuse_thread(open_fn, cpu, &open_set, 2, "cmstat_client_open/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	open_task = t;
	reinit_completion(&open_done);
	wake_up_process(t);
	/*
	 * Return once the section is open: a reader started next must find
	 * it, however late a busy host runs this CPU.
	 */
	wait_for_completion(&open_done);
	return 0;
}

/* Opens a section on its CPU and returns without closing it. */
static int leak_fn(void *set)
{
	struct cmstat_section sec;

	if (cmstat_section_begin(&sec, cmstat_counters_group(set))) {
		cmstat_section_add(cmstat_section_slot(&sec, set), 0, 1);
		preempt_enable();	/* what the kernel restores for a leaker */
	}
	complete(&leak_done);
	return 0;
}

static int misuse_leak(unsigned int cpu)
{
	struct task_struct *t;

	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	if (!leak_set) {
		leak_set = cmstat_counters_alloc(NULL, 1);
		if (IS_ERR(leak_set)) {
			int err = PTR_ERR(leak_set);

			leak_set = NULL;
			return err;
		}
	}
	reinit_completion(&leak_done);
	t = kthread_run_on_cpu(leak_fn, leak_set, cpu, "cmstat_client_leak/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* Return with the leak made: a reader started next must meet it. */
	wait_for_completion(&leak_done);
	return 0;
}

static int misuse_cycle_create(void)
{
	struct cmstat_heap *heap;

	if (cycle_heap)
		return -EBUSY;
	heap = cmstat_heap_create("client-cycle");
	if (IS_ERR(heap))
		return PTR_ERR(heap);
	cycle_heap = heap;
	cycle_obj = cmstat_alloc(heap, 100, GFP_KERNEL);
	return cycle_obj ? 0 : -ENOMEM;
}

static void cycle_destroy(void)
{
	cmstat_free(cycle_heap, cycle_obj, 100);
	cmstat_heap_destroy(cycle_heap);
	cycle_heap = NULL;
	cycle_obj = NULL;
}

static int misuse_cycle_destroy(void)
{
	if (!cycle_heap)
		return -EINVAL;
	cycle_destroy();
	return 0;
}

static int misuse_create(void)
{
	struct cmstat_heap *heap;
	void *p;

	if (new_heap)
		return -EBUSY;
	heap = cmstat_heap_create("client-new");
	if (IS_ERR(heap))
		return PTR_ERR(heap);
	new_heap = heap;
	p = cmstat_alloc(heap, 200, GFP_KERNEL);
	cmstat_free(heap, p, 200);
	return p ? 0 : -ENOMEM;
}

/* A constructor: no slab allocator merges the cache with another. */
static void cache_ctor(void *obj)
{
}

static void cache_free(unsigned int n)
{
	unsigned int i;

	while (n--) {
		nr_cache_objs--;
		for (i = 0; i < NR_CACHES; i++)
			cmstat_cache_free(caches[i], cache_objs[i][nr_cache_objs]);
	}
}

static int cache_alloc(unsigned int n)
{
	unsigned int i;

	if (n > MAX_CACHE_OBJS - nr_cache_objs)
		return -EINVAL;
	for (i = 0; i < NR_CACHES; i++) {
		if (caches[i])
			continue;
		caches[i] = cmstat_cache_create(client_heap, cache_names[i],
						cache_sizes[i], 0, 0,
						cache_ctor);
		if (!caches[i])
			return -ENOMEM;
	}
	while (n--) {
		for (i = 0; i < NR_CACHES; i++) {
			cache_objs[i][nr_cache_objs] =
				cmstat_cache_alloc(caches[i], GFP_KERNEL);
			if (!cache_objs[i][nr_cache_objs]) {
				while (i--)
					cmstat_cache_free(caches[i],
							  cache_objs[i][nr_cache_objs]);
				return -ENOMEM;
			}
		}
		nr_cache_objs++;
	}
	return 0;
}

static int cache_cmd_free(unsigned int n)
{
	if (n > nr_cache_objs)
		return -EINVAL;
	cache_free(n);
	return 0;
}

static void cache_destroy(void)
{
	unsigned int i;

	cache_free(nr_cache_objs);
	for (i = 0; i < NR_CACHES; i++) {
		cmstat_cache_destroy(caches[i]);
		caches[i] = NULL;
	}
}

static int cache_orphan(void)
{
	struct cmstat_heap *heap;

	if (corphan_cache)
		return -EBUSY;
	heap = cmstat_heap_create("client-corphan");
	if (IS_ERR(heap))
		return PTR_ERR(heap);
	corphan_cache = cmstat_cache_create(heap, "corphan_obj", 96, 0, 0,
					    cache_ctor);
	corphan_obj = corphan_cache ?
		      cmstat_cache_alloc(corphan_cache, GFP_KERNEL) : NULL;
	if (!corphan_obj) {
		cmstat_cache_destroy(corphan_cache);
		corphan_cache = NULL;
		cmstat_heap_destroy(heap);
		return -ENOMEM;
	}
	/* Before its cache: the heap stays, an orphan, until it goes. */
	cmstat_heap_destroy(heap);
	return 0;
}

static void cache_orphan_free(void)
{
	cmstat_cache_free(corphan_cache, corphan_obj);
	cmstat_cache_destroy(corphan_cache);
	corphan_cache = NULL;
	corphan_obj = NULL;
}

/*
 * The thread behind "linger": sections that each stay open a tenth of a
 * second, sleeping in them as "open" does, back to back, so that every
 * reader waits for one.
 */
static int linger_fn(void *unused)
{
	struct cmstat_section sec;

	while (!kthread_should_stop()) {
		if (!cmstat_section_begin(&sec,
					  cmstat_counters_group(linger_set)))
			return 0;
		cmstat_section_add(cmstat_section_slot(&sec, linger_set), 0, 1);
		preempt_enable();
		schedule_timeout_interruptible(HZ / 10);
		preempt_disable();
		cmstat_section_end(&sec);
	}
	return 0;
}

static int misuse_linger(unsigned int cpu)
{
	struct task_struct *t;

	if (linger_task)
		return -EINVAL;
	t = misuse_thread(linger_fn, cpu, &linger_set, 1,
			  "cmstat_client_linger/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	linger_task = t;
	wake_up_process(t);
	return 0;
}

static int recycle_create(void)
{
	recycle_cache = cmstat_cache_create(recycle_heap,
					    recycle_names[recycle_which],
					    recycle_sizes[recycle_which], 0, 0,
					    cache_ctor);
	return recycle_cache ? 0 : -ENOMEM;
}

static int recycle_alloc(unsigned int n)
{
	void *objs[32];
	unsigned int i;
	int err = 0;

	if (n > ARRAY_SIZE(objs))
		return -EINVAL;
	if (!recycle_heap) {
		recycle_heap = cmstat_heap_create("client-recycle");
		if (IS_ERR(recycle_heap)) {
			err = PTR_ERR(recycle_heap);
			recycle_heap = NULL;
			return err;
		}
	}
	if (!recycle_cache)
		err = recycle_create();
	for (i = 0; i < n && !err; i++) {
		objs[i] = cmstat_cache_alloc(recycle_cache, GFP_KERNEL);
		if (!objs[i])
			err = -ENOMEM;
	}
	while (i--)
		cmstat_cache_free(recycle_cache, objs[i]);
	return err;
}

/* The cache goes, and the other takes its column: the heap has no other. */
static int recycle(void)
{
	if (!recycle_cache)
		return -EINVAL;
	cmstat_cache_destroy(recycle_cache);
	recycle_which ^= 1;
	return recycle_create();
}

static void recycle_end(void)
{
	cmstat_cache_destroy(recycle_cache);
	recycle_cache = NULL;
	cmstat_heap_destroy(recycle_heap);
	recycle_heap = NULL;
}

static int misuse_run(char *cmd)
{
	unsigned int n = 0;
	char *arg = strchr(cmd, ' ');

	if (arg) {
		*arg++ = '\0';
		if (kstrtouint(arg, 0, &n))
			return -EINVAL;
	}
	if (!strcmp(cmd, "kfree"))
		return misuse_kfree();
	if (!strcmp(cmd, "orphan"))
		return misuse_orphan(n);
	if (!strcmp(cmd, "orphan_free"))
		return misuse_orphan_free(n);
	if (!strcmp(cmd, "orphan_bad_free"))
		return misuse_orphan_bad_free();
	if (!strcmp(cmd, "open") && arg)
		return misuse_open(n);
	if (!strcmp(cmd, "close"))
		return misuse_stop(&open_task, open_set);
	if (!strcmp(cmd, "leak") && arg)
		return misuse_leak(n);
	if (!strcmp(cmd, "cycle_create"))
		return misuse_cycle_create();
	if (!strcmp(cmd, "cycle_destroy"))
		return misuse_cycle_destroy();
	if (!strcmp(cmd, "create"))
		return misuse_create();
	if (!strcmp(cmd, "cache_alloc"))
		return cache_alloc(n);
	if (!strcmp(cmd, "cache_free"))
		return cache_cmd_free(n);
	if (!strcmp(cmd, "cache_destroy")) {
		cache_destroy();
		return 0;
	}
	if (!strcmp(cmd, "linger") && arg)
		return misuse_linger(n);
	if (!strcmp(cmd, "unlinger"))
		return misuse_stop(&linger_task, linger_set);
	if (!strcmp(cmd, "recycle_alloc"))
		return recycle_alloc(n);
	if (!strcmp(cmd, "recycle"))
		return recycle();
	if (!strcmp(cmd, "recycle_end")) {
		recycle_end();
		return 0;
	}
	if (!strcmp(cmd, "cache_orphan"))
		return cache_orphan();
	if (!strcmp(cmd, "cache_orphan_free")) {
		if (!corphan_cache)
			return -EINVAL;
		cache_orphan_free();
		return 0;
	}
	return -EINVAL;
}

static ssize_t misuse_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char cmd[32];
	int err;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	strim(cmd);
	mutex_lock(&client_lock);
	err = misuse_run(cmd);
	mutex_unlock(&client_lock);
	return err ?: count;
}

static const struct file_operations misuse_fops = {
	.owner = THIS_MODULE,
	.write = misuse_write,
};

static int __init client_init(void)
{
	client_heap = cmstat_heap_create("client");
	if (IS_ERR(client_heap))
		return PTR_ERR(client_heap);
	client_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("buf", 0600, client_dir, NULL, &buf_fops);
	debugfs_create_file("misuse", 0200, client_dir, NULL, &misuse_fops);
	return 0;
}

/*
 * Objects of the destroyed heap "client-orphan" that were not freed stay
 * allocated: a driver that leaks them on unload is what the checks want.
 */
static void __exit client_exit(void)
{
	debugfs_remove(client_dir);
	misuse_stop(&open_task, open_set);
	misuse_stop(&linger_task, linger_set);
	if (recycle_heap)
		recycle_end();
	if (cycle_heap)
		cycle_destroy();
	cmstat_heap_destroy(new_heap);
	/* Its leaked sections wrote it once, and will not again. */
	cmstat_counters_free(leak_set);
	cache_destroy();
	if (corphan_cache)
		cache_orphan_free();
	cmstat_free(client_heap, kept_buf, kept_size);
	cmstat_heap_destroy(client_heap);
}

module_init(client_init);
module_exit(client_exit);

MODULE_DESCRIPTION("cmstat used from outside, as a driver would, for the in-VM checks");
MODULE_AUTHOR("The cmstat developers");
MODULE_LICENSE("GPL");
