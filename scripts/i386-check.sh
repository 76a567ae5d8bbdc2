#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# i386-check.sh: what cmstat promises on a 32-bit kernel, checked at
# compile time against an i386 kernel tree made from Debian's
# linux-source-6.12 ("make ARCH=i386 tinyconfig" plus what a module needs,
# then modules_prepare: configured, no kernel built).  The tree is cached
# under $CMSTAT_CACHE/kernel/ keyed by the source package version and a
# hash of the configuration below and the compiler, as scripts/test-kernel.sh
# keys its kernels: a first run takes a minute, later ones seconds.
#
# Gates ("PASS|FAIL  i386: ..."):
#   - tests/i386/cmstat_nmi_check.c compiles: CMSTAT_NMI_WRITERS is false
#     without CONFIG_64BIT (include/cmstat/counters.h);
#   - cmstat.ko itself builds for i386 (no kernel to load it in: the
#     modpost symbol check is skipped, vmlinux's Module.symvers missing).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

GATE_PREFIX=i386
src=$(kernel_source)
ver=$(basename "$src")
# What the tree needs for modules, per-CPU data on SMP, and cmstat's
# debugfs and sysfs files.
FRAGMENT='CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_SMP=y
CONFIG_PRINTK=y
CONFIG_SYSFS=y
CONFIG_DEBUG_FS=y
CONFIG_JUMP_LABEL=y'
hash=$(cat <(echo "$FRAGMENT") <(gcc --version) | sha256sum | cut -c1-12)
out="$CMSTAT_CACHE/kernel/i386-$ver-$hash"
build=$CMSTAT_ROOT/.build/i386

if [ ! -e "$out/.done" ]; then
	log "preparing an i386 kernel tree ($ver, config $hash) in $out"
	rm -rf "$out" && mkdir -p "$out"
	echo "$FRAGMENT" >"$out/cmstat.config"
	{
		make -C "$src" O="$out" ARCH=i386 tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
			"$out/.config" "$out/cmstat.config" &&
		make -C "$src" O="$out" ARCH=i386 olddefconfig &&
		! grep -q '^CONFIG_64BIT=y' "$out/.config" &&
		while IFS= read -r line; do
			grep -qx "$line" "$out/.config" ||
				{ echo "config option lost: $line"; exit 1; }
		done <"$out/cmstat.config" &&
		make -C "$src" O="$out" ARCH=i386 -j"$JOBS" modules_prepare
	} >"$out/build.log" 2>&1
	if [ $? -ne 0 ]; then
		tail -n 20 "$out/build.log"
		gate "i386 kernel tree" 0 "log $out/build.log"
		exit 1
	fi
	touch "$out/.done"
fi

mkdir -p "$build"
rm -rf "$build/nmi" && mkdir -p "$build/nmi/tests" &&
	cp -r "$CMSTAT_ROOT/include" "$build/nmi/" &&
	cp -r "$CMSTAT_ROOT/tests/i386" "$build/nmi/tests/"
ok=1
make -C "$out" ARCH=i386 M="$build/nmi/tests/i386" KBUILD_MODPOST_WARN=1 modules \
	>"$build/nmi.log" 2>&1 || ok=0
grep -E 'error:' "$build/nmi.log" | head -n 5
gate "no NMI writers without CONFIG_64BIT (tests/i386/cmstat_nmi_check.c)" \
	"$ok" "log $build/nmi.log"

# Without a built kernel no Module.symvers names the kernel's symbols:
# modpost's undefined-symbol messages are all there is to ignore.
ok=1
build_tree "$build/cmstat" "$out" ARCH=i386 W=1 KBUILD_MODPOST_WARN=1 \
	CMSTAT_BENCH= CMSTAT_TESTS= CMSTAT_KUNIT= || ok=0
grep -iE 'warning:|error:' "$build/cmstat.log" |
	grep -vE 'modpost: (".*" \[.*\] undefined!|suppressed [0-9]+ unresolved)|Module\.symvers is missing' \
	>"$build/cmstat.problems"
# But the kernel has no libgcc: a 64-bit division the compiler left to one
# of its helpers would not load.
nm -u "$build/cmstat/module/cmstat.ko" 2>&1 | grep -E '__u?(div|mod)di3' |
	sed 's/^/needs libgcc: /' >>"$build/cmstat.problems"
[ -s "$build/cmstat.problems" ] && ok=0
head -n 10 "$build/cmstat.problems"
gate "cmstat.ko builds for i386 with W=1" "$ok" "log $build/cmstat.log"
exit "$gate_failed"
