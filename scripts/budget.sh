#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# budget.sh TREE [BUDGETS]: the instruction budgets of make check.  Boots
# Debian's stock 6.12 kernel with one vCPU under QEMU's -icount shift=0,
# where the guest's clock advances exactly 1 ns per instruction, loads
# TREE's cmstat.ko and cmstat_bench.ko (built against the stock 6.12
# headers) and runs the bench module's budget group 5 times: a couple of
# thousand writer sections and alloc + free pairs.  Every figure, the
# fewest instructions per operation of the 5 (the runs no interrupt
# landed in), must be within its budget in BUDGETS (default bench/budgets).
# Counts are deterministic, so this is a regression gate, not a timed
# test: the host's load changes how long it takes, not what it measures.
#
# Prints one KTAP document (scripts/ktap.sh): a result "budget run" (the
# VM ran and reported no problem), then one per budget, "CASE SIZE", with
# the figure and the budget in a diagnostic line, and one failed result
# for each figure without a budget.  Exits non-zero if any result failed.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"
. "$(dirname "$0")/ktap.sh"

tree=${1:?usage: budget.sh TREE [BUDGETS]}
budgets=${2:-$CMSTAT_ROOT/bench/budgets}
vm_dirs
abi=$(stock_abi 6.12)
initrd=$(mktemp)
trap 'rm -f "$initrd"' EXIT
make_initramfs "$initrd" "$CMSTAT_ROOT/scripts/guest/bench-init" \
	"$tree"/module/cmstat.ko "$tree"/bench/cmstat_bench.ko
log=$LOGDIR/budget.log
if ! VM_ICOUNT=1 vm_guest "$(stock_kernel_dir "$abi")/boot/vmlinuz-$abi" "$initrd" \
	"$log" 600 1 bench quiet cmstat.bench=budget cmstat.runs=5; then
	ktap_result "budget run" 0 "the VM did not finish or reported a problem (on stderr), log $log"
	ktap_print
	exit 1
fi
ktap_result "budget run" 1 "log $log"

# "sample budget CASE SIZE N" against "CASE SIZE BUDGET" lines: one line
# "OK<tab>CASE SIZE<tab>DETAIL" a result.
while IFS=$'\t' read -r ok name detail; do
	ktap_result "$name" "$ok" "$detail"
done < <(awk -v budgets="$budgets" '
	BEGIN {
		while ((getline line < budgets) > 0) {
			if (line ~ /^#/ || split(line, f) != 3)
				continue
			want[f[1] " " f[2]] = f[3]
			order[++n] = f[1] " " f[2]
		}
	}
	$1 == "sample" && $2 == "budget" {
		k = $3 " " $4
		if (!(k in got) || $5 + 0 < got[k] + 0)
			got[k] = $5
	}
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]
			printf "%d\t%s\t%s, budget %s\n", (k in got) && got[k] <= want[k], k,
			       (k in got) ? got[k] " instructions per operation" : "no figure",
			       want[k]
		}
		for (k in got)
			if (!(k in want))
				printf "0\t%s\t%s instructions per operation, no budget in %s\n",
				       k, got[k], budgets
	}' "$log.out")
ktap_print
