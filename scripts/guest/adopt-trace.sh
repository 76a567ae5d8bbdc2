# SPDX-License-Identifier: GPL-2.0
#
# What the adoption checks (checks/adopt-modules.sh, adopt-runtime.sh)
# share, installed by make_initramfs as /etc/cmstat-adopt-trace.sh: the
# kernel's kmem tracepoints on modules' code, a reader beside the
# workload, each heap's counts against the tracepoints', and the books
# closed once the modules are gone.  Sourced after /etc/cmstat-check.sh;
# the variables are the caller's, and named so as not to clash.
#
# A group is what the tracepoints can tell apart.  An event whose call
# site is in an adopted module's code is that module's; one whose call
# site is cmstat's (its out-of-line paths) belongs to the group whose
# period runs.  Modules that run cmstat's out-of-line paths at the same
# time (a filesystem and its journal) are one group, given by
# "MODULE GROUP" lines in /tmp/adopt-groups, written after trace_begin;
# a module not named there is a group of its own.

T=/sys/kernel/tracing
ADOPT_DBG=/sys/kernel/debug/cmstat
ADOPT_EVENTS="kmalloc kfree kmem_cache_alloc kmem_cache_free"

# trace_fields 0|1: the "fields" option (6.2 on), which prints each
# event's fields as recorded.  Without it (6.1) a call site prints as a
# symbol, with its module in brackets, which trace_keys reads too.
trace_fields() {
	[ ! -e $T/options/fields ] || echo "$1" > $T/options/fields
}

# trace_begin: the kmem events of modules' code, and of cmstat's, traced
# from now on.  The kernel's own calls would be most of the trace: a
# heap's object that the kernel itself freed is then missed, and shows as
# a mismatch.  Modules are not always above the kernel's text: on arm64
# they are below it.  Pair it with "trap trace_end EXIT".
trace_begin() {
	rm -f /tmp/adopt-groups
	mount -t tracefs nodev $T 2>/dev/null
	[ -e $T/events/kmem/kmalloc/enable ] || { echo "no kmem tracepoints"; return 1; }
	# The buffer's size: "N", or "N (expanded: M)" before its first use.
	adopt_kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' $T/buffer_size_kb)
	echo 0 > $T/tracing_on
	trace_fields 1	# every field as recorded: addresses in hex
	echo 16384 > $T/buffer_size_kb
	adopt_stext=$(awk '$3 == "_stext" { print $1 }' /proc/kallsyms)
	adopt_etext=$(awk '$3 == "_etext" { print $1 }' /proc/kallsyms)
	for e in $ADOPT_EVENTS; do
		echo "call_site < 0x$adopt_stext || call_site >= 0x$adopt_etext" \
			> $T/events/kmem/$e/filter || return 1
		echo 1 > $T/events/kmem/$e/enable
	done
	echo > $T/trace
	echo 1 > $T/tracing_on
}

# trace_end: tracing as it was, and no reader left running, for the
# checks after this one, however this one ends.
trace_end() {
	touch /tmp/adopt-done
	echo 0 > $T/tracing_on
	for e in $ADOPT_EVENTS; do
		echo 0 > $T/events/kmem/$e/enable
		echo 0 > $T/events/kmem/$e/filter
	done
	trace_fields 0
	echo "$adopt_kb" > $T/buffer_size_kb
	echo > $T/trace
	echo 1 > $T/tracing_on
}

# period GROUP: from now on, cmstat's own events are GROUP's.
period() {
	echo "cmstat-period $1" > $T/trace_marker
}

# reader_begin: a reader beside the workload, checking the snapshots'
# identities; reader_end stops it and says what it saw, failing if it
# saw no snapshot or a broken one.  One snapshot at least, however late
# the host lets it start.
reader_begin() {
	rm -f /tmp/adopt-done
	(
		n=0 bad=0
		while :; do
			cat $ADOPT_DBG/stats $ADOPT_DBG/heaps/*/stats $ADOPT_DBG/all/stats 2>/dev/null |
				cmstat --check > /tmp/adopt-check.out 2>&1 ||
				{ bad=$((bad + 1)); cat /tmp/adopt-check.out; }
			n=$((n + 1))
			[ -e /tmp/adopt-done ] && break
		done
		echo "$n $bad" > /tmp/adopt-reader
	) &
	adopt_reader=$!
}
reader_end() {
	touch /tmp/adopt-done
	finish $adopt_reader
	read -r adopt_reads adopt_bad < /tmp/adopt-reader
	echo "a reader beside the workload checked $adopt_reads snapshots: $adopt_bad broke an identity"
	[ "$adopt_reads" -gt 0 ] && [ "$adopt_bad" = 0 ]
}

# group_of NAME: NAME's group.
group_of() {
	cat /tmp/adopt-groups 2>/dev/null |
		awk -v m="$1" '$1 == m { g = $2 } END { print (g == "" ? m : g) }'
}

# adopt_ranges HEAP...: the code of cmstat and of the modules HEAP...,
# as "MODULE START END INIT" ([START, END); INIT 1 for a module's init
# code, freed once it has run, where a module loaded later may have its
# code: the sysfs file still gives the old address), the addresses as the trace's
# fields print them: signed decimal.  Only those: a kernel module of the
# same name as an adopted one (jbd2) is not theirs.
adopt_ranges() {
	while read -r m sec size; do
		case " cmstat $* " in *" $m "*) ;; *) continue ;; esac
		a=$(cat /sys/module/"$m"/sections/"$sec" 2>/dev/null) || continue
		case "$sec" in .init*) init=1 ;; *) init=0 ;; esac
		echo "$m $((a)) $((a + size)) $init"
	done < /lib/cmstat/sections
}

# heap_keys HEAP: "GROUP KEY mallocs frees" from the heap's stats: a size
# class or typed cache by its object size, as size_BYTES (a
# kmem_cache_alloc event carries that, not the cache's name), large
# allocations as "large"; rows that counted nothing are left out.  A
# typed cache by its slab cache's object size,
# from SLUB's sysfs, where there is one: larger than the typed cache's
# where its objects have room for cmstat's link to free them later (on
# PREEMPT_RT, module/free_later.c) or for a call-site tag.
heap_keys() {
	awk -v h="$(group_of "$1")" '
		/^class_bytes / { t = "class"; next }
		/^cache_name / { t = "cache"; next }
		/^site_function / { t = ""; next }
		/^large_mallocs / { lm = $2 } /^large_frees / { lf = $2 }
		t == "class" && $2 + $3 > 0 { m["size_" $1] += $2; f["size_" $1] += $3 }
		t == "cache" && $3 + $4 > 0 {
			size = $2; file = "/sys/kernel/slab/" $1 "/object_size"
			if ((getline s < file) > 0) size = s
			close(file)
			m["size_" size] += $3; f["size_" size] += $4
		}
		END {
			if (lm + lf > 0) print h, "large", lm, lf
			for (k in m) print h, k, m[k], f[k]
		}' "$ADOPT_DBG/heaps/$1/stats"
}

# groups_keys HEAP...: heap_keys of each, summed by group.
groups_keys() {
	for h in "$@"; do
		heap_keys "$h"
	done | awk '{ k = $1 " " $2; m[k] += $3; f[k] += $4 }
		END { for (k in m) print k, m[k], f[k] }' | sort
}

# adopt_periods: "TIMESTAMP GROUP" for each period marker.  The fields
# option prints a marker without its text, so this read is without it.
adopt_periods() {
	trace_fields 0
	grep 'cmstat-period ' $T/trace | awk '{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1); break }
		sub(/.*cmstat-period /, "")
		print ts, $1
	}'
	trace_fields 1
}

# trace_keys MAX: the same from the trace.  An allocation is a group's
# when its call site is in the code of one of its modules (by address,
# or by the module a symbolic call site names), or in cmstat's while the
# group's period ran: kmem_cache_alloc from a class or typed cache,
# kmalloc() past the largest class, MAX, for a large one (cmstat's other
# kmalloc()s are its own).  A free is counted against the allocation
# whose address it frees, whoever frees it (an RCU callback, cmstat, the
# VFS).  Also prints "live GROUP N", the allocations not freed, and
# "at GROUP KEY SITE N", the allocations by call site.  The
# modules' code is where keys_compare found it, while they were loaded,
# and a module's only from the first period of its group on.
trace_keys() {
	adopt_periods > /tmp/periods
	touch /tmp/adopt-groups
	cat $T/trace | awk -v max="$1" '
		function group(m) { return (m in grp) ? grp[m] : m }
		# Whether module M was loaded at TS: cmstat always was, and a
		# module in a check without periods.
		function loaded(m, t,  g) {
			g = group(m)
			return m == "cmstat" || !(g in pfirst) || t + 0 >= pfirst[g] + 0
		}
		FILENAME == "/tmp/adopt-groups" { grp[$1] = $2; next }
		FILENAME == "/tmp/ranges" { n++; mod[n] = $1; lo[n] = $2; hi[n] = $3; ini[n] = $4; known[$1]; next }
		FILENAME == "/tmp/periods" {
			np++; pts[np] = $1; pmod[np] = $2
			if (!($2 in pfirst)) pfirst[$2] = $1
			next
		}
		{
			ev = ""; site = ""; sitemod = ""; ptr = ""; req = 0; ts = ""
			for (i = 1; i <= NF; i++) {
				if (ts == "" && $i ~ /^[0-9]+\.[0-9]+:$/)
					ts = substr($i, 1, length($i) - 1)
				else if ($i ~ /^(kmalloc|kfree|kmem_cache_alloc|kmem_cache_free):$/)
					ev = substr($i, 1, length($i) - 1)
				else if ($i ~ /^call_site=/) {
					site = $(i + 1)
					if (site ~ /^\[[^]]*\]$/)
						sitemod = substr(site, 2, length(site) - 2)
					gsub(/[()]/, "", site)
				}
				else if ($i ~ /^ptr=/) ptr = substr($i, 5)
				else if ($i ~ /^bytes_req=[0-9]+$/) req = substr($i, 11)
				else if ($i ~ /^bytes_req=/) { req = $(i + 1); gsub(/[()]/, "", req) }
			}
			if (ev == "") next
			while (p < np && pts[p + 1] + 0 <= ts + 0)
				period = pmod[++p]
			if (ev == "kfree" || ev == "kmem_cache_free") {
				if (ptr in owner) {
					f[owner[ptr] SUBSEP key[ptr]]++
					live[owner[ptr]]--
					delete owner[ptr]
				}
				next
			}
			who = (sitemod in known && loaded(sitemod, ts)) ? sitemod : ""
			# A module is loaded in the first period of its group,
			# and its code is its own from then on only: before,
			# the same addresses may have held code unloaded or
			# freed since (the ranges are those of the end).  Live
			# code first; init code only while the period of its
			# group runs, as a module runs its init when loaded.
			for (r = 1; who == "" && r <= n; r++)
				if (!ini[r] && site + 0 >= lo[r] && site + 0 < hi[r] &&
				    loaded(mod[r], ts))
					who = mod[r]
			for (r = 1; who == "" && r <= n; r++)
				if (ini[r] && site + 0 >= lo[r] && site + 0 < hi[r] &&
				    group(mod[r]) == period)
					who = mod[r]
			if (who == "cmstat") who = period
			who = group(who)
			if (who == "") next
			if (ev == "kmalloc") {
				if (req + 0 <= max) next
				k = "large"
			} else
				k = "size_" req
			owner[ptr] = who; key[ptr] = k
			m[who SUBSEP k]++; live[who]++
			at[who SUBSEP k SUBSEP site]++
		}
		END {
			for (x in m) { split(x, p, SUBSEP); print p[1], p[2], m[x], f[x] + 0 }
			for (x in f) if (!(x in m)) { split(x, p, SUBSEP); print p[1], p[2], 0, f[x] }
			for (h in live) print "live", h, live[h]
			for (x in at) { split(x, p, SUBSEP); print "at", p[1], p[2], p[3], at[x] }
		}' /tmp/adopt-groups /tmp/ranges /tmp/periods -
}

# largest_class HEAP: the largest size class's bytes: what cmstat's
# kmalloc() serves past it is large.
largest_class() {
	awk '/^class_bytes / { t = 1; next } /^cache_name / { t = 0 } t { m = $1 }
		END { print m }' "$ADOPT_DBG/heaps/$1/stats"
}

# heaps_settle HEAP...: until two reads of the heaps a second apart
# agree (frees an RCU grace period or a delayed kobject release away), or
# HANG seconds.
heaps_settle() {
	adopt_i=0
	groups_keys "$@" > /tmp/settle-a
	while [ $adopt_i -lt $HANG ]; do
		sleep 1
		groups_keys "$@" > /tmp/settle-b
		cmp -s /tmp/settle-a /tmp/settle-b && return 0
		mv /tmp/settle-b /tmp/settle-a
		adopt_i=$((adopt_i + 1))
	done
	echo "the heaps never settled"
	return 1
}

# keys_compare HEAP...: with the modules loaded and idle, each group's
# counts from its heaps against the tracepoints', key by key, printed as
# a table.  Fails on a mismatch, on heaps that move while idle, on a
# trace that lost events, and on a group that counted nothing.
keys_compare() {
	adopt_ok=0
	groups_keys "$@" > /tmp/heap-keys
	adopt_max=$(largest_class "$1")
	adopt_ranges "$@" > /tmp/ranges
	trace_keys "$adopt_max" > /tmp/trace-all
	grep -v '^live \|^at ' /tmp/trace-all | sort > /tmp/trace-keys
	groups_keys "$@" | cmp -s - /tmp/heap-keys ||
		{ echo "the heaps moved while idle"; adopt_ok=1; }
	adopt_overrun=$(cat $T/per_cpu/cpu*/stats |
		awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	[ "$adopt_overrun" = 0 ] ||
		{ echo "the trace buffer overran ($adopt_overrun events lost)"; adopt_ok=1; }
	awk '
		FNR == NR { k = $1 " " $2; h[k] = $3 " " $4; keys[k]; next }
		{ k = $1 " " $2; t[k] = $3 " " $4; keys[k] }
		END {
			print "group key: the heaps'"'"' mallocs frees | the kmem tracepoints'"'"'"
			for (k in keys) {
				a = (k in h) ? h[k] : "- -"; b = (k in t) ? t[k] : "- -"
				print "  " k ": " a " | " b (a == b ? "" : "  MISMATCH")
			}
		}' /tmp/heap-keys /tmp/trace-keys > /tmp/compare
	cat /tmp/compare
	grep -q MISMATCH /tmp/compare && { adopt_ok=1; mismatch_sites; }
	for h in "$@"; do
		[ -n "$(heap_keys "$h")" ] || { echo "heap $h counted nothing"; adopt_ok=1; }
	done
	return $adopt_ok
}

# mismatch_sites: for each key keys_compare found mismatched, the call
# sites of the allocations the tracepoints gave it, as the kernel names
# their code: what to look at first.
mismatch_sites() {
	sed -n 's/^ *\([^ ]*\) \([^:]*\):.*MISMATCH$/\1 \2/p' /tmp/compare > /tmp/mismatched
	# Modules' text symbols, their addresses as the trace prints sites.
	awk '($2 == "t" || $2 == "T") && NF == 4' /proc/kallsyms |
		while read -r a _ name mod; do
			echo "$((0x$a)) $name $mod"
		done | sort -n > /tmp/syms
	echo "the tracepoints' allocations of the mismatched keys, by call site:"
	awk '
		FILENAME == "/tmp/mismatched" { want[$1 " " $2]; next }
		FILENAME == "/tmp/syms" { n++; addr[n] = $1; fn[n] = $2; md[n] = $3; next }
		$1 == "at" && (($2 " " $3) in want) {
			where = $4
			if ($4 ~ /^-?[0-9]+$/) {
				lo = 1; hi = n; best = 0; where = $4 " (no symbol)"
				while (lo <= hi) {
					mid = int((lo + hi) / 2)
					if (addr[mid] + 0 <= $4 + 0) { best = mid; lo = mid + 1 } else hi = mid - 1
				}
				if (best) where = sprintf("%s+%d %s", fn[best], $4 - addr[best], md[best])
			}
			print "  " $2 " " $3 ": " $5 " at " where
		}' /tmp/mismatched /tmp/syms /tmp/trace-all | sort | head -40
}

# books_closed HEAP...: the modules unloaded: no heap of theirs, no
# orphan, cmstat's destroyed record (of heaps this cmstat destroyed)
# closed, and every allocation the tracepoints saw of their groups
# freed.  A group of modules still loaded is not judged.
books_closed() {
	adopt_ok=0
	echo 0 > $T/tracing_on
	for h in "$@"; do
		[ ! -e $ADOPT_DBG/heaps/$h ] || { echo "heap $h outlived its module"; adopt_ok=1; }
	done
	! grep -q '^orphan ' $ADOPT_DBG/stats ||
		{ echo "an orphan heap remains: $(grep '^orphan ' $ADOPT_DBG/stats)"; adopt_ok=1; }
	awk '/^destroyed$/ { on = 1; next } on && /^$/ { exit } on' $ADOPT_DBG/stats > /tmp/destroyed
	echo "destroyed: mallocs $(destroyed mallocs) frees $(destroyed frees)" \
		"live_objects $(destroyed live_objects) live_bytes $(destroyed live_bytes)"
	[ "$(destroyed live_objects) $(destroyed live_bytes)" = "0 0" ] &&
		[ "$(destroyed mallocs)" = "$(destroyed frees)" ] &&
		[ "$(destroyed mallocs)" -gt 0 ] ||
		{ echo "the destroyed record's books do not close"; adopt_ok=1; }
	for h in "$@"; do
		group_of "$h"
	done > /tmp/closed-groups
	trace_keys "$adopt_max" |
		awk 'FNR == NR { g[$1]; next } $1 == "live" && ($2 in g)' \
			/tmp/closed-groups - > /tmp/trace-live
	while read -r _ g n; do
		[ "$n" = 0 ] || { echo "the tracepoints saw $n of $g's allocations never freed"; adopt_ok=1; }
	done < /tmp/trace-live
	[ -s /tmp/trace-live ] ||
		{ echo "the tracepoints attributed nothing to the modules"; adopt_ok=1; }
	return $adopt_ok
}

# destroyed FIELD: FIELD of the destroyed record books_closed read.
destroyed() {
	awk -v k="$1" '$1 == k { print $2 }' /tmp/destroyed
}
