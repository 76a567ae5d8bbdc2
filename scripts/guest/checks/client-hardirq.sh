# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# A client's hard interrupt handler (a hard hrtimer) allocates with
# GFP_ATOMIC and frees four objects: sized, unsized, large and typed.
# Elsewhere the allocation is served and counted, and no free is handed
# on.  On PREEMPT_RT, whose allocators may sleep, the allocation is
# refused, counted in failed_allocs and reported once, naming the
# handler; the four frees are counted at once and their memory is handed
# on, and the typed cache's destroy, which waits for it, finds the cache
# empty (else the slab allocator would warn).
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
dmesg -c > /dev/null
case "$(uname -v)" in
*PREEMPT_RT*)
	want='allocation: refused'
	moved='mallocs moved by 0, frees by 4, cache_frees by 1, failed_allocs by 1, live_objects by -4; frees handed on: 4'
	reports=1 ;;
*)
	want='allocation: served'
	moved='mallocs moved by 1, frees by 4, cache_frees by 1, failed_allocs by 0, live_objects by -3; frees handed on: 0'
	reports=0 ;;
esac
fail=0
for _ in 1 2; do
	out=$(cat $d/hardirq) || { echo "reading hardirq failed"; fail=1; break; }
	echo "$out"
	echo "$out" | grep -q 'in hard interrupt context: yes,' || fail=1
	echo "$out" | grep -qF "$want" || { echo "expected: $want"; fail=1; }
	echo "$out" | grep -qF "$moved" || { echo "expected: $moved"; fail=1; }
done
report=$(dmesg | grep 'cmstat: .*PREEMPT_RT' | sed 's/^\[ *[0-9.]*\] //')
echo "report: ${report:-none}"
[ "$(echo "$report" | grep -c 'hard_timer_fn')" = "$reports" ] || fail=1
rmmod cmstat_client_test || exit 1
exit $fail
