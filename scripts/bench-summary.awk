# SPDX-License-Identifier: GPL-2.0
#
# bench-summary.awk: the tables and "ratio" lines of make bench, from the
# lines "sample GROUP CASE VARIANT NS" that cmstat_bench printed.  Every
# figure is the median of its samples; every ratio divides two medians.
# Variables: allcpus (vCPUs of the writer VM), runs, disasm (the summary
# line of scripts/disasm-writer.sh).

$1 == "info" && $2 == "reader_counters" {
	nr_counters = $3
}

$1 == "sample" {
	key = $2 " " $3 " " $4
	n[key]++
	v[key, n[key]] = $5
	if ($2 == "reader" && !($4 in seen_cpus)) {
		seen_cpus[$4] = 1
		cpus[++ncpus] = $4
	}
}

function median(key,    i, j, t, a, m) {
	m = n[key]
	if (!m) {
		missing = missing " " key
		return 0
	}
	for (i = 1; i <= m; i++)
		a[i] = v[key, i] + 0
	for (i = 2; i <= m; i++)	# insertion sort: a handful of samples
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}

function ratio(name, value) {
	ratios = ratios sprintf("ratio %s %.2f\n", name, value)
}

function div(a, b) {
	return b ? a / b : 0
}

END {
	nw = split("cmstat this_cpu_add seed percpu_counter percpu_counter_nofold atomic64", wcase, " ")
	split("(consistent)|(floor: no consistency)|(Go's design: shared ring, atomics)|(default batch: byte deltas fold under its lock)|(batch never reached: its fast path)|(shared cache line)", wnote, "|")
	printf "writer: one section adding 64, 1, 64, -1 to 4 counters, ns per section\n"
	printf "  %-22s %10s %12s\n", "", "1 CPU", "all " allcpus " CPUs"
	for (i = 1; i <= nw; i++) {
		w1[wcase[i]] = median("writer " wcase[i] " 1cpu")
		wa[wcase[i]] = median("writer " wcase[i] " allcpu")
		printf "  %-22s %10.2f %12.2f   %s\n", wcase[i], w1[wcase[i]], wa[wcase[i]], wnote[i]
	}
	ratio("writer_vs_floor_1cpu", div(w1["cmstat"], w1["this_cpu_add"]))
	ratio("writer_vs_floor_allcpu", div(wa["cmstat"], wa["this_cpu_add"]))
	ratio("seed_vs_cmstat_1cpu", div(w1["seed"], w1["cmstat"]))
	ratio("seed_vs_cmstat_allcpu", div(wa["seed"], wa["cmstat"]))
	ratio("percpu_counter_vs_cmstat_1cpu", div(w1["percpu_counter"], w1["cmstat"]))
	ratio("percpu_counter_vs_cmstat_allcpu", div(wa["percpu_counter"], wa["cmstat"]))
	ratio("percpu_counter_nofold_vs_cmstat_1cpu", div(w1["percpu_counter_nofold"], w1["cmstat"]))
	ratio("percpu_counter_nofold_vs_cmstat_allcpu", div(wa["percpu_counter_nofold"], wa["cmstat"]))
	ratio("atomic64_vs_cmstat_allcpu", div(wa["atomic64"], wa["cmstat"]))
	printf "  disassembly of the cmstat section: %s\n\n", disasm

	printf "reader: one snapshot of a heap's counter set (%d counters), us, no writer running;\n", nr_counters
	printf "  rcu_expedited: one synchronize_rcu_expedited(), what an RCU-based reader would wait instead of the IPI\n"
	printf "  %-6s %10s %10s %10s %14s %15s\n", "vCPUs", "cmstat", "naive_sum", "seed",
		"cmstat/naive", "rcu_expedited"
	for (i = 1; i <= ncpus; i++) {
		c = cpus[i]
		rc = median("reader cmstat " c)
		rn = median("reader naive_sum " c)
		rs = median("reader seed " c)
		re = median("reader rcu_expedited " c)
		printf "  %-6s %10.2f %10.2f %10.2f %14.2f %15.2f\n", c, rc / 1000, rn / 1000,
			rs / 1000, div(rc, rn), re / 1000
		ratio("reader_vs_naive_" c, div(rc, rn))
		ratio("reader_vs_seed_" c, div(rc, rs))
	}
	printf "\n"

	printf "allocator: one alloc + free pair, ns\n"
	printf "  %-6s %10s %10s %11s %10s %15s %13s\n", "size", "cmstat_on", "cmstat_off",
		"kmem_cache", "kmalloc", "on/kmem_cache", "on/off"
	split("8 64 256 1024 4096 16384 65536", sizes, " ")
	for (i = 1; i <= 7; i++) {
		s = sizes[i]
		on = median("alloc cmstat_on " s)
		off = median("alloc cmstat_off " s)
		kc = median("alloc kmem_cache " s)
		km = median("alloc kmalloc " s)
		printf "  %-6s %10.2f %10.2f %11.2f %10.2f %+14.1f%% %+12.1f%%\n", s, on, off, kc, km,
			100 * (div(on, kc) - 1), 100 * (div(on, off) - 1)
		ratio("alloc_overhead_pct_" s, 100 * (div(on, kc) - 1))
		ratio("alloc_accounting_pct_" s, 100 * (div(on, off) - 1))
	}
	printf "\n%s", ratios
	if (missing != "") {
		printf "missing samples:%s\n", missing
		exit 1
	}
}
