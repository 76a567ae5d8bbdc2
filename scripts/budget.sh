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
# Prints one "PASS|FAIL  budget: CASE SIZE ..." line per budget; exits
# non-zero if any fails, or a budget has no figure, or a figure no budget.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"

tree=${1:?usage: budget.sh TREE [BUDGETS]}
budgets=${2:-$CMSTAT_ROOT/bench/budgets}
LOGDIR=${LOGDIR:-$CMSTAT_ROOT/logs}
GATE_PREFIX=budget
abi=$(stock_abi 6.12)
kernel=$(stock_kernel_dir "$abi")/boot/vmlinuz-$abi
initrd=$(mktemp)
trap 'rm -f "$initrd"' EXIT
make_initramfs "$initrd" "$CMSTAT_ROOT/scripts/guest/bench-init" \
	"$tree"/module/cmstat.ko "$tree"/bench/cmstat_bench.ko
log=$LOGDIR/budget.log
rc=0
VM_ICOUNT=1 run_vm "$kernel" "$initrd" "$log" 600 1 quiet cmstat.bench=budget \
	cmstat.runs=5 || rc=$?
vm_attachment "$log" bench >"$log.out" ||
	die "the VM did not finish (QEMU status $rc), see $log"
if grep -E '^(error|warning) ' "$log.out"; then
	gate "budget run" 0 "the VM reported the above, log $log"
	exit 1
fi

# "sample budget CASE SIZE N" against "CASE SIZE BUDGET" lines.
awk -v budgets="$budgets" '
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
			ok = (k in got) && got[k] <= want[k]
			printf "%s  budget: %s  (%s instructions per operation, budget %s)\n",
			       ok ? "PASS" : "FAIL", k, (k in got) ? got[k] : "no figure", want[k]
		}
		for (k in got)
			if (!(k in want))
				printf "FAIL  budget: %s  (%s instructions, no budget in %s)\n",
				       k, got[k], budgets
	}' "$log.out" | tee "$log.gates"
! grep -q '^FAIL' "$log.gates"
