/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit cases make, released by KUnit when the case ends, however
 * it ends.  Each helper registers the release right after the thing is
 * made, so that an assertion failing anywhere later, which ends the case
 * there, leaks nothing: no heap left an orphan by its live objects, which
 * would keep cmstat loaded, no thread running on, no cache behind.  KUnit
 * releases in the reverse order of making, so that objects go before their
 * cache and heap, and threads stop before what they use is freed.  A case
 * that must release something at a given point, to check what that does,
 * calls the helper's *_destroy(), *_free() or *_stop(), which releases it
 * there, once.
 */
#ifndef _CMSTAT_KUNIT_H
#define _CMSTAT_KUNIT_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/counters.h>
#include <cmstat/kmalloc.h>

/*
 * Run @action(@ctx) when the case ends, or now and fail the case if KUnit
 * has no memory to defer it.
 */
static inline void cmstat_kunit_defer(struct kunit *test,
				      kunit_action_t *action, void *ctx)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, action, ctx), 0);
}

static inline void __cmstat_kunit_heap_destroy(void *heap)
{
	cmstat_heap_destroy(heap);
}

/* A heap, destroyed when the case ends. */
static inline struct cmstat_heap *cmstat_kunit_heap(struct kunit *test,
						    const char *name)
{
	struct cmstat_heap *heap = cmstat_heap_create(name);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, heap);
	cmstat_kunit_defer(test, __cmstat_kunit_heap_destroy, heap);
	return heap;
}

/* Destroy @heap now, not when the case ends. */
static inline void cmstat_kunit_heap_destroy(struct kunit *test,
					     struct cmstat_heap *heap)
{
	kunit_release_action(test, __cmstat_kunit_heap_destroy, heap);
}

/* @heap is another's to destroy from now on: the case does not. */
static inline void cmstat_kunit_heap_give(struct kunit *test,
					  struct cmstat_heap *heap)
{
	kunit_remove_action(test, __cmstat_kunit_heap_destroy, heap);
}

static inline void __cmstat_kunit_group_free(void *group)
{
	cmstat_group_free(group);
}

/* A counter group, freed when the case ends (after its sets). */
static inline struct cmstat_group *cmstat_kunit_group(struct kunit *test)
{
	struct cmstat_group *group = cmstat_group_alloc();

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, group);
	cmstat_kunit_defer(test, __cmstat_kunit_group_free, group);
	return group;
}

static inline void cmstat_kunit_group_free(struct kunit *test,
					   struct cmstat_group *group)
{
	kunit_release_action(test, __cmstat_kunit_group_free, group);
}

static inline void __cmstat_kunit_counters_free(void *set)
{
	cmstat_counters_free(set);
}

/* A counter set of @group (NULL: its own), freed when the case ends. */
static inline struct cmstat_counters *
cmstat_kunit_counters(struct kunit *test, struct cmstat_group *group,
		      unsigned int nr)
{
	struct cmstat_counters *set = cmstat_counters_alloc(group, nr);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, set);
	cmstat_kunit_defer(test, __cmstat_kunit_counters_free, set);
	return set;
}

static inline void cmstat_kunit_counters_free(struct kunit *test,
					      struct cmstat_counters *set)
{
	kunit_release_action(test, __cmstat_kunit_counters_free, set);
}

static inline void __cmstat_kunit_cache_destroy(void *cc)
{
	cmstat_cache_destroy(cc);
}

/* A typed cache of @heap, destroyed when the case ends. */
static inline struct cmstat_cache *
cmstat_kunit_cache(struct kunit *test, struct cmstat_heap *heap,
		   const char *name, unsigned int size, unsigned int align,
		   slab_flags_t flags, void (*ctor)(void *))
{
	struct cmstat_cache *cc = cmstat_cache_create(heap, name, size, align,
						      flags, ctor);

	KUNIT_ASSERT_NOT_NULL(test, cc);
	cmstat_kunit_defer(test, __cmstat_kunit_cache_destroy, cc);
	return cc;
}

static inline void cmstat_kunit_cache_destroy(struct kunit *test,
					      struct cmstat_cache *cc)
{
	kunit_release_action(test, __cmstat_kunit_cache_destroy, cc);
}

static inline void __cmstat_kunit_kmem_cache_destroy(void *s)
{
	kmem_cache_destroy(s);
}

/* A slab cache of the kernel's own, not cmstat's, destroyed at the end. */
static inline struct kmem_cache *
cmstat_kunit_kmem_cache(struct kunit *test, const char *name,
			unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, 0, NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	cmstat_kunit_defer(test, __cmstat_kunit_kmem_cache_destroy, s);
	return s;
}

static inline void cmstat_kunit_kmem_cache_destroy(struct kunit *test,
						   struct kmem_cache *s)
{
	kunit_release_action(test, __cmstat_kunit_kmem_cache_destroy, s);
}

static inline void __cmstat_kunit_kthread_stop(void *task)
{
	kthread_stop_put(task);
}

/*
 * @task, from kthread_create() and not yet woken, stopped when the case
 * ends: kthread_stop() of one never woken returns at once, its function
 * never run.  The reference taken here keeps the task for that stop: a
 * kthread whose function returned on its own is reaped as it exits, and
 * kthread_stop() would look at a freed task.
 */
static inline struct task_struct *cmstat_kunit_kthread(struct kunit *test,
						       struct task_struct *task)
{
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task);
	get_task_struct(task);
	cmstat_kunit_defer(test, __cmstat_kunit_kthread_stop, task);
	return task;
}

/* Stop @task now, and wait for it to end. */
static inline void cmstat_kunit_kthread_stop(struct kunit *test,
					     struct task_struct *task)
{
	kunit_release_action(test, __cmstat_kunit_kthread_stop, task);
}

/*
 * An object of a heap that the case holds: freed when the case ends with
 * cmstat_free() and @size, or with cmstat_kvfree() if @size is 0 (which
 * frees anything kvfree() frees).  A resource, not an action: the case
 * names it by the object, which KUnit's actions could not find it by.
 *
 * The struct kunit_resource is KUnit's (kunit_alloc_resource()), and this
 * is only its data: KUnit reads the resource after calling its free
 * function, and frees it itself, so that function may free the data and
 * the object, never the resource.
 */
struct cmstat_kunit_obj {
	struct cmstat_heap *heap;
	const void *obj;	/* NULL once forgotten */
	size_t size;
};

static inline void __cmstat_kunit_obj_put(struct cmstat_heap *heap,
					  const void *obj, size_t size)
{
	if (size)
		cmstat_free(heap, obj, size);
	else
		cmstat_kvfree(heap, obj);
}

static inline void __cmstat_kunit_obj_free(struct kunit_resource *res)
{
	struct cmstat_kunit_obj *o = res->data;

	if (o->obj)
		__cmstat_kunit_obj_put(o->heap, o->obj, o->size);
	kfree(o);
}

static inline bool __cmstat_kunit_obj_match(struct kunit *test,
					    struct kunit_resource *res,
					    void *obj)
{
	const struct cmstat_kunit_obj *o;

	if (res->free != __cmstat_kunit_obj_free)
		return false;
	o = res->data;
	return o->obj == obj;
}

/*
 * @obj, of @heap, just allocated by the case, freed when the case ends
 * unless the case frees it before: with cmstat_kunit_free(), or with a
 * free of its own and cmstat_kunit_forget().  Fails the case if @obj is
 * NULL, and frees it and fails the case if it cannot be kept.
 */
static inline void *cmstat_kunit_keep(struct kunit *test,
				      struct cmstat_heap *heap, void *obj,
				      size_t size)
{
	struct cmstat_kunit_obj *o;

	KUNIT_ASSERT_NOT_NULL(test, obj);
	o = kmalloc(sizeof(*o), GFP_KERNEL);
	if (o) {
		o->heap = heap;
		o->obj = obj;
		o->size = size;
		/* Without an init function it fails only for memory. */
		if (!kunit_alloc_resource(test, NULL, __cmstat_kunit_obj_free,
					  GFP_KERNEL, o)) {
			kfree(o);
			o = NULL;
		}
	}
	if (!o)
		__cmstat_kunit_obj_put(heap, obj, size);
	KUNIT_ASSERT_NOT_NULL(test, o);
	return obj;
}

/* cmstat_alloc(), kept until the case ends or frees it. */
static inline void *cmstat_kunit_alloc(struct kunit *test,
				       struct cmstat_heap *heap, size_t size,
				       gfp_t gfp)
{
	return cmstat_kunit_keep(test, heap, cmstat_alloc(heap, size, gfp),
				 size);
}

static inline void __cmstat_kunit_release(struct kunit *test, const void *obj,
					  bool free)
{
	struct kunit_resource *res;
	struct cmstat_kunit_obj *o;

	/* A reference of our own, besides the list's. */
	res = kunit_find_resource(test, __cmstat_kunit_obj_match, (void *)obj);
	if (!res) {
		KUNIT_FAIL(test, "object %p not kept", obj);
		return;
	}
	if (!free) {
		o = res->data;
		o->obj = NULL;
	}
	kunit_remove_resource(test, res);	/* drops the list's */
	/* Drops ours, the last: __cmstat_kunit_obj_free(), then KUnit's kfree(). */
	kunit_put_resource(res);
}

/* Free a kept object now, as it would be when the case ends. */
static inline void cmstat_kunit_free(struct kunit *test, const void *obj)
{
	__cmstat_kunit_release(test, obj, true);
}

/*
 * Forget a kept object: the case frees it itself, right before or after,
 * with the free it checks, or a reallocation moved it.
 */
static inline void cmstat_kunit_forget(struct kunit *test, const void *obj)
{
	__cmstat_kunit_release(test, obj, false);
}

#endif /* _CMSTAT_KUNIT_H */
