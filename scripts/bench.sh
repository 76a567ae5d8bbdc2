#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh ("make bench"): build cmstat and cmstat_bench against Debian's
# stock 6.12 headers and boot Debian's stock 6.12 kernel in QEMU TCG, twice
# over:
#
# - instruction counts, the primary figures: with -icount shift=0 the
#   guest's clock advances exactly 1 ns per instruction executed, so every
#   time the benchmark measures is an instruction count, reproducible
#   within 0.1% whatever the host is doing.  The writer and allocator run
#   in a 1-vCPU VM; the reader once per vCPU count in READER_CPUS, where
#   the count is over all vCPUs together (the reader's, and the IPI
#   handlers' on the others).  Instruction counts cannot show cache-line
#   contention or what a fence costs: the static counts (LOCK-prefixed
#   instructions, fences, per-CPU read-modify-writes, from the disassembly)
#   and the wall-clock table stand beside them for that.  Beside the
#   microbenchmarks, the workload of two in-tree modules (ext2 on
#   null_blk, scripts/guest/adopt-workload.sh), built as the kernel has
#   them, adopted with the one Kbuild line (scripts/adopt-build.sh), and
#   adopted with call-site rows too, in turn in one 1-vCPU VM.
# - the cut beside busy CPUs (bench/busy.c), in a 4-vCPU VM of
#   multi-threaded TCG, as it is and with QEMU pinned to one host CPU (4
#   vCPUs on 1, an overcommitted host): the cut's latency and the CPU the
#   reader burns per cut, in wall-clock time, pinned against unpinned.
# - wall clock, second: multi-threaded TCG, the writer and allocator with
#   SMP vCPUs, the reader once per vCPU count.  These swing with the host's
#   load (by 20-85% here) and say little about hardware.
#
# Every figure printed is the median of RUNS samples (3 * RUNS for the
# reader, whose VMs may have more vCPUs than the host has cores); every
# ratio is computed from those medians, of one table.
#
# Knobs: SMP=N (default: the host's CPU count, so that "all CPUs" really
# run at once), RUNS=N (default 5, at least 5), READER_CPUS="1 2 4 8 16"
# (empty: no reader VM), WALL=0 (instruction counts only, and no busy
# cut), MAIN=0 (not the writer, allocator and workload VMs: the reader
# and the busy cut alone), BOOT_ARGS="..."
# (added to the guest kernel's command line, e.g. init_on_alloc=0),
# LOGDIR=dir (console logs and the raw samples, default ./logs).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"

SMP=${SMP:-$(nproc)}
RUNS=${RUNS:-5}
READER_CPUS=${READER_CPUS-1 2 4 8 16}
WALL=${WALL:-1}
MAIN=${MAIN:-1}
BOOT_ARGS=${BOOT_ARGS:-}
[ "$RUNS" -ge 5 ] || die "RUNS must be at least 5 (medians of 5 or more)"
vm_dirs
start=$(date +%s)

ensure_pkgs "${HOST_PKGS[@]}" binutils
stock_612_tree bench
mapfile -t adopted < <(ADOPT_PLAIN=1 ADOPT_SITES=1 bash "$CMSTAT_ROOT/scripts/adopt-build.sh" \
	"$(kernel_source)" "$STOCK_KDIR" \
	"$(stock_kernel_dir "$STOCK_ABI")/lib/modules/$STOCK_ABI" "$STOCK_TREE" \
	"$BUILDDIR/bench-adopt") || die "building the adopted modules failed, see $BUILDDIR/bench-adopt/*.log"
initrd="$BUILDDIR/initramfs-bench.gz"
make_initramfs "$initrd" "$CMSTAT_ROOT/scripts/guest/bench-init" \
	"$STOCK_TREE"/module/*.ko "$STOCK_TREE"/bench/*.ko "${adopted[@]}"

# boot SAMPLES NAME VCPUS MODE [TIMEOUT]: one VM; its sample lines are
# appended to SAMPLES.  VM_ICOUNT (see vm.sh) chooses instruction counts.
boot() {
	local log="$LOGDIR/bench-$2.log"
	# shellcheck disable=SC2086 # BOOT_ARGS: words of the command line
	vm_guest "$STOCK_KERNEL" "$initrd" "$log" "${5:-$((600 + 60 * $3))}" "$3" bench \
		quiet $BOOT_ARGS "cmstat.bench=$4" "cmstat.runs=$RUNS" || exit 1
	grep -E '^(sample|info) ' "$log.out" >>"$1" || die "$2 printed no samples, see $log"
}

icount="$LOGDIR/bench-icount.samples"
wall="$LOGDIR/bench-wall.samples"
workload="$LOGDIR/bench-adopt.samples"
: >"$icount"
: >"$wall"
: >"$workload"
if [ "$MAIN" = 1 ]; then
	VM_ICOUNT=1 boot "$icount" icount-main 1 main
	VM_ICOUNT=1 boot "$workload" icount-adopt 1 adopt $((600 + 360 * RUNS))
fi
for n in $READER_CPUS; do
	VM_ICOUNT=1 boot "$icount" "icount-reader-$n" "$n" reader
done
busy_unpinned="$LOGDIR/bench-busy-unpinned.samples"
busy_pinned="$LOGDIR/bench-busy-pinned.samples"
: >"$busy_unpinned"
: >"$busy_pinned"
if [ "$WALL" = 1 ]; then
	boot "$busy_unpinned" busy-unpinned 4 busy
	VM_PIN=0 boot "$busy_pinned" busy-pinned 4 busy
	if [ "$MAIN" = 1 ]; then
		boot "$wall" main "$SMP" main
	fi
	for n in $READER_CPUS; do
		boot "$wall" "reader-$n" "$n" reader
	done
fi
disasm=$(bash "$CMSTAT_ROOT/scripts/disasm.sh" "$STOCK_KDIR")

echo "cmstat benchmarks, $(date -u +%Y-%m-%d)"
echo "guest: Debian's stock $STOCK_ABI in $(qemu_version), TCG (emulated, no KVM), -cpu max, 2 GiB"
echo "host: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "guest kernel command line adds: ${BOOT_ARGS:-nothing}"
echo "figures: medians of $RUNS samples ($((RUNS * 3)) for the reader), raw samples in $icount and $wall"
echo
echo "== Instruction counts (QEMU -icount shift=0: one guest ns is one instruction), 1 vCPU; the reader with READER_CPUS vCPUs =="
echo
awk -v allcpus=1 -v runs="$RUNS" -v disasm="$(echo "$disasm" | tail -n 1)" \
	-v icount=1 -v prefix=icount_ -f "$CMSTAT_ROOT/scripts/median.awk" \
	-f "$CMSTAT_ROOT/scripts/bench-summary.awk" "$icount"
echo
echo "== The workload of ext2 on null_blk (scripts/guest/adopt-workload.sh), instructions, 1 vCPU, modules loaded and unloaded outside it =="
echo
awk -v runs="$RUNS" -f "$CMSTAT_ROOT/scripts/median.awk" \
	-f "$CMSTAT_ROOT/scripts/bench-adopt-summary.awk" "$workload"
echo
echo "== Static counts, from the disassembly of the code clients compile (scripts/disasm.sh): whole functions, fast and slow paths =="
echo "$disasm" | grep -E '^cmstat_probe_[a-z0-9_]+: instructions=' | awk '!seen[$0]++' |
	sed 's/^/  /'
if [ "$WALL" = 1 ]; then
	echo
	echo "== The cut beside busy CPUs (bench/busy.c), 4 vCPUs, 3 writing: wall clock, pinned to 1 host CPU and not =="
	echo
	awk -v runs="$RUNS" -f "$CMSTAT_ROOT/scripts/median.awk" \
		-f "$CMSTAT_ROOT/scripts/bench-busy-summary.awk" "$busy_unpinned" "$busy_pinned"
	echo
	echo "== Wall clock (multi-threaded TCG, $SMP vCPUs): swings 20-85% with the host's load; compare rows of this table only =="
	echo
	awk -v allcpus="$SMP" -v runs="$RUNS" -v disasm="$(echo "$disasm" | tail -n 1)" \
		-v icount=0 -v prefix=wall_ -f "$CMSTAT_ROOT/scripts/median.awk" \
		-f "$CMSTAT_ROOT/scripts/bench-summary.awk" "$wall"
fi
echo "make bench took $(($(date +%s) - start)) s"
