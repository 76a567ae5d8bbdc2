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
. /etc/cmstat-adopt-trace.sh
[ -e /lib/cmstat/ext2.ko ] ||
	{ echo "no adopted modules were built for this kernel"; exit 4; }
fail=0
no() { echo "$*"; fail=1; }

# A cmstat of its own: its destroyed record then holds these two heaps only.
rmmod cmstat && insmod /lib/cmstat/cmstat.ko && adopt_deps || exit 1
trap trace_end EXIT
trace_begin || exit 1
reader_begin

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
reader_end || fail=1

# Both modules still loaded, idle: the heaps against the tracepoints.
keys_compare null_blk ext2 || fail=1

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
books_closed ext2 null_blk || fail=1
for m in $(sed '1!G;h;$!d' /lib/cmstat/adopt-deps); do
	rmmod "$m" 2>/dev/null
done
exit $fail
