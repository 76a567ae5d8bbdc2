# SPDX-License-Identifier: GPL-2.0
# kernels: debug-busy
# timeout: 2400
# The cases of cmstat_kunit.ko that KUnit's speed attribute calls very
# slow, the allocator's stress (every vCPU allocating while a reader
# cuts), on the debug kernel without kmemleak.  kunit.sh leaves them out
# where kmemleak is on: the other vCPUs spin on its one global lock while
# the host has descheduled the vCPU that holds it, which beside one CPU
# hog made them ten times as slow (67 s of cases took 719 s).
. /etc/cmstat-check.sh
export KUNIT_ATTRS='speed=very_slow'
kunit_run '*.*' cmstat_kunit
