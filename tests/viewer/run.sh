#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/viewer/run.sh: scripts/cmstat against saved stats files, on the
# host, without the module: the version 4 site table in --check, --sites,
# --json and --prometheus, and versions 3 and 5 read as before.  Run with
# the system's sh and awk, then, if busybox is installed, with busybox's
# sh and awk alone in PATH, as in the VMs.
#
# The fixtures: v4.stats, one cut (epoch 42) of heap "demo" with 13 site
# rows (the unattributed one first, an absolute path /srv/mod/a.c, three
# sites tied at 10240 live bytes), heap "plain" without site rows, orphan
# "old" with site rows (two of them old_rx() at line 40: its module was
# loaded again), the destroyed heaps and all, every identity holding;
# v4-bad-site.stats, the same with one site row's live bytes wrong.
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
mkdir "$tmp/v4" "$tmp/bad" "$tmp/v3" "$tmp/v5"
cp "$here/v4.stats" "$tmp/v4/stats"
cp "$here/v4-bad-site.stats" "$tmp/bad/stats"
# Version 3: no site tables.
sed -e '1s/ 4$/ 3/' -e '/^site_function /,/^$/{/^$/!d}' "$here/v4.stats" >"$tmp/v3/stats"
sed '1s/ 4$/ 5/' "$here/v4.stats" >"$tmp/v5/stats"

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

# prometheus N: --top-sites N gives each heap with site rows its N biggest
# sites and the rest, summing to the heap; none for plain.
prometheus() {
	local n=$1 want heap f got sum
	expect "--prometheus --top-sites $n" 0 cmstat v4 --prometheus --top-sites "$n"
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
assert list(demo)[-2:] == ["caches", "sites"], list(demo)
' "$1" 2>"$tmp/py"
}
json_v3() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 3
assert all(h["sites"] == [] for h in d["heaps"] + d["orphans"] + [d["destroyed"], d["all"]])
' "$1" 2>"$tmp/py"
}

run() {
	# --check: the good file, the bad one, version 3 and 5.
	expect "--check v4.stats" 0 cmstat v4 --check "$tmp/v4/stats"
	is grep -qx 'checked 1 snapshots, 0 violations' "$tmp/out" || no "--check v4.stats: $(cat "$tmp/out")"
	expect "--check v4-bad-site.stats" 1 cmstat bad --check "$tmp/bad/stats"
	is grep -qx 'violation in demo epoch 42: site_rows_live_bytes' "$tmp/out" ||
		no "--check v4-bad-site.stats: $(cat "$tmp/out")"
	expect "--check of version 3" 0 cmstat v3 --check "$tmp/v3/stats"
	expect "--check of version 5" 2 cmstat v5 --check "$tmp/v5/stats"
	is grep -q 'unsupported stats format version 5' "$tmp/err" || no "version 5: $(cat "$tmp/err")"

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

	# --json: valid, version 4, the sites of each object.
	expect "--json" 0 cmstat v4 --json
	is json_v4 "$tmp/out" || no "--json: $(tail -n 1 "$tmp/py")"
	expect "--json of version 3" 0 cmstat v3 --json
	is json_v3 "$tmp/out" || no "--json of version 3: $(tail -n 1 "$tmp/py")"

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
