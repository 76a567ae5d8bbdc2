# SPDX-License-Identifier: GPL-2.0
#
# bench-peers-summary.awk: the tables and "ratio" lines of make
# bench-peers, from the lines "sample KERNEL:GROUP/PROFILING CASE VARIANT N"
# (KERNEL: stats or nostats, the SLUB_STATS of the kernel; PROFILING: prof0
# or prof1, allocation profiling's state; N: instructions per operation)
# and "info NAME VALUE" that scripts/bench-peers.sh collected.  Every
# figure is the median of its samples, and must have exactly `runs` of
# them; every difference and ratio is of two medians.
# Variables: runs, maxsize (largest size of the tables, default 4096:
# above it every case is mostly the zeroing of the object).

$1 == "info" {
	info[$2] = $3
}

$1 == "sample" {
	key = $2 " " $3 " " $4
	v[key, ++n[key]] = $5
	if ($2 == "nostats:alloc/prof0" && $3 == "kmalloc" && !($4 in seen_size)) {
		seen_size[$4] = 1
		sizes[++nsizes] = $4
	}
	if ($2 ~ /:peers\// && !($4 in seen_cpus)) {
		seen_cpus[$4] = 1
		cpus[++ncpus] = $4
	}
	if ($2 ~ /:reader\// && $3 ~ /^all_heaps_[0-9]+$/ && !($3 in seen_heaps)) {
		seen_heaps[$3] = 1
		heaps[++nheaps] = substr($3, 11)
	}
}

function median(key) {
	return samples_median(key, runs)	# median.awk
}

function pct(with, base) {
	return base ? 100 * (with / base - 1) : 0
}

# One mechanism's four columns: baseline, with it, what it adds, in %.
function cols(base, with) {
	return sprintf("%8.1f %8.1f %+7.1f %+6.1f%%", base, with, with - base,
		       pct(with, base))
}

function ratio(name, value) {
	ratios = ratios sprintf("ratio peers_%s %.2f\n", name, value)
}

function side_by_side(    i, s, pb, pw, sb, sw, cb, cw) {
	print "Each mechanism's cost over its own baseline: one alloc + free pair, instructions, 1 vCPU"
	print "  allocation profiling: kmalloc() + kfree(), vm.mem_profiling 0 -> 1 (kernel without SLUB_STATS)"
	print "  SLUB_STATS: kmem_cache_alloc() + kmem_cache_free(), kernel without -> with (profiling off)"
	print "  cmstat accounting: cmstat_alloc() + cmstat_free(), cmstat accounting=0 -> 1 (no SLUB_STATS, profiling off)"
	printf "  %-6s | %-33s | %-33s | %s\n", "",
	       "allocation profiling (kmalloc)", "SLUB_STATS (kmem_cache)",
	       "cmstat accounting (cmstat)"
	printf "  %-6s | %8s %8s %7s %7s | %8s %8s %7s %7s | %8s %8s %7s %7s\n",
	       "size", "off", "on", "added", "%", "without", "with", "added",
	       "%", "off", "on", "added", "%"
	for (i = 1; i <= nsizes; i++) {
		s = sizes[i]
		if (s + 0 > maxsize)
			continue
		pb = median("nostats:alloc/prof0 kmalloc " s)
		pw = median("nostats:alloc/prof1 kmalloc " s)
		sb = median("nostats:alloc/prof0 kmem_cache " s)
		sw = median("stats:alloc/prof0 kmem_cache " s)
		cb = median("nostats:alloc/prof0 cmstat_off " s)
		cw = median("nostats:alloc/prof0 cmstat_on " s)
		printf "  %-6s | %s | %s | %s\n", s, cols(pb, pw), cols(sb, sw),
		       cols(cb, cw)
		ratio("profiling_added_" s, pw - pb)
		ratio("profiling_pct_" s, pct(pw, pb))
		ratio("slub_stats_added_" s, sw - sb)
		ratio("slub_stats_pct_" s, pct(sw, sb))
		ratio("cmstat_accounting_added_" s, cw - cb)
		ratio("cmstat_accounting_pct_" s, pct(cw, cb))
	}
}

# Every case of the allocator group in every state: what each mechanism
# adds to the others' allocations too (profiling tags cmstat's slab calls,
# SLUB_STATS counts every slab allocation).
function every_state(    c, i, s, k, a, b, d, cs) {
	split("kmalloc kmem_cache cmstat_off cmstat_on", cs, " ")
	print "Every case in every state: one alloc + free pair, instructions, 1 vCPU; neither: no SLUB_STATS,"
	print "  profiling off; profiling tags cmstat's slab calls too, SLUB_STATS counts every slab allocation"
	printf "  %-12s %6s %9s %18s %18s\n", "case", "size",
	       "neither", "profiling on", "SLUB_STATS"
	for (c = 1; c <= 4; c++)
		for (i = 1; i <= nsizes; i++) {
			s = sizes[i]
			if (s + 0 > maxsize)
				continue
			k = cs[c] " " s
			a = median("nostats:alloc/prof0 " k)
			b = median("nostats:alloc/prof1 " k)
			d = median("stats:alloc/prof0 " k)
			printf "  %-12s %6s %9.1f %8.1f (%+6.1f%%) %8.1f (%+6.1f%%)\n",
			       cs[c], s, a, b, pct(b, a), d, pct(d, a)
		}
}

# One look at all of each mechanism's statistics, at each vCPU count:
# from user space, whole reads of the two text files; in the kernel,
# cmstat's snapshot of all heaps as a client takes it.
function reads(    i, c, cs, x, m, line) {
	split("allocinfo cmstat_stats_1 cmstat_stats_8", cs, " ")
	print "One look at all of a mechanism's statistics, instructions, all vCPUs together (profiling on)"
	printf "  allocinfo: open, read to the end, close /proc/allocinfo from user space: %d call sites, %d bytes\n",
	       info["peers_allocinfo_lines"] - 2, info["peers_allocinfo_bytes"]
	printf "  cmstat_stats_N: the same of /sys/kernel/debug/cmstat/stats, sample client with N heaps: %d and %d bytes\n",
	       info["peers_cmstat_stats_1_bytes"], info["peers_cmstat_stats_8_bytes"]
	print "  all_heaps_N: cmstat_heaps_read_all() in the kernel, N heaps of cmstat_bench's (reader group)"
	line = sprintf("  %-6s", "vCPUs")
	for (c = 1; c <= 3; c++)
		line = line sprintf(" %16s", cs[c])
	for (c = 1; c <= nheaps; c++)
		line = line sprintf(" %14s", "all_heaps_" heaps[c])
	print line sprintf(" %24s", "allocinfo/cmstat_stats_8")
	for (i = 1; i <= ncpus; i++) {
		line = sprintf("  %-6s", cpus[i])
		for (c = 1; c <= 3; c++) {
			x[c] = median("nostats:peers/prof1 " cs[c] " " cpus[i])
			line = line sprintf(" %16.1f", x[c])
		}
		for (c = 1; c <= nheaps; c++)
			line = line sprintf(" %14.1f",
				median("nostats:reader/prof1 all_heaps_" heaps[c] " " cpus[i]))
		m = x[3] ? x[1] / x[3] : 0
		print line sprintf(" %24.1f", m)
		ratio("read_allocinfo_" cpus[i], x[1])
		ratio("read_cmstat_stats_8_" cpus[i], x[3])
		ratio("read_allocinfo_vs_cmstat_stats_8_" cpus[i], m)
	}
}

END {
	if (!maxsize)
		maxsize = 4096
	side_by_side()
	print ""
	every_state()
	if (ncpus) {
		print ""
		reads()
	}
	print ""
	printf "%s", ratios
	if (short != "") {
		printf "error: figures without the expected number of samples:%s\n", short
		exit 1
	}
}
