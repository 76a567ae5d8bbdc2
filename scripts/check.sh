#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the whole test suite ("make check").  Installs what is missing;
# for every kernel flavour (scripts/harness/flavours.py: the test
# kernels, Debian's stock kernels of 6.1, 6.12, 6.12 PREEMPT_RT and arm64,
# Debian 13's 6.12 and newest 7.x, and a whole Debian 13 system) gets the
# kernel (built or fetched once, cached), builds our modules with W=1
# against it and boots its VMs, side by side; checks what cmstat promises
# on i386 (scripts/i386-check.sh), adopts modules of every kind from the
# kernel source (scripts/adopt-sweep.sh), runs the lint gates
# (scripts/lint.sh) and the packaging checks (scripts/packaging.sh), holds
# the fast paths to their instruction budgets (scripts/budget.sh), reads
# dumps of a stock VM's memory with cmstat-drgn (scripts/drgn-check.sh),
# and checks the Debian packages' output in the stock VM
# (scripts/deb-check.sh report).
#
# Every stage prints one KTAP document; they are nested as the subtests of
# one document, $LOGDIR/check.ktap, which the kernel tree's kunit_parser
# reads once (scripts/harness/report.py).  The last line, "N passed, N
# failed", has its counts; the exit status is non-zero on any failure, and
# when no test ran.
#
# Knobs (environment or make variables):
#   SMP=N          vCPUs of the test VMs (default 4)
#   FILTER=glob    KUnit suite filter, kunit.filter_glob syntax (suite.case)
#   KCSAN=0        skip the KCSAN kernel
#   DEBUG_VMS=N    VMs the debug kernel's checks are shared out to (2)
#   VM_JOBS=N      VMs running at once (2)
#   VM_TIMEOUT=s   seconds before a test-kernel VM counts as hung (default
#                  3600 + 300 per vCPU; the stock-kernel VMs get 1800)
#   LOGDIR=dir     where console logs go (default ./logs); the logs of a
#                  failing VM are also copied to LOGDIR/failed-<time>-*.
#   CMSTAT_CACHE   kernel and package cache (default ~/.cache/cmstat)
#   ONLY=a,b       a developer's loop: only these flavours (their builds and
#                  VMs), without the packaging, i386, lint, budget, drgn
#                  and Debian-package stages; not a test run of record
#   CHECKS="a b"   only these checks (scripts/guest/checks/NAME.sh), with ONLY
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/test-vms.sh"
. "$(dirname "$0")/trixie-lib.sh"

SMP=${SMP:-4}
FILTER=${FILTER:-}
KCSAN=${KCSAN:-1}
DEBUG_VMS=${DEBUG_VMS:-2}
ONLY=${ONLY:-}
CHECKS=${CHECKS:-}
VM_TIMEOUT=${VM_TIMEOUT:-$((3600 + 300 * SMP))}
# The stock-kernel VMs', also only there to catch a hang.
STOCK_VM_TIMEOUT=1800
LOGDIR=${LOGDIR:-$CMSTAT_ROOT/logs}
BUILDDIR=$CMSTAT_ROOT/.build
KTAPDIR=$BUILDDIR/ktap
STAMP=$(date +%Y%m%d-%H%M%S)
# The program's part of the host side reads these (scripts/harness).
export SMP DEBUG_VMS ONLY KCSAN CHECKS
# What turns a line of the kernel flavours' table into builds and VMs.
. "$(dirname "$0")/flavours.sh"

# stage NAME COMMAND...: run a producer of KTAP, its document kept as the
# stage NAME (its stderr in NAME.log).
STAGES=()
stage() {
	local name=$1
	shift
	"$@" >"$KTAPDIR/$name.ktap" 2>"$KTAPDIR/$name.log"
	echo $? >"$KTAPDIR/$name.rc"
	STAGES+=("$name")
}

# build_modules NAME KDIR [MAKEARG...]: build a copy of the tree in
# $BUILDDIR/NAME against KDIR with W=1; any compiler, sparse or modpost
# warning fails it.
build_modules() {
	local name=$1 kdir=$2 ok=1
	shift 2
	build_tree "$BUILDDIR/$name" "$kdir" W=1 -j"$JOBS" "$@" || ok=0
	build_verdict "$name${*:+ $*}" "$BUILDDIR/$name.log" "$ok"
}

# trixie_modules NAME ABI: as build_modules, in the Debian 13 root, with
# its gcc-14, against the headers of ABI there (scripts/trixie-lib.sh).
trixie_modules() {
	local ok=1
	trixie_build_tree "$BUILDDIR/$1" "$2" W=1 -j"$JOBS" || ok=0
	build_verdict "$1" "$BUILDDIR/$1.log" "$ok"
}

# build_mutant NAME KDIR [MAKEARG...]: cmstat.ko, and the KUnit module if
# KDIR has KUnit, built with CMSTAT_MUTATIONS (module/mutation.c) for the
# mutation proof and the quiet reader's control, renamed cmstat_mutant.ko
# and cmstat_kunit_mutant.ko (their module names stay cmstat and
# cmstat_kunit).
build_mutant() {
	local name=$1 kdir=$2 dir="$BUILDDIR/$1-mutant"
	shift 2
	build_modules "$name-mutant" "$kdir" CMSTAT_MUTATIONS=y CMSTAT_BENCH= CMSTAT_TESTS= "$@"
	cp "$dir/module/cmstat.ko" "$dir/cmstat_mutant.ko" 2>/dev/null
	[ -e "$dir/kunit/cmstat_kunit.ko" ] &&
		cp "$dir/kunit/cmstat_kunit.ko" "$dir/cmstat_kunit_mutant.ko"
}

# build_adopted NAME KDIR MODDIR SERIES [MAKEARG...]: the in-tree modules
# of the adoption check (scripts/adopt-build.sh), from the kernel source of
# SERIES (6.1 or 6.12; trixie:ABI, Debian 13's source of that kernel, built
# in the Debian 13 root), built against KDIR and the tree built as NAME, in
# $BUILDDIR/NAME-adopt; MODDIR has the kernel's modules.  With SITES=1,
# also with call-site rows; with RUNTIME=1, the runtime check's modules
# too (scripts/guest/checks/adopt-runtime.sh).
build_adopted() {
	local name=$1 out=$BUILDDIR/$1-adopt kdir=$2 moddir=$3 series=$4 ok=1 src
	local env=(ADOPT_SITES="${SITES:-0}" ADOPT_RUNTIME="${RUNTIME:-0}") what
	what="ext2, null_blk and cmstat_adopt_test"
	[ "${RUNTIME:-0}" = 0 ] || what="ext2, null_blk, cmstat_adopt_test and the runtime check's modules"
	shift 4
	case "$series" in
	trixie:*)
		env+=(ADOPT_ROOT="$TRIXIE_ROOT" ADOPT_BIND="$BUILDDIR")
		kdir=/usr/src/linux-headers-${series#trixie:}
		src=$(trixie_source "${series#trixie:}" 2>"$out.log") || ok=0 ;;
	*)	src=$(kernel_source "$series" 2>"$out.log") || ok=0 ;;
	esac
	[ "$ok" = 1 ] &&
		env "${env[@]}" bash "$CMSTAT_ROOT/scripts/adopt-build.sh" "$src" "$kdir" "$moddir" \
			"$BUILDDIR/$name" "$out" "$@" >/dev/null 2>>"$out.log" || ok=0
	[ "$ok" = 1 ] || ktap_diag "$(cat "$out.log"; grep -ihE 'warning:|error:' "$out"/*.log | head -n 20)"
	ktap_result "$name adopted $what" "$ok" "logs $out/*.log"
	adoption_reports "$name" "$out"
}

# adoption_reports NAME OUT: scripts/cmstat-adopt-check on the modules
# adopted for NAME in OUT, their reports as diagnostics.  None may have a
# call missed; the negative control, cmstat_adopt_miss, must have each of
# its lines marked ADOPT-MISS named missed, and no other.
adoption_reports() {
	local out=$2 ko report ok=1 status=0 want got
	for ko in "$out"/ext2.ko "$out"/null_blk.ko "$out"/cmstat_adopt_test.ko "$out"/*-runtime.ko; do
		[ -e "$ko" ] || continue	# no runtime modules: the glob itself
		report=$("$CMSTAT_ROOT/scripts/cmstat-adopt-check" "$ko" 2>&1) || ok=0
		ktap_diag "$report"
	done
	ktap_result "$1 adoption reports: nothing missed" "$ok"
	ok=1
	report=$("$CMSTAT_ROOT/scripts/cmstat-adopt-check" "$out/cmstat_adopt_miss.ko" 2>&1) ||
		status=$?
	want=$(grep -n '/\* ADOPT-MISS \*/' "$CMSTAT_ROOT/tests/adopt-miss/cmstat_adopt_miss.c" |
		cut -d: -f1 | sort -u | xargs)
	got=$(sed -n 's/^[^ ]*: missed .* cmstat_adopt_miss\.c:\([0-9]*\)[ ,:].*/\1/p' <<<"$report" |
		sort -u | xargs)
	[ "$status" = 1 ] && [ "$want" = "$got" ] || ok=0
	ktap_diag "$report"
	ktap_result "$1 adoption report names each miss of cmstat_adopt_miss" "$ok" \
		"lines $want marked, lines ${got:-none} named missed, exit status $status"
}

# modules_of NAME: the modules of the tree built as NAME, for a VM, and
# what the adoption check needs.
modules_of() {
	local t=$BUILDDIR/$1
	ls "$t"/module/*.ko "$t"/samples/client/*.ko "$t"/tests/client/*.ko \
		"$t"/bench/*.ko "$t"/kunit/*.ko "$BUILDDIR/$1-mutant"/*_mutant.ko \
		"$t-adopt"/*.ko "$t-adopt"/*.img.gz "$t-adopt"/sections "$t-adopt"/adopt-deps 2>/dev/null
}

# builds_and_vms: every flavour's builds, each VM started once its
# modules are built, in the order of the table (scripts/harness/flavours.py;
# scripts/flavours.sh does each line).  Prints the KTAP of the builds.
builds_and_vms() {
	local lines line tags nowhere
	if ! lines=$(harness flavours 2>"$KTAPDIR/flavours.err"); then
		ktap_diag "$(cat "$KTAPDIR/flavours.err")"
		ktap_result "the flavours' table is valid" 0 "scripts/harness/flavours.py"
		ktap_print
		return
	fi
	mapfile -t lines <<<"$lines"
	ktap_result "the flavours' table is valid" 1 "${#lines[@]} flavours in this run"
	mapfile -t tags < <(harness flavours --tags)
	nowhere=$(harness checks nowhere "${tags[@]}")
	ktap_result "every check names a kernel" "$([ -z "$nowhere" ] && echo 1)" \
		"${nowhere:+runs nowhere: }${nowhere:-$(harness checks for "${tags[@]}" | wc -w) checks}"
	for line in "${lines[@]}"; do
		flavour "$line"
	done
	wait "$PKG_PID"
	ktap_print
}

start=$(date +%s)
rm -rf "$KTAPDIR"
mkdir -p "$LOGDIR" "$KTAPDIR"
ensure_pkgs "${HOST_PKGS[@]}"
KSRC=$(kernel_source)

# The packaging checks run beside the builds.  Everything they install is
# installed here, first: two apt runs at once would fight over dpkg's lock.
ensure_pkgs "${DEB_PKGS[@]}" "${ARM64_PKGS[@]}"
PKG_ABI=$(stock_abi 6.12)
if [ -n "$ONLY" ]; then
	true &
else (
	JOBS=1 bash "$CMSTAT_ROOT/scripts/packaging.sh" "$PKG_ABI" \
		>"$KTAPDIR/packaging.ktap" 2>"$KTAPDIR/packaging.log"
	echo $? >"$KTAPDIR/packaging.rc"
) &
fi
PKG_PID=$!
trap 'kill "$PKG_PID" 2>/dev/null; vm_kill_all' EXIT

TEST_VMS=()
stage build builds_and_vms
[ -n "$ONLY" ] || {
STAGES+=(packaging)
stage i386 bash "$CMSTAT_ROOT/scripts/i386-check.sh"
stage lint env LINT_TREE="$BUILDDIR/debug" bash "$CMSTAT_ROOT/scripts/lint.sh" "$KSRC" \
	"$(bash "$CMSTAT_ROOT/scripts/kernel.sh" debug)"
# The adoption line on modules of every kind, from the kernel source,
# against Debian's 6.12 headers (scripts/adopt-sweep.sh).
stage adopt-sweep bash "$CMSTAT_ROOT/scripts/adopt-sweep.sh" "$KSRC" \
	"/usr/src/linux-headers-$PKG_ABI" "$(stock_kernel_dir "$PKG_ABI")/lib/modules/$PKG_ABI" \
	"$BUILDDIR/stock-$PKG_ABI" "$BUILDDIR/adopt-sweep"
# cmstat in a kernel tree (scripts/intree.py), its KUnit suites run by
# kunit.py on UML: in Debian 12's 6.12 source and in the newest Debian 13
# has (the next flavour's).
stage kunit-uml bash "$CMSTAT_ROOT/scripts/kunit-intree.sh" "$KSRC" \
	"$(trixie_source "$(trixie_headers backports)")"
# The instruction budgets: one more, short VM, of the stock 6.12 kernel,
# with the modules built against its headers.
stage budget env LOGDIR="$LOGDIR" bash "$CMSTAT_ROOT/scripts/budget.sh" \
	"$BUILDDIR/stock-$(stock_abi 6.12)"
# cmstat-drgn on two dumps of a stock 6.12 VM's memory, against the
# guest's own cuts (scripts/drgn-check.sh).
stage drgn env LOGDIR="$LOGDIR" bash "$CMSTAT_ROOT/scripts/drgn-check.sh" \
	"$BUILDDIR/stock-$(stock_abi 6.12)"
}
vm_wait_all
trap - EXIT
for vm in "${TEST_VMS[@]}"; do
	stage "vm $vm" vm_report "$vm"
	grep -q '^not ok' "$KTAPDIR/vm $vm.ktap" &&
		cp "$LOGDIR/check-$vm.log" "$LOGDIR/failed-$STAMP-$vm.log"
done
[ -n "$ONLY" ] || {
harness checks record debug "$LOGDIR"/check-debug*.log.ktap
# The Debian packages' modules in the stock VM of their kernel: its
# Prometheus text, and the exporter on a copy of its debugfs files.
stage deb-report bash "$CMSTAT_ROOT/scripts/deb-check.sh" report \
	"$LOGDIR/check-stock-6.12.log"
}

# Every stage's document nested in one, $LOGDIR/check.ktap, which the
# report reads with kunit.py's parser (scripts/harness/report.py).
ktap_reset
for name in "${STAGES[@]}"; do
	ktap_subtest "$name" "$KTAPDIR/$name.ktap" "$(cat "$KTAPDIR/$name.rc")"
done
ktap_print >"$LOGDIR/check.ktap"
harness report --start "$start" "$KSRC" "$LOGDIR"
