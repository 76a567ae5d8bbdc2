#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh ("make demo"): build cmstat against Debian's stock 6.12 headers,
# boot Debian's stock 6.12 kernel (the unsigned image, unpacked from its
# package) in QEMU TCG, load cmstat, run the workload and print what cmstat
# publishes: the viewer's table, the stats file, JSON and Prometheus text
# of one cut in part, and the whole of each in LOGDIR/demo.table,
# demo.stats, demo.json and demo.prom.  SMP=N sets the vCPU count (default 4).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"

SMP=${SMP:-4}
vm_dirs
ensure_pkgs "${HOST_PKGS[@]}"
stock_612_tree demo
initrd="$BUILDDIR/initramfs-demo.gz"
make_initramfs "$initrd" "$CMSTAT_ROOT/scripts/guest/demo-init" \
	"$STOCK_TREE"/module/*.ko "$STOCK_TREE"/samples/client/*.ko
rc=0
vm_guest "$STOCK_KERNEL" "$initrd" "$LOGDIR/demo.log" 300 "$SMP" demo quiet || rc=$?
cat "$LOGDIR/demo.log.out"
[ "$rc" = 0 ] || exit "$rc"
for f in table stats json prom; do
	vm_attachment "$LOGDIR/demo.log" "demo.$f" >"$LOGDIR/demo.$f" ||
		die "the VM did not hand over demo.$f, see $LOGDIR/demo.log"
done
echo "# the cut in full: $LOGDIR/demo.table (cmstat), $LOGDIR/demo.stats (the stats file),"
echo "#   $LOGDIR/demo.json (cmstat --json), $LOGDIR/demo.prom (cmstat --prometheus);"
echo "#   the console: $LOGDIR/demo.log"
