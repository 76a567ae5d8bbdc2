# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# Typed caches, each its own row: the heap's stats file has a line per
# typed cache (a name that needs it percent-encoded); sysfs has
# heaps/<heap>/caches/<name>/, root-only, with the same values at the
# epoch's cut (a later free shows at the next refresh only), summing to the
# heap's cache_* files.  A destroyed cache's row and directory go, its
# counts stay in the heap's; one created after the cut shows zeros but its
# object size.  A heap destroyed before its typed cache is an orphan with
# the cache's row, released once the cache goes.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
ctl=/sys/kernel/debug/cmstat_client_test/misuse
dbg=/sys/kernel/debug/cmstat
sys=/sys/kernel/cmstat
h=$sys/heaps/client
odd='client%20%22odd%22%2050%25'
fail=0
no() { echo "$*"; fail=1; }
# vals DIR: a typed cache's values, in one line.
vals() {
	for f in object_bytes mallocs frees live_objects live_bytes; do
		read -r v < "$1/$f" || v=none
		printf '%s ' "$v"
	done
}
table() { awk '/^cache_name / { t = 1 } /^site_function / { t = 0 } t' "$1"; }

echo "cache_alloc 100" > $ctl || exit 1
head -n 1 $dbg/stats | grep -qx 'cmstat-stats 5' ||
	no "format line: $(head -n 1 $dbg/stats)"
table $dbg/heaps/client/stats > /tmp/caches
expect="cache_name object_bytes mallocs frees live_objects live_bytes
client_obj 200 100 0 100 20000
$odd 72 100 0 100 7200"
[ "$(cat /tmp/caches)" = "$expect" ] ||
	no "heaps/client/stats, typed caches: $(cat /tmp/caches)"
cat /tmp/caches

echo 1 > $sys/epoch
[ "$(vals $h/caches/client_obj)" = "200 100 0 100 20000 " ] ||
	no "sysfs client_obj: $(vals $h/caches/client_obj)"
[ "$(vals "$h/caches/$odd")" = "72 100 0 100 7200 " ] ||
	no "sysfs $odd: $(vals "$h/caches/$odd")"
echo "cache_free 40" > $ctl || exit 1
[ "$(vals $h/caches/client_obj)" = "200 100 0 100 20000 " ] ||
	no "sysfs moved without a refresh: $(vals $h/caches/client_obj)"
echo 1 > $sys/epoch
[ "$(vals $h/caches/client_obj)" = "200 100 40 60 12000 " ] ||
	no "sysfs client_obj after 40 frees: $(vals $h/caches/client_obj)"
lb=0 lo=0
for d in "$h"/caches/*; do
	read -r v < "$d/live_bytes"; lb=$((lb + v))
	read -r v < "$d/live_objects"; lo=$((lo + v))
done
read -r clb < $h/cache_live_bytes
read -r clo < $h/cache_live_objects
[ "$lb" = "$clb" ] && [ "$lo" = "$clo" ] && [ "$clb" = $((60 * 272)) ] ||
	no "sysfs: caches/ sum to $lb bytes $lo objects;" \
		"cache_live_bytes $clb, cache_live_objects $clo"
echo "sysfs: $(ls $h/caches | tr '\n' ' ')sum to cache_live_bytes $clb, cache_live_objects $clo"
n=$(find $h/caches -type f | grep -c .)
bad=$(find $h/caches -type f ! -perm 400)
[ "$n" = 10 ] && [ -z "$bad" ] || no "sysfs: $n files, not 0400: $bad"
su -s /bin/sh nobody -c "read -r x < $h/caches/client_obj/live_bytes" 2>/dev/null &&
	no "nobody read a typed cache's file"

echo cache_destroy > $ctl || exit 1
[ -d $h/caches ] && [ -z "$(ls $h/caches)" ] ||
	no "sysfs after cache_destroy: $(ls $h/caches 2>&1)"
table $dbg/heaps/client/stats > /tmp/caches
[ "$(wc -l < /tmp/caches)" = 1 ] || no "stats after cache_destroy: $(cat /tmp/caches)"
echo 1 > $sys/epoch
read -r cm < $h/cache_mallocs
read -r clo < $h/cache_live_objects
[ "$cm" = 200 ] && [ "$clo" = 0 ] ||
	no "destroyed caches: cache_mallocs $cm (not 200), cache_live_objects $clo"
echo "cache_alloc 1" > $ctl || exit 1
[ "$(vals $h/caches/client_obj)" = "200 0 0 0 0 " ] ||
	no "a cache newer than the cut: $(vals $h/caches/client_obj)"
echo 1 > $sys/epoch
[ "$(vals $h/caches/client_obj)" = "200 1 0 1 200 " ] ||
	no "a new cache after a refresh: $(vals $h/caches/client_obj)"
echo cache_destroy > $ctl || exit 1

echo cache_orphan > $ctl || exit 1
[ ! -e $sys/heaps/client-corphan ] || no "the orphan's sysfs directory stays"
cat $dbg/stats > /tmp/stats
row=$(awk '$0 == "orphan client-corphan" { o = 1 }
	   o && /^cache_name / { t = 1; next }
	   o && t { print; exit }' /tmp/stats)
[ "$row" = "corphan_obj 96 1 0 1 96" ] || no "the orphan's typed cache: '$row'"
cmstat --check /tmp/stats > /tmp/check || { cat /tmp/check; fail=1; }
cmstat client-corphan | sed -n '/^HEAP  *CACHE /,$p'
echo cache_orphan_free > $ctl || exit 1
cat $dbg/stats > /dev/null
grep -qx 'orphan client-corphan' $dbg/stats && no "the orphan stays"
cmstat --check $dbg/stats || fail=1
rmmod cmstat_client_test || exit 1
[ ! -e $h ] || no "heaps/client stays"
exit $fail
