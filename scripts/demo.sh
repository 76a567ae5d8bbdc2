#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh ("make demo"): build cmstat against Debian's stock 6.12 headers,
# boot Debian's stock 6.12 kernel (the unsigned image, unpacked from its
# package) in QEMU TCG, load cmstat, run the workload and print what cmstat
# publishes.  SMP=N sets the vCPU count (default 4).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"

SMP=${SMP:-4}
LOGDIR=${LOGDIR:-$CMSTAT_ROOT/logs}
BUILDDIR=$CMSTAT_ROOT/.build
mkdir -p "$LOGDIR" "$BUILDDIR"

ensure_pkgs "${HOST_PKGS[@]}"
stock_612_tree demo
initrd="$BUILDDIR/initramfs-demo.gz"
make_initramfs "$initrd" "$CMSTAT_ROOT/scripts/guest/demo-init" \
	"$STOCK_TREE"/module/*.ko "$STOCK_TREE"/samples/client/*.ko
log="$LOGDIR/demo.log"
log "booting Debian's $STOCK_ABI with $SMP vCPUs, console log: $log"
rc=0
run_vm "$STOCK_KERNEL" "$initrd" "$log" 300 "$SMP" quiet || rc=$?
vm_attachment "$log" demo || die "the VM did not finish (QEMU status $rc), see $log"
