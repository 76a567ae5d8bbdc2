#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# drgn-check.sh [TREE] ("make drgn-check"; a stage of make check): the
# drgn script, scripts/cmstat-drgn, on dumps of a guest's memory.  Boots
# Debian's stock 6.12 kernel with TREE's modules (built against its
# headers; built here if TREE is not given), where scripts/guest/drgn-init
# leaves heaps, typed caches, orphans and a destroyed heap behind and
# stops twice: once quiet, once with a writer section held open on CPU 1.
# At each stop the guest prints its own cut (its stats file), and the host
# dumps the guest's memory with QEMU's dump-guest-memory, answers on the
# guest's second serial port, and runs cmstat-drgn on the dump with
# Debian's vmlinux (linux-image-*-dbg) and TREE's cmstat.ko:
#   - its stats document must equal the guest's, figure for figure (the
#     epoch aside: the orphan reaper's own cuts may come in between);
#   - its report must name the held section, on CPU 1, and no other;
#   - without the kernel's or cmstat's debug info, it must refuse, saying
#     which it lacks.
# Prints one KTAP document (scripts/ktap.sh); exits non-zero on a failure.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"
. "$(dirname "$0")/ktap.sh"

vm_dirs
ensure_pkgs "${HOST_PKGS[@]}"
if [ -n "${1:-}" ]; then
	tree=$1
	abi=$(stock_abi 6.12)
else
	stock_612_tree drgn
	tree=$STOCK_TREE abi=$STOCK_ABI
fi
kernel=$(stock_kernel_dir "$abi")
vmlinux=$(stock_vmlinux "$abi")
work=$BUILDDIR/drgn
rm -rf "$work" && mkdir -p "$work"
vm=
trap 'rc=$?; [ -z "$vm" ] || pkill -P "$vm" || true; rm -f "$work"/*.vmcore; exit $rc' EXIT

# The driver QEMU's vmcoreinfo device needs, uncompressed: busybox's
# insmod reads no .ko.xz.
xz -dc "$kernel/lib/modules/$abi/kernel/drivers/firmware/qemu_fw_cfg.ko.xz" \
	>"$work/qemu_fw_cfg.ko"
make_initramfs "$work/initramfs.gz" "$CMSTAT_ROOT/scripts/guest/drgn-init" \
	"$tree"/module/cmstat.ko "$tree"/samples/client/cmstat_demo.ko \
	"$tree"/tests/client/cmstat_client_test.ko \
	"$tree"/tests/client/cmstat_sites_test.ko "$work/qemu_fw_cfg.ko"

# The guest's second serial port reads what the host writes to ctl.in.
# Both ports named: a serial port of QEMU's options takes the place of
# -nographic's own, the console.
mkfifo "$work/ctl.in" "$work/ctl.out"
log=$LOGDIR/drgn.log
rm -f "$log"	# dump() must not find an earlier run's stops
qmp=$work/qmp.sock
# no5lvl: four-level page tables, which drgn 0.0.22 (Debian 12's) walks.
VM_QEMU_ARGS="-device vmcoreinfo -qmp unix:$qmp,server=on,wait=off
	-serial stdio -serial pipe:$work/ctl" \
	run_vm "$kernel/boot/vmlinuz-$abi" "$work/initramfs.gz" "$log" \
	$((900 * (1 + $(nproc) / 2))) 2 quiet no5lvl &
vm=$!

# dump NAME: wait for the guest's stop NAME, dump its memory to
# NAME.vmcore, and let the guest go on, with the answer "dumped" or
# "failed".  Fails if the VM ended first or the dump failed.
dump() {
	local answer=dumped
	until grep -q "cmstat-drgn-dump $1" "$log" 2>/dev/null; do
		kill -0 "$vm" 2>/dev/null || return 1
		sleep 1
	done
	python3 "$CMSTAT_ROOT/scripts/qmp-dump.py" "$qmp" "$work/$1.vmcore" || answer=failed
	echo "$answer" >"$work/ctl.in"
	[ "$answer" = dumped ]
}

# judge NAME SECTIONS: cmstat-drgn on NAME.vmcore against the guest's
# cut; SECTIONS, a regular expression, what its report must say of the
# open writer sections.
judge() {
	local name=$1 sections=$2 out=$work/$1 ok=1
	# Debian's python3, which python3-drgn is for, whatever python3 PATH finds.
	if ! /usr/bin/python3 "$CMSTAT_ROOT/scripts/cmstat-drgn" -c "$work/$name.vmcore" \
		-s "$vmlinux" -s "$tree/module/cmstat.ko" --stats "$out.stats" \
		>"$out.report" 2>"$out.err"; then
		ktap_diag "$(cat "$out.err")"
		ktap_result "$name: cmstat-drgn read the dump" 0
		return
	fi
	ktap_diag "$(sed 's/^/cmstat-drgn: /' "$out.report")"
	ktap_result "$name: cmstat-drgn read the dump" 1
	vm_attachment "$log" "drgn.$name" >"$out.guest"
	if ! diff -u <(grep -v '^epoch ' "$out.guest") <(grep -v '^epoch ' "$out.stats") \
		>"$out.diff"; then
		ktap_diag "$(head -n 40 "$out.diff")"
		ok=0
	fi
	ktap_result "$name: every figure as the guest's cut ($(grep -c . "$out.guest") lines)" "$ok"
	ok=0
	tr '\n' ' ' <"$out.report" | grep -qE "$sections" && ok=1
	ktap_result "$name: the open sections named" "$ok" "expected: $sections"
	[ "$name" = quiet ] && refusals "$name"
	rm -f "$work/$name.vmcore"
}

# refusals NAME: cmstat-drgn on NAME.vmcore without one of its debug
# infos: status 1 and a message that says which.
refusals() {
	local core=$work/$1.vmcore out=$work/$1.refused status ok
	for case in "the kernel:-s $tree/module/cmstat.ko" "cmstat:-s $vmlinux"; do
		status=0 ok=0
		# shellcheck disable=SC2086 # the case's options, split
		/usr/bin/python3 "$CMSTAT_ROOT/scripts/cmstat-drgn" -c "$core" ${case#*:} \
			>/dev/null 2>"$out" || status=$?
		[ "$status" = 1 ] && grep -q "no debug info for ${case%%:*}:" "$out" && ok=1
		ktap_result "refused without the debug info of ${case%%:*}" "$ok" \
			"status $status: $(cat "$out")"
	done
}

# What the report must say: nothing open; one section, on CPU 1.  Not
# whether CPU 1 is outside it: the thread that holds it wakes ten times a
# second, and a dump that finds it in schedule(), preemption off at the
# section's depth, cannot tell.
expected=(quiet 'open writer sections: none'
	held 'open writer sections: 1 +CPU 1: a section at preemption depth 1 ')
for ((i = 0; i < ${#expected[@]}; i += 2)); do
	point=${expected[i]}
	dump "$point" || { ktap_result "$point: dumped" 0 "the VM ended first or the dump failed, log $log"; break; }
	ktap_result "$point: dumped" 1
	judge "$point" "${expected[i + 1]}"
done
wait "$vm" || true
vm=
if ! vm_attachment "$log" drgn >"$log.out" || grep -q '^error' "$log.out"; then
	ktap_diag "$(grep '^error' "$log.out")"
	ktap_result "guest finished" 0 "log $log"
else
	ktap_result "guest finished" 1
fi
ktap_print
