# SPDX-License-Identifier: GPL-2.0
# kernels: debug-busy kcsan
# During an allocation workload over 4 heaps, 5 readers at once take
# snapshots: 4 read debugfs stats files (everything at one cut, and a
# heap's), checked by the viewer's --check, which also sums the heaps to
# all; one refreshes the sysfs epoch and reads the value files of a heap's
# directory and of all/.  Every snapshot must satisfy the invariants.  Then
# the controls, which must see violations: debugfs files spliced from two
# reads, and sysfs read with a refresh of epoch between files.  Each reader
# takes a fixed number of snapshots: a busy host makes the check slower,
# not weaker.
insmod /lib/cmstat/cmstat_demo.ko objects=2000 workers=4 heaps=4 || exit 1
dbg=/sys/kernel/debug/cmstat
sys=/sys/kernel/cmstat

# One cat per debugfs snapshot: one open, one cut.
debugfs_reader() {
	i=0
	while [ $i -lt 10 ]; do
		i=$((i + 1))
		cat $dbg/stats "$dbg/heaps/$2/stats"
	done > "/tmp/debugfs.$1"
}

# One snapshot: refresh epoch, read the values of a heap's directory and
# of all/ (with the shell's read builtin: no fork per file), read epoch
# again; the round counts if nobody refreshed meanwhile.
FIELDS="live_bytes alloc_bytes free_bytes live_objects mallocs frees
	live_requested_bytes requested_alloc_bytes requested_free_bytes
	large_live_bytes large_alloc_bytes large_free_bytes large_live_objects
	large_mallocs large_frees"
# shellcheck disable=SC2154 # each field is read into a variable of its name
sysfs_check() {
	for f in $FIELDS; do
		# shellcheck disable=SC2229 # into the variable named by $f
		read -r "$f" < "$1/$f"
	done
	[ $((alloc_bytes - free_bytes)) = "$live_bytes" ] &&
	[ $((mallocs - frees)) = "$live_objects" ] &&
	[ $((requested_alloc_bytes - requested_free_bytes)) = "$live_requested_bytes" ] &&
	[ $((large_alloc_bytes - large_free_bytes)) = "$large_live_bytes" ] &&
	[ $((large_mallocs - large_frees)) = "$large_live_objects" ] &&
	[ "$live_requested_bytes" -le "$live_bytes" ] &&
	[ "$large_live_bytes" -le "$live_bytes" ]
}
sysfs_reader() {
	n=0 bad=0 mixed=0
	while [ $((n + mixed)) -lt 30 ]; do
		echo 1 > $sys/epoch
		read -r e < $sys/epoch
		ok=1
		sysfs_check $sys/heaps/demo2 || ok=0
		sysfs_check $sys/all || ok=0
		read -r e2 < $sys/epoch
		[ "$e2" = "$e" ] || { mixed=$((mixed + 1)); continue; }
		n=$((n + 1))
		[ $ok = 1 ] || { bad=$((bad + 1)); echo "sysfs violation epoch $e" >&2; }
	done
	echo "$n $bad $mixed" > /tmp/sysfs
}

i=0
for h in demo demo1 demo2 demo3; do
	i=$((i + 1))
	debugfs_reader "$i" "$h" &
done
sysfs_reader &
wait

# The controls.
n=0
while [ $n -lt 10 ]; do
	n=$((n + 1))
	cat $dbg/all/stats > /tmp/c1
	cat $dbg/all/stats > /tmp/c2
	sed -n '1,/^class_bytes/p' /tmp/c1
	sed '1,/^class_bytes/d' /tmp/c2
done > /tmp/control.debugfs
n=0 cs_bad=0
while [ $n -lt 50 ]; do
	n=$((n + 1))
	echo 1 > $sys/epoch; read -r alloc_bytes < $sys/all/alloc_bytes
	echo 1 > $sys/epoch; read -r free_bytes < $sys/all/free_bytes
	echo 1 > $sys/epoch; read -r live_bytes < $sys/all/live_bytes
	[ $((alloc_bytes - free_bytes)) = "$live_bytes" ] || cs_bad=$((cs_bad + 1))
done
rmmod cmstat_demo || exit 1

out=$(cat /tmp/debugfs.* | cmstat --check | tail -n 1)
echo "debugfs: $out"
dsnap=$(echo "$out" | awk '{ print $2 }')
dbad=$(echo "$out" | awk '{ print $4 }')
read -r sn sbad smixed < /tmp/sysfs
echo "sysfs: checked $sn snapshots, $sbad violations ($smixed discarded: epoch refreshed by another reader)"
cd_bad=$(cmstat --check < /tmp/control.debugfs | tail -n 1 | awk '{ print $4 }')
echo "controls: spliced debugfs files: $cd_bad violations; sysfs with an epoch per file: $cs_bad violations in $n"
echo "readers=5 snapshots=$((dsnap + sn)) violations=$((dbad + sbad)) control_violations=$((cd_bad + cs_bad))"
rm -f /tmp/debugfs.* /tmp/sysfs /tmp/control.* /tmp/c1 /tmp/c2
[ "$dsnap" -gt 0 ] && [ "$sn" -gt 0 ] && [ "$dbad" = 0 ] && [ "$sbad" = 0 ] &&
	[ "$cd_bad" -gt 0 ] && [ "$cs_bad" -gt 0 ]
