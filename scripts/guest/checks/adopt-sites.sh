# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# timeout: 2400
# The two in-tree modules of adopt-modules.sh, adopted with the one line
# and the line that asks for call-site rows (scripts/adopt-build.sh,
# ADOPT_SITES): null_blk, memory-backed, is the disk of an ext2 file
# system, which runs the same workload, then holds a few files, mounted.
# At rest, each heap's site rows sum to it (--check), its own lines hold
# what it allocated, and cmstat --sites shows them (printed below, as a
# user reads it).  Once unmounted, discarded and unloaded, nothing is
# left: no orphan.  The same first with the modules adopted without
# sites, for the memory the sites cost: the bytes each heap holds at
# rest, per live object, with and without.
. /etc/cmstat-check.sh
. /etc/cmstat-adopt.sh
[ -e /lib/cmstat/ext2-sites.ko ] ||
	{ echo "no adopted modules with sites were built for this kernel"; exit 4; }
dbg=/sys/kernel/debug/cmstat
fail=0
no() { echo "$*"; fail=1; }

# at_rest SUFFIX: the modules NAME$SUFFIX.ko loaded, the workload run,
# 20 files written to the file system, mounted; the stats file then in
# /tmp/rest$SUFFIX.
at_rest() {
	insmod /lib/cmstat/null_blk"$1".ko nr_devices=0 || return 1
	adopt_disk || fail=1
	insmod /lib/cmstat/ext2"$1".ko || return 1
	adopt_fs || fail=1
	mount -t ext2 $ADOPT_DISK /mnt || no "mount failed"
	i=0
	while [ $i -lt 20 ]; do
		echo "file $i" > /mnt/f$i
		i=$((i + 1))
	done
	sync
	cat /mnt/f* > /dev/null
	cp $dbg/stats /tmp/rest"$1"
}

# gone: unmounted, discarded, unloaded; no orphan left.
gone() {
	umount /mnt || no "umount failed"
	adopt_discard || fail=1
	rmmod ext2 || no "rmmod ext2 failed"
	adopt_disk_remove || fail=1
	! adopt_releases_delayed || sleep 5
	rmmod null_blk || no "rmmod null_blk failed"
	grep -q '^orphan ' $dbg/stats && no "an orphan heap remains: $(grep '^orphan ' $dbg/stats)"
}

# key FILE HEAP KEY: the value of KEY in HEAP's record of FILE.
key() {
	awk -v h="$2" -v k="$3" '/^heap / { on = ($2 == h) } on && $1 == k { print $2; exit }' "$1"
}

# attributed HEAP: allocations and live objects of HEAP's own sites (not
# the unattributed row), and how many sites, in /tmp/rest-sites.
attributed() {
	awk -v h="$1" '/^heap / { on = ($2 == h); t = 0; next }
		on && /^site_function / { t = 1; next }
		/^node mallocs frees live_objects live_bytes$/ || /^$/ { on = 0 }
		on && t && $3 > 0 { n++; m += $4; l += $6 }
		END { print n + 0, m + 0, l + 0 }' /tmp/rest-sites
}

adopt_deps || exit 1
at_rest "" || exit 1
gone
at_rest -sites || exit 1
cmstat --check /tmp/rest-sites > /tmp/check || no "--check: $(cat /tmp/check)"
for h in ext2 null_blk; do
	attributed $h > /tmp/attributed
	read -r n m l < /tmp/attributed
	echo "$h: $n sites, $m allocations, $l live objects at rest"
	[ "$n" -gt 0 ] && [ "$m" -gt 0 ] || no "$h: no allocation attributed to a site"
done
# null_blk's descriptors of the disk's pages, written: the last loop's $l.
[ "$l" -gt 0 ] || no "null_blk's sites hold nothing at rest, with the disk written"
# The view of the cut checked above.
mkdir -p /tmp/adopt-sites.d && cp /tmp/rest-sites /tmp/adopt-sites.d/stats
CMSTAT_DEBUGFS=/tmp/adopt-sites.d cmstat --sites ext2 null_blk > /tmp/sites || no "--sites failed"
cat /tmp/sites
gone

# What the sites cost in memory: the tag, and the next class for a
# request that fills its own.  A measurement, not a check.
# per_object BYTES OBJECTS: bytes per object, to two decimals.
per_object() {
	[ "$2" -gt 0 ] || { echo "-"; return; }
	echo "$(($1 / $2)).$(printf %02d $(($1 * 100 / $2 % 100)))"
}
po=0 pb=0 so=0 sb=0
for h in ext2 null_blk; do
	o=$(key /tmp/rest $h live_objects) b=$(key /tmp/rest $h live_bytes)
	echo "memory at rest: $h without sites: $o objects, $b bytes, $(per_object "$b" "$o") per object"
	po=$((po + o)) pb=$((pb + b))
	o=$(key /tmp/rest-sites $h live_objects) b=$(key /tmp/rest-sites $h live_bytes)
	echo "memory at rest: $h with sites: $o objects, $b bytes, $(per_object "$b" "$o") per object"
	so=$((so + o)) sb=$((sb + b))
done
echo "memory at rest: both heaps, bytes per live object: $(per_object $pb $po) without sites, $(per_object $sb $so) with"
exit $fail
