# SPDX-License-Identifier: GPL-2.0
# kernels: debug-busy kcsan
# While 4 heaps allocate and free, one of them has been destroyed with
# objects left (an orphan), and the heap "client" allocates from and frees
# into two typed caches, the viewer's table rows and the JSON's heaps,
# orphans and destroyed heaps sum to their "all", key by key (and in the
# JSON class by class), the JSON's typed caches of each heap sum to its
# cache_live_objects and cache_live_bytes, and the JSON carries one epoch;
# 10 times each, and the stats file itself passes --check, which sums it
# (typed caches too).
insmod /lib/cmstat/cmstat_demo.ko objects=1000 workers=2 heaps=4 || exit 1
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
ctl=/sys/kernel/debug/cmstat_client_test/misuse
echo "orphan 3" > $ctl || exit 1
echo "cache_alloc 50" > $ctl || exit 1
rm -f /tmp/churn.stop
# The typed caches move all along: 50 to 70 objects each, a burst a
# second (nonstop, it would starve the readers of a TCG guest).
churn() {
	while [ ! -e /tmp/churn.stop ]; do
		echo "cache_alloc 20" > $ctl && echo "cache_free 20" > $ctl ||
			{ echo "typed cache churn failed"; return 1; }
		sleep 1
	done
}
churn &
churner=$!
fail=0 n=0

# The table: every line up to the "epoch" line, numbers in the last 7
# fields (a name may be two words: "demo (orphan)").
table_sums() {
	awk '/^HEAP / { next } /^epoch / { exit }
	     { for (i = 0; i < 7; i++) v[i] = $(NF - 6 + i)
	       if ($1 == "all") { for (i = 0; i < 7; i++) a[i] = v[i]; rows = NR }
	       else { for (i = 0; i < 7; i++) s[i] += v[i]; parts++ } }
	     END { for (i = 0; i < 7; i++) if (s[i] != a[i]) bad++
		   print parts, bad + 0 }'
}

# The JSON: one object per line; the keys before "classes", and each
# class's numbers, summed over heaps, orphans and destroyed; in each heap
# and orphan, its typed caches' live objects and bytes, against its own
# cache_live_objects and cache_live_bytes.
json_sums() {
	awk '/"epoch": / { epochs++ }
	     /\{"name": / {
		line = $0; sub(/^[^{]*\{/, "", line)
		top = line; sub(/, "classes".*/, "", top)
		nk = split(top, kv, ", ")
		isall = /^ "all": /
		delete own
		for (i = 2; i <= nk; i++) {
			split(kv[i], p, ": ")
			own[p[1]] = p[2]
			if (isall) a[p[1]] = p[2]; else s[p[1]] += p[2]
		}
		tc = line; sub(/.*"caches": \[/, "", tc)
		ntc = split(tc, t, "}")
		lo = 0; lb = 0
		for (j = 1; j < ntc; j++) {
			if (t[j] !~ /"live_bytes"/)
				continue
			x = t[j]; sub(/.*"live_objects": /, "", x); sub(/,.*/, "", x)
			lo += x
			x = t[j]; sub(/.*"live_bytes": /, "", x); lb += x
			caches++
		}
		if (!isall && !/^ "destroyed": / &&
		    (lo != own["\"cache_live_objects\""] ||
		     lb != own["\"cache_live_bytes\""]))
			bad++
		cl = line; sub(/.*"classes": \[/, "", cl); sub(/\], "caches".*/, "", cl)
		nc = split(cl, c, "}")
		for (j = 1; j < nc; j++) {
			m = split(c[j], f, ": ")
			for (k = 3; k <= m; k++) {	# size_bytes is not summed
				x = f[k]; sub(/,.*/, "", x)
				if (isall) ca[j, k] = x; else cs[j, k] += x
			}
		}
		if (!isall) parts++
	     }
	     END { for (k in a) if (s[k] != a[k]) bad++
		   for (k in ca) if (cs[k] != ca[k]) bad++
		   print parts, bad + 0, epochs, caches + 0 }'
}

while [ $n -lt 10 ]; do
	n=$((n + 1))
	# shellcheck disable=SC2046 # the sums, one word each
	set -- $(cmstat | table_sums)
	[ "$1" -ge 5 ] && [ "$2" = 0 ] ||
		{ echo "table $n: $1 rows, $2 columns off"; fail=1; }
	tparts=$1
	# shellcheck disable=SC2046 # the sums, one word each
	set -- $(cmstat --json | json_sums)
	[ "$1" -ge 6 ] && [ "$2" = 0 ] && [ "$3" = 1 ] && [ "$4" = 2 ] ||
		{ echo "json $n: $1 objects, $2 values off, $3 epochs, $4 typed caches"; fail=1; }
	jparts=$1 jcaches=$4
	cmstat --check /sys/kernel/debug/cmstat/stats > /tmp/check || {
		cat /tmp/check; fail=1; }
done
touch /tmp/churn.stop
wait $churner || fail=1
echo "10 tables ($tparts rows each) and 10 JSON documents ($jparts heaps," \
	"orphans and destroyed each; $jcaches typed caches) summed to all;" \
	"stats file: $(tail -n 1 /tmp/check)"
cmstat | head -n 8
cmstat client | sed -n '/^HEAP  *CACHE /,$p'
echo "orphan_free 3" > $ctl
# A cut releases the orphan, and its hold on cmstat, there and then.
cat /sys/kernel/debug/cmstat/stats > /dev/null
rmmod cmstat_demo || exit 1
# The client destroys its typed caches on the way out, once the demo is
# gone: kmem_cache_destroy() waits for RCU, slow in a loaded TCG guest.
rmmod cmstat_client_test || exit 1
exit $fail
