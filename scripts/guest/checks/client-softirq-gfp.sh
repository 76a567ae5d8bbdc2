# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# Not on the test kernels: GFP_KERNEL from a softirq makes CONFIG_DEBUG_ATOMIC_SLEEP (the debug kernel) print a BUG
# A client allocates with GFP_KERNEL from a softirq that runs nested in a
# task section on the same CPU: a bug the stock kernel stays silent about.
# cmstat must account it in softirq context: the task section's sequence
# counter must not move while the softirq runs (it would make the task
# section look closed to readers), the softirq's must, and cmstat says so
# once, naming the client's function.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
dmesg -c > /dev/null
fail=0
for _ in 1 2; do
	out=$(cat $d/softirq) || { echo "reading softirq failed"; fail=1; break; }
	echo "$out"
	echo "$out" | grep -q 'nested in the task section: yes, in softirq context: yes, allocated: yes' ||
		{ echo "the allocation did not run nested in a softirq"; fail=1; }
	echo "$out" | grep -q 'task sequence counter moved by 0,' || fail=1
	echo "$out" | grep -q 'softirq sequence counter by 0$' && fail=1
done
report=$(dmesg | grep 'cmstat: .*may sleep, from interrupt context' | sed 's/^\[ *[0-9.]*\] //')
echo "report: ${report:-none}"
[ "$(echo "$report" | grep -c 'softirq_fn')" = 1 ] || fail=1
rmmod cmstat_client_test || exit 1
exit $fail
