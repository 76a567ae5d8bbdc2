#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/viewer/run.sh: scripts/cmstat against saved stats files, on the
# host, without the module: the version 4 site table and the version 5
# node table in --check, --sites, --json and --prometheus, version 3 read
# as before and version 6 refused.  Run with the system's sh and awk,
# then, if busybox is installed, with busybox's sh and awk alone in PATH,
# as in the VMs.
#
# The fixtures: v4.stats, one cut (epoch 42) of heap "demo" with 13 site
# rows (the unattributed one first, an absolute path /srv/mod/a.c, three
# sites tied at 10240 live bytes), heap "plain" without site rows, orphan
# "old" with site rows (two of them old_rx() at line 40: its module was
# loaded again), the destroyed heaps and all, every identity holding;
# v4-bad-site.stats, the same with one site row's live bytes wrong;
# v5.stats, v4.stats in version 5: a node table in every record, with rows
# for nodes 0 and 1 in demo's and old's (the heaps with site rows),
# summing to each heap; v5-bad-node.stats, the same with demo's node 1
# holding 64 live bytes too many.
#
# The viewer wants root: as root, or under fakeroot (busybox's sh not
# tested then).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
viewer=$here/../../scripts/cmstat
if [ "$(id -u)" != 0 ]; then
	command -v fakeroot >/dev/null ||
		{ echo "tests/viewer: run as root, or install fakeroot" >&2; exit 1; }
	exec fakeroot "$0" "$@"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/v4" "$tmp/bad" "$tmp/v3" "$tmp/v5" "$tmp/v5bad" "$tmp/v6"
cp "$here/v4.stats" "$tmp/v4/stats"
cp "$here/v4-bad-site.stats" "$tmp/bad/stats"
cp "$here/v5.stats" "$tmp/v5/stats"
cp "$here/v5-bad-node.stats" "$tmp/v5bad/stats"
# Version 3: no site tables.
sed -e '1s/ 4$/ 3/' -e '/^site_function /,/^$/{/^$/!d}' "$here/v4.stats" >"$tmp/v3/stats"
sed '1s/ 5$/ 6/' "$here/v5.stats" >"$tmp/v6/stats"
# Version 5 files that break the node table's rules, for --check: demo's
# two rows swapped; old's rows gone; plain's header gone; a row in all's.
nodes='^node mallocs frees live_objects live_bytes$'
sed -e '/^0 500 400 100 800000$/{h;d}' -e '/^1 379 299 80 562168$/G' \
	"$here/v5.stats" >"$tmp/order.stats"
sed -e '/^0 20 12 8 4104$/d' -e '/^1 12 7 5 3328$/d' "$here/v5.stats" >"$tmp/missing.stats"
awk -v h="$nodes" '/^(heap|orphan) |^(destroyed|all)$/ { r = $0 }
	!(r == "heap plain" && $0 ~ h)' "$here/v5.stats" >"$tmp/noheader.stats"
sed '$a 0 0 0 0 0' "$here/v5.stats" >"$tmp/inall.stats"
# And one that keeps the rules: no node rows at all, as a kernel of more
# than 256 node ids has.
awk -v h="$nodes" '$0 ~ h { t = 1; print; next } /^$/ { t = 0 } !t' \
	"$here/v5.stats" >"$tmp/nonodes.stats"

# Every check is "is COMMAND... || no WHAT": a pass counts one, a failure
# counts one and says WHAT.
checks=0 failed=0
is() {
	"$@" || return
	checks=$((checks + 1))
}
no() { checks=$((checks + 1)); failed=$((failed + 1)); echo "FAIL ($impl): $*"; }
not() { ! "$@"; }
# expect WHAT STATUS COMMAND...: COMMAND exits with STATUS, its output in
# $tmp/out and $tmp/err.
expect() {
	local what=$1 want=$2 rc=0
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	is [ "$rc" = "$want" ] || no "$what: status $rc, not $want: $(cat "$tmp/err")"
}

# cmstat DIR ARGS...: the viewer on DIR's stats, with this run's sh.
cmstat() {
	local dir=$1
	shift
	CMSTAT_DEBUGFS=$tmp/$dir PATH=$path $shell "$viewer" "$@"
}

# heap_value PROM METRIC HEAP: the value of METRIC{heap="HEAP",...} in PROM.
heap_value() {
	sed -n "s/^$2{heap=\"$3\",[^}]*} //p" "$1"
}

# prometheus N [DIR]: --top-sites N gives each heap with site rows its N
# biggest sites and the rest, summing to the heap; none for plain.  Of
# v4.stats, or of DIR's stats.
prometheus() {
	local n=$1 dir=${2:-v4} want heap f got sum
	expect "--prometheus --top-sites $n of $dir" 0 cmstat "$dir" --prometheus --top-sites "$n"
	cp "$tmp/out" "$tmp/prom"
	for heap in demo:13 old:5 plain:0; do
		# demo has 13 series to rank, old 5 (its two old_rx() rows are one).
		want=$((${heap#*:} > n ? n + 1 : ${heap#*:}))
		heap=${heap%:*}
		for f in live_bytes live_objects; do
			got=$(awk -v h="$heap" -v m="cmstat_heap_site_$f" \
				'index($0, m "{heap=\"" h "\",") == 1 { n++; s += $2 }
				 END { print n + 0, s + 0 }' "$tmp/prom")
			sum=$(heap_value "$tmp/prom" "cmstat_heap_$f" "$heap")
			if [ "$heap" = plain ]; then sum=0; fi
			is [ "$got" = "$want $sum" ] ||
				no "--top-sites $n: $heap's $f series and their sum: $got, not $want $sum"
		done
	done
	is [ "$(grep -c '^# [A-Z]* cmstat_heap_site_' "$tmp/prom")" = 4 ] ||
		no "--top-sites $n: not one HELP and one TYPE per site family"
	is [ -z "$(grep '^cmstat_heap_site_' "$tmp/prom" | sed 's/ [^ ]*$//' | sort | uniq -d)" ] ||
		no "--top-sites $n: a series twice"
	if command -v promtool >/dev/null; then
		is promtool check metrics <"$tmp/prom" >"$tmp/promtool" 2>&1 ||
			no "--top-sites $n: promtool: $(cat "$tmp/promtool")"
	fi
}

# ascending SITES: the rows of the --sites output SITES by live bytes,
# ascending.
ascending() {
	tail -n +3 "$1" | awk '$1 + 0 < prev { exit 1 } { prev = $1 + 0 }'
}

# node_rows PROM FAMILY HEAP: "N SUM" of HEAP's FAMILY series in PROM, the
# node labels in order, as "NODES: 0 1".
node_rows() {
	awk -v h="$3" -v m="$2" '
		index($0, m "{heap=\"" h "\",") == 1 {
			n++; s += $2
			l = $0; sub(/.*,node="/, "", l); sub(/".*/, "", l); ids = ids " " l
		}
		END { print n + 0, s + 0, "NODES:" ids }' "$1"
}

# json_v4 FILE, json_v3 FILE: FILE is the --json of v4.stats, of its
# version 3; what is not is in $tmp/py.
json_v4() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 4, d["version"]
demo = [h for h in d["heaps"] if h["name"] == "demo"][0]
plain = [h for h in d["heaps"] if h["name"] == "plain"][0]
old = d["orphans"][0]
assert len(demo["sites"]) == 13 and len(old["sites"]) == 6, "rows"
assert demo["sites"][0] == {"function": "-", "file": "-", "line": 0, "mallocs": 25,
	"frees": 9, "live_objects": 16, "live_bytes": 527288}, demo["sites"][0]
assert demo["sites"][3]["file"] == "%2Fsrv%2Fmod%2Fa.c", demo["sites"][3]
assert plain["sites"] == [] and d["destroyed"]["sites"] == [] and d["all"]["sites"] == []
for h in demo, old:
	for k in "mallocs", "frees", "live_objects", "live_bytes":
		assert sum(s[k] for s in h["sites"]) == h[k], (h["name"], k)
assert list(demo)[-3:] == ["caches", "sites", "nodes"], list(demo)
assert all(h["nodes"] == [] for h in d["heaps"] + d["orphans"] + [d["destroyed"], d["all"]])
' "$1" 2>"$tmp/py"
}
json_v3() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 3
assert all(h["sites"] == [] for h in d["heaps"] + d["orphans"] + [d["destroyed"], d["all"]])
assert all(h["nodes"] == [] for h in d["heaps"] + d["orphans"] + [d["destroyed"], d["all"]])
' "$1" 2>"$tmp/py"
}
# json_v5 FILE V4: FILE is the --json of v5.stats: version 5, demo's and
# old's two nodes, summing to them; the rest as V4, the --json of v4.stats.
json_v5() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v4 = json.load(open(sys.argv[2]))
assert d["version"] == 5, d["version"]
demo = [h for h in d["heaps"] if h["name"] == "demo"][0]
plain = [h for h in d["heaps"] if h["name"] == "plain"][0]
old = d["orphans"][0]
assert demo["nodes"] == [
	{"node": 0, "mallocs": 500, "frees": 400, "live_objects": 100, "live_bytes": 800000},
	{"node": 1, "mallocs": 379, "frees": 299, "live_objects": 80, "live_bytes": 562168},
], demo["nodes"]
assert [n["node"] for n in old["nodes"]] == [0, 1], old["nodes"]
assert plain["nodes"] == [] and d["destroyed"]["nodes"] == [] and d["all"]["nodes"] == []
for h in demo, old:
	for k in "mallocs", "frees", "live_objects", "live_bytes":
		assert sum(n[k] for n in h["nodes"]) == h[k], (h["name"], k)
assert list(demo)[-3:] == ["caches", "sites", "nodes"], list(demo)
for x in d, v4:
	del x["version"]
	for h in x["heaps"] + x["orphans"] + [x["destroyed"], x["all"]]:
		del h["nodes"]
assert d == v4, "not v4.stats but for the nodes"
' "$1" "$2" 2>"$tmp/py"
}

run() {
	# --check: the good file, the bad one, version 3 and 5.
	expect "--check v4.stats" 0 cmstat v4 --check "$tmp/v4/stats"
	is grep -qx 'checked 1 snapshots, 0 violations' "$tmp/out" || no "--check v4.stats: $(cat "$tmp/out")"
	expect "--check v4-bad-site.stats" 1 cmstat bad --check "$tmp/bad/stats"
	is grep -qx 'violation in demo epoch 42: site_rows_live_bytes' "$tmp/out" ||
		no "--check v4-bad-site.stats: $(cat "$tmp/out")"
	expect "--check of version 3" 0 cmstat v3 --check "$tmp/v3/stats"
	expect "--check of version 6" 2 cmstat v6 --check "$tmp/v6/stats"
	is grep -q 'unsupported stats format version 6' "$tmp/err" || no "version 6: $(cat "$tmp/err")"
	for mode in --sites --json --prometheus; do
		expect "$mode of version 6" 2 cmstat v6 "$mode"
	done

	# --check of version 5: the node rows sum to the heap, or not.
	expect "--check v5.stats" 0 cmstat v5 --check "$tmp/v5/stats"
	is grep -qx 'checked 1 snapshots, 0 violations' "$tmp/out" || no "--check v5.stats: $(cat "$tmp/out")"
	expect "--check v5-bad-node.stats" 1 cmstat v5bad --check "$tmp/v5bad/stats"
	is [ "$(grep -v '^checked' "$tmp/out")" = 'violation in demo epoch 42: node_rows_live_bytes' ] ||
		no "--check v5-bad-node.stats: $(cat "$tmp/out")"
	expect "--check v5.stats v4.stats v5.stats" 0 cmstat v5 --check "$tmp/v5/stats" \
		"$tmp/v4/stats" "$tmp/v5/stats"
	is grep -qx 'checked 3 snapshots, 0 violations' "$tmp/out" || no "--check of v5, v4, v5: $(cat "$tmp/out")"
	for c in "order:demo:node_order" "missing:old (orphan):node_rows_missing" \
		"noheader:plain:node_table" "inall:all:node_rows"; do
		set -- "${c%%:*}" "${c#*:}"
		expect "--check $1" 1 cmstat v5 --check "$tmp/$1.stats"
		is grep -qx "violation in ${2%:*} epoch 42: ${2#*:}" "$tmp/out" ||
			no "--check $1.stats: $(cat "$tmp/out")"
	done
	expect "--check of a file without node rows" 0 cmstat v5 --check "$tmp/nonodes.stats"
	is [ "$(grep -c '^[01] ' "$tmp/nonodes.stats")" = 0 ] || no "nonodes.stats has node rows"
	# A node row that is not five numbers is refused, as a bad site row is.
	sed 's/^1 379 299 80 562168$/1 379 299 80/' "$tmp/v5/stats" >"$tmp/short.stats"
	expect "--check of a short node row" 2 cmstat v5 --check "$tmp/short.stats"
	is grep -q 'bad node row: 1 379 299 80$' "$tmp/err" || no "a short node row: $(cat "$tmp/err")"

	# --sites: ascending by live bytes, the biggest last; ties in the
	# file's order; paths decoded.
	expect "--sites" 0 cmstat v4 --sites
	cp "$tmp/out" "$tmp/sites"
	is grep -q '^epoch 42: ' "$tmp/sites" || no "--sites: no epoch"
	is [ "$(tail -n +3 "$tmp/sites" | grep -c .)" = 19 ] || no "--sites: not 19 rows"
	is ascending "$tmp/sites" || no "--sites: not by live bytes, ascending"
	tail -n 1 "$tmp/sites" >"$tmp/last"
	is grep -qE '^ +786432 +3 +5 +2 demo +samples/client/cmstat_demo\.c:230 +demo_buf$' "$tmp/last" ||
		no "--sites: the last line is not demo_buf(): $(cat "$tmp/last")"
	is grep -qE ' demo +/srv/mod/a\.c:33 +demo_open$' "$tmp/sites" ||
		no "--sites: no decoded /srv/mod/a.c:33"
	is grep -qE '^ +527288 +16 +25 +9 demo +\(unattributed\) +-$' "$tmp/sites" ||
		no "--sites: no unattributed row"
	is grep -qE '^ +1024 +8 +10 +2 old \(orphan\) +drivers/old/old\.c:10 +old_init$' "$tmp/sites" ||
		no "--sites: no orphan row"
	is [ "$(grep ' 10240 ' "$tmp/sites" | awk '{ print $NF }' | paste -sd ' ')" = \
		"demo_open demo_req_new demo_node_tmp" ] || no "--sites: ties not in the file's order"
	is not grep -q '%2F' "$tmp/sites" || no "--sites: a path left encoded"
	expect "--sites old" 0 cmstat v4 --sites old
	is [ "$(tail -n +3 "$tmp/out" | grep -vc 'old (orphan)')" = 0 ] || no "--sites old: other heaps"
	expect "--sites plain" 0 cmstat v4 --sites plain
	is grep -qx 'no heap shown has site rows (a module built with -DCMSTAT_SITES creates them)' \
		"$tmp/out" || no "--sites plain: $(cat "$tmp/out")"
	expect "--sites of version 3" 0 cmstat v3 --sites
	is grep -q '^no heap shown has site rows' "$tmp/out" || no "--sites of version 3: $(cat "$tmp/out")"
	is not grep -q ' NODE$' "$tmp/sites" || no "--sites of version 4: a node table"

	# --sites of version 5: the epoch, the node rows of demo and old, a
	# blank line, then the sites as of version 4.
	expect "--sites of version 5" 0 cmstat v5 --sites
	cp "$tmp/out" "$tmp/sites5"
	sed -n '2,/^$/p' "$tmp/sites5" | sed 's/  */ /g' >"$tmp/nodes"
	printf '%s\n' ' LIVE_BYTES LIVE_OBJECTS MALLOCS FREES HEAP NODE' \
		' 800000 100 500 400 demo 0' ' 562168 80 379 299 demo 1' \
		' 4104 8 20 12 old (orphan) 0' ' 3328 5 12 7 old (orphan) 1' '' >"$tmp/want"
	is cmp -s "$tmp/nodes" "$tmp/want" ||
		no "--sites of version 5: node table: $(cat "$tmp/nodes")"
	is [ "$(head -n 1 "$tmp/sites5")" = "$(head -n 1 "$tmp/sites")" ] ||
		no "--sites of version 5: first line $(head -n 1 "$tmp/sites5")"
	is cmp -s <(sed '1,/^$/d' "$tmp/sites5") <(tail -n +2 "$tmp/sites") ||
		no "--sites of version 5: its sites are not those of version 4"
	is [ "$(sed -n '2p' "$tmp/sites5" | awk '{ print length($0) }')" = \
		"$(printf '%14s %12s %12s %12s %-20s %s' 1 2 3 4 5 NODE | awk '{ print length($0) }')" ] ||
		no "--sites of version 5: the node header is not in the sites' columns"
	expect "--sites old of version 5" 0 cmstat v5 --sites old
	is [ "$(sed -n '2,/^$/p' "$tmp/out" | grep -c ' old (orphan) *[01]$')" = 2 ] &&
		is not grep -q ' demo ' "$tmp/out" || no "--sites old of version 5: $(cat "$tmp/out")"
	expect "--sites plain of version 5" 0 cmstat v5 --sites plain
	is grep -qx 'no heap shown has site rows (a module built with -DCMSTAT_SITES creates them)' \
		"$tmp/out" || no "--sites plain of version 5: $(cat "$tmp/out")"

	# --json: valid, version 4, the sites of each object.
	expect "--json" 0 cmstat v4 --json
	is json_v4 "$tmp/out" || no "--json: $(tail -n 1 "$tmp/py")"
	cp "$tmp/out" "$tmp/json4"
	expect "--json of version 3" 0 cmstat v3 --json
	is json_v3 "$tmp/out" || no "--json of version 3: $(tail -n 1 "$tmp/py")"
	expect "--json of version 5" 0 cmstat v5 --json
	is json_v5 "$tmp/out" "$tmp/json4" || no "--json of version 5: $(tail -n 1 "$tmp/py")"

	# --prometheus: 3 as asked, 0, the default 10, more than there are.
	prometheus 3
	is grep -q '^cmstat_heap_site_live_bytes{heap="demo",state="active",function="demo_open",file="%2Fsrv%2Fmod%2Fa.c",line="33"} 10240$' \
		"$tmp/prom" || no "--top-sites 3: not demo_open(), the first of three equal"
	is grep -q '^cmstat_heap_site_live_bytes{heap="old",state="orphaned",function="old_rx",file="drivers%2Fold%2Fold.c",line="40"} 4096$' \
		"$tmp/prom" || no "--top-sites 3: old_rx() not added up"
	prometheus 0
	prometheus 10
	prometheus 100
	expect "--prometheus, the default 10" 0 cmstat v4 --prometheus
	is cmp -s "$tmp/out" <(cmstat v4 --prometheus --top-sites 10) || no "--prometheus: the default is not 10"
	expect "--top-sites x" 2 cmstat v4 --prometheus --top-sites x
	expect "--top-sites -1" 2 cmstat v4 --prometheus --top-sites -1
	expect "--textfile --top-sites 3" 0 cmstat v4 --textfile "$tmp/cmstat.prom" --top-sites 3
	is cmp -s "$tmp/cmstat.prom" <(cmstat v4 --prometheus --top-sites 3) ||
		no "--textfile: not what --prometheus prints"
	expect "--prometheus of version 3" 0 cmstat v3 --prometheus
	is not grep -q '^cmstat_heap_site_' "$tmp/out" || no "version 3: site series"
	is not grep -q '^cmstat_heap_node_' "$tmp/out" || no "version 3: node series"
	cmstat v4 --prometheus >"$tmp/prom4"
	is not grep -q '^cmstat_heap_node_' "$tmp/prom4" || no "version 4: node series"

	# --prometheus of version 5: the site series as of version 4, and a
	# series per node of demo and old, summing to the heap; none of plain.
	prometheus 3 v5
	expect "--prometheus of version 5" 0 cmstat v5 --prometheus
	cp "$tmp/out" "$tmp/prom5"
	is cmp -s <(grep -v 'cmstat_heap_node_' "$tmp/prom5") <(grep -v 'cmstat_heap_node_' "$tmp/prom4") ||
		no "--prometheus of version 5: more than the node series differ from version 4"
	is [ "$(grep -c '^# [A-Z]* cmstat_heap_node_' "$tmp/prom5")" = 4 ] ||
		no "--prometheus of version 5: not one HELP and one TYPE per node family"
	for heap in demo old plain; do
		for f in live_objects live_bytes; do
			got=$(node_rows "$tmp/prom5" "cmstat_heap_node_$f" "$heap")
			sum=$(heap_value "$tmp/prom5" "cmstat_heap_$f" "$heap")
			want="2 $sum NODES: 0 1"
			if [ "$heap" = plain ]; then want="0 0 NODES:"; fi
			is [ "$got" = "$want" ] ||
				no "--prometheus of version 5: $heap's $f node series: $got, not $want"
		done
	done
	is grep -qx 'cmstat_heap_node_live_bytes{heap="demo",state="active",node="1"} 562168' "$tmp/prom5" ||
		no "--prometheus of version 5: no demo node 1 live bytes"
	is grep -qx 'cmstat_heap_node_live_objects{heap="old",state="orphaned",node="0"} 8' "$tmp/prom5" ||
		no "--prometheus of version 5: no old node 0 live objects"
	is [ "$(grep -c '^cmstat_heap_node_' "$tmp/prom5")" = 8 ] ||
		no "--prometheus of version 5: not 8 node series"
	if command -v promtool >/dev/null; then
		is promtool check metrics <"$tmp/prom5" >"$tmp/promtool" 2>&1 ||
			no "--prometheus of version 5: promtool: $(cat "$tmp/promtool")"
	fi
	expect "--textfile of version 5" 0 cmstat v5 --textfile "$tmp/cmstat5.prom"
	is cmp -s "$tmp/cmstat5.prom" "$tmp/prom5" || no "--textfile of version 5: not what --prometheus prints"
}

impls=system
shell=sh path=$PATH impl=system
run
if ! command -v busybox >/dev/null; then
	echo "tests/viewer: no busybox, its sh and awk not tested"
elif [ -n "${FAKEROOTKEY:-}" ]; then
	# Its sh runs its own id, linked statically, out of fakeroot's reach.
	echo "tests/viewer: not root, busybox's sh and awk not tested"
else
	# busybox's sh and awk, and nothing else, as in the VMs.
	mkdir "$tmp/bin"
	busybox --install -s "$tmp/bin"
	shell="busybox sh" path=$tmp/bin impl=busybox
	run
	impls="system and busybox"
fi
echo "tests/viewer: $checks checks ($impls sh and awk$(command -v promtool >/dev/null && echo ", promtool")), $failed failed"
[ "$failed" = 0 ]
