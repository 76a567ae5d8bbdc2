#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the whole test suite ("make check").  Installs what is missing,
# builds the test kernels (or takes them from the cache), runs the lint gates
# (scripts/lint.sh), builds our modules with W=1 against the test kernels
# and against Debian's stock 6.1 and 6.12 headers, checks what cmstat
# promises on i386 (scripts/i386-check.sh), checks the packaging
# (scripts/packaging.sh: dkms, make install, a client built against it,
# the Debian packages with scripts/deb-check.sh), boots each test kernel
# in QEMU TCG, runs the KUnit suites and the in-VM shell checks, holds the
# fast paths to their instruction budgets (scripts/budget.sh), boots
# Debian's stock 6.1 and 6.12 kernels and the arm64 6.12 one (modules
# cross-built against its headers) with the tests' modules, parses the
# KTAP with the kernel tree's kunit.py, scans the console for anything the
# kernel reported, and ends with "N passed, N failed".
#
# Knobs (environment or make variables):
#   SMP=N          vCPUs of the test VMs (default 4)
#   FILTER=glob    KUnit suite filter, kunit.filter_glob syntax (suite.case)
#   KCSAN=0        skip the KCSAN kernel
#   VM_TIMEOUT=s   seconds before a test-kernel VM counts as hung (default
#                  1800 + 300 per vCPU; the stock-kernel VMs get 900)
#   LOGDIR=dir     where console logs go (default ./logs); the logs of a
#                  failing VM are also copied to LOGDIR/failed-<time>-*.
#   CMSTAT_CACHE   kernel and package cache (default ~/.cache/cmstat)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"

SMP=${SMP:-4}
FILTER=${FILTER:-}
KCSAN=${KCSAN:-1}
VM_TIMEOUT=${VM_TIMEOUT:-$((1800 + 300 * SMP))}
# The stock-kernel VMs', also only there to catch a hang.
STOCK_VM_TIMEOUT=900
LOGDIR=${LOGDIR:-$CMSTAT_ROOT/logs}
BUILDDIR=$CMSTAT_ROOT/.build
STAMP=$(date +%Y%m%d-%H%M%S)
passed=0
failed=0

# result NAME OK DETAIL: count one check and print one line for it.
result() {
	if [ "$2" = 1 ]; then
		passed=$((passed + 1))
		printf 'PASS  %s%s\n' "$1" "${3:+  ($3)}"
	else
		failed=$((failed + 1))
		printf 'FAIL  %s%s\n' "$1" "${3:+  ($3)}"
	fi
}

# count_gates PREFIX STATUS LOG WHAT: print the gate lines a script wrote
# to LOG and count them; a script that failed (STATUS) without a FAIL line
# of its own counts as one failure.
count_gates() {
	local prefix=$1 status=$2 log=$3 what=$4 line any_fail=0
	while IFS= read -r line; do
		echo "$line"
		case "$line" in
		"PASS  $prefix: "*) passed=$((passed + 1)) ;;
		"FAIL  $prefix: "*) failed=$((failed + 1)); any_fail=1 ;;
		esac
	done <"$log"
	[ "$status" = 0 ] || [ "$any_fail" = 1 ] ||
		result "$what ran" 0 "status $status, log $log"
}

# What the kernel says when something went wrong.
CONSOLE_BAD='WARNING:|BUG:|KASAN:|kmemleak-report:|Oops|Kernel panic|general protection|UBSAN:|possible recursive locking|possible circular locking|inconsistent lock state|lock held when returning|blocked for more than|rcu_.*stall|Call [Tt]race:'

# build_modules NAME KDIR [MAKEARG...]: build a copy of the tree against
# KDIR with W=1.  Counts as one check; any compiler or modpost warning
# fails it.
build_modules() {
	local name=$1 kdir=$2 log="$BUILDDIR/$1.log" ok=1
	shift 2
	build_tree "$BUILDDIR/$name" "$kdir" W=1 "$@" || ok=0
	if [ "$(build_problems "$log")" != 0 ]; then
		ok=0
		grep -iE 'warning:|error:' "$log" | head -n 20
	fi
	result "build W=1 against $name" "$ok" "log $log"
}

# parse_section LOG SECTION NAME: run kunit.py parse on one section of the
# console log and count its tests.
parse_section() {
	local log=$1 section=$2 name=$3 part out counts p f c e
	part="${log%.log}.$section.ktap"
	awk -v s="$section" '
		{ sub(/\r$/, "") }
		/cmstat-section: / { on = ($0 ~ ("cmstat-section: " s "$")); next }
		on' "$log" >"$part"
	out=$(python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$part" 2>&1 |
		sed 's/\x1b\[[0-9;]*m//g')
	echo "$out" | grep -E '^\[[0-9:]+\] (=|-|\[|Testing|#|  )' | sed 's/^\[[0-9:]*\] //'
	counts=$(echo "$out" | grep -o 'Testing complete\. .*' | tail -n1)
	# "Ran N tests: passed: P, failed: F, crashed: C, errors: E", zeros left out
	p=$(echo "$counts" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
	f=$(echo "$counts" | sed -n 's/.*failed: \([0-9]*\).*/\1/p')
	c=$(echo "$counts" | sed -n 's/.*crashed: \([0-9]*\).*/\1/p')
	e=$(echo "$counts" | sed -n 's/.*errors: \([0-9]*\).*/\1/p')
	p=${p:-0} f=${f:-0} c=${c:-0} e=${e:-0}
	if [ $((p + f + c)) -eq 0 ]; then
		if [ -n "$FILTER" ]; then
			echo "note: no test in section $section matched FILTER=$FILTER"
		else
			result "$name: $section ran tests" 0 "no test ran"
		fi
		return
	fi
	passed=$((passed + p))
	failed=$((failed + f + c + e))
	[ "$e" -gt 0 ] && printf 'FAIL  %s: %s: %s parse errors\n' "$name" "$section" "$e"
}

# KCSAN reports, one per block from "BUG: KCSAN:" to the "=====" line.  A
# report is ours when the top frame of either racing access (the line after
# "read/write ... to 0x...") is in a cmstat module: a stack that merely
# passes through our code, because an interrupt hit it, is not.  Prints the
# log with foreign reports cut out; counts them in $KCSAN_FOREIGN_FILE.
KCSAN_AWK='
	{ sub(/\r$/, "") }
	/BUG: KCSAN:/ { blk = $0 "\n"; inb = 1; ours = 0; top = 0; next }
	inb {
		blk = blk $0 "\n"
		if (top && $0 ~ /\[cmstat/) ours = 1
		top = ($0 ~ /(read|write).* to 0x/)
		if ($0 ~ /\] ==========/) {
			inb = 0
			if (ours) printf "%s", blk; else foreign++
		}
		next
	}
	{ print }
	END { print foreign + 0 > countfile }'

# scan_console LOG NAME RC: the kernel reported nothing of ours, and the VM
# got to the end of its script.
scan_console() {
	local log=$1 name=$2 rc=$3 ok=1 foreign bad
	bad=$(awk -v countfile="$log.kcsan-foreign" "$KCSAN_AWK" "$log" |
		grep -E "$CONSOLE_BAD|cmstat-error:")
	foreign=$(cat "$log.kcsan-foreign")
	if [ -n "$bad" ]; then
		ok=0
		echo "$bad" | head -n 40
	fi
	if [ "$rc" = 124 ]; then
		ok=0
		echo "VM timed out after ${VM_TIMEOUT}s: hang"
	elif ! grep -q 'cmstat-done' "$log"; then
		ok=0
		echo "VM did not reach the end of its script (crash or panic)"
	fi
	result "$name: console clean, no hang" "$ok" \
		"$foreign KCSAN reports outside cmstat; log $log"
}

# Every VM is prepared first (modules built, initramfs made), then they boot
# one after the other.  Not in parallel: on two host cores, vCPUs of two
# VMs preempt each other, IPI-based reads wait for descheduled vCPUs, and a
# trial took longer than the sequence.  VMS holds one "name kernel
# initramfs log timeout [kernel arguments]" line per VM.
VMS=()

# build_mutant NAME KDIR: cmstat.ko, and the KUnit module if KDIR has
# KUnit, built with CMSTAT_MUTATIONS (module/mutation.c), for the mutation
# proof and the quiet reader's control; sets MUTANT_KOS to them, renamed
# cmstat_mutant.ko and cmstat_kunit_mutant.ko (their module names stay
# cmstat and cmstat_kunit).
build_mutant() {
	local kdir=$2 dir="$BUILDDIR/$1-mutant" ok=1
	MUTANT_KOS=
	build_tree "$dir" "$kdir" C=2 W=1 CMSTAT_MUTATIONS=y CMSTAT_BENCH= \
		CMSTAT_TESTS= || ok=0
	[ "$(build_problems "$dir.log")" = 0 ] || ok=0
	cp "$dir/module/cmstat.ko" "$dir/cmstat_mutant.ko" || ok=0
	if [ -e "$dir/kunit/cmstat_kunit.ko" ]; then
		cp "$dir/kunit/cmstat_kunit.ko" "$dir/cmstat_kunit_mutant.ko" || ok=0
	fi
	result "build C=2 W=1 against $1 with CMSTAT_MUTATIONS (test only)" "$ok" \
		"log $dir.log"
	[ "$ok" = 1 ] && MUTANT_KOS=$(ls "$dir"/cmstat*_mutant.ko)
}

# test_vm_prepare FLAVOUR: modules and initramfs for the FLAVOUR test kernel.
# The debug kernel also gets the mutant modules of the mutation proof.
test_vm_prepare() {
	local flavour=$1 kdir
	MUTANT_KOS=
	rm -f "$LOGDIR/check-$flavour.log"*	# no report from an earlier run
	kdir=$(bash "$CMSTAT_ROOT/scripts/test-kernel.sh" "$flavour") ||
		{ result "$flavour kernel: build test kernel" 0; return; }
	build_modules "$flavour" "$kdir"
	[ "$flavour" = debug ] && build_mutant "$flavour" "$kdir"
	make_initramfs "$BUILDDIR/initramfs-$flavour.gz" \
		"$CMSTAT_ROOT/scripts/guest/init" \
		"$BUILDDIR/$flavour"/module/*.ko "$BUILDDIR/$flavour"/bench/*.ko \
		"$BUILDDIR/$flavour"/samples/client/*.ko \
		"$BUILDDIR/$flavour"/tests/client/*.ko "$BUILDDIR/$flavour"/kunit/*.ko \
		$MUTANT_KOS
	VMS+=("$flavour $kdir/arch/x86/boot/bzImage $BUILDDIR/initramfs-$flavour.gz $LOGDIR/check-$flavour.log $VM_TIMEOUT")
}

# stock_vm_prepare ABI: Debian's own kernel ABI, with the modules built
# against its headers and the stock-init script.  Red zones on cmstat's
# caches, so that alignment and usercopy are checked where they can fail.
# The 6.12 VM also gets cmstat's test build, and its last two CPUs are
# isolated nohz_full CPUs, for the quiet reader's check.
stock_vm_prepare() {
	local abi=$1 root args="slub_debug=Z,cmstat-*" deb=()
	rm -f "$LOGDIR/check-stock-$abi.log"*
	root=$(stock_kernel_dir "$abi")
	MUTANT_KOS=
	if [ "$abi" = "$(stock_abi 6.12)" ] && [ "$SMP" -ge 4 ]; then
		build_mutant "stock-$abi" "/usr/src/linux-headers-$abi"
		args="$args nohz_full=$((SMP - 2))-$((SMP - 1)) isolcpus=$((SMP - 2))-$((SMP - 1))"
	fi
	# The Debian packages' modules, built for this kernel by the packaging
	# checks (scripts/deb-check.sh build), loaded by stock-init after the
	# tree's own.
	[ "$(cat "$BUILDDIR/deb-check/vm/abi" 2>/dev/null)" = "$abi" ] &&
		deb=("$BUILDDIR"/deb-check/vm/deb-*.ko)
	make_initramfs "$BUILDDIR/initramfs-stock-$abi.gz" \
		"$CMSTAT_ROOT/scripts/guest/stock-init" \
		"$BUILDDIR/stock-$abi"/module/*.ko \
		"$BUILDDIR/stock-$abi"/samples/client/*.ko \
		"$BUILDDIR/stock-$abi"/tests/client/*.ko $MUTANT_KOS "${deb[@]}"
	VMS+=("stock-$abi $root/boot/vmlinuz-$abi $BUILDDIR/initramfs-stock-$abi.gz $LOGDIR/check-stock-$abi.log $STOCK_VM_TIMEOUT $args")
}

# arm64_vm_prepare: Debian's arm64 6.12 kernel, the same release as the
# stock 6.12 VM's, on QEMU's arm64 "virt" board: cmstat, the sample client
# and the test client cross-built against its headers, run by stock-init
# as on x86.  There DMA is not coherent, and the test client's alignment
# check can fail: it boots twice, as Debian ships it (small kmalloc()
# buffers bounced through a swiotlb) and with swiotlb=noforce (no bounce
# buffer: kmalloc()'s minimum alignment is a cache line).  Sets ARM64_ABI.
arm64_vm_prepare() {
	local dir kdir tree initrd args="slub_debug=Z,cmstat-*"
	ARM64_ABI="$(stock_abi 6.12)" && ARM64_ABI=${ARM64_ABI%-amd64}-arm64
	rm -f "$LOGDIR/check-stock-$ARM64_ABI"*.log*
	dir=$(arm64_stock_dir "$ARM64_ABI")
	kdir=$dir/usr/src/linux-headers-$ARM64_ABI
	tree=$BUILDDIR/stock-$ARM64_ABI
	build_modules "stock-$ARM64_ABI" "$kdir" ARCH=arm64 \
		CROSS_COMPILE=aarch64-linux-gnu- CMSTAT_BENCH=
	initrd=$BUILDDIR/initramfs-stock-$ARM64_ABI.gz
	VM_BUSYBOX=$dir/busybox make_initramfs "$initrd" \
		"$CMSTAT_ROOT/scripts/guest/stock-init" "$tree"/module/*.ko \
		"$tree"/samples/client/*.ko "$tree"/tests/client/*.ko
	VMS+=("stock-$ARM64_ABI $dir/boot/vmlinuz-$ARM64_ABI $initrd $LOGDIR/check-stock-$ARM64_ABI.log $STOCK_VM_TIMEOUT $args")
	VMS+=("stock-$ARM64_ABI-noforce $dir/boot/vmlinuz-$ARM64_ABI $initrd $LOGDIR/check-stock-$ARM64_ABI-noforce.log $STOCK_VM_TIMEOUT $args swiotlb=noforce")
}

# boot_all: run every VM (run_vm boots once more a kernel that crashed
# before loading cmstat); each QEMU status goes to LOG.rc.
boot_all() {
	local vm name kernel initrd log tmo args rc arch smp
	for vm in "${VMS[@]}"; do
		read -r name kernel initrd log tmo args <<<"$vm"
		# The arm64 VMs check alignment and a driver's use, not
		# concurrency: 2 vCPUs boot them faster.
		arch=x86_64 smp=$SMP
		case "$kernel" in *-arm64) arch=arm64 smp=2 ;; esac
		log "booting $name with $smp vCPUs, console log: $log"
		rc=0
		VM_ARCH=$arch run_vm "$kernel" "$initrd" "$log" "$tmo" "$smp" "$args" \
			${FILTER:+kunit.filter_glob=$FILTER} || rc=$?
		echo "$rc" >"$log.rc"
	done
}

# test_vm_report FLAVOUR: parse and scan what the FLAVOUR test VM printed.
test_vm_report() {
	local flavour=$1 name="$1 kernel" log="$LOGDIR/check-$1.log" before=$failed
	echo "console log: $log"
	parse_section "$log" kunit "$name"
	parse_section "$log" shell "$name"
	parse_section "$log" kunit-debug "$name"
	if [ "$flavour" = debug ] && [ -z "$FILTER" ]; then
		for m in 0 1 2; do
			parse_section "$log" "kunit-mutation-$m" "$name"
		done
	fi
	scan_console "$log" "$name" "$(cat "$log.rc")"
	grep -ho '# [a-z_]*: cpus=.*' "$log" | sed 's/^/  /'
	if [ "$failed" -gt "$before" ]; then
		cp "$log" "$LOGDIR/failed-$STAMP-$flavour.log"
		echo "kept failing log: $LOGDIR/failed-$STAMP-$flavour.log"
	fi
}

# stock_vm_report ABI: every step ok and nothing on the console.
stock_vm_report() {
	local abi=$1 log="$LOGDIR/check-stock-$1.log" ok=1
	tr -d '\r' <"$log" | grep -o 'cmstat-stock: .*' | sed 's/^/  /'
	if grep -q 'cmstat-stock: FAIL' "$log" || ! grep -q cmstat-stock-done "$log" ||
	   grep -qE "$CONSOLE_BAD" "$log"; then
		ok=0
		grep -E "$CONSOLE_BAD" "$log" | head -n 10
		cp "$log" "$LOGDIR/failed-$STAMP-stock-$abi.log"
	fi
	result "stock $abi: load, workload, debugfs, sysfs, unload" "$ok" \
		"QEMU status $(cat "$log.rc"); log $log"
}

start=$(date +%s)
mkdir -p "$LOGDIR" "$BUILDDIR"
ensure_pkgs "${HOST_PKGS[@]}"
KSRC=$(kernel_source)

# The packaging checks take one core for some 50 s (15 without the Debian
# packages).  The builds and lint below are serial, so the checks run
# beside them on the other core, and are collected before any VM boots,
# whose vCPUs they would slow, and before the stock VMs' initramfs, which
# gets the packages' modules.  Everything they install is installed here,
# first: two apt runs at once would fight over dpkg's lock.
ensure_pkgs "${DEB_PKGS[@]}" "${ARM64_PKGS[@]}"
pkg_abi=$(stock_abi 6.12)	# installs the headers if need be
pkg_log=$BUILDDIR/packaging.log
JOBS=1 bash "$CMSTAT_ROOT/scripts/packaging.sh" "$pkg_abi" >"$pkg_log" 2>&1 &
pkg_pid=$!
trap 'kill "$pkg_pid" 2>/dev/null' EXIT

stock_abis=
for series in 6.1 6.12; do
	abi=$(stock_abi "$series")
	stock_abis="$stock_abis $abi"
	build_modules "stock-$abi" "/usr/src/linux-headers-$abi"
done
arm64_vm_prepare

# What cmstat promises on a 32-bit kernel, at compile time against an
# i386 kernel tree (configured, not built: cached, seconds once made).
bash "$CMSTAT_ROOT/scripts/i386-check.sh" >"$BUILDDIR/i386.log" 2>&1
count_gates i386 $? "$BUILDDIR/i386.log" "i386: scripts/i386-check.sh"

# Style and static analysis, against the debug test kernel.
bash "$CMSTAT_ROOT/scripts/lint.sh" "$KSRC" \
	"$(bash "$CMSTAT_ROOT/scripts/test-kernel.sh" debug)" >"$BUILDDIR/lint.log" 2>&1
count_gates lint $? "$BUILDDIR/lint.log" "lint: scripts/lint.sh"

flavours=debug
[ "$KCSAN" = 1 ] && flavours="debug kcsan"
for flavour in $flavours; do
	test_vm_prepare "$flavour"
done

pkg_wait=$(date +%s)
wait "$pkg_pid"
pkg_rc=$?
trap - EXIT
count_gates packaging "$pkg_rc" "$pkg_log" "packaging: scripts/packaging.sh"
echo "packaging checks: make check waited $(($(date +%s) - pkg_wait)) s for them"

for abi in $stock_abis; do
	stock_vm_prepare "$abi"
done

boot_all
# The instruction budgets (scripts/budget.sh): one more, short VM, of the
# stock 6.12 kernel with the modules built against its headers above.
LOGDIR=$LOGDIR bash "$CMSTAT_ROOT/scripts/budget.sh" "$BUILDDIR/stock-$(stock_abi 6.12)" \
	>"$BUILDDIR/budget.log" 2>&1
count_gates budget $? "$BUILDDIR/budget.log" "budget: scripts/budget.sh"
for flavour in $flavours; do
	test_vm_report "$flavour"
done
for abi in $stock_abis "$ARM64_ABI" "$ARM64_ABI-noforce"; do
	stock_vm_report "$abi"
done

# The Debian packages' modules in the stock VM of their kernel, its
# Prometheus text, and the exporter on a copy of its debugfs files.
GATE_PREFIX="packaging: deb" bash "$CMSTAT_ROOT/scripts/deb-check.sh" report \
	"$LOGDIR/check-stock-$pkg_abi.log" >"$BUILDDIR/deb-report.log" 2>&1
count_gates packaging $? "$BUILDDIR/deb-report.log" "packaging: scripts/deb-check.sh report"

echo "make check took $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
