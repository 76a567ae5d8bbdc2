# SPDX-License-Identifier: GPL-2.0
#
# bench-busy-summary.awk: the table of the cut beside busy CPUs
# (bench/busy.c), from two sample files, the VM unpinned and the same VM
# with its vCPU threads pinned to one host CPU (awk -v runs=N -f median.awk
# -f bench-busy-summary.awk UNPINNED PINNED).
FNR == 1 { file++ }
$1 == "sample" && $2 == "busy" {
	key = $3 SUBSEP file
	v[key, ++n[key]] = $5
}
END {
	printf "  %-24s %14s %14s %8s\n", "per cut", "unpinned", "pinned", "ratio"
	split("cut_latency cut_reader_cpu", cases, " ")
	for (c = 1; c <= 2; c++) {
		u = samples_median(cases[c] SUBSEP 1, runs)
		p = samples_median(cases[c] SUBSEP 2, runs)
		printf "  %-24s %11.1f us %11.1f us %7.2fx\n", cases[c], u / 1000,
		       p / 1000, u ? p / u : 0
	}
	if (short)
		print "  missing samples:" short
}
