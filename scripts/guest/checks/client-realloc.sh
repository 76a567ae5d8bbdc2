# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# cmstat_realloc() as a driver uses krealloc(): in place within a class,
# moved across classes and to and from large sizes, to 0 and from NULL,
# the contents kept and the statistics back where they were after the
# last free.  Again with debug_free=1, which also refuses a wrong size.
fail=0
for params in "" "debug_free=1"; do
	if [ -n "$params" ]; then
		rmmod cmstat && insmod /lib/cmstat/cmstat.ko $params || exit 1
	fi
	insmod /lib/cmstat/cmstat_client_test.ko || exit 1
	out=$(cat /sys/kernel/debug/cmstat_client_test/realloc) || fail=1
	echo "cmstat ${params:-default}:"
	echo "$out"
	echo "$out" | grep -q '; 0 wrong$' || fail=1
	rmmod cmstat_client_test || exit 1
done
exit $fail
