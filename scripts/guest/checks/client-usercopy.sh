# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# A driver's write() and read() handlers on cmstat objects: the test client
# copies each write into a new cmstat_alloc() buffer with copy_from_user()
# and reads it back with copy_to_user(), for sizes in small, medium and
# large classes and above them; what comes back must be what went in, and
# hardened usercopy must not object.  Then every class's objects have the
# alignment the documentation promises: the case "align" of
# tests/client/cmstat_alloc_test.c.
. /etc/cmstat-check.sh
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
fail=0 n=0
for size in 1 8 100 1000 4095 4096 8192 9000 16384 32768 40000 70000; do
	dd if=/dev/urandom of=/tmp/usercopy.in bs="$size" count=1 2>/dev/null
	if ! dd if=/tmp/usercopy.in of=$d/buf bs="$size" count=1 2>/tmp/usercopy.err; then
		echo "write of $size bytes failed: $(cat /tmp/usercopy.err)"
		fail=1
		continue
	fi
	cat $d/buf > /tmp/usercopy.out || { echo "read of $size bytes failed"; fail=1; }
	cmp -s /tmp/usercopy.in /tmp/usercopy.out || { echo "$size bytes came back different"; fail=1; }
	n=$((n + 1))
done
echo "$n sizes copied in and out through cmstat objects"
rm -f /tmp/usercopy.in /tmp/usercopy.out /tmp/usercopy.err
rmmod cmstat_client_test || exit 1
ktap_module cmstat_alloc_test only=align || fail=1
exit $fail
