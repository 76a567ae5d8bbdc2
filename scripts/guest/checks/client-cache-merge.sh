# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# Typed caches are never merged, with each other or with the kernel's
# caches: before 6.5 (Debian's 6.1) there is no SLAB_NO_MERGE, and two
# caches of one geometry, with no constructor or usercopy region, would
# share a slab cache, so that an unsized free (cmstat_kfree()) counts one
# cache's objects in the other's column, a live count goes negative and
# the destroy is refused.  The case "cache_merge" of
# tests/client/cmstat_alloc_test.c makes three caches a 6.1 kernel would
# merge and judges their slab caches and columns; while it is loaded,
# each has a slab cache of its own here too (its own directory in
# /sys/kernel/slab, not a link to a shared one, and no aliases).
. /etc/cmstat-check.sh
fail=0
ktap_load cmstat_alloc_test only=cache_merge || fail=1
if [ -d /sys/kernel/slab ]; then
	for c in alloc_test_merge_a alloc_test_merge_b alloc_test_merge_k; do
		s=/sys/kernel/slab/$c
		if [ -L $s ]; then
			echo "$c: merged into $(readlink $s)"
			fail=1
		elif [ -d $s ]; then
			echo "$c: a slab cache of its own, aliases $(cat $s/aliases)"
			[ "$(cat $s/aliases)" = 0 ] || fail=1
		else
			echo "$c: not in /sys/kernel/slab"
			fail=1
		fi
	done
fi
rmmod cmstat_alloc_test || exit 1
exit $fail
