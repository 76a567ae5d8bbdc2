# SPDX-License-Identifier: GPL-2.0
# cmstat-kcsan: run on the KCSAN kernel too
# During an allocation workload over 4 heaps, 8 readers at once take
# snapshots: 4 read debugfs stats files (a heap's and all heaps'), checked
# by the viewer's --check; 4 write a heap's sysfs epoch and read its value
# files.  Every snapshot must satisfy the invariants.  Each reader takes a
# fixed number of snapshots: a busy host makes the check slower, not
# weaker.
insmod /lib/cmstat/cmstat_demo.ko objects=2000 workers=4 heaps=4 || exit 1

# One cat per debugfs snapshot: one open, one read() sequence.
debugfs_reader() {
	i=0
	while [ $i -lt 40 ]; do
		i=$((i + 1))
		cat "/sys/kernel/debug/cmstat/heaps/$2/stats"
		cat /sys/kernel/debug/cmstat/all/stats
	done > "/tmp/debugfs.$1"
}

# One snapshot: epoch, then the values (with the shell's read builtin: no
# fork per file); discarded if someone else refreshed the epoch meanwhile,
# since the values would then mix two snapshots (each reader has its own
# heap, so that should not happen).
sysfs_reader() {
	d=$2 n=0 bad=0 mixed=0
	while [ $((n + mixed)) -lt 60 ]; do
		echo 1 > "$d/epoch"
		read -r e < "$d/epoch"
		for f in live_bytes alloc_bytes free_bytes live_objects mallocs \
			frees live_requested_bytes requested_alloc_bytes \
			requested_free_bytes large_live_bytes large_alloc_bytes \
			large_free_bytes large_live_objects large_mallocs large_frees; do
			read -r "$f" < "$d/$f"
		done
		read -r e2 < "$d/epoch"
		[ "$e2" = "$e" ] || { mixed=$((mixed + 1)); continue; }
		n=$((n + 1))
		if [ $((alloc_bytes - free_bytes)) != "$live_bytes" ] ||
		   [ $((mallocs - frees)) != "$live_objects" ] ||
		   [ $((requested_alloc_bytes - requested_free_bytes)) != "$live_requested_bytes" ] ||
		   [ $((large_alloc_bytes - large_free_bytes)) != "$large_live_bytes" ] ||
		   [ $((large_mallocs - large_frees)) != "$large_live_objects" ] ||
		   [ "$live_requested_bytes" -gt "$live_bytes" ] ||
		   [ "$large_live_bytes" -gt "$live_bytes" ]; then
			bad=$((bad + 1))
			echo "sysfs violation in $d epoch $e" >&2
		fi
	done
	echo "$n $bad $mixed" > "/tmp/sysfs.$1"
}

# Controls, to show the checks can fail: a sysfs reader that refreshes the
# epoch between files, and debugfs files spliced from two reads (totals of
# one, class table of the next).  Under load both must show violations.
control_sysfs() {
	d=/sys/kernel/cmstat/all n=0 bad=0
	while [ $n -lt 200 ]; do
		echo 1 > $d/epoch; read -r alloc_bytes < $d/alloc_bytes
		echo 1 > $d/epoch; read -r free_bytes < $d/free_bytes
		echo 1 > $d/epoch; read -r live_bytes < $d/live_bytes
		n=$((n + 1))
		[ $((alloc_bytes - free_bytes)) = "$live_bytes" ] || bad=$((bad + 1))
	done
	echo "$n $bad" > /tmp/control.sysfs
}
control_debugfs() {
	f=/sys/kernel/debug/cmstat/all/stats
	i=0
	while [ $i -lt 40 ]; do
		i=$((i + 1))
		cat $f > /tmp/c1
		cat $f > /tmp/c2
		sed -n '1,/^$/p' /tmp/c1
		sed '1,/^$/d' /tmp/c2
	done > /tmp/control.debugfs
}
control_sysfs &
control_debugfs &

i=0
for h in demo demo1 demo2 demo3; do
	i=$((i + 1))
	debugfs_reader "$i" "$h" &
	sysfs_reader "$i" "/sys/kernel/cmstat/heaps/$h" &
done
wait
rmmod cmstat_demo || exit 1

out=$(cat /tmp/debugfs.* | cmstat --check | tail -n 1)
echo "debugfs: $out"
dsnap=$(echo "$out" | awk '{ print $2 }')
dbad=$(echo "$out" | awk '{ print $4 }')
set -- $(cat /tmp/sysfs.* | awk '{ n += $1; b += $2; m += $3 } END { print n, b, m }')
echo "sysfs: checked $1 snapshots, $2 violations ($3 discarded: epoch refreshed by another reader)"
cd_bad=$(cmstat --check < /tmp/control.debugfs | tail -n 1 | awk '{ print $4 }')
read -r cs_n cs_bad < /tmp/control.sysfs
echo "controls: spliced debugfs files: $cd_bad violations; sysfs with an epoch per file: $cs_bad violations in $cs_n"
echo "readers=8 snapshots=$((dsnap + $1)) violations=$((dbad + $2)) control_violations=$((cd_bad + cs_bad))"
rm -f /tmp/debugfs.* /tmp/sysfs.* /tmp/control.* /tmp/c1 /tmp/c2
[ "$dsnap" -gt 0 ] && [ "$1" -gt 0 ] && [ "$dbad" = 0 ] && [ "$2" = 0 ] &&
	[ "$cd_bad" -gt 0 ] && [ "$cs_bad" -gt 0 ]
