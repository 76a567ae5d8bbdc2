# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# While a client module is loaded, cmstat cannot be unloaded: the client's
# use of cmstat's exported symbols holds a module reference.
insmod /lib/cmstat/cmstat_demo.ko objects=200 || exit 1
refs=$(awk '$1 == "cmstat" { print $3, $4 }' /proc/modules)
echo "with cmstat_demo loaded: refcount and users: $refs"
if rmmod cmstat 2>/tmp/rmmod.err; then
	echo "rmmod cmstat succeeded while cmstat_demo was loaded"
	exit 1
fi
echo "rmmod cmstat refused: $(cat /tmp/rmmod.err)"
grep -q '^cmstat ' /proc/modules || exit 1
rmmod cmstat_demo || exit 1
echo "after rmmod cmstat_demo: refcount $(awk '$1 == "cmstat" { print $3 }' /proc/modules)"
