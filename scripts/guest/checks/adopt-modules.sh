# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# timeout: 2400
# Two in-tree modules nobody here wrote, adopted with the one Kbuild line
# (scripts/adopt-build.sh): null_blk, memory-backed, is the disk of an ext2
# filesystem.  While both run their workload, every snapshot of the
# statistics keeps its identities and sums to "all".  What each heap
# counts, allocations and frees by size class or typed cache, is what the
# kernel's own kmem tracepoints saw from that module's code (or from
# cmstat's, while only that module ran cmstat's out-of-line paths), event
# by event.  Once the filesystem is unmounted, the disk discarded and both
# modules unloaded, nothing is left: both heaps gone, every allocation
# freed, by the tracepoints and by cmstat's destroyed record.
. /etc/cmstat-check.sh
. /etc/cmstat-adopt.sh
[ -e /lib/cmstat/ext2.ko ] ||
	{ echo "no adopted modules were built for this kernel"; exit 4; }
dbg=/sys/kernel/debug/cmstat
T=/sys/kernel/tracing
fail=0
no() { echo "$*"; fail=1; }

# A cmstat of its own: its destroyed record then holds these two heaps only.
rmmod cmstat && insmod /lib/cmstat/cmstat.ko && adopt_deps || exit 1

mount -t tracefs nodev $T 2>/dev/null
[ -e $T/events/kmem/kmalloc/enable ] || { echo "no kmem tracepoints"; exit 1; }
# Tracing as it was, and no reader left running, for the checks after
# this one, however this one ends.
# The buffer's size: "N", or "N (expanded: M)" before its first use.
kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' $T/buffer_size_kb)
# fields 0|1: the "fields" option (6.2 on), which prints each event's
# fields as recorded.  Without it (6.1) a call site prints as a symbol,
# with its module in brackets, which trace_keys reads too.
fields() {
	[ ! -e $T/options/fields ] || echo "$1" > $T/options/fields
}
untrace() {
	touch /tmp/adopt-done
	echo 0 > $T/tracing_on
	for e in kmalloc kfree kmem_cache_alloc kmem_cache_free; do
		echo 0 > $T/events/kmem/$e/enable
		echo 0 > $T/events/kmem/$e/filter
	done
	fields 0
	echo "$kb" > $T/buffer_size_kb
	echo > $T/trace
	echo 1 > $T/tracing_on
}
trap untrace EXIT
echo 0 > $T/tracing_on
fields 1	# every field as recorded: addresses in hex
echo 16384 > $T/buffer_size_kb
# Only what modules' code did: the kernel's own calls would be most of
# the trace.  A heap's object that the kernel itself freed is then missed,
# and shows as a mismatch.  Modules are not always above the kernel's
# text: on arm64 they are below it.
stext=$(awk '$3 == "_stext" { print $1 }' /proc/kallsyms)
etext=$(awk '$3 == "_etext" { print $1 }' /proc/kallsyms)
for e in kmalloc kfree kmem_cache_alloc kmem_cache_free; do
	echo "call_site < 0x$stext || call_site >= 0x$etext" > $T/events/kmem/$e/filter ||
		exit 1
	echo 1 > $T/events/kmem/$e/enable
done
echo > $T/trace
echo 1 > $T/tracing_on
period() { echo "cmstat-period $1" > $T/trace_marker; }

# The snapshots' identities, from a reader running beside the workload:
# one snapshot at least, however late the host lets it start.
rm -f /tmp/adopt-done
(
	n=0 bad=0
	while :; do
		cat $dbg/stats $dbg/heaps/*/stats $dbg/all/stats 2>/dev/null |
			cmstat --check > /tmp/adopt-check.out 2>&1 ||
			{ bad=$((bad + 1)); cat /tmp/adopt-check.out; }
		n=$((n + 1))
		[ -e /tmp/adopt-done ] && break
	done
	echo "$n $bad" > /tmp/adopt-reader
) &
reader=$!

# null_blk alone: pages written are allocated, discarded are freed.
# Then ext2 on it.  Then null_blk alone again, the whole disk discarded.
period null_blk
insmod /lib/cmstat/null_blk.ko nr_devices=0 || exit 1
adopt_disk || fail=1
period ext2
insmod /lib/cmstat/ext2.ko || exit 1
adopt_fs || fail=1
period null_blk
adopt_discard || fail=1
touch /tmp/adopt-done
finish $reader
read -r reads bad < /tmp/adopt-reader
echo "a reader beside the workload checked $reads snapshots: $bad broke an identity"
[ "$reads" -gt 0 ] && [ "$bad" = 0 ] || fail=1

# Each module's code, as [start, end) ranges, the addresses as the trace's
# fields print them: signed decimal.
ranges() {
	while read -r m sec size; do
		a=$(cat /sys/module/"$m"/sections/"$sec" 2>/dev/null) || continue
		echo "$m $((a)) $((a + size))"
	done < /lib/cmstat/sections
}
ranges > /tmp/ranges

# heap_keys HEAP: "HEAP KEY mallocs frees" from the heap's stats: a size
# class or typed cache by its object size, as size_BYTES (a kmem_cache_alloc event
# carries that, not the cache's name), large allocations as "large".  A
# typed cache by its slab cache's object size, from SLUB's sysfs, where
# there is one: larger than the typed cache's where its objects have room
# for cmstat's link to free them later (on PREEMPT_RT, module/free_later.c).
heap_keys() {
	awk -v h="$1" '
		/^class_bytes / { t = "class"; next }
		/^cache_name / { t = "cache"; next }
		/^site_function / { t = ""; next }
		/^large_mallocs / { lm = $2 } /^large_frees / { lf = $2 }
		t == "class" && $2 + $3 > 0 { m["size_" $1] += $2; f["size_" $1] += $3 }
		t == "cache" {
			size = $2; file = "/sys/kernel/slab/" $1 "/object_size"
			if ((getline s < file) > 0) size = s
			close(file)
			m["size_" size] += $3; f["size_" size] += $4
		}
		END {
			if (lm + lf > 0) print h, "large", lm, lf
			for (k in m) print h, k, m[k], f[k]
		}' "$dbg/heaps/$1/stats"
}

# periods: "TIMESTAMP MODULE" for each period marker.  The fields
# option prints a marker without its text, so this read is without it.
periods() {
	fields 0
	grep 'cmstat-period ' $T/trace | awk '{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1); break }
		sub(/.*cmstat-period /, "")
		print ts, $1
	}'
	fields 1
}

# trace_keys MAX: the same from the trace.  An allocation is a module's
# when its call site is in the module's code (by address, or by the
# module a symbolic call site names), or in cmstat's while that
# module's period ran (only then do cmstat's out-of-line paths run for
# it): kmem_cache_alloc from a class or typed cache, kmalloc() past the
# largest class, MAX, for a large one (cmstat's other kmalloc()s are its
# own).  A free is counted against the allocation whose address it frees,
# whoever frees it (an RCU callback, cmstat, the VFS).  Also prints "live
# HEAP N", the allocations not freed.
trace_keys() {
	periods > /tmp/periods
	cat $T/trace | awk -v max="$1" '
		FILENAME == "/tmp/ranges" { n++; mod[n] = $1; lo[n] = $2; hi[n] = $3; known[$1]; next }
		FILENAME == "/tmp/periods" { np++; pts[np] = $1; pmod[np] = $2; next }
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
			who = (sitemod in known) ? sitemod : ""
			for (r = 1; who == "" && r <= n; r++)
				if (site + 0 >= lo[r] && site + 0 < hi[r]) who = mod[r]
			if (who == "cmstat") who = period
			if (who == "") next
			if (ev == "kmalloc") {
				if (req + 0 <= max) next
				k = "large"
			} else
				k = "size_" req
			owner[ptr] = who; key[ptr] = k
			m[who SUBSEP k]++; live[who]++
		}
		END {
			for (x in m) { split(x, p, SUBSEP); print p[1], p[2], m[x], f[x] + 0 }
			for (x in f) if (!(x in m)) { split(x, p, SUBSEP); print p[1], p[2], 0, f[x] }
			for (h in live) print "live", h, live[h]
		}' /tmp/ranges /tmp/periods -
}

# Both modules still loaded, idle: the heaps against the tracepoints.
for h in null_blk ext2; do
	heap_keys $h
done | sort > /tmp/heap-keys
# The largest size class: what cmstat's kmalloc() serves past it is large.
max=$(awk '/^class_bytes / { t = 1; next } /^cache_name / { t = 0 } t { m = $1 }
	END { print m }' $dbg/heaps/ext2/stats)
trace_keys "$max" > /tmp/trace-all
grep -v '^live ' /tmp/trace-all | sort > /tmp/trace-keys
for h in null_blk ext2; do
	heap_keys $h
done | sort | cmp -s - /tmp/heap-keys || no "the heaps moved while idle"
overrun=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
[ "$overrun" = 0 ] || no "the trace buffer overran ($overrun events lost)"
awk '
	FNR == NR { k = $1 " " $2; h[k] = $3 " " $4; keys[k]; next }
	{ k = $1 " " $2; t[k] = $3 " " $4; keys[k] }
	END {
		print "heap key: the heap'"'"'s mallocs frees | the kmem tracepoints'"'"'"
		for (k in keys) {
			a = (k in h) ? h[k] : "- -"; b = (k in t) ? t[k] : "- -"
			print "  " k ": " a " | " b (a == b ? "" : "  MISMATCH")
		}
	}' /tmp/heap-keys /tmp/trace-keys > /tmp/compare
cat /tmp/compare
grep -q MISMATCH /tmp/compare && fail=1
for h in null_blk ext2; do
	grep -q "^  $h " /tmp/compare || no "heap $h counted nothing"
done

# Unloaded: no heap, no orphan, and the destroyed record's books closed.
# The disk is removed first: a kernel that delays kobject releases
# (CONFIG_DEBUG_KOBJECT_RELEASE, 1 to 4 s) would release it after
# null_blk's code had gone, were it removed by rmmod.  The wait outlasts
# the longest delay, so the release's timer has fired before rmmod starts;
# rmmod then waits for its module's own delayed release, 1 s at least,
# before the code goes: the disk's work, queued first, runs in that time.
rmmod ext2 || no "rmmod ext2 failed"
adopt_disk_remove || fail=1
! adopt_releases_delayed || sleep 5
rmmod null_blk || no "rmmod null_blk failed"
echo 0 > $T/tracing_on
for h in ext2 null_blk; do
	[ -e $dbg/heaps/$h ] && no "heap $h outlived its module"
done
grep -q '^orphan ' $dbg/stats && no "an orphan heap remains: $(grep '^orphan ' $dbg/stats)"
awk '/^destroyed$/ { on = 1; next } on && /^$/ { exit } on' $dbg/stats > /tmp/destroyed
get() { awk -v k="$1" '$1 == k { print $2 }' /tmp/destroyed; }
echo "destroyed: mallocs $(get mallocs) frees $(get frees) live_objects $(get live_objects) live_bytes $(get live_bytes)"
[ "$(get live_objects) $(get live_bytes)" = "0 0" ] && [ "$(get mallocs)" = "$(get frees)" ] &&
	[ "$(get mallocs)" -gt 0 ] || no "the destroyed record's books do not close"
trace_keys "$max" | grep '^live ' > /tmp/trace-live
while read -r _ h n; do
	[ "$n" = 0 ] || no "the tracepoints saw $n of $h's allocations never freed"
done < /tmp/trace-live
[ -s /tmp/trace-live ] || no "the tracepoints attributed nothing to the modules"
for m in $(sed '1!G;h;$!d' /lib/cmstat/adopt-deps); do
	rmmod "$m" 2>/dev/null
done
exit $fail
