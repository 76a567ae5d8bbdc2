/* SPDX-License-Identifier: GPL-2.0 */
/* The probe functions: exported, so the compiler keeps their plain ABI. */
#ifndef CMSTAT_PROBE_H
#define CMSTAT_PROBE_H

#include <linux/types.h>

struct cmstat_cache;
struct cmstat_counters;
struct cmstat_heap;
struct kmem_cache;

void cmstat_probe_section(struct cmstat_counters *set, s64 a, s64 b, s64 c,
			  s64 d);
void cmstat_probe_section_task(struct cmstat_counters *set, s64 a, s64 b,
			       s64 c, s64 d);
void *cmstat_probe_alloc_8(struct cmstat_heap *heap);
void *cmstat_probe_alloc_8_atomic(struct cmstat_heap *heap);
void cmstat_probe_free_8(struct cmstat_heap *heap, void *p);
void *cmstat_probe_cache_alloc(struct cmstat_cache *cc);
void cmstat_probe_cache_free(struct cmstat_cache *cc, void *p);
struct cmstat_cache *cmstat_probe_cache_of(struct cmstat_heap *heap,
					   struct kmem_cache *s);

#endif /* CMSTAT_PROBE_H */
