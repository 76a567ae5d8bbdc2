# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# A driver opens a writer section on a CPU and never closes it: the thread
# that opened it ends, leaving that CPU's task-context counter odd.
# 1. A reader that meets it waits section_timeout (5 s), reports it, finds
#    the CPU outside it and closes it: the read ends, consistent.
# 2. A leak on CPU 0, which then runs the consistency stress (its first
#    round's one writer thread writes there, every other round's on every
#    CPU, and timers in every context): no snapshot is torn, and the
#    totals are exact.  That writer's next section is what ends the leak
#    there.
# 3. One more on the last CPU, section_timeout raised so that only this
#    can end the wait: a reader waits for it, and ends when that CPU goes
#    offline.
. /etc/cmstat-check.sh
needs_cpus 3
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
c=/sys/kernel/debug/cmstat
timeout_param=/sys/module/cmstat/parameters/section_timeout
last=$((SMP - 1))
dmesg -c > /dev/null
fail=0

# read_ends WHAT PID: the reader PID (a cat of stats into /tmp/leak.out)
# ends, with a consistent snapshot.
read_ends() {
	if ! ended "$2"; then
		echo "$1: the reader still waits after $HANG s"
		kill -9 "$2"
		fail=1
	elif cmstat --check /tmp/leak.out > /dev/null; then
		echo "$1: the read ended, consistent"
	else
		echo "$1: inconsistent snapshot"
		fail=1
	fi
}

echo "leak 1" > $d/misuse || exit 1
cat $c/stats > /tmp/leak.out &
read_ends "leak on CPU 1, CPU idle" $!
dmesg | grep -q 'CPU 1: closed a writer section left open at preemption depth 1' ||
	{ echo "no report of the section closed on CPU 1"; fail=1; }

echo "leak 0" > $d/misuse || fail=1
kunit=/sys/module/kunit/parameters/filter_glob
if [ -e /lib/cmstat/cmstat_kunit.ko ] && [ -e $kunit ]; then
	glob=$(cat $kunit)
	printf %s cmstat_counters_stress.stress_consistency > $kunit
	# The suite's KTAP stays off the console (it is not this check's
	# document), warnings and worse do not.
	level=$(cut -f1 /proc/sys/kernel/printk)
	dmesg -n 5
	dmesg -c > /dev/null
	insmod /lib/cmstat/cmstat_kunit.ko expect_cpus="$SMP" stress_snapshots=300
	rmmod cmstat_kunit
	dmesg -n "$level"
	[ "$glob" = "(null)" ] && glob='*.*'	# what the kernel takes for none
	printf %s "$glob" > $kunit
	dmesg | grep -o '# stress_consistency: cpus=.*' | cut -c1-110
	runs=$(dmesg | grep -c '# stress_consistency: cpus=')
	clean=$(dmesg | grep '# stress_consistency: cpus=' | grep -c 'violations=0 .*totals_exact=1')
	echo "stress after a leak on CPU 0: $clean of $runs runs with no torn snapshot and exact totals"
	{ [ "$runs" -gt 0 ] && [ "$clean" = "$runs" ]; } || fail=1
	dmesg | grep -q ' not ok [0-9]' && { echo "a stress case failed"; fail=1; }
else
	echo "no KUnit here: the stress part is left out"
fi

old_timeout=$(cat $timeout_param) || fail=1
echo 3600 > $timeout_param || fail=1
echo "leak $last" > $d/misuse || fail=1
cat $c/stats > /tmp/leak.out &
reader=$!
sleep 2
alive $reader || { echo "the reader did not wait for the leaked section"; fail=1; }
echo 0 > /sys/devices/system/cpu/cpu$last/online || fail=1
read_ends "leak on CPU $last, CPU offline" $reader
dmesg | grep "CPU $last: closed" || { echo "no report for CPU $last"; fail=1; }
echo 1 > /sys/devices/system/cpu/cpu$last/online || fail=1
echo "$old_timeout" > $timeout_param

dmesg | grep 'cmstat: ' | sed 's/^\[ *[0-9.]*\] /dmesg: /'
rm -f /tmp/leak.out
rmmod cmstat_client_test || exit 1
exit $fail
