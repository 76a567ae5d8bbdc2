# SPDX-License-Identifier: GPL-2.0
# kernels: debug rt stock
# cmstat_kfree_rcu() of large allocations, which cmstat records by
# address, from a hard hrtimer and under a raw spinlock.  On PREEMPT_RT
# the record's lock may sleep there: cmstat counts the free at once and
# hands the rest on, the record forgotten before the memory can be
# allocated again, and the memory kept until RCU readers are done.  The
# test kernel's lockdep and atomic-sleep checks catch a sleeping lock
# taken there.  Then allocations and frees of the same size, which may
# reuse the addresses, must each be counted.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
case "$(uname -v)" in
*PREEMPT_RT*) handed=2 ;;
*) handed=0 ;;
esac
want="in hard interrupt context: yes; frees handed on: $handed; changed under RCU: 0 of 2"
moved='large_mallocs moved by 8, large_frees by 10, large_live_objects by -2'
dmesg -c > /dev/null
fail=0
out=$(cat $d/rt_rcu) || { echo "reading rt_rcu failed"; fail=1; }
echo "$out"
echo "$out" | grep -qF "$want" || { echo "expected: $want"; fail=1; }
echo "$out" | grep -qF "$moved" || { echo "expected: $moved"; fail=1; }
bad=$(dmesg | grep -E 'sleeping function called from invalid context|Invalid wait context' | sed 's/^\[ *[0-9.]*\] //')
[ -z "$bad" ] || { echo "$bad"; fail=1; }
rmmod cmstat_client_test || exit 1
exit $fail
