#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# allocinfo-check.sh ("make allocinfo"): cmstat's call-site rows beside
# the kernel's allocation profiling (/proc/allocinfo), line by line.
# Debian's stock kernel has no profiling, so this builds its own
# (scripts/kernel.sh allocinfo: the peers kernel of make bench-peers with
# a block layer, null_blk and ext2; built once and cached), cmstat
# against it, and ext2 and null_blk adopted with call-site rows
# (scripts/adopt-build.sh, ADOPT_SITES=1: NAME-sites.ko, whose every
# kmalloc(), kzalloc(), kmalloc_array() and kcalloc() is a site of
# cmstat's and, in the same macro, a codetag of the kernel's at the same
# line).  One VM of 2 vCPUs, booted with profiling on
# (sysctl.vm.mem_profiling=1), runs the adopted modules' workload to a
# state at rest with memory held and hands over /proc/allocinfo and
# cmstat's stats file of that moment (scripts/guest/allocinfo-init).
#
# The host then sets them side by side (scripts/allocinfo-compare.py): a
# line per allocinfo line of [ext2] and [null_blk] and per site row of
# their heaps, allocinfo's bytes and calls (live objects) beside cmstat's
# live_bytes and live_objects, and a verdict: equal (a typed cache's line
# at its slab's object size, s->size), or why they differ (cmstat's own
# out-of-line lines, a call adopt.h does not route, nothing allocated
# there yet).  It fails if a line that is a cmstat site disagrees in
# either figure, if a site row with live objects has no allocinfo line,
# if typed caches' objects are neither at their site rows nor
# unattributed, or if no site was compared.  The whole table is printed
# and saved as LOGDIR/allocinfo.txt.
#
# Knobs: LOGDIR=dir (the console log, what the guest handed over and the
# table, default ./logs), CMSTAT_CACHE=dir (where the kernel is cached),
# VM_TIMEOUT=seconds (default 2400).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm.sh"

vm_dirs
start=$(date +%s)
ensure_pkgs "${HOST_PKGS[@]}"
kstart=$(date +%s)
kdir=$(bash "$CMSTAT_ROOT/scripts/kernel.sh" allocinfo)
kend=$(date +%s)
grep -qx 'CONFIG_MEM_ALLOC_PROFILING=y' "$kdir/.config" ||
	die "$kdir has no allocation profiling"

tree=$BUILDDIR/allocinfo
build_tree "$tree" "$kdir" CMSTAT_BENCH= CMSTAT_TESTS= CMSTAT_KUNIT= ||
	{ tail -n 20 "$tree.log"; die "build against $kdir failed"; }
out=$BUILDDIR/allocinfo-adopt
# The kernel's own modules (ext2's mbcache) come from its build tree.  The
# two test modules adopt-build.sh builds too are not needed here: only
# the two sited modules must have built.
ADOPT_SITES=1 bash "$CMSTAT_ROOT/scripts/adopt-build.sh" "$(kernel_source)" \
	"$kdir" "$kdir" "$tree" "$out" >"$out.list" 2>"$out.log" || true
mods=("$tree/module/cmstat.ko" "$out/adopt-deps")
for m in ext2-sites null_blk-sites $(cat "$out/adopt-deps" 2>/dev/null); do
	[ -e "$out/$m.ko" ] ||
		die "$m.ko was not built, see $out.log and $out/${m%-sites}-sites.log"
	mods+=("$out/$m.ko")
done
initrd=$BUILDDIR/initramfs-allocinfo.gz
make_initramfs "$initrd" "$CMSTAT_ROOT/scripts/guest/allocinfo-init" "${mods[@]}"

log=$LOGDIR/allocinfo.log
vm_guest "$kdir/arch/x86/boot/bzImage" "$initrd" "$log" "${VM_TIMEOUT:-2400}" 2 allocinfo \
	quiet sysctl.vm.mem_profiling=1 || { cat "$log.out" 2>/dev/null; exit 1; }
for f in proc stats slabs; do
	vm_attachment "$log" "allocinfo.$f" >"$LOGDIR/allocinfo.$f" ||
		die "the VM did not hand over allocinfo.$f, see $log"
done

rc=0
{
	echo "cmstat beside /proc/allocinfo, $(date -u +%Y-%m-%d)"
	echo "guest: the allocinfo kernel ($(basename "$kdir")) in $(qemu_version), TCG, 2 vCPUs," \
		"sysctl.vm.mem_profiling=1; ext2 and null_blk adopted with call-site rows"
	sed 's/^/guest: /' "$log.out"
	echo
	/usr/bin/python3 "$CMSTAT_ROOT/scripts/allocinfo-compare.py" \
		--modules ext2,null_blk --slabs "$LOGDIR/allocinfo.slabs" \
		--src ext2="$out/ext2-sites" --src null_blk="$out/null_blk-sites" \
		--include "$tree/include" \
		"$LOGDIR/allocinfo.proc" "$LOGDIR/allocinfo.stats" || rc=$?
	echo "make allocinfo took $(($(date +%s) - start)) s, of which $((kend - kstart)) s to build or find the allocinfo kernel"
} >"$LOGDIR/allocinfo.txt"
cat "$LOGDIR/allocinfo.txt"
exit "$rc"
