# SPDX-License-Identifier: GPL-2.0
# cmstat.ko is loaded and holds the KUnit module's reference.
grep -q '^cmstat ' /proc/modules || { echo "cmstat not loaded"; exit 1; }
refs=$(awk '$1 == "cmstat" { print $3 }' /proc/modules)
echo "cmstat refcount $refs"
[ "$refs" -ge 1 ]
