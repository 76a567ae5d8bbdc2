#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-peers.sh ("make bench-peers"): cmstat's accounting against its
# peers' in one run, by one method.  Allocation profiling and SLUB
# statistics are not in Debian's stock kernel, so this boots the peers
# kernels (scripts/kernel.sh peers: tinyconfig plus bench/peers.config,
# and peers-nostats, the same without SLUB_STATS; built once and cached),
# with one vCPU, in the instruction-counting mode of make bench (QEMU
# -icount shift=0: one guest ns is one instruction):
#
# - the allocator group of cmstat_bench, alloc + free pairs per size:
#   kmalloc(), a kmem_cache and cmstat, with cmstat's accounting on and
#   off; in the kernel without SLUB_STATS with allocation profiling off,
#   then switched on at run time (sysctl vm.mem_profiling), and in the
#   kernel with SLUB_STATS, which has no run-time switch;
# - one look at all of each mechanism's statistics, with profiling on, at
#   each vCPU count of PEERS_CPUS (the count is over all vCPUs together):
#   a whole read of /proc/allocinfo against one of cmstat's stats file
#   (a snapshot of all heaps, as text), both from user space
#   (scripts/guest/peers-read.c), and cmstat_heaps_read_all() in the
#   kernel (the reader group of cmstat_bench).
#
# Then each mechanism's cost over its own baseline, side by side: what
# profiling adds to kmalloc(), SLUB_STATS to kmem_cache_alloc(), and
# cmstat's accounting to cmstat_alloc() with it off.  Every figure is the
# median of RUNS samples; every difference and ratio is of two medians.
#
# Knobs: RUNS=N (default 5, at least 5), PEERS_CPUS="1 4" (vCPU counts of
# the read VMs; empty: none), BOOT_ARGS="..." (added to the guest kernel's
# command line), LOGDIR=dir (console logs and the raw samples, default
# ./logs), CMSTAT_CACHE=dir (where the kernel is cached).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"

RUNS=${RUNS:-5}
PEERS_CPUS=${PEERS_CPUS-1 4}
BOOT_ARGS=${BOOT_ARGS:-}
[ "$RUNS" -ge 5 ] || die "RUNS must be at least 5 (medians of 5 or more)"
vm_dirs
start=$(date +%s)

ensure_pkgs "${HOST_PKGS[@]}" libc6-dev
kstart=$(date +%s)
kdir=$(bash "$CMSTAT_ROOT/scripts/kernel.sh" peers)
nostats=$(bash "$CMSTAT_ROOT/scripts/kernel.sh" peers-nostats)
kend=$(date +%s)
# Nothing but SLUB_STATS may differ between the two kernels.
diff <(grep -v SLUB_STATS "$kdir/.config") <(grep -v SLUB_STATS "$nostats/.config") >&2 ||
	die "the peers kernels differ in more than SLUB_STATS (above)"
# One build of the modules for both kernels: the same client code in
# each, and SLUB_STATS changes nothing a module sees.
tree=$BUILDDIR/peers
build_tree "$tree" "$kdir" CMSTAT_TESTS= ||
	{ tail -n 20 "$tree.log"; die "build against $kdir failed"; }
# Static: the initramfs has busybox and no C library.
gcc -static -O2 -Wall -Werror -o "$BUILDDIR/peers-read" \
	"$CMSTAT_ROOT/scripts/guest/peers-read.c" || die "cannot build peers-read"
initrd="$BUILDDIR/initramfs-peers.gz"
make_initramfs "$initrd" "$CMSTAT_ROOT/scripts/guest/peers-init" \
	"$tree"/module/cmstat.ko "$tree"/bench/cmstat_bench.ko \
	"$tree"/samples/client/cmstat_demo.ko "$BUILDDIR/peers-read"

# boot SAMPLES NAME KERNEL VCPUS SLUB_STATS CMDLINE...: one VM with
# instruction counts; its sample lines, their group prefixed with
# "stats:" or "nostats:", are appended to SAMPLES.  SLUB_STATS (0 or 1) is
# what the kernel must report having.
boot() {
	local samples=$1 name=$2 kernel=$3 vcpus=$4 stats=$5
	local log="$LOGDIR/bench-peers-$name.log" tag=nostats
	shift 5
	[ "$stats" = 1 ] && tag=stats
	# shellcheck disable=SC2086 # BOOT_ARGS: words of the command line
	VM_ICOUNT=1 vm_guest "$kernel" "$initrd" "$log" $((900 + 60 * vcpus)) \
		"$vcpus" bench quiet sysctl.vm.mem_profiling=0 $BOOT_ARGS \
		"cmstat.runs=$RUNS" "$@" || exit 1
	grep -qx "info slub_stats $stats" "$log.out" ||
		die "$name: the kernel's SLUB statistics are not as expected ($stats), see $log"
	grep -E '^sample ' "$log.out" | sed "s/^sample /sample $tag:/" >>"$samples" ||
		die "$name printed no samples, see $log"
	grep -E '^info ' "$log.out" >>"$samples"
}

samples="$LOGDIR/bench-peers.samples"
: >"$samples"
boot "$samples" alloc-nostats "$nostats/arch/x86/boot/bzImage" 1 0 \
	cmstat.bench=alloc cmstat.profiling=0,1
boot "$samples" alloc-stats "$kdir/arch/x86/boot/bzImage" 1 1 \
	cmstat.bench=alloc cmstat.profiling=0
for n in $PEERS_CPUS; do
	boot "$samples" "read-$n" "$nostats/arch/x86/boot/bzImage" "$n" 0 cmstat.bench=read
done

echo "cmstat against its peers, $(date -u +%Y-%m-%d)"
echo "guest: the peers kernels ($(basename "$kdir"), $(basename "$nostats")) in $(qemu_version), TCG, -cpu max, 2 GiB"
echo "host: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "guest kernel command line adds: sysctl.vm.mem_profiling=0${BOOT_ARGS:+ $BOOT_ARGS}"
echo "figures: instructions (QEMU -icount shift=0), medians of $RUNS samples, raw samples in $samples"
echo
awk -v runs="$RUNS" -f "$CMSTAT_ROOT/scripts/median.awk" \
	-f "$CMSTAT_ROOT/scripts/bench-peers-summary.awk" "$samples"
echo "make bench-peers took $(($(date +%s) - start)) s, of which $((kend - kstart)) s to build or find the peers kernels"
