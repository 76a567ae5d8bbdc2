# SPDX-License-Identifier: GPL-2.0
#
# The kernel flavours of make check: what turns a line of the table in
# scripts/harness/flavours.py (its named fields, validated there) into its
# kernel, its builds and its VMs, started.  Sourced by check.sh after
# lib.sh, vm.sh, ktap.sh, test-vms.sh and trixie-lib.sh.

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
		SITES=$([[ $with == *,sites,* ]] && echo 1 || echo 0) \
		RUNTIME=$([[ $with == *,runtime,* ]] && echo 1 || echo 0) \
			build_adopted "$BUILD" "$KDIR" "$MODDIR" "$SERIES" "${MAKE_ARGS[@]}" ;;
	esac
}

# numa_args SMP: QEMU's arguments for two NUMA nodes of the VM's 2 GiB, a
# socket of SMP / 2 vCPUs each (QEMU merges the -smp with vm.sh's, and
# gives each socket's CPUs to a node of its own).  An odd SMP gets one
# node.
numa_args() {
	echo "-smp $1,sockets=2" \
		"-object memory-backend-ram,id=mem0,size=1G" \
		"-object memory-backend-ram,id=mem1,size=1G" \
		"-numa node,nodeid=0,memdev=mem0 -numa node,nodeid=1,memdev=mem1"
}

# flavour_vms NAME ARCH VMS VCPUS TAGS WITH [CMDLINE...]: the flavour's
# VMs, the checks of its tags (space-separated) shared out between them,
# started.
flavour_vms() {
	local name=$1 arch=$2 nvms=$3 smp=$4 tags=$5 with=",$6," i=0 vm checks kos=() numa=
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
	case "$with" in *,numa,*)
		[ $((smp % 2)) = 1 ] || numa=$(numa_args "$smp")
	esac
	if [ -z "$INITRD" ]; then
		# shellcheck disable=SC2086 # one word per tag
		harness checks share "$name" "$nvms" $tags |
		while read -r checks; do
			i=$((i + 1))
			VM_BUSYBOX=$BUSYBOX VM_CHECKS=$checks make_initramfs \
				"$BUILDDIR/initramfs-$name-$i.gz" "$CMSTAT_ROOT/scripts/guest/init" "${kos[@]}"
		done
	fi
	for i in $(seq "$nvms"); do
		vm=$name
		[ "$nvms" = 1 ] || vm=$name-$i
		VM_DISK=$DISK VM_QEMU_ARGS="${VM_QEMU_ARGS:-} $numa" vm_start "$vm" "$arch" "$IMAGE" \
			"${INITRD:-$BUILDDIR/initramfs-$name-$i.gz}" "$smp" "$TMO" "$@"
		TEST_VMS+=("$vm")
	done
}

# flavour LINE: one line of scripts/harness/flavours.py's output (a bash
# associative array's body, every field named): its kernel, its builds
# and its VMs.
flavour() {
	local -A f
	local cmdline
	eval "f=($1)"
	# A word each, never globbed: the red zones' slub_debug has a '*'.
	read -ra cmdline <<<"${f[cmdline]}"
	flavour_kernel "${f[name]}" "${f[kernel]}" "${f[arch]}" || return
	flavour_builds "${f[with]}"
	flavour_vms "${f[name]}" "${f[arch]}" "${f[vms]}" "${f[vcpus]}" "${f[tags]}" \
		"${f[with]}" "${cmdline[@]}"
}
