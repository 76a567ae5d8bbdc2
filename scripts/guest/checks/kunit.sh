# SPDX-License-Identifier: GPL-2.0
# kernels: debug kcsan rt kunit-arm64
# timeout: 2400
# The KUnit suites of cmstat_kunit.ko (smoke, counters and their stress,
# the allocator and its stress), each printing its own KTAP.  KCSAN slows
# the stress more than it gains from it past 1000 snapshots (the module's
# default is 2000).
. /etc/cmstat-check.sh
# Where kmemleak is on, not the very slow cases, the allocator's stress:
# kunit-very-slow.sh runs them without it.
args=
[ -e /sys/kernel/debug/kcsan ] && args=stress_snapshots=1000
! kmemleak_on || export KUNIT_ATTRS='speed>very_slow'
kunit_run '*.*' cmstat_kunit expect_cpus="$SMP" $args
