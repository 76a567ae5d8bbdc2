# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# A module adopted with the one Kbuild line mixes its own caches with the
# kernel's (tests/adopt/cmstat_adopt_test.c, built by
# scripts/adopt-build.sh): a kernel header's inline on the kernel's cache
# (jbd2_alloc_inode(), where the kernel has jbd2), its own cache counted
# exactly, handed to mempool_create_slab_pool() and not counted there,
# destroyed with nothing live.  The module prints KTAP through
# tests/client/cmstat_ktap.h, which fails a case that a kernel report
# interrupts.
. /etc/cmstat-check.sh
. /etc/cmstat-adopt.sh
[ -e /lib/cmstat/cmstat_adopt_test.ko ] ||
	{ echo "no adopted modules were built for this kernel"; exit 4; }
adopt_deps || exit 1
ktap_module cmstat_adopt_test
