# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# A typed cache destroyed, and another created in its column, while a cut
# waits for a writer section: the cut must name each column by the cache
# whose counts its snapshot holds.  A driver holds sections open on CPU 1
# back to back, a tenth of a second each ("linger"), so every snapshot
# waits for one; then, twelve times, the cache of heap client-recycle,
# which allocated and freed I objects in round I, is destroyed and the
# other one created, allocating nothing, while a cut is taken beside it
# on the same CPU.  The cut's typed-cache table may show the old cache
# with all of its I allocations, or no cache, or the new one with none:
# never the new one with the old one's counts (its mallocs would then go
# down at the next cut).  cache_mallocs stays the sum of every round's.
. /etc/cmstat-check.sh
needs_cpus 2
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
stats=/sys/kernel/debug/cmstat/heaps/client-recycle/stats
fail=0
echo "recycle_alloc 1" > $d/misuse || exit 1
echo "linger 1" > $d/misuse || exit 1
old=recycle_a new=recycle_b total=0 seen=0
# Not i: finish (check-lib.sh) counts its seconds in that.
round=1
while [ $round -le 12 ]; do
	total=$((total + round))
	taskset -c 0 sh -c "echo recycle > $d/misuse" &
	p=$!
	taskset -c 0 cat $stats > /tmp/cut || fail=1
	finish $p
	# shellcheck disable=SC2154 # rc: finish's verdict (check-lib.sh)
	[ "$rc" = 0 ] || { echo "round $round: recycle: $rc"; fail=1; }
	rows=$(awk '/^site_function / { t = 0 } t; /^cache_name / { t = 1 }' /tmp/cut)
	cm=$(sed -n 's/^cache_mallocs //p' /tmp/cut)
	case "$rows" in
	"$old "[0-9]*" $round $round 0 0") seen=$((seen + 1)) ;;
	""|"$new "[0-9]*" 0 0 0 0") ;;
	*) echo "round $round: $old had $round allocations, $new none: the cut shows"
	   echo "$rows"
	   fail=1 ;;
	esac
	[ "$cm" = "$total" ] || { echo "round $round: cache_mallocs $cm, not $total"; fail=1; }
	t=$old old=$new new=$t
	round=$((round + 1))
	echo "recycle_alloc $round" > $d/misuse || fail=1
done
echo "12 rounds; the cut showed the old cache in $seen"
echo unlinger > $d/misuse || fail=1
echo recycle_end > $d/misuse || fail=1
rmmod cmstat_client_test || exit 1
exit $fail
