# SPDX-License-Identifier: GPL-2.0
#
# bench-summary.awk: the tables and "ratio" lines of make bench, from the
# lines "sample GROUP CASE VARIANT NS" and "info NAME VALUE" that
# cmstat_bench printed.  Cases and variants are shown in the order they
# first appear, so a case added to the module shows up here by itself.
# Every figure is the median of its samples, and must have exactly `runs`
# of them (3 * runs for the reader); every ratio divides two medians.
# Variables: allcpus (vCPUs of the writer VM), runs, disasm (the summary
# line of scripts/disasm.sh), icount (1: the samples are
# instruction counts from QEMU's -icount shift=0, where a guest ns is one
# instruction: print them as such), prefix (put before every ratio name).

BEGIN {
	note["cmstat"] = "consistent, from any context"
	note["cmstat_task"] = "consistent, cmstat_section_begin_task()"
	note["this_cpu_add_preempt"] = "the same adds inside preempt_disable()/enable()"
	note["cmstat_mb"] = "cmstat + smp_mb(): the fence the reader's IPI saves"
	note["this_cpu_add"] = "floor: no consistency"
	note["seed"] = "Go's design: shared ring, atomics"
	note["percpu_counter"] = "default batch: byte deltas fold under its lock"
	note["percpu_counter_nofold"] = "batch never reached: its fast path"
	note["atomic64"] = "shared cache line"
}

$1 == "info" {
	info[$2] = $3
}

$1 == "sample" {
	key = $2 " " $3 " " $4
	if (!(($2, $3) in seen_case))
		cases[$2, ++ncases[$2]] = $3
	if (!(($2, $4) in seen_variant))
		variants[$2, ++nvariants[$2]] = $4
	seen_case[$2, $3] = seen_variant[$2, $4] = 1
	v[key, ++n[key]] = $5
}

# The reader has three times the samples (median.awk computes it).
function median(key) {
	return samples_median(key, key ~ /^reader / ? 3 * runs : runs)
}

function ratio(name, a, b) {
	ratios = ratios sprintf("ratio %s%s %.2f\n", prefix, name, b ? a / b : 0)
}

function pct(name, a, b) {
	ratios = ratios sprintf("ratio %s%s %.2f\n", prefix, name,
				b ? 100 * (a / b - 1) : 0)
}

# What one operation's figure is: instructions, or ns (us for the reader).
function unit(what) {
	if (icount && what == "reader")
		return "instructions per snapshot, all vCPUs together"
	if (icount)
		return "instructions"
	return what == "reader" ? "us" : "ns"
}

function writers(    i, c) {
	printf "writer: one section adding 64, 1, 64, -1 to 4 counters, %s per section\n",
		unit("writer")
	printf "  %-22s %10s %12s\n", "", "1 CPU", "all " allcpus " CPUs"
	for (i = 1; i <= ncases["writer"]; i++) {
		c = cases["writer", i]
		w1[c] = median("writer " c " 1cpu")
		wa[c] = median("writer " c " allcpu")
		printf "  %-22s %10.2f %12.2f   (%s)\n", c, w1[c], wa[c], note[c]
	}
	printf "  disassembly of the cmstat section: %s\n\n", disasm
	ratio("writer_vs_floor_1cpu", w1["cmstat"], w1["this_cpu_add"])
	ratio("writer_task_vs_floor_preempt_1cpu", w1["cmstat_task"],
	      w1["this_cpu_add_preempt"])
	ratio("writer_vs_floor_allcpu", wa["cmstat"], wa["this_cpu_add"])
	ratio("fence_vs_cmstat_1cpu", w1["cmstat_mb"], w1["cmstat"])
	ratio("fence_vs_cmstat_allcpu", wa["cmstat_mb"], wa["cmstat"])
	ratio("seed_vs_cmstat_1cpu", w1["seed"], w1["cmstat"])
	ratio("seed_vs_cmstat_allcpu", wa["seed"], wa["cmstat"])
	ratio("percpu_counter_vs_cmstat_1cpu", w1["percpu_counter"], w1["cmstat"])
	ratio("percpu_counter_vs_cmstat_allcpu", wa["percpu_counter"], wa["cmstat"])
	ratio("percpu_counter_nofold_vs_cmstat_1cpu", w1["percpu_counter_nofold"], w1["cmstat"])
	ratio("percpu_counter_nofold_vs_cmstat_allcpu", wa["percpu_counter_nofold"], wa["cmstat"])
	ratio("atomic64_vs_cmstat_allcpu", wa["atomic64"], wa["cmstat"])
}

# The cuts of all heaps (cases all_heaps_*) and of a heap with site rows
# (sites_*) have tables of their own.
function readers(    i, j, c, m) {
	printf "reader: one snapshot of a heap's counter set (%d counters), %s, no writer running;\n",
		info["reader_counters"], unit("reader")
	printf "  rcu_expedited: one synchronize_rcu_expedited(), what an RCU-based reader would wait instead of the IPI\n"
	printf "  %-6s", "vCPUs"
	for (j = 1; j <= ncases["reader"]; j++)
		if (cases["reader", j] !~ /^(all_heaps|sites)_/)
			printf " %14s", cases["reader", j]
	printf " %14s\n", "cmstat/naive"
	for (i = 1; i <= nvariants["reader"]; i++) {
		c = variants["reader", i]
		printf "  %-6s", c
		for (j = 1; j <= ncases["reader"]; j++) {
			if (cases["reader", j] ~ /^(all_heaps|sites)_/)
				continue
			m[cases["reader", j]] = median("reader " cases["reader", j] " " c)
			printf " %14.2f", m[cases["reader", j]] / (icount ? 1 : 1000)
		}
		printf " %14.2f\n", m["naive_sum"] ? m["cmstat"] / m["naive_sum"] : 0
		ratio("reader_vs_naive_" c, m["cmstat"], m["naive_sum"])
		ratio("reader_vs_seed_" c, m["cmstat"], m["seed"])
	}
	printf "\n"
}

# One row per case all_heaps_H (H heaps, none written: active 0) or
# all_heaps_H_active_A_writing_W, in the module's order; one column per
# vCPU count, then the same divided by A.
function cuts(    i, j, k, f, m, nrows, row, hdr, fmt) {
	for (j = 1; j <= ncases["reader"]; j++)
		if (cases["reader", j] ~ /^all_heaps_/)
			row[++nrows] = cases["reader", j]
	if (!nrows)
		return
	printf "cut of all heaps: one cmstat_heaps_read_all(), %s;\n",
		icount ? "instructions per cut, all vCPUs together" : "us"
	printf "  active: heaps written since the previous cut, each by one cmstat_alloc() + cmstat_free() of 64 bytes\n"
	printf "    (GFP_ATOMIC) on each writing CPU, untimed; writing: 2 = the reader's CPU and one other (just the\n"
	printf "    reader's with 1 vCPU), all = every vCPU; per active heap: the whole cut divided by the active heaps\n"
	# One column is too narrow for the first group's label.
	hdr = sprintf("  %23s%-" 11 * nvariants["reader"] "s", "",
		      nvariants["reader"] > 1 ? " cut, by vCPUs" : " cut")
	printf "%s %s\n", hdr, "per active heap, by vCPUs"
	# Instructions by the thousand and up; us, from a few.
	fmt = icount ? " %10.0f" : " %10.2f"
	printf "  %5s %6s %7s ", "heaps", "active", "writing"
	for (k = 0; k < 2; k++)
		for (i = 1; i <= nvariants["reader"]; i++)
			printf " %10s", variants["reader", i]
	printf "\n"
	for (j = 1; j <= nrows; j++) {
		# all_heaps_H or all_heaps_H_active_A_writing_W
		split(row[j], f, "_")
		if (!(5 in f)) {
			f[5] = 0
			f[7] = "-"
		}
		printf "  %5s %6s %7s ", f[3], f[5], f[7]
		for (i = 1; i <= nvariants["reader"]; i++) {
			m[i] = median("reader " row[j] " " variants["reader", i])
			printf fmt, m[i] / (icount ? 1 : 1000)
		}
		for (i = 1; i <= nvariants["reader"]; i++)
			if (f[5])
				printf fmt, m[i] / f[5] / (icount ? 1 : 1000)
			else
				printf " %10s", "-"
		printf "\n"
	}
	printf "\n"
}

# One row per case sites_N_heap_read or sites_N_rows_read (N sites bound
# in a heap with site rows), one column per vCPU count.
function site_cuts(    i, j, f, m, nrows, row, fmt) {
	for (j = 1; j <= ncases["reader"]; j++)
		if (cases["reader", j] ~ /^sites_/)
			row[++nrows] = cases["reader", j]
	if (!nrows)
		return
	printf "cut of a heap with site rows, %s: each after one alloc + free at one of its sites, untimed;\n",
		icount ? "instructions" : "us"
	printf "  heap: cmstat_heap_read(), the totals; rows: cmstat_heap_sites_read(), every row copied\n"
	printf "  %6s %5s", "sites", "read"
	for (i = 1; i <= nvariants["reader"]; i++)
		printf " %10s", variants["reader", i] " vCPU"
	printf "\n"
	fmt = icount ? " %10.0f" : " %10.2f"
	for (j = 1; j <= nrows; j++) {
		split(row[j], f, "_")
		printf "  %6s %5s", f[2], f[3]
		for (i = 1; i <= nvariants["reader"]; i++) {
			m = median("reader " row[j] " " variants["reader", i])
			printf fmt, m / (icount ? 1 : 1000)
		}
		printf "\n"
	}
	printf "\n"
}

function allocs(    i, j, s, m) {
	printf "allocator: one alloc + free pair, %s\n", unit("alloc")
	printf "  %-8s", "size"
	for (j = 1; j <= ncases["alloc"]; j++)
		printf " %11s", cases["alloc", j]
	printf " %14s %9s\n", "on/kmem_cache", "on/off"
	for (i = 1; i <= nvariants["alloc"]; i++) {
		s = variants["alloc", i]
		printf "  %-8s", s
		for (j = 1; j <= ncases["alloc"]; j++) {
			m[cases["alloc", j]] = median("alloc " cases["alloc", j] " " s)
			printf " %11.2f", m[cases["alloc", j]]
		}
		raw[s] = m["kmem_cache"]
		printf " %+13.1f%% %+8.1f%%\n",
			m["kmem_cache"] ? 100 * (m["cmstat_on"] / m["kmem_cache"] - 1) : 0,
			m["cmstat_off"] ? 100 * (m["cmstat_on"] / m["cmstat_off"] - 1) : 0
		pct("alloc_overhead_pct_" s, m["cmstat_on"], m["kmem_cache"])
		pct("alloc_off_overhead_pct_" s, m["cmstat_off"], m["kmem_cache"])
		pct("alloc_accounting_pct_" s, m["cmstat_on"], m["cmstat_off"])
		pct("kmalloc_vs_kmem_cache_pct_" s, m["kmalloc"], m["kmem_cache"])
	}
}

# The extra cases at a few sizes, each against the raw kmem_cache of the
# allocator table at that size.
function allocs_extra(    i, j, s, c, m) {
	printf "\nallocator, other cases: one alloc + free pair, %s (+%% over kmem_cache)\n",
		unit("alloc")
	printf "  %-8s", "size"
	for (j = 1; j <= ncases["alloc_extra"]; j++)
		printf " %28s", cases["alloc_extra", j]
	printf "\n"
	for (i = 1; i <= nvariants["alloc_extra"]; i++) {
		s = variants["alloc_extra", i]
		printf "  %-8s", s
		for (j = 1; j <= ncases["alloc_extra"]; j++) {
			c = cases["alloc_extra", j]
			m = median("alloc_extra " c " " s)
			printf " %18.2f (%+6.1f%%)", m, raw[s] ? 100 * (m / raw[s] - 1) : 0
			pct(c "_pct_" s, m, raw[s])
		}
		printf "\n"
	}
}

END {
	if (ncases["writer"])
		writers()
	if (ncases["reader"]) {
		readers()
		cuts()
		site_cuts()
	}
	if (ncases["alloc"])
		allocs()
	if (ncases["alloc_extra"])
		allocs_extra()
	printf "\n%s", ratios
	if (short != "") {
		printf "error: wrong sample counts:%s\n", short
		exit 1
	}
}
