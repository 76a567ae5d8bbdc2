# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# Not on the test kernels: the debug kernels keep their CPUs too busy to be idle
# A reader on CPU 0 takes 2000 snapshots (writes to the sysfs epoch) while
# the other CPUs are idle, and, where the kernel has nohz_full CPUs (the
# stock 6.12 VM boots with some), one of them runs a user-space busy loop.
# The function-call interrupts (the CAL line of /proc/interrupts) of those
# CPUs must not grow with the snapshots: the reader skips CPUs that are
# idle or in user mode under nohz_full.  The control, cmstat's test build
# with mutation=3 (the reader that IPIs every CPU), must show them grow by
# one per snapshot: at least three quarters of them, since a CPU idling
# in a polling loop takes a single call with no interrupt (seen: 1998 of
# 2000 since the reader sends its calls one by one,
# smp_call_function_single_async()).  Up to a quarter of the snapshots'
# count is allowed for the quiet reader:
# an "idle" CPU is now and then busy (a timer, a kworker) when the reader
# looks, and gets its IPI then, as it should; and the kernel makes other
# function calls meanwhile.  CPU 1 took 45 to 54 of 2000 on a quiet host,
# 119 with a 64-vCPU VM beside this one.  The control's every CPU takes
# one per snapshot, so the bound keeps the check's power.
N=2000
. /etc/cmstat-check.sh
needs_cpus 2
ncpus=$SMP
[ -e /lib/cmstat/cmstat_mutant.ko ] || { echo "no test build of cmstat here"; exit 4; }
busy=
if [ -s /sys/devices/system/cpu/nohz_full ]; then
	# The last nohz_full CPU, e.g. "2-3" or "3".
	busy=$(sed 's/.*[-,]//' /sys/devices/system/cpu/nohz_full)
fi

# cal: every CPU's count of function-call interrupts, space-separated.
cal() {
	awk '$1 == "CAL:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) printf "%s ", $i }' \
		/proc/interrupts
}

# snapshots KO [ARGS]: load cmstat from KO, take N snapshots from CPU 0,
# and print the growth of each CPU's CAL count.
snapshots() {
	rmmod cmstat && insmod "$@" || return 1
	[ -n "$busy" ] && { taskset -c "$busy" sh -c 'while :; do :; done' & loop=$!; }
	sleep 1		# the busy CPU's tick stops
	before=$(cal)
	taskset -c 0 sh -c "i=0; while [ \$i -lt $N ]; do
		echo 1 > /sys/kernel/cmstat/epoch; i=\$((i + 1)); done"
	after=$(cal)
	[ -n "$busy" ] && kill "$loop"
	echo "$before" "$after" | awk -v n="$ncpus" '{
		for (i = 1; i <= n; i++) printf "%d ", $(n + i) - $i }'
}

quiet=$(snapshots /lib/cmstat/cmstat.ko) || exit 1
loud=$(snapshots /lib/cmstat/cmstat_mutant.ko mutation=3) || exit 1
rmmod cmstat && insmod /lib/cmstat/cmstat.ko || exit 1
echo "function-call interrupts per CPU over $N snapshots from CPU 0" \
	"(CPU $busy: user-space busy loop under nohz_full; the rest idle):"
echo "  quiet reader:            $quiet"
echo "  IPI to every CPU (ctl):  $loud"
echo "$quiet" "$loud" | awk -v n="$ncpus" -v want="$N" '{
	for (i = 2; i <= n; i++) {		# CPU 0 runs the reader
		if ($i > want / 4) bad++
		if ($(n + i) < want * 3 / 4) blind++
	}
	exit (bad || blind) }'
