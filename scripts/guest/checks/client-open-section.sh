# SPDX-License-Identifier: GPL-2.0
# A driver leaves a writer section open on CPU 1.  A reader then waits for
# it, as it must; meanwhile another CPU can still go offline and online
# (the reader holds no CPU hotplug lock while it waits), cmstat reports the
# stuck section once, naming the CPU and the context, and when the section
# is closed the reader finishes with a consistent snapshot.  The waits
# below only catch a hang: they are generous and scaled to the vCPUs.
[ "${SMP:-1}" -ge 3 ] || { echo "needs 3 CPUs"; exit 0; }
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
last=$((SMP - 1))
hang=$((60 + 30 * SMP))
dmesg -c > /dev/null
rm -f /tmp/reader.done /tmp/hotplug.done
fail=0

# wait_for FILE: until FILE exists, or the hang bound.
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt $hang ]; do
		sleep 1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

echo "open 1" > $d/misuse || exit 1
(cat /sys/kernel/debug/cmstat/all/stats > /tmp/reader.out; touch /tmp/reader.done) &
sleep 2
[ -e /tmp/reader.done ] && { echo "the reader did not wait for the open section"; fail=1; }
(echo 0 > /sys/devices/system/cpu/cpu$last/online &&
	echo 1 > /sys/devices/system/cpu/cpu$last/online && touch /tmp/hotplug.done) &
if wait_for /tmp/hotplug.done; then
	echo "CPU $last went offline and online while the reader waited"
else
	echo "CPU hotplug blocked behind the waiting reader for $hang s"
	fail=1
fi
[ -e /tmp/reader.done ] && { echo "the reader stopped waiting"; fail=1; }
i=0
while ! dmesg | grep -q 'cmstat: .*section .*CPU 1' && [ $i -lt $hang ]; do
	sleep 1
	i=$((i + 1))
done
report=$(dmesg | grep 'cmstat: .*section .*CPU 1' | sed 's/^\[ *[0-9.]*\] //')
echo "report: ${report:-none}"
echo "$report" | grep -q 'task' || fail=1
echo close > $d/misuse || fail=1
wait_for /tmp/reader.done || { echo "the reader still waits after the close"; fail=1; }
wait
cmstat --check /tmp/reader.out || fail=1
n=$(dmesg | grep -c 'cmstat: .*section .*CPU')
echo "stuck-section reports: $n"
[ "$n" = 1 ] || fail=1
echo 1 > /sys/devices/system/cpu/cpu$last/online 2>/dev/null
rm -f /tmp/reader.out /tmp/reader.done /tmp/hotplug.done
rmmod cmstat_client_test || exit 1
exit $fail
