# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# Call sites, published: tests/client/cmstat_sites_test.c, a client built
# with CMSTAT_SITES, allocates from 19 sites and keeps its own ledger of
# what each holds (function, line, live objects, live bytes): among them
# a cmstat_kmemdup(), a cmstat_kstrdup(), a cmstat_krealloc() that moves
# what another site allocated, a typed cache's objects and an allocation
# above the largest class, which cmstat counts at the client's lines, and
# nothing unattributed.  The site table of its heap in the stats file, and in
# the heap's own stats file, is the ledger exactly; --check sums it to the heap; cmstat --sites
# shows the biggest site last, by file and line; the Prometheus text has
# the top 3 sites and the rest, summing to the heap.  Then everything is
# freed: every row holds nothing, and the allocations stay counted.
# The node table is the client's ledger by node of the memory, in both
# files, with the client's two objects on each node with memory (the
# stock-6.12 VM has two nodes).
insmod /lib/cmstat/cmstat_sites_test.ko || exit 1
ledger=/sys/kernel/debug/cmstat_sites_test/ledger
nodes=/sys/kernel/debug/cmstat_sites_test/nodes
stats=/sys/kernel/debug/cmstat/stats
fail=0

# site_rows FILE: the site table of heap client_sites in the stats file
# FILE, as "function line live_objects live_bytes", sorted.
site_rows() {
	awk '/^heap / { heap = ($2 == "client_sites") ; table = 0; next }
	     heap && /^site_function / { table = 1; next }
	     /^node mallocs frees live_objects live_bytes$/ || /^$/ { heap = 0 }
	     heap && table { print $1, $3, $6, $7 }' "$1" | sort
}

# node_rows FILE: the node table of heap client_sites in FILE, as "node
# live_objects live_bytes".
node_rows() {
	awk '/^heap / { heap = ($2 == "client_sites") ; table = 0; next }
	     heap && /^node mallocs frees live_objects live_bytes$/ { table = 1; next }
	     /^$/ { heap = 0 }
	     heap && table { print $1, $4, $5 }' "$1"
}

# same WHEN: the stats file's and the heap file's rows are the ledger's.
same() {
	sort $ledger > /tmp/ledger
	cat $nodes > /tmp/nodes
	cp $stats /tmp/stats
	cp /sys/kernel/debug/cmstat/heaps/client_sites/stats /tmp/heap
	for f in /tmp/stats /tmp/heap; do
		site_rows $f > /tmp/rows
		if ! diff /tmp/ledger /tmp/rows > /tmp/diff; then
			echo "$1: $f's site rows are not the ledger:"
			cat /tmp/diff
			fail=1
		fi
		node_rows $f > /tmp/node-rows
		if ! diff /tmp/nodes /tmp/node-rows > /tmp/diff; then
			echo "$1: $f's node rows are not the ledger:"
			cat /tmp/diff
			fail=1
		fi
	done
	cmstat --check /tmp/stats /tmp/heap > /tmp/check ||
		{ echo "$1: --check: $(cat /tmp/check)"; fail=1; }
}

same "allocated"
grep -c . /tmp/ledger | grep -qx 20 || { echo "ledger: $(cat $ledger)"; fail=1; }
# The sites cmstat.ko allocates for, as the stats file has them: the
# large allocation, its record's column (the ledger's third line), the
# seed the move freed (its fifth), the copy, the string and the move (its
# last three), each with one object freed elsewhere.
for l in $( (sed -n '3p;5p' $ledger; tail -n 3 $ledger) | cut -d' ' -f2); do
	awk -v l="$l" '/^heap / { heap = ($2 == "client_sites"); table = 0; next }
		heap && /^site_function / { table = 1; next }
		/^node mallocs / || /^$/ { heap = 0 }
		heap && table && $3 == l { print "out of line: " $0 }' /tmp/stats
done
# Every node with memory a slab may use holds the client's two objects there, at least.
for n in $(cat /sys/devices/system/node/has_normal_memory 2>/dev/null |
	   awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-")
		      for (j = r[1]; j <= (r[2] == "" ? r[1] : r[2]); j++) print j } }'); do
	awk -v n=$n '$1 == n && $2 >= 2 { ok = 1 } END { exit !ok }' /tmp/node-rows ||
		{ echo "node $n: fewer than 2 objects: $(cat /tmp/node-rows)"; fail=1; }
done
numa=$(tr '\n' ';' < /tmp/node-rows)
# The biggest site last, as sort -h /proc/allocinfo shows it.
big=$(sort -k4,4n $ledger | tail -n 1)
cmstat --sites client_sites > /tmp/sites || fail=1
last=$(tail -n 1 /tmp/sites)
case "$last" in
*"cmstat_sites_test.c:$(echo "$big" | cut -d' ' -f2) "*) ;;
*) echo "--sites: the last line is not the biggest site ($big): $last"; fail=1 ;;
esac
cmstat --prometheus --top-sites 3 > /tmp/p || fail=1
sum=$(awk '/^cmstat_heap_site_live_bytes\{heap="client_sites"/ { n++; s += $2 }
	   END { print n + 0, s + 0 }' /tmp/p)
heap=$(sed -n 's/^cmstat_heap_live_bytes{heap="client_sites",state="active"} //p' /tmp/p)
[ "$sum" = "4 $heap" ] ||
	{ echo "Prometheus: site series and their sum $sum, heap $heap"; fail=1; }

echo free > $ledger || fail=1
same "freed"
awk '$3 != 0 || $4 != 0' /tmp/rows | grep -q . && { echo "freed: rows hold objects"; fail=1; }
awk '$2 != 0 || $3 != 0' /tmp/node-rows | grep -q . && { echo "freed: node rows hold objects"; fail=1; }
echo "$(grep -c . /tmp/rows) site rows and node rows ($numa) as the ledger, allocated and freed; --sites ends with: $last; prometheus: $sum"
rmmod cmstat_sites_test || fail=1
exit $fail
