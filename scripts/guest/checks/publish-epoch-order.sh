# SPDX-License-Identifier: GPL-2.0
# kernels: debug-busy kcsan
# Eight writers refresh the sysfs epoch at once, 200 times each (more
# writers than CPUs, so that one is now and then preempted between its
# snapshot and storing it), while a heap's statistics move and two readers
# read epoch in a loop.  Read in any one process, epoch never goes
# backwards.
insmod /lib/cmstat/cmstat_demo.ko objects=500 workers=2 || exit 1
e=/sys/kernel/cmstat/epoch
[ -e $e ] || e=/sys/kernel/cmstat/all/epoch
rm -f /tmp/epoch.*
# watch NAME WRITE COUNT: COUNT rounds of (refresh if WRITE, read); the
# number of times epoch went backwards goes to /tmp/epoch.NAME.
watch() {
	prev=0 back=0 i=0
	while [ $i -lt "$3" ]; do
		[ "$2" = 1 ] && echo 1 > $e
		read -r cur < $e
		[ "$cur" -lt "$prev" ] && back=$((back + 1))
		prev=$cur
		i=$((i + 1))
	done
	echo "$back" > "/tmp/epoch.$1"
}
for w in 1 2 3 4 5 6 7 8; do
	watch "w$w" 1 200 &
done
watch r1 0 3000 &
watch r2 0 3000 &
wait
back=$(cat /tmp/epoch.* | awk '{ s += $1 } END { print s + 0 }')
echo "writers=8 refreshes=1600 readers=2 reads=7600 last_epoch=$(cat $e) went_backwards=$back"
rm -f /tmp/epoch.*
rmmod cmstat_demo || exit 1
[ "$back" = 0 ]
