#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh ("make bench"): build cmstat and cmstat_bench against Debian's
# stock 6.12 headers, boot Debian's stock 6.12 kernel in QEMU TCG, and
# measure the writer and allocator groups with SMP vCPUs, then the reader
# group once per vCPU count in READER_CPUS.  Every figure printed is the
# median of RUNS samples (3 * RUNS for the reader, whose VMs may have more
# vCPUs than the host has cores); every ratio is computed from those medians.
#
# Knobs: SMP=N (default: the host's CPU count, so that "all CPUs" really
# run at once), RUNS=N (default 5, at least 5), READER_CPUS="1 2 4 8 16"
# (empty: no reader VM), BOOT_ARGS="..." (added to the guest kernel's
# command line, e.g. init_on_alloc=0), LOGDIR=dir (console logs and the raw
# samples, default ./logs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"

SMP=${SMP:-$(nproc)}
RUNS=${RUNS:-5}
READER_CPUS=${READER_CPUS-1 2 4 8 16}
BOOT_ARGS=${BOOT_ARGS:-}
LOGDIR=${LOGDIR:-$CMSTAT_ROOT/logs}
BUILDDIR=$CMSTAT_ROOT/.build
[ "$RUNS" -ge 5 ] || die "RUNS must be at least 5 (medians of 5 or more)"
mkdir -p "$LOGDIR" "$BUILDDIR"
start=$(date +%s)

ensure_pkgs "${HOST_PKGS[@]}" binutils
stock_612_tree bench
initrd="$BUILDDIR/initramfs-bench.gz"
make_initramfs "$initrd" "$CMSTAT_ROOT/scripts/guest/bench-init" \
	"$STOCK_TREE"/module/*.ko "$STOCK_TREE"/bench/*.ko

samples="$LOGDIR/bench.samples"
: >"$samples"

# boot NAME VCPUS MODE: one VM; its sample lines are appended to $samples.
boot() {
	local log="$LOGDIR/bench-$1.log" rc=0
	log "$1: $2 vCPUs, console log $log"
	run_vm "$STOCK_KERNEL" "$initrd" "$log" $((600 + 60 * $2)) "$2" \
		quiet $BOOT_ARGS "cmstat.bench=$3" "cmstat.runs=$RUNS" || rc=$?
	console_between "$log" bench "$rc" >"$log.out"
	! grep -E '^(error|warning) ' "$log.out" || die "$1 reported the above, see $log"
	grep -E '^(sample|info) ' "$log.out" >>"$samples" || die "$1 printed no samples, see $log"
}

boot main "$SMP" main
for n in $READER_CPUS; do
	boot "reader-$n" "$n" reader
done
disasm=$(bash "$CMSTAT_ROOT/scripts/disasm-writer.sh" "$STOCK_KDIR" | tail -n 1)

echo "cmstat benchmarks, $(date -u +%Y-%m-%d)"
echo "guest: Debian's stock $STOCK_ABI in $(qemu-system-x86_64 --version | head -n1 | sed 's/ (.*//'), TCG (emulated, no KVM), -cpu max, 2 GiB"
echo "host: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "guest kernel command line adds: ${BOOT_ARGS:-nothing}"
echo "figures: medians of $RUNS samples ($((RUNS * 3)) for the reader), raw samples in $samples"
echo
awk -v allcpus="$SMP" -v runs="$RUNS" -v disasm="$disasm" \
	-f "$CMSTAT_ROOT/scripts/bench-summary.awk" "$samples"
echo "make bench took $(($(date +%s) - start)) s"
