# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# cmstat_realloc() as a driver uses krealloc(): in place within a class,
# moved across classes and to and from large sizes, to 0 and from NULL,
# the contents kept and the statistics back where they were after the
# last free.  Again with debug_free=1, which also refuses a wrong size.
# The case "realloc" of tests/client/cmstat_alloc_test.c.
. /etc/cmstat-check.sh
fail=0
for params in "" "debug_free=1"; do
	if [ -n "$params" ]; then
		rmmod cmstat && insmod /lib/cmstat/cmstat.ko $params || exit 1
	fi
	echo "cmstat ${params:-default}"
	ktap_module cmstat_alloc_test only=realloc || fail=1
done
exit $fail
