# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# Typed caches are never merged, with each other or with the kernel's
# caches: before 6.5 (Debian's 6.1) there is no SLAB_NO_MERGE, and two
# caches of one geometry, with no constructor or usercopy region, would
# share a slab cache, so that an unsized free (cmstat_kfree()) counts one
# cache's objects in the other's column, a live count goes negative and
# the destroy is refused.  Three caches a 6.1 kernel would merge: each has
# a slab cache of its own (its own directory in /sys/kernel/slab, not a
# link to a shared one, and no aliases), and each free counts in its own
# column.
insmod /lib/cmstat/cmstat_client_test.ko || exit 1
d=/sys/kernel/debug/cmstat_client_test
dmesg -c > /dev/null
fail=0
out=$(cat $d/merge) || fail=1
echo "$out"
echo "$out" | grep -qx '0 wrong' || fail=1
if [ -d /sys/kernel/slab ]; then
	for c in client_merge_a client_merge_b client_merge_k; do
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
echo merge_destroy > $d/misuse || fail=1
dmesg | grep 'cmstat: ' | sed 's/^\[ *[0-9.]*\] /dmesg: /'
dmesg | grep -q 'live objects; left allocated' && fail=1
rmmod cmstat_client_test || exit 1
exit $fail
