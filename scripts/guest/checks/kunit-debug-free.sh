# SPDX-License-Identifier: GPL-2.0
# kernels: debug kcsan
# The debug_free suite (cmstat_debug_kunit.ko), with cmstat reloaded with
# debug_free=1, which it needs.
. /etc/cmstat-check.sh
rmmod cmstat && insmod /lib/cmstat/cmstat.ko debug_free=1 || exit 1
kunit_run '*.*' cmstat_debug_kunit
