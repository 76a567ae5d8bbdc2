# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# A driver holds a writer section open on CPU 1 (it sleeps in it), longer
# than any wait here: section_timeout is raised so that cmstat does not
# close it.  One reader waits for it, as it must.  Behind that reader:
# - every other reader of a snapshot (the stats files, echo 1 > epoch)
#   waits too, and so does a module's cmstat_heap_destroy(), which takes
#   one: killably.  kill -9 ends each, and nothing is left in D state for
#   the hung-task detector (its timeout lowered to 5 s, where there is
#   one) to report;
# - what needs no snapshot answers at once: heap_names, the sysfs values,
#   epoch, and a module's init (a heap created, an object allocated);
# - another CPU goes offline and online (the reader holds no hotplug lock).
# Then the waiting reader is killed too, leaving its close pending, the
# section closes, and a module that allocated an object before it all
# frees it and destroys its heap: the snapshot its destroy takes must
# include the free (no false "destroyed with 1 live objects"), and the
# next read is consistent.  The writers started here run on CPU 0: a task
# section of theirs on CPU 1 would end the held section's wait.
. /etc/cmstat-check.sh
needs_cpus 3
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
c=/sys/kernel/debug/cmstat
timeout_param=/sys/module/cmstat/parameters/section_timeout
hung=/proc/sys/kernel/hung_task_timeout_secs
last=$((SMP - 1))
dmesg -c > /dev/null
fail=0

old_timeout=$(cat $timeout_param) || fail=1
echo 3600 > $timeout_param || fail=1
[ -w $hung ] && old_hung=$(cat $hung) && echo 5 > $hung

taskset -c 0 sh -c "echo cycle_create > $d/misuse" || fail=1
echo "open 1" > $d/misuse || exit 1
cat $c/all/stats > /tmp/reader.out &
reader=$!
sleep 2
alive $reader || { echo "the reader did not wait for the open section"; fail=1; }

# Behind it: readers of a snapshot...
cat $c/stats > /dev/null &
p_stats=$!
cat $c/all/stats > /dev/null &
p_all=$!
cat $c/heaps/client/stats > /dev/null &
p_heap=$!
sh -c 'echo 1 > /sys/kernel/cmstat/epoch' &
p_epoch=$!
# ...while what needs no snapshot answers, a module's init among them...
for what in "cat $c/heap_names" "cat /sys/kernel/cmstat/all/live_bytes" \
	"cat /sys/kernel/cmstat/epoch" \
	"taskset -c 0 sh -c 'echo create > $d/misuse'"; do
	eval "$what" > /dev/null &
	finish $!
	# shellcheck disable=SC2154 # rc: finish's verdict (check-lib.sh)
	if [ "$rc" = 0 ]; then
		echo "answered while the section was held: $what"
	else
		echo "did not answer while the section was held: $what"
		fail=1
	fi
done
# ...and a heap's destroy, which takes a snapshot.
taskset -c 0 sh -c "echo 'orphan 1' > $d/misuse" &
p_destroy=$!

# Two hung-task periods: a task left in D state would be reported.
sleep 12
for p in $p_stats $p_all $p_heap $p_epoch $p_destroy; do
	kill -9 $p
	finish $p
	if [ "$rc" = hang ]; then
		echo "pid $p: still there $HANG s after kill -9"
		fail=1
	elif [ "$rc" = 137 ]; then
		echo "pid $p: waited, and died on kill -9"
	else
		echo "pid $p: finished while the section was held (status $rc)"
		fail=1
	fi
done
alive $reader || { echo "the first reader stopped waiting"; fail=1; }

(echo 0 > /sys/devices/system/cpu/cpu$last/online &&
	echo 1 > /sys/devices/system/cpu/cpu$last/online) &
finish $!
if [ "$rc" = 0 ]; then
	echo "CPU $last went offline and online while the reader waited"
else
	echo "CPU hotplug blocked behind the waiting reader for $HANG s"
	fail=1
fi

kill -9 $reader
finish $reader
[ "$rc" = 137 ] || { echo "the waiting reader did not die on kill -9 ($rc)"; fail=1; }
echo close > $d/misuse || fail=1
taskset -c 0 sh -c "echo cycle_destroy > $d/misuse" || fail=1
cat $c/all/stats > /tmp/reader.out || fail=1
cmstat --check /tmp/reader.out || fail=1
# The killed destroy left its heap an orphan, with its object: freed, the
# next snapshot releases the orphan.
echo "orphan_free 1" > $d/misuse || fail=1
cat $c/stats > /dev/null
grep -q '^orphan ' $c/stats && { echo "an orphan stays"; fail=1; }
dmesg | grep 'cmstat: ' | sed 's/^\[ *[0-9.]*\] /dmesg: /'
dmesg | grep -q 'client-cycle destroyed with' && { echo "false live-object report"; fail=1; }
dmesg | grep -q 'blocked for more than' && { echo "hung-task report"; fail=1; }

echo "$old_timeout" > $timeout_param
[ -n "$old_hung" ] && echo "$old_hung" > $hung
echo 1 > /sys/devices/system/cpu/cpu$last/online 2>/dev/null
rm -f /tmp/reader.out
rmmod cmstat_client_test || exit 1
exit $fail
