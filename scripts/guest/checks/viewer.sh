# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# The viewer's table, JSON, Prometheus and live modes, typed caches in
# each (one with a name that needs encoding), a node table in each JSON
# object; its message when the module is not loaded; --check refuses input
# with no snapshot in it.
insmod /lib/cmstat/cmstat_demo.ko objects=500 workers=1 || exit 1
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
echo "cache_alloc 3" > /sys/kernel/debug/cmstat_client_test/misuse || exit 1
odd='client%20%22odd%22%2050%25'
fail=0
cmstat > /tmp/t || fail=1
grep -q '^demo ' /tmp/t && grep -q '^all ' /tmp/t || { echo "table lacks heaps"; fail=1; }
grep -qE '^client +client_obj +200 +3 +600 +3 +0$' /tmp/t &&
	grep -qE "^client +$odd +72 +3 +216 +3 +0\$" /tmp/t ||
	{ echo "table lacks typed caches"; fail=1; }
cmstat --json > /tmp/j || fail=1
grep -q '^{"format": "cmstat-stats", "version": 5, "epoch": [0-9]*,$' /tmp/j &&
	grep -q '"name": "demo"' /tmp/j || { echo "bad JSON"; fail=1; }
# Every object's sites, then its nodes, closing the object.
[ "$(grep -o '\], "nodes": \[[^]]*\]}' /tmp/j | grep -c .)" = \
	"$(grep -o '"sites": \[' /tmp/j | grep -c .)" ] ||
	{ echo "JSON objects without their nodes"; fail=1; }
obj='"mallocs": 3, "frees": 0, "live_objects": 3'
one='{"name": "client_obj", "object_bytes": 200, '"$obj"', "live_bytes": 600}'
two='{"name": "'"$odd"'", "object_bytes": 72, '"$obj"', "live_bytes": 216}'
grep -qF "\"caches\": [$one, $two]" /tmp/j ||
	{ echo "JSON lacks typed caches"; fail=1; }
cmstat --prometheus > /tmp/p || fail=1
labels="heap=\"client\",state=\"active\",cache=\"$odd\",object_bytes=\"72\""
grep -qxF "cmstat_heap_typed_cache_live_bytes{$labels} 216" /tmp/p ||
	{ echo "Prometheus lacks typed caches"; fail=1; }
# All heaps: no label but class_bytes; the heaps: heap= and state=, or
# only state= for the destroyed heaps together, then class_bytes, a
# typed cache's (percent-encoded) name and object size, a site's function,
# file and line ("-" unattributed, "(other)" the rest), or a node.
heap='(heap="[A-Za-z0-9_.-]+",state="(active|orphaned)"|state="destroyed")'
more='(,class_bytes="[0-9]+"|,cache="[A-Za-z0-9_.%-]+",object_bytes="[0-9]+"'
more=$more'|,function="[A-Za-z0-9_.%()-]+",file="[A-Za-z0-9_.%()-]+",line="[0-9]+"|,node="[0-9]+")?'
all='^cmstat_[a-z_]+(\{class_bytes="[0-9]+"\})? [0-9]+$'
one="^cmstat_heap_[a-z_]+\\{$heap$more\\} [0-9]+\$"
bad=$(grep -vE "^# (HELP|TYPE) cmstat_|$all|$one" /tmp/p | head -n 3)
[ -z "$bad" ] || { echo "bad exposition lines: $bad"; fail=1; }
grep -qE '^cmstat_live_bytes [0-9]+$' /tmp/p &&
	grep -qE '^cmstat_heap_live_bytes\{heap="demo",state="active"\} [0-9]+$' /tmp/p ||
	{ echo "no live bytes of all heaps and of heap demo"; fail=1; }
lines=$(cmstat -w 1 -n 2 | grep -c '^demo ')
[ "$lines" = 2 ] || { echo "live view printed $lines demo lines"; fail=1; }
cmstat --check < /dev/null 2>/dev/null
[ $? = 2 ] || { echo "--check passed empty input"; fail=1; }
cmstat --check /nonexistent 2>/dev/null
[ $? = 2 ] || { echo "--check passed a missing file"; fail=1; }
echo "table $(wc -l < /tmp/t) lines, json $(wc -c < /tmp/j) bytes, prometheus $(wc -l < /tmp/p) lines, live view ok, --check refused empty input"
rmmod cmstat_client_test && rmmod cmstat_demo && rmmod cmstat || exit 1
cmstat > /tmp/o 2>&1
rc=$?
echo "without the module: exit $rc: $(cat /tmp/o)"
insmod /lib/cmstat/cmstat.ko || exit 1
[ $rc = 2 ] || fail=1
exit $fail
