# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# A module adopted with the one Kbuild line mixes its own caches with the
# kernel's (tests/adopt/cmstat_adopt_test.c, built by
# scripts/adopt-build.sh): a kernel header's inline on the kernel's cache
# (jbd2_alloc_inode(), where the kernel has jbd2), its own cache counted
# exactly, handed to mempool_create_slab_pool() and not counted there,
# destroyed with nothing live.  The module prints KTAP and its load fails
# if a case fails; no kernel report may follow.
. /etc/cmstat-check.sh
. /etc/cmstat-adopt.sh
[ -e /lib/cmstat/cmstat_adopt_test.ko ] ||
	{ echo "no adopted modules were built for this kernel"; exit 4; }
fail=0
adopt_deps || exit 1
ktap_module cmstat_adopt_test || fail=1
if dmesg | grep -E 'BUG:|Oops|WARNING:|general protection'; then
	echo "a kernel report"
	fail=1
fi
exit $fail
