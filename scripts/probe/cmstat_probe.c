// SPDX-License-Identifier: GPL-2.0
/*
 * Not a module anyone loads: scripts/disasm.sh compiles this the way a
 * client module is compiled and disassembles each function, so the static
 * counts it prints (instructions, LOCK prefixes, fences, per-CPU
 * read-modify-writes) are those of the code clients really get.
 */

#include <linux/module.h>

#include <cmstat/alloc.h>
#include <cmstat/cache.h>
#include <cmstat/counters.h>

#include "cmstat_probe.h"

/* One writer section updating four counters, as the benchmark does. */
static __always_inline void probe_section(struct cmstat_counters *set,
					  bool task, s64 a, s64 b, s64 c, s64 d)
{
	struct cmstat_group *group = cmstat_counters_group(set);
	struct cmstat_section sec;
	u64 __percpu *slot;

	if (task ? !cmstat_section_begin_task(&sec, group) :
		   !cmstat_section_begin(&sec, group))
		return;
	slot = cmstat_section_slot(&sec, set);
	cmstat_section_add(slot, 0, a);
	cmstat_section_add(slot, 1, b);
	cmstat_section_add(slot, 2, c);
	cmstat_section_add(slot, 3, d);
	cmstat_section_end(&sec);
}

noinline void cmstat_probe_section(struct cmstat_counters *set,
				   s64 a, s64 b, s64 c, s64 d)
{
	probe_section(set, false, a, b, c, d);
}
EXPORT_SYMBOL_GPL(cmstat_probe_section);

noinline void cmstat_probe_section_task(struct cmstat_counters *set,
					s64 a, s64 b, s64 c, s64 d)
{
	probe_section(set, true, a, b, c, d);
}
EXPORT_SYMBOL_GPL(cmstat_probe_section_task);

/* The allocator's inline paths, with a constant size, as a client has them. */
noinline void *cmstat_probe_alloc_8(struct cmstat_heap *heap)
{
	return cmstat_alloc(heap, 8, GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(cmstat_probe_alloc_8);

noinline void *cmstat_probe_alloc_8_atomic(struct cmstat_heap *heap)
{
	return cmstat_alloc(heap, 8, GFP_ATOMIC);
}
EXPORT_SYMBOL_GPL(cmstat_probe_alloc_8_atomic);

noinline void cmstat_probe_free_8(struct cmstat_heap *heap, void *p)
{
	cmstat_free(heap, p, 8);
}
EXPORT_SYMBOL_GPL(cmstat_probe_free_8);

/* A typed cache's inline paths. */
noinline void *cmstat_probe_cache_alloc(struct cmstat_cache *cc)
{
	return cmstat_cache_alloc(cc, GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(cmstat_probe_cache_alloc);

noinline void cmstat_probe_cache_free(struct cmstat_cache *cc, void *p)
{
	cmstat_cache_free(cc, p);
}
EXPORT_SYMBOL_GPL(cmstat_probe_cache_free);

MODULE_DESCRIPTION("cmstat's inline code, for disassembly only");
MODULE_LICENSE("GPL");

/*
 * What an adopted module's kmem_cache_*() calls do first: find the typed
 * cache of the heap whose slab cache @s is (include/cmstat/adopt.h).
 */
noinline struct cmstat_cache *cmstat_probe_cache_of(struct cmstat_heap *heap,
						    struct kmem_cache *s)
{
	return cmstat_heap_cache_of(heap, s);
}
EXPORT_SYMBOL_GPL(cmstat_probe_cache_of);
