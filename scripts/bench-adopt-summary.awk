# SPDX-License-Identifier: GPL-2.0
#
# bench-adopt-summary.awk: the adopted modules' workload table of
# scripts/bench.sh, from its "sample adopt_workload plain|adopted|sites NS"
# lines (awk -v runs=N -f median.awk -f bench-adopt-summary.awk SAMPLES).

$1 == "sample" && $2 == "adopt_workload" {
	k = $3
	v[k, ++n[k]] = $4
}

END {
	plain = samples_median("plain", runs)
	adopted = samples_median("adopted", runs)
	sites = samples_median("sites", runs)
	printf "  %-40s %14.0f\n", "as the kernel builds them", plain
	printf "  %-40s %14.0f  %+.2f%%\n", "adopted with the one Kbuild line",
	       adopted, plain ? 100 * (adopted - plain) / plain : 0
	printf "  %-40s %14.0f  %+.2f%%  %+.2f%% over adopted\n",
	       "adopted, with call-site rows", sites,
	       plain ? 100 * (sites - plain) / plain : 0,
	       adopted ? 100 * (sites - adopted) / adopted : 0
	if (short != "")
		print "  (short of samples:" short ")"
}
