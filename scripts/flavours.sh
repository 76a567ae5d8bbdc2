# SPDX-License-Identifier: GPL-2.0
#
# The kernel flavours of make check: one table, FLAVOURS, a line per
# kernel our modules are built against, and what turns a line into those
# builds and that kernel's VMs, started.  Sourced by check.sh after lib.sh,
# vm.sh, ktap.sh, test-vms.sh and trixie-lib.sh.

# The stock kernels' VMs boot with red zones on cmstat's caches, so that
# alignment and usercopy are checked where they can fail.
RED_ZONES='slub_debug=Z,cmstat-*'

# A line per flavour, in the order they start: the test kernels first, as
# their VMs take longest.  Fields:
#   name    its VMs' (NAME-1, NAME-2... when it has several).
#   kernel  where it comes from:
#             test:CONFIG     built from Debian's linux-source-6.12 by
#                             scripts/kernel.sh, from kunit/base.config,
#                             the arch's fragment and kunit/CONFIG.config;
#             debian:SERIES   Debian 12's stock kernel of SERIES (6.1,
#                             6.12, 6.12-rt: stock_abi), image and headers
#                             from Debian's archive, never installed;
#             trixie:SERIES   Debian 13's (6.12, or backports: the newest
#                             7.x trixie-backports has when the run
#                             starts), the modules built in the Debian 13
#                             root with its gcc-14 (scripts/trixie-lib.sh);
#             system:SERIES   the whole Debian 13 system of that kernel
#                             (scripts/trixie-system.sh), booted from its
#                             disk with systemd, which runs its own checks
#                             (scripts/guest/system-check.bash).
#   arch    x86_64, or arm64: the modules cross-built, QEMU's virt board.
#   vms     the VMs its checks are shared out between; 0: a build only.
#   vcpus   each VM's.
#   checks  the "# kernels:" tags whose checks it runs, comma-separated.
#   with    what it gets beyond the modules built with W=1, comma-separated:
#             C=2      sparse on that build (lint.sh reads the debug one's);
#             mutant   cmstat and its KUnit module built to break the
#                      protocol, for the mutation proof and the quiet
#                      reader's control;
#             adopted  the in-tree modules of the adoption check;
#             deb      the Debian packages' modules, as DKMS built them for
#                      its kernel, for checks/deb-modules.sh;
#             nohz     two isolated nohz_full CPUs (with 4 vCPUs or more),
#                      for the quiet reader's check.
#   cmdline what the kernel's command line adds.
# What each adds:
#   debug: KASAN, lockdep, kmemleak and the rest; every check but the
#     stock ones.
#   debug-busy: the debug kernel without kmemleak, for the checks that
#     keep every vCPU allocating while readers read.  kmemleak takes one
#     global lock on every allocation and free; on a busy host the vCPU
#     holding it is descheduled and the others spin on it (TCG has no
#     paravirtual spinlocks), so that those checks took 4 to 20 times as
#     long beside one CPU hog (publish-concurrent-readers 1555 s against
#     81 unloaded; two VMs side by side beside one hog: 329 s with
#     kmemleak, 91 s without).
#   kcsan: the data races; skipped with KCSAN=0.
#   rt: PREEMPT_RT, the KUnit suites and the mutation proof.
#   kunit-arm64: weak ordering and non-coherent DMA, the same.
#   trixie-6.12: Debian 13's compiler and headers, built against only.
#   system: the path an administrator takes, apt, DKMS, systemd and the
#     exporter on Debian 13.
#   stock-rt: PREEMPT_RT as Debian ships it, where softirqs run in
#     threads and the allocators may sleep.
#   next: the kernel API as it is now (7.x), which has moved on since
#     6.12 in ways that broke out-of-tree modules.
#   arm64: DMA is not coherent there, and the test client's alignment
#     check can fail.  Two boots: as Debian ships it (small kmalloc()
#     buffers bounced through a swiotlb) and with swiotlb=noforce (no
#     bounce buffer: kmalloc()'s minimum alignment is a cache line).  Two
#     vCPUs: they check alignment and a driver's use, not concurrency.
#   stock-6.12: Debian's kernel most users run, with the most checks; last,
#     as it waits for the packaging checks' modules.
FLAVOURS=(
	# name		kernel			arch	vms		vcpus	checks		with			cmdline
	"debug		test:debug		x86_64	$DEBUG_VMS	$SMP	debug		C=2,mutant,adopted"
	"debug-busy	test:debug		x86_64	1		$SMP	debug-busy	-			kmemleak=off"
	"kcsan		test:kcsan		x86_64	1		$SMP	kcsan		-"
	"rt		test:rt			x86_64	1		$SMP	rt		mutant"
	"kunit-arm64	test:kunit-arm64	arm64	1		$SMP	kunit-arm64	mutant"
	"trixie-6.12	trixie:6.12		x86_64	0		-	-		-"
	"system		system:backports	x86_64	1		2	-		-	root=/dev/vda rw systemd.show_status=error"
	"stock-6.1	debian:6.1		x86_64	1		$SMP	stock,x86_64	adopted	$RED_ZONES"
	"stock-rt	debian:6.12-rt		x86_64	1		$SMP	stock,x86_64	adopted	$RED_ZONES"
	"next		trixie:backports	x86_64	1		$SMP	stock,x86_64	adopted,deb	$RED_ZONES"
	"arm64		debian:6.12		arm64	1		2	stock,arm64	adopted	$RED_ZONES"
	"arm64-noforce	debian:6.12		arm64	1		2	stock,arm64	-	$RED_ZONES swiotlb=noforce"
	"stock-6.12	debian:6.12		x86_64	1		$SMP	stock,x86_64	mutant,adopted,deb,nohz	$RED_ZONES"
)

# flavour_tags: every "# kernels:" tag some flavour runs the checks of.
flavour_tags() {
	local line
	for line in "${FLAVOURS[@]}"; do
		awk '{ gsub(",", " ", $6); if ($6 != "-") print $6 }' <<<"$line"
	done | tr ' ' '\n' | sort -u
}

# What flavour_kernel found: the headers or tree to build against (KDIR)
# and with what (BUILDER, MAKE_ARGS), the build's name (BUILD; flavours of
# one kernel share it), the kernel's ABI, its modules (MODDIR, for the
# adoption check) and the series of Debian's kernel source that matches it
# (SERIES, 6.1 or 6.12, or trixie:ABI, whose modules the adoption check
# adopts), what a VM boots (IMAGE, INITRD or an initramfs of ours, DISK,
# BUSYBOX for arm64) and its hang timeout (TMO).
KDIR='' BUILDER='' MAKE_ARGS=() BUILD='' ABI='' MODDIR='' IMAGE='' INITRD='' DISK=''
BUSYBOX='' TMO='' SERIES=''

# arm64_abi SERIES: the arm64 name of Debian's stock kernel of SERIES.
arm64_abi() {
	stock_abi "$1" | sed 's/-amd64$/-arm64/'
}

# flavour_kernel NAME KERNEL ARCH: the kernel of one line, fetched or built
# (cached), its variables above set; a failed result and non-zero if it
# cannot be had.
TRIXIE_LISTS_FRESH=''
flavour_kernel() {
	local name=$1 kind=${2%%:*} series=${2#*:} arch=$3 dir rc=0
	KDIR='' BUILDER=build_modules MAKE_ARGS=() BUILD='' ABI='' MODDIR='' IMAGE='' INITRD=''
	DISK='' BUSYBOX='' TMO=$STOCK_VM_TIMEOUT SERIES=6.12
	if [ "$arch" = arm64 ]; then
		MAKE_ARGS=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CMSTAT_BENCH=)
	fi
	# trixie's package lists as they are now, once a run, so that
	# "backports" is the newest 7.x.
	if [ "$kind" = trixie ] || [ "$kind" = system ]; then
		[ -n "$TRIXIE_LISTS_FRESH" ] || (trixie_apt_update)
		TRIXIE_LISTS_FRESH=1
		if ! ABI=$(trixie_headers "$series"); then
			ktap_result "$name" 0 "no Debian 13 root or headers (see the stage's log)"
			return 1
		fi
	fi
	case "$kind/$arch" in
	test/*)
		if ! KDIR=$(bash "$CMSTAT_ROOT/scripts/kernel.sh" "$series"); then
			ktap_result "$name kernel" 0 "scripts/kernel.sh $series failed"
			return 1
		fi
		BUILD=$name MODDIR=$KDIR TMO=$VM_TIMEOUT IMAGE=$KDIR/arch/x86/boot/bzImage
		if [ "$arch" = arm64 ]; then
			IMAGE=$KDIR/arch/arm64/boot/Image
			BUSYBOX=$(arm64_stock_dir "$(arm64_abi 6.12)")/busybox
		fi ;;
	debian/arm64)
		ABI=$(arm64_abi "$series")
		dir=$(arm64_stock_dir "$ABI")
		KDIR=$dir/usr/src/linux-headers-$ABI IMAGE=$dir/boot/vmlinuz-$ABI
		BUSYBOX=$dir/busybox BUILD=stock-$ABI MODDIR=$(arm64_stock_modules "$ABI") ;;
	debian/*)
		SERIES=${series%-rt}
		ABI=$(stock_abi "$series")
		dir=$(stock_kernel_dir "$ABI")
		KDIR=/usr/src/linux-headers-$ABI IMAGE=$dir/boot/vmlinuz-$ABI
		MODDIR=$dir/lib/modules/$ABI BUILD=stock-$ABI ;;
	trixie/*)
		if ! IMAGE=$(trixie_kernel "$ABI"); then
			ktap_result "$name" 0 "no kernel image of $ABI (see the stage's log)"
			return 1
		fi
		# MODDIR: where trixie_kernel unpacked its packages, modules too.
		KDIR=$ABI BUILDER=trixie_modules BUILD=trixie-$ABI SERIES=trixie:$ABI
		MODDIR=$TRIXIE_DIR/kernel/$ABI ;;
	system/*)
		dir=$BUILDDIR/$name
		bash "$CMSTAT_ROOT/scripts/trixie-system.sh" "$ABI" "$dir" >"$dir.ktap" \
			2>"$dir.log" || rc=$?
		ktap_subtest "$name image" "$dir.ktap" "$rc"
		[ "$rc" = 0 ] || return 1
		DEB_MODULE_DIRS+=("$dir/vm")
		IMAGE=$dir/vmlinuz INITRD=$dir/initrd.img DISK=$dir/disk.img ;;
	*)
		ktap_result "$name" 0 "no kernel of the kind '$2' on $arch"
		return 1 ;;
	esac
}

# The Debian packages' modules, as DKMS built them: by the packaging
# checks (scripts/deb-check.sh, for Debian's stock 6.12 as $PKG_ABI, in the
# background as $PKG_PID), and in each Debian 13 system made; each
# directory names its ABI in its file "abi".
DEB_MODULE_DIRS=("$BUILDDIR/deb-check/vm")

# deb_modules ABI: those built for ABI.  Run in a subshell, it cannot wait
# for $PKG_PID: its caller does.
deb_modules() {
	local dir
	for dir in "${DEB_MODULE_DIRS[@]}"; do
		[ "$(cat "$dir/abi" 2>/dev/null)" = "$1" ] && ls "$dir"/deb-*.ko
	done
}

# flavour_builds WITH: our modules built against the kernel flavour_kernel
# found, with what WITH asks for, once per kernel.
declare -A BUILT
flavour_builds() {
	local with=",$1," make=("${MAKE_ARGS[@]}")
	[ -n "$BUILD" ] || return 0
	[ -z "${BUILT[$BUILD]:-}" ] || return 0
	BUILT[$BUILD]=1
	case "$with" in *,C=2,*) make+=(C=2) ;; esac
	"$BUILDER" "$BUILD" "$KDIR" "${make[@]}"
	case "$with" in *,mutant,*) build_mutant "$BUILD" "$KDIR" "${make[@]}" ;; esac
	case "$with" in *,adopted,*)
		build_adopted "$BUILD" "$KDIR" "$MODDIR" "$SERIES" "${MAKE_ARGS[@]}" ;;
	esac
}

# flavour_vms NAME ARCH VMS VCPUS CHECKS WITH [CMDLINE...]: the flavour's
# VMs, its checks shared out between them, started.
flavour_vms() {
	local name=$1 arch=$2 nvms=$3 smp=$4 tags=${5//,/ } with=",$6," i=0 vm checks kos=()
	shift 6
	[ "$nvms" -gt 0 ] || return 0
	[ -z "$BUILD" ] || mapfile -t kos < <(modules_of "$BUILD")
	case "$with" in *,deb,*)
		[ "$ABI" != "$PKG_ABI" ] || wait "$PKG_PID"
		mapfile -t -O "${#kos[@]}" kos < <(deb_modules "$ABI") ;;
	esac
	case "$with" in *,nohz,*)
		[ "$smp" -lt 4 ] ||
			set -- "$@" "nohz_full=$((smp - 2))-$((smp - 1))" "isolcpus=$((smp - 2))-$((smp - 1))"
	esac
	if [ -z "$INITRD" ]; then
		# shellcheck disable=SC2046,SC2086 # one word per check, per tag
		share_checks "$name" "$nvms" $(checks_for $tags) |
		while read -r checks; do
			i=$((i + 1))
			VM_BUSYBOX=$BUSYBOX VM_CHECKS=$checks make_initramfs \
				"$BUILDDIR/initramfs-$name-$i.gz" "$CMSTAT_ROOT/scripts/guest/init" "${kos[@]}"
		done
	fi
	for i in $(seq "$nvms"); do
		vm=$name
		[ "$nvms" = 1 ] || vm=$name-$i
		VM_DISK=$DISK vm_start "$vm" "$arch" "$IMAGE" \
			"${INITRD:-$BUILDDIR/initramfs-$name-$i.gz}" "$smp" "$TMO" "$@"
		TEST_VMS+=("$vm")
	done
}

# flavour LINE: one line of FLAVOURS: its kernel, its builds and its VMs.
flavour() {
	local name kernel arch nvms smp tags with rest cmdline
	read -r name kernel arch nvms smp tags with rest <<<"$1"
	# A word each, never globbed: RED_ZONES has a '*'.
	read -ra cmdline <<<"$rest"
	[ "$name" = kcsan ] && [ "$KCSAN" != 1 ] && return
	[ -z "$ONLY" ] || [[ ",$ONLY," == *",$name,"* ]] || return
	flavour_kernel "$name" "$kernel" "$arch" || return
	flavour_builds "$with"
	flavour_vms "$name" "$arch" "$nvms" "$smp" "$tags" "$with" "${cmdline[@]}"
}
