# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# epoch takes "1" and nothing else; no other file takes any write.
d=/sys/kernel/cmstat/all
e=/sys/kernel/cmstat/epoch
e0=$(cat $e)
fail=0
set -- 0 2 -1 abc " " "1 1" 11 01 +1
for v in "$@"; do
	if (printf '%s' "$v" > $e) 2>/dev/null; then
		echo "epoch accepted '$v'"
		fail=1
	fi
done
[ "$(cat $e)" = "$e0" ] || { echo "a rejected write moved epoch"; fail=1; }
echo 1 > $e || { echo "epoch refused 1"; fail=1; }
[ "$(cat $e)" -gt "$e0" ] || { echo "epoch did not advance"; fail=1; }
for f in $d/live_bytes $d/mallocs /sys/kernel/debug/cmstat/all/stats \
	 /sys/kernel/debug/cmstat/stats /sys/kernel/debug/cmstat/heap_names; do
	if (echo 1 > "$f") 2>/dev/null; then
		echo "$f accepted a write"
		fail=1
	fi
done
echo "epoch rejected $# bad values, value and debugfs files rejected writes"
exit $fail
