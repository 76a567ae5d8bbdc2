# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# cmstat.ko is loaded, with accounting on and debug_free off by default.
grep -q '^cmstat ' /proc/modules || { echo "cmstat not loaded"; exit 1; }
p=/sys/module/cmstat/parameters
echo "accounting=$(cat $p/accounting) debug_free=$(cat $p/debug_free)"
[ "$(cat $p/accounting)" = Y ] && [ "$(cat $p/debug_free)" = N ]
