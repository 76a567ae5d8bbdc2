# SPDX-License-Identifier: GPL-2.0
#
# Build a busybox initramfs and boot a kernel in QEMU TCG.  Sourced by
# check.sh, demo.sh and bench.sh after lib.sh.

# make_initramfs OUT INIT KO... : an initramfs with busybox (the host's, or
# VM_BUSYBOX: a static busybox for the guest's architecture), INIT as /init
# (which sources /etc/cmstat-guest.sh, scripts/guest/common.sh), the
# modules in /lib/cmstat, the shell checks in /checks (with what they
# share, scripts/guest/check-lib.sh, as /etc/cmstat-check.sh, the
# adopted modules' workload as /etc/cmstat-adopt.sh and the adoption
# checks' tracing as /etc/cmstat-adopt-trace.sh), the list of
# those the runner runs (VM_CHECKS, as /etc/cmstat-checks) and the viewer.
make_initramfs() {
	local out=$1 init=$2 root
	shift 2
	root=$(mktemp -d)
	chmod 755 "$root"	# mktemp's 0700 would lock everyone but root out of /
	mkdir -p "$root"/{bin,etc,lib/cmstat,checks,proc,sys,dev,tmp}
	cp "${VM_BUSYBOX:-/bin/busybox}" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	cp "$init" "$root/init" && chmod +x "$root/init"
	cp "$CMSTAT_ROOT/scripts/guest/common.sh" "$root/etc/cmstat-guest.sh"
	cp "$CMSTAT_ROOT/scripts/guest/check-lib.sh" "$root/etc/cmstat-check.sh"
	cp "$CMSTAT_ROOT/scripts/guest/adopt-workload.sh" "$root/etc/cmstat-adopt.sh"
	cp "$CMSTAT_ROOT/scripts/guest/adopt-trace.sh" "$root/etc/cmstat-adopt-trace.sh"
	[ $# -gt 0 ] && cp "$@" "$root/lib/cmstat/"
	cp "$CMSTAT_ROOT"/scripts/guest/checks/*.sh "$root/checks/" 2>/dev/null
	echo "${VM_CHECKS:-}" >"$root/etc/cmstat-checks"
	cp "$CMSTAT_ROOT/scripts/cmstat" "$root/bin/cmstat"
	printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' \
		>"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
	rm -rf "$root"
}

# vm_attachment LOG TAG: what the guest printed between its lines
# cmstat-TAG-begin and cmstat-TAG-end (the one way a guest hands the host
# text: KTAP results, benchmark samples, a file), with carriage returns and
# printk's timestamps taken off.  Fails if the end line never came: the
# guest crashed or hung first.
vm_attachment() {
	tr -d '\r' <"$1" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | awk -v tag="cmstat-$2" '
		index($0, tag "-begin") { on = 1; next }
		index($0, tag "-end") { on = 0; ended = 1; next }
		on
		END { exit !ended }'
}

# How QEMU runs the guest: multi-threaded TCG, one host thread per vCPU.
# With VM_ICOUNT=1 (the benchmarks' instruction counts), one thread for
# all vCPUs and -icount shift=0,sleep=off: the guest's clock advances
# exactly 1 ns per instruction executed, by any vCPU, and skips idle time.
vm_accel() {
	if [ "${VM_ICOUNT:-0}" = 1 ]; then
		echo "-accel tcg,thread=single -icount shift=0,sleep=off"
	else
		echo "-accel tcg,thread=multi"
	fi
}

# qemu_version: "QEMU emulator version X", for the benchmarks' headers.
# sed, not head, reads all of QEMU's output: no SIGPIPE for pipefail.
qemu_version() {
	qemu-system-x86_64 --version | sed -n '1s/ (.*//p'
}

# The machine QEMU emulates, after VM_ARCH: x86_64 (the default) a PC,
# arm64 the "virt" board.  vm_qemu prints the emulator, its machine and
# CPU, vm_console the guest's serial console.  On arm64, pauth-impdef
# keeps the CPU's pointer authentication but with QEMU's cheap hash for
# it: the architected one, emulated on every function return of the
# kernel, made a boot about twice as long here.
VM_ARCH=${VM_ARCH:-x86_64}
vm_qemu() {
	case "$VM_ARCH" in
	arm64) echo "qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on" ;;
	*) echo "qemu-system-x86_64 -cpu max" ;;
	esac
}
vm_console() {
	case "$VM_ARCH" in
	arm64) echo ttyAMA0 ;;
	*) echo ttyS0 ;;
	esac
}

# vm_clock: what an x86 guest's clocks need on a busy host.  no_timer_check:
# the boot's check that the IO-APIC timer ticks in time, which a host busy
# with other VMs can fail ("IO-APIC + timer doesn't work!", a panic, seen
# here with five VMs at once).  tsc=reliable: no clocksource watchdog on
# the TSC.  On a busy host the watchdog can find the emulated TSC unstable
# while the guest runs, and the static-key patching of the switch that
# follows can crash multi-threaded TCG ("Oops: int3" in sched_clock_cpu,
# seen on Debian's 7.3.4 nine seconds in).  QEMU derives every vCPU's TSC
# from one host clock, so it is as reliable as the flag says.  Not
# tsc=unstable, which avoids the switch by starting on the HPET: every
# clock read is then an emulated MMIO access under QEMU's global lock, a
# change of the guest's timing under every check.  Neither
# under -icount: one thread runs all vCPUs there, in a clock of its own,
# and the benchmarks' instruction counts stay those of a stock boot.
vm_clock() {
	[ "$VM_ARCH" = arm64 ] || [ "${VM_ICOUNT:-0}" = 1 ] ||
		echo no_timer_check tsc=reliable
}

# boot_once KERNEL INITRD LOG TIMEOUT SMP [CMDLINE...]: one boot, console to
# LOG; QEMU's status, 124 on timeout.  With VM_DISK, that raw image is the
# guest's /dev/vda, its writes kept in a temporary file (snapshot=on), so
# that a boot leaves the image as it found it.  With VM_PIN, QEMU and all
# its threads run on those host CPUs only (taskset's list).  VM_QEMU_ARGS:
# more of QEMU's arguments, words split at blanks (devices, a monitor).
boot_once() {
	local kernel=$1 initrd=$2 log=$3 tmo=$4 smp=$5
	shift 5
	# shellcheck disable=SC2046,SC2086 # vm_qemu's, vm_accel's and VM_QEMU_ARGS's words are separate arguments
	${VM_PIN:+taskset -c "$VM_PIN"} timeout --kill-after=10 "$tmo" $(vm_qemu) \
		$(vm_accel) -smp "$smp" -m 2G \
		-kernel "$kernel" -initrd "$initrd" \
		${VM_DISK:+-drive "file=$VM_DISK,format=raw,if=virtio,snapshot=on"} \
		${VM_QEMU_ARGS:-} \
		-append "console=$(vm_console) panic=-1 oops=panic printk.devkmsg=on cmstat.smp=$smp $(vm_clock) $*" \
		-nographic -no-reboot </dev/null >"$log" 2>"$log.qemu"
}

# What every guest script prints first, before it loads any cmstat module:
# the begin line of its first attachment.
GUEST_FIRST_LINE='cmstat-[a-z0-9]+-begin'

# boot_report LOG: the kernel reported something before the guest's first
# line, before any cmstat module was loaded.
boot_report() {
	awk -v first="$GUEST_FIRST_LINE" '$0 ~ first { exit }
		/Oops|Kernel panic|BUG:|WARNING:|Call Trace:/ { found = 1; exit }
		END { exit !found }' "$1"
}

# stale_int3 LOG: the kernel died of a breakpoint its text no longer
# held.  An int3 oops prints the code around the address after the
# breakpoint, read when it prints: the byte before the one it marks <..>
# is where the int3 was.  Not 0xcc there is what multi-threaded TCG gives
# when it executes a breakpoint that a jump-label patch had already taken
# out again (the kernel's own int3 handler claims those while the patch is
# under way).  A breakpoint still in memory shows 0xcc, and still fails
# (freed module text, where the kernel fills it with int3).
stale_int3() {
	awk '/Oops: int3/ { on = 1; next }
		on && / Code: / {
			for (i = 1; i <= NF; i++)
				if ($i == "Code:") code = i
				else if (code && i > code + 1 && $i ~ /^</) {
					stale = $(i - 1) != "cc"
					exit
				}
			exit
		}
		END { exit !stale }' "$1"
}

# run_vm KERNEL INITRD LOG TIMEOUT SMP [CMDLINE...]: boot_once, and once
# more, saying so, if the kernel died or reported something before the
# guest's first line, before any cmstat module was loaded (kept as
# LOG.crashed-before-cmstat), or if it died at any time of a stale
# breakpoint (stale_int3; kept as LOG.stale-int3).  Seen before the first
# line: a KASAN report of an early interrupt in identify_cpu(), 0.02 s
# into the boot, under a busy host (five-level paging's, which the KASAN
# kernel now boots without: KASAN_PAGING in scripts/harness/flavours.py);
# and in test, benchmark and stock VMs alike, "Oops: int3" in jump-label
# patching at boot (tsc=reliable, in vm_clock, avoids one later patch of
# that kind).  The check is made once the VM has ended, so a second boot
# runs all its checks again.  Returns QEMU's status, 124 on timeout.
run_vm() {
	local log=$3 rc
	boot_once "$@"
	rc=$?
	if stale_int3 "$log"; then
		mv "$log" "$log.stale-int3"
		log "note: the kernel died of a breakpoint no longer in its text, multi-threaded TCG's (kept as $log.stale-int3); booting it again"
		boot_once "$@"
		return
	fi
	boot_report "$log" ||
		{ grep -qE "$GUEST_FIRST_LINE" "$log" && return "$rc"; }
	grep -qE 'Oops|Kernel panic|BUG:|WARNING:' "$log" || return "$rc"
	mv "$log" "$log.crashed-before-cmstat"
	log "note: the kernel crashed or reported something before loading cmstat (kept as $log.crashed-before-cmstat); booting it again"
	boot_once "$@"
}

# vm_dirs: LOGDIR (console logs and what the guests hand over; default
# ./logs) and BUILDDIR (./.build), made, for the scripts that boot VMs of
# their own (demo, benchmarks, budgets).
vm_dirs() {
	LOGDIR=${LOGDIR:-$CMSTAT_ROOT/logs}
	BUILDDIR=$CMSTAT_ROOT/.build
	mkdir -p "$LOGDIR" "$BUILDDIR"
}

# vm_guest KERNEL INITRD LOG TIMEOUT SMP TAG [CMDLINE...]: one VM of a
# script that boots its own (run_vm), and what its guest hands over, the
# TAG attachment (vm_attachment), in LOG.out.  Fails, saying why on
# stderr, if the guest did not finish or printed "error" or "warning"
# lines (how the guest scripts report what went wrong).
vm_guest() {
	local log=$3 smp=$5 tag=$6 rc=0
	log "$(basename "$log" .log): $smp vCPUs, console log $log"
	run_vm "${@:1:5}" "${@:7}" || rc=$?
	if ! vm_attachment "$log" "$tag" >"$log.out"; then
		log "the VM did not finish (QEMU status $rc), see $log"
		return 1
	fi
	if grep -E '^(error|warning)[: ]' "$log.out" >&2; then
		log "the guest reported the above, see $log"
		return 1
	fi
}
