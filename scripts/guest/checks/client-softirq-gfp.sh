# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# Not on the test kernels: GFP_KERNEL from a softirq makes CONFIG_DEBUG_ATOMIC_SLEEP (the debug kernel) print a BUG
# A client allocates with GFP_KERNEL from a softirq (a tasklet) raised in
# a task section: a bug the stock kernel stays silent about, and cmstat
# says so once, naming the client's function.  The softirq runs nested in
# the section, on the same CPU, and cmstat must account it deeper: the
# task section's sequence counter must not move while the softirq runs
# (it would make the task section look closed to readers), a deeper one
# must.  On PREEMPT_RT softirqs run in threads, which a section,
# preemption disabled, keeps out: the tasklet runs after it, in task
# context, and no softirq counter moves.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
dmesg -c > /dev/null
case "$(uname -v)" in
*PREEMPT_RT*)
	ran='nested in the task section: no, in softirq context: yes, allocated: yes'
	softirq_moved=0 ;;
*)
	ran='nested in the task section: yes, in softirq context: yes, allocated: yes'
	softirq_moved=1 ;;
esac
fail=0
for _ in 1 2; do
	out=$(cat $d/softirq) || { echo "reading softirq failed"; fail=1; break; }
	echo "$out"
	echo "$out" | grep -qF "$ran" || { echo "expected: $ran"; fail=1; }
	echo "$out" | grep -q 'task sequence counter moved by 0,' || fail=1
	moved=1
	echo "$out" | grep -q 'softirq sequence counter by 0$' && moved=0
	[ "$moved" = "$softirq_moved" ] || { echo "the softirq counter moved: $moved, expected $softirq_moved"; fail=1; }
done
report=$(dmesg | grep 'cmstat: .*may sleep, from interrupt context' | sed 's/^\[ *[0-9.]*\] //')
echo "report: ${report:-none}"
[ "$(echo "$report" | grep -c 'softirq_fn')" = 1 ] || fail=1
rmmod cmstat_client_test || exit 1
exit $fail
