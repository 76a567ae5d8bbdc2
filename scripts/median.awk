# SPDX-License-Identifier: GPL-2.0
#
# median.awk: the median of one key's samples, for bench-summary.awk and
# bench-peers-summary.awk (awk -f median.awk -f ...).  The samples are in
# v[key, 1..n[key]]; a count other than want is noted in short, which the
# caller prints.
function samples_median(key, want,    i, j, t, a, m) {
	m = n[key]
	if (m != want)
		short = short sprintf("\n  %s: %d samples, %d expected", key, m, want)
	if (!m)
		return 0
	for (i = 1; i <= m; i++)
		a[i] = v[key, i] + 0
	for (i = 2; i <= m; i++)	# insertion sort: a handful of samples
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
