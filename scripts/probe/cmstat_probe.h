/* SPDX-License-Identifier: GPL-2.0 */
/* The probe functions: exported, so the compiler keeps their plain ABI. */
#ifndef CMSTAT_PROBE_H
#define CMSTAT_PROBE_H

#include <linux/types.h>

struct cmstat_counters;
struct cmstat_heap;

void cmstat_probe_section(struct cmstat_counters *set, s64 a, s64 b, s64 c,
			  s64 d);
void cmstat_probe_section_task(struct cmstat_counters *set, s64 a, s64 b,
			       s64 c, s64 d);
void *cmstat_probe_alloc_8(struct cmstat_heap *heap);
void *cmstat_probe_alloc_8_atomic(struct cmstat_heap *heap);
void cmstat_probe_free_8(struct cmstat_heap *heap, void *p);

#endif /* CMSTAT_PROBE_H */
