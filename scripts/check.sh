#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the whole test suite ("make check").  Installs what is missing,
# builds the test kernels (or takes them from the cache), builds our
# modules with W=1 against them and against the headers of Debian's stock
# kernels (STOCK_FLAVOURS: 6.1, 6.12, 6.12 PREEMPT_RT, Debian 13's newest
# 7.x, arm64 6.12; the Debian 13 ones in a Debian 13 root), checks
# what cmstat promises on i386 (scripts/i386-check.sh), runs the lint
# gates (scripts/lint.sh) and the packaging checks (scripts/packaging.sh),
# boots every test VM (the debug kernel's checks shared out between
# several VMs, the KCSAN kernel, one VM per stock kernel) side by side,
# holds the fast paths to their instruction budgets (scripts/budget.sh),
# and checks the Debian packages' output in the stock VM
# (scripts/deb-check.sh report).
#
# Every stage prints one KTAP document; they are nested as the subtests of
# one document, $LOGDIR/check.ktap, which the kernel tree's kunit.py
# parses once.  The last line, "N passed, N failed", has its counts; the
# exit status is non-zero on any failure, and when no test ran.
#
# Knobs (environment or make variables):
#   SMP=N          vCPUs of the x86 test VMs (default 4)
#   FILTER=glob    KUnit suite filter, kunit.filter_glob syntax (suite.case)
#   KCSAN=0        skip the KCSAN kernel
#   DEBUG_VMS=N    VMs the debug kernel's checks are shared out to (2)
#   VM_JOBS=N      VMs running at once (2)
#   VM_TIMEOUT=s   seconds before a test-kernel VM counts as hung (default
#                  3600 + 300 per vCPU; the stock-kernel VMs get 1800)
#   LOGDIR=dir     where console logs go (default ./logs); the logs of a
#                  failing VM are also copied to LOGDIR/failed-<time>-*.
#   CMSTAT_CACHE   kernel and package cache (default ~/.cache/cmstat)
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
VM_TIMEOUT=${VM_TIMEOUT:-$((3600 + 300 * SMP))}
# The stock-kernel VMs', also only there to catch a hang.
STOCK_VM_TIMEOUT=1800
LOGDIR=${LOGDIR:-$CMSTAT_ROOT/logs}
BUILDDIR=$CMSTAT_ROOT/.build
KTAPDIR=$BUILDDIR/ktap
STAMP=$(date +%Y%m%d-%H%M%S)

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

# build_adopted NAME KDIR MODDIR: the in-tree modules of the adoption
# check (scripts/adopt-build.sh), built against KDIR and the tree built as
# NAME, in $BUILDDIR/NAME-adopt; MODDIR has the kernel's modules.
build_adopted() {
	local out=$BUILDDIR/$1-adopt ok=1
	bash "$CMSTAT_ROOT/scripts/adopt-build.sh" "$KSRC" "$2" "$3" "$BUILDDIR/$1" \
		"$out" >/dev/null 2>"$out.log" || ok=0
	[ "$ok" = 1 ] || ktap_diag "$(cat "$out.log"; grep -ihE 'warning:|error:' "$out"/*.log | head -n 20)"
	ktap_result "$1 adopted ext2 and null_blk" "$ok" "logs $out/*.log"
}

# modules_of NAME: the modules of the tree built as NAME, for a VM, and
# what the adoption check needs.
modules_of() {
	local t=$BUILDDIR/$1
	ls "$t"/module/*.ko "$t"/samples/client/*.ko "$t"/tests/client/*.ko \
		"$t"/bench/*.ko "$t"/kunit/*.ko "$BUILDDIR/$1-mutant"/*_mutant.ko \
		"$t-adopt"/*.ko "$t-adopt"/sections "$t-adopt"/adopt-deps 2>/dev/null
}

# The test kernels: built from Debian's linux-source-6.12 by
# scripts/kernel.sh, from kunit/base.config, the arch's fragment and
# kunit/NAME.config.  One line each: the name (a "# kernels:" tag), the
# arch, the VMs its checks are shared out between, and what is built
# against it beside the modules: C=2 (sparse; lint.sh takes the debug
# build's log, LINT_TREE), mutant (cmstat and its KUnit module built to
# break the protocol, for the mutation proof), adopted (the in-tree
# modules of the adoption check).
#   debug: KASAN, lockdep, kmemleak and the rest; every check but the
#     stock ones.
#   kcsan: the data races; skipped with KCSAN=0.
#   rt: PREEMPT_RT, the KUnit suites and the mutation proof.
#   kunit-arm64: weak ordering and non-coherent DMA, the same.
TEST_KERNELS=(
	"debug x86_64 $DEBUG_VMS C=2 mutant adopted"
	"kcsan x86_64 1"
	"rt x86_64 1 mutant"
	"kunit-arm64 arm64 1 mutant"
)

# test_kernel_vms NAME ARCH VMS [WHAT...]: one line of TEST_KERNELS: the
# test kernel, our modules built against it (cross-built for arm64), and
# its checks shared out between VMS VMs, started.
test_kernel_vms() {
	local flavour=$1 arch=$2 nvms=$3 kdir i=0 checks kos image busybox=''
	local make=() what
	shift 3
	[ "$flavour" = kcsan ] && [ "$KCSAN" != 1 ] && return
	kdir=$(bash "$CMSTAT_ROOT/scripts/kernel.sh" "$flavour") ||
		{ ktap_result "$flavour kernel" 0 "scripts/kernel.sh $flavour failed"; return; }
	image=$kdir/arch/x86/boot/bzImage
	if [ "$arch" = arm64 ]; then
		make=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CMSTAT_BENCH=)
		image=$kdir/arch/arm64/boot/Image
		busybox=$(arm64_stock_dir "$(stock_abi 6.12 | sed 's/-amd64$/-arm64/')")/busybox
	fi
	for what in "$@"; do
		case "$what" in C=2) make+=(C=2) ;; esac
	done
	build_modules "$flavour" "$kdir" "${make[@]}"
	for what in "$@"; do
		case "$what" in
		mutant) build_mutant "$flavour" "$kdir" "${make[@]}" ;;
		adopted) build_adopted "$flavour" "$kdir" "$kdir" ;;
		esac
	done
	mapfile -t kos < <(modules_of "$flavour")
	# shellcheck disable=SC2046 # one word per check
	share_checks "$flavour" "$nvms" $(checks_for "$flavour") |
	while read -r checks; do
		i=$((i + 1))
		VM_BUSYBOX=$busybox VM_CHECKS=$checks make_initramfs \
			"$BUILDDIR/initramfs-$flavour-$i.gz" "$CMSTAT_ROOT/scripts/guest/init" "${kos[@]}"
	done
	for i in $(seq "$nvms"); do
		vm_start "$flavour-$i" "$arch" "$image" "$BUILDDIR/initramfs-$flavour-$i.gz" "$SMP" \
			"$VM_TIMEOUT"
		TEST_VMS+=("$flavour-$i")
	done
}

# stock_vm NAME BUILD ARCH KERNEL SMP [CMDLINE...]: a stock kernel's VM,
# with the modules built as BUILD, started.  Red zones on cmstat's caches,
# so that alignment and usercopy are checked where they can fail.
stock_vm() {
	local name=$1 build=$2 arch=$3 kernel=$4 smp=$5 busybox='' kos
	shift 5
	[ "$arch" = arm64 ] && busybox=$(dirname "$(dirname "$kernel")")/busybox
	mapfile -t kos < <(modules_of "$build")
	VM_BUSYBOX=$busybox VM_CHECKS=$(checks_for stock "$arch") make_initramfs \
		"$BUILDDIR/initramfs-$name.gz" "$CMSTAT_ROOT/scripts/guest/init" \
		"${kos[@]}" "${DEB_KOS[@]}"
	vm_start "$name" "$arch" "$kernel" "$BUILDDIR/initramfs-$name.gz" "$smp" \
		"$STOCK_VM_TIMEOUT" "slub_debug=Z,cmstat-*" "$@"
	TEST_VMS+=("$name")
}

# The stock kernel flavours: Debian's kernels, as users run them.  One
# line each: the VM's name, Debian's kernel series, the arch, the vCPUs,
# and what the kernel's command line adds.  The series is one stock_abi
# knows (Debian 12's, installed on the host), or "next": the newest kernel
# trixie-backports has when the run starts, for Debian 13 (its headers and
# image fetched through the private trixie package lists, once per
# version, and the modules built in the Debian 13 root with its gcc-14;
# scripts/trixie-lib.sh).  Each VM runs the checks whose header names
# "stock" or its arch, with our modules built against the flavour's
# headers with W=1 (cross-built for arm64, against Debian's arm64 build of
# the series).  Debian's stock 6.12 on x86_64 comes last, with more: see
# builds_and_vms.
#   stock-rt: PREEMPT_RT, where softirqs run in threads and the
#     allocators may sleep.
#   next: the kernel API as it is now (7.x), which has moved on since
#     6.12 in ways that broke out-of-tree modules.
#   arm64: DMA is not coherent there, and the test client's alignment
#     check can fail.  Two boots: as Debian ships it (small kmalloc()
#     buffers bounced through a swiotlb) and with swiotlb=noforce (no
#     bounce buffer: kmalloc()'s minimum alignment is a cache line).  Two
#     vCPUs: they check alignment and a driver's use, not concurrency.
STOCK_FLAVOURS=(
	"stock-6.1 6.1 x86_64 $SMP"
	"stock-rt 6.12-rt x86_64 $SMP"
	"next next x86_64 $SMP"
	"arm64 6.12 arm64 2"
	"arm64-noforce 6.12 arm64 2 swiotlb=noforce"
)

# stock_flavour NAME SERIES ARCH SMP [CMDLINE...]: one line of
# STOCK_FLAVOURS: the modules built for it (once per kernel), its VM
# started.
declare -A STOCK_BUILT
stock_flavour() {
	local name=$1 series=$2 arch=$3 smp=$4 abi dir kdir kernel build builder=build_modules
	# stock_vm's, for this flavour: the Debian packages' modules.
	local cross=() DEB_KOS=()
	shift 4
	case "$arch/$series" in
	*/next)
		if ! abi=$(trixie_headers backports) || ! kernel=$(trixie_kernel "$abi"); then
			ktap_result "$name" 0 "no Debian 13 root, headers or kernel (see the stage's log)"
			return
		fi
		kdir=$abi builder=trixie_modules build=trixie-$abi
		[ -e "$BUILDDIR/system/vm/deb-cmstat.ko" ] && DEB_KOS=("$BUILDDIR"/system/vm/deb-*.ko) ;;
	arm64/*)
		abi=$(stock_abi "$series")
		abi=${abi%-amd64}-arm64
		dir=$(arm64_stock_dir "$abi")
		kdir=$dir/usr/src/linux-headers-$abi kernel=$dir/boot/vmlinuz-$abi
		cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CMSTAT_BENCH=)
		build=stock-$abi ;;
	*)
		abi=$(stock_abi "$series")
		kdir=/usr/src/linux-headers-$abi
		kernel=$(stock_kernel_dir "$abi")/boot/vmlinuz-$abi
		build=stock-$abi ;;
	esac
	if [ -z "${STOCK_BUILT[$build]:-}" ]; then
		"$builder" "$build" "$kdir" "${cross[@]}"
		STOCK_BUILT[$build]=1
	fi
	stock_vm "$name" "$build" "$arch" "$kernel" "$smp" "$@"
}

# system_vm ABI: the whole Debian 13 system of kernel ABI made
# (scripts/trixie-system.sh, its KTAP a subtest) in $BUILDDIR/system, and
# booted from its disk: systemd runs scripts/guest/system-check.bash, which
# prints the VM's results.  Two vCPUs: it checks an administrator's path,
# not concurrency.
system_vm() {
	local abi=$1 dir=$BUILDDIR/system rc=0
	bash "$CMSTAT_ROOT/scripts/trixie-system.sh" "$abi" "$dir" >"$dir.ktap" 2>"$dir.log" ||
		rc=$?
	ktap_subtest "Debian 13 system" "$dir.ktap" "$rc"
	[ "$rc" = 0 ] || return
	VM_DISK=$dir/disk.img vm_start system x86_64 "$dir/vmlinuz" "$dir/initrd.img" 2 \
		"$STOCK_VM_TIMEOUT" root=/dev/vda rw systemd.show_status=error
	TEST_VMS+=(system)
}

# builds_and_vms: every build, each VM started once its modules are built,
# the debug kernel's first: they take longest.  Prints the KTAP of the
# builds.
builds_and_vms() {
	local abi abi612 flavour nohz='' nowhere
	nowhere=$(checks_nowhere)
	ktap_result "every check names a kernel" "$([ -z "$nowhere" ] && echo 1)" \
		"${nowhere:+runs nowhere: }${nowhere:-$(checks_for $KERNEL_TAGS | wc -w) checks}"
	for flavour in "${TEST_KERNELS[@]}"; do
		# shellcheck disable=SC2086 # one field a word
		test_kernel_vms $flavour
	done
	abi612=$(stock_abi 6.12)
	build_modules "stock-$abi612" "/usr/src/linux-headers-$abi612"
	build_adopted "stock-$abi612" "/usr/src/linux-headers-$abi612" \
		"$(stock_kernel_dir "$abi612")/lib/modules/$abi612"
	# Debian 13: trixie's package lists as they are now, so that "next" is
	# the newest 7.x, and the modules built against trixie's own 6.12 too.
	(trixie_apt_update)
	if abi=$(trixie_headers 6.12); then
		trixie_modules "trixie-$abi" "$abi"
	else
		ktap_result "trixie 6.12" 0 "no Debian 13 root or headers (see the stage's log)"
	fi
	if abi=$(trixie_headers backports); then
		system_vm "$abi"
	else
		ktap_result "Debian 13 system" 0 "no Debian 13 root or headers (see the stage's log)"
	fi
	for flavour in "${STOCK_FLAVOURS[@]}"; do
		# shellcheck disable=SC2086 # one field a word
		stock_flavour $flavour
	done

	# Debian's stock 6.12 also gets cmstat's test build and, with 4 vCPUs
	# or more, two isolated nohz_full CPUs for the quiet reader's check,
	# and the Debian packages' modules once the packaging checks built
	# them for its kernel.
	if [ "$SMP" -ge 4 ]; then
		build_mutant "stock-$abi612" "/usr/src/linux-headers-$abi612"
		nohz="nohz_full=$((SMP - 2))-$((SMP - 1)) isolcpus=$((SMP - 2))-$((SMP - 1))"
	fi
	wait "$PKG_PID"
	DEB_KOS=()
	[ "$(cat "$BUILDDIR/deb-check/vm/abi" 2>/dev/null)" = "$abi612" ] &&
		DEB_KOS=("$BUILDDIR"/deb-check/vm/deb-*.ko)
	# shellcheck disable=SC2086 # the two arguments of $nohz
	stock_vm stock-6.12 "stock-$abi612" x86_64 \
		"$(stock_kernel_dir "$abi612")/boot/vmlinuz-$abi612" "$SMP" $nohz
	ktap_print
}

# report: every stage's document nested in one, parsed by kunit.py; what
# failed, with its diagnostics, the stress suites' figures, the top level
# of the tree and kunit.py's counts.
report() {
	local name counts p f c e top_failed=0
	ktap_reset
	for name in "${STAGES[@]}"; do
		ktap_subtest "$name" "$KTAPDIR/$name.ktap" "$(cat "$KTAPDIR/$name.rc")"
	done
	ktap_print >"$LOGDIR/check.ktap" || top_failed=1
	python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$LOGDIR/check.ktap" 2>&1 |
		sed 's/\x1b\[[0-9;]*m//g; s/^\[[0-9:]*\] //' >"$LOGDIR/check.parsed"
	grep -qE '\[(FAILED|CRASHED)\]|^(ERROR|WARNING)' "$LOGDIR/check.parsed" &&
		grep -vE '^\[(PASSED|SKIPPED)\]|PASSED\] ==*$' "$LOGDIR/check.parsed"
	echo "The stress suites' figures:"
	grep -ho '# [a-z_]*: cpus=.*' "$LOGDIR"/check-*.log | sed 's/^/  /'
	echo "The KTAP tree's top level ($LOGDIR/check.ktap; kunit.py's view in"
	echo "$LOGDIR/check.parsed):"
	grep -E '^(not )?ok [0-9]+ ' "$LOGDIR/check.ktap" | sed 's/^/  /'
	counts=$(grep -o 'Testing complete\. .*' "$LOGDIR/check.parsed" | tail -n 1)
	echo "$counts"
	p=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$counts")
	f=$(sed -n 's/.*failed: \([0-9]*\).*/\1/p' <<<"$counts")
	c=$(sed -n 's/.*crashed: \([0-9]*\).*/\1/p' <<<"$counts")
	e=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$counts")
	PASSED=${p:-0} FAILED=$((${f:-0} + ${c:-0} + ${e:-0}))
	# A failure kunit.py does not count as one ("not ok ... # SKIP").
	[ -n "$counts" ] && [ "$top_failed" = 0 ] || FAILED=$((FAILED + 1))
}

start=$(date +%s)
rm -rf "$KTAPDIR"
mkdir -p "$LOGDIR" "$KTAPDIR"
ensure_pkgs "${HOST_PKGS[@]}"
KSRC=$(kernel_source)

# The packaging checks run beside the builds.  Everything they install is
# installed here, first: two apt runs at once would fight over dpkg's lock.
ensure_pkgs "${DEB_PKGS[@]}" "${ARM64_PKGS[@]}"
(
	JOBS=1 bash "$CMSTAT_ROOT/scripts/packaging.sh" "$(stock_abi 6.12)" \
		>"$KTAPDIR/packaging.ktap" 2>"$KTAPDIR/packaging.log"
	echo $? >"$KTAPDIR/packaging.rc"
) &
PKG_PID=$!
trap 'kill "$PKG_PID" 2>/dev/null; vm_kill_all' EXIT

TEST_VMS=()
stage build builds_and_vms
STAGES+=(packaging)
stage i386 bash "$CMSTAT_ROOT/scripts/i386-check.sh"
stage lint env LINT_TREE="$BUILDDIR/debug" bash "$CMSTAT_ROOT/scripts/lint.sh" "$KSRC" \
	"$(bash "$CMSTAT_ROOT/scripts/kernel.sh" debug)"
# The instruction budgets: one more, short VM, of the stock 6.12 kernel,
# with the modules built against its headers.
stage budget env LOGDIR="$LOGDIR" bash "$CMSTAT_ROOT/scripts/budget.sh" \
	"$BUILDDIR/stock-$(stock_abi 6.12)"
vm_wait_all
trap - EXIT
for vm in "${TEST_VMS[@]}"; do
	stage "vm $vm" vm_report "$vm"
	grep -q '^not ok' "$KTAPDIR/vm $vm.ktap" &&
		cp "$LOGDIR/check-$vm.log" "$LOGDIR/failed-$STAMP-$vm.log"
done
record_durations debug "$LOGDIR"/check-debug-*.log.ktap
# The Debian packages' modules in the stock VM of their kernel: its
# Prometheus text, and the exporter on a copy of its debugfs files.
stage deb-report bash "$CMSTAT_ROOT/scripts/deb-check.sh" report \
	"$LOGDIR/check-stock-6.12.log"

report
echo "make check took $(($(date +%s) - start)) s"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ] && [ "$PASSED" -gt 0 ]
