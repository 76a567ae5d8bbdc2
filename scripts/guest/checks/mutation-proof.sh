# SPDX-License-Identifier: GPL-2.0
# kernels: debug rt kunit-arm64
# timeout: 2400
# The mutation proof: cmstat and the stress suite built with
# CMSTAT_MUTATIONS (test only, module/mutation.c), loaded once with each
# protocol mutation: the stress and its nesting case, and for mutation 5,
# which counts a call site's row apart from its heap's, the sites' stress.  The suite passes
# only if mutation 0 shows no violation and every other mutation shows
# some.  Not with make check's FILTER, which would leave the suite out.  A broken protocol can leave a
# section looking open: section_timeout=1 has the reader close it after
# 1 s, not 5, each time.
. /etc/cmstat-check.sh
[ -e /lib/cmstat/cmstat_mutant.ko ] || { echo "no test build of cmstat here"; exit 4; }
[ -z "$(user_filter)" ] || { echo "not with FILTER=$(user_filter)"; exit 4; }
rmmod cmstat || exit 1
# Mutation 4 breaks only sections nested in their own context, which
# only the nesting case has.
for m in 0 1 2 4 5; do
	echo "mutation=$m"
	cases='cmstat_counters_stress.stress_[cn]*'	# consistency, nesting
	[ "$m" = 4 ] && cases=cmstat_counters_stress.stress_nesting
	[ "$m" = 5 ] && cases=cmstat_sites.sites_stress
	insmod /lib/cmstat/cmstat_mutant.ko mutation=$m section_timeout=1 &&
		kunit_run "$cases" \
			cmstat_kunit_mutant stress_snapshots=500 &&
		rmmod cmstat || exit 1
done
insmod /lib/cmstat/cmstat.ko
