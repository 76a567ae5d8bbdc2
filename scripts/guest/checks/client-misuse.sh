# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# A driver that frees with the wrong size, or into the wrong heap: the
# memory goes back where it came from (KASAN and the console scan would
# see anything else), the statistics go wrong, and cmstat says so once per
# heap, naming it, with no kernel warning.  Twice each, to see "once".
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
dmesg -c > /dev/null
fail=0
for _ in 1 2; do
	for cmd in wrong_size wrong_heap; do
		echo "$cmd" > $d/misuse || { echo "misuse $cmd failed"; fail=1; }
	done
	cat $d/stats > /tmp/stats || fail=1
	cat /sys/kernel/debug/cmstat/heaps/client-other/stats > /dev/null || fail=1
done
echo "client heap after two rounds: $(cat /tmp/stats)"
dmesg | grep 'cmstat: ' | grep -v 'destroyed with' | sed 's/^\[ *[0-9.]*\] //' > /tmp/msgs
cat /tmp/msgs
for h in client client-other; do
	c=$(grep -c "heap $h:" /tmp/msgs)
	echo "messages naming heap $h: $c"
	[ "$c" = 1 ] || fail=1
done
rm -f /tmp/stats /tmp/msgs
# The all-heaps statistics stay broken: start the next check afresh.
rmmod cmstat_client_test && rmmod cmstat && insmod /lib/cmstat/cmstat.ko || exit 1
exit $fail
