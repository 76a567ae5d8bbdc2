// SPDX-License-Identifier: GPL-2.0
/*
 * Not a module anyone loads: scripts/disasm-writer.sh compiles this the way
 * a client module is compiled and disassembles cmstat_probe_section(), so
 * the figures it prints are those of the code clients really get.
 */

#include <linux/module.h>

#include <cmstat/counters.h>

/* One writer section updating four counters, as the benchmark does. */
void cmstat_probe_section(struct cmstat_counters *set, s64 a, s64 b, s64 c, s64 d);

noinline void cmstat_probe_section(struct cmstat_counters *set,
				   s64 a, s64 b, s64 c, s64 d)
{
	struct cmstat_section sec;
	u64 __percpu *slot;

	if (!cmstat_section_begin(&sec, cmstat_counters_group(set)))
		return;
	slot = cmstat_section_slot(&sec, set);
	cmstat_section_add(slot, 0, a);
	cmstat_section_add(slot, 1, b);
	cmstat_section_add(slot, 2, c);
	cmstat_section_add(slot, 3, d);
	cmstat_section_end(&sec);
}
EXPORT_SYMBOL_GPL(cmstat_probe_section);

MODULE_DESCRIPTION("cmstat writer section, for disassembly only");
MODULE_LICENSE("GPL");
