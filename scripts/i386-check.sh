#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# i386-check.sh: what cmstat promises on a 32-bit kernel, checked at
# compile time against an i386 kernel tree made from Debian's
# linux-source-6.12 (scripts/kernel.sh i386: "make ARCH=i386 tinyconfig"
# plus tests/i386/kernel.config, then modules_prepare: configured, no
# kernel built; cached, a first run takes a minute, later ones seconds).
#
# Prints one KTAP document (scripts/ktap.sh), and exits non-zero if a
# result failed:
#   - the i386 kernel tree;
#   - tests/i386/cmstat_nmi_check.c compiles: CMSTAT_NMI_WRITERS is false
#     without CONFIG_64BIT (include/cmstat/counters.h);
#   - cmstat.ko itself builds for i386 (no kernel to load it in: the
#     modpost symbol check is skipped, vmlinux's Module.symvers missing).
# shellcheck source-path=SCRIPTDIR
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ktap.sh"

build=$CMSTAT_ROOT/.build/i386
if ! kdir=$(bash "$CMSTAT_ROOT/scripts/kernel.sh" i386); then
	ktap_result "i386 kernel tree" 0 "scripts/kernel.sh i386 failed (on stderr)"
	ktap_print
	exit 1
fi
ktap_result "i386 kernel tree" 1 "$kdir"

# diag FILE: the first lines of FILE, as diagnostics.
diag() {
	[ -s "$1" ] && ktap_diag "$(head -n 10 "$1")"
}

mkdir -p "$build"
rm -rf "$build/nmi" && mkdir -p "$build/nmi/tests" &&
	cp -r "$CMSTAT_ROOT/include" "$build/nmi/" &&
	cp -r "$CMSTAT_ROOT/tests/i386" "$build/nmi/tests/"
ok=1
make -C "$kdir" ARCH=i386 M="$build/nmi/tests/i386" KBUILD_MODPOST_WARN=1 modules \
	>"$build/nmi.log" 2>&1 || ok=0
grep -E 'error:' "$build/nmi.log" | head -n 5 >"$build/nmi.problems"
diag "$build/nmi.problems"
ktap_result "no NMI writers without CONFIG_64BIT (tests/i386/cmstat_nmi_check.c)" \
	"$ok" "log $build/nmi.log"

# Without a built kernel no Module.symvers names the kernel's symbols:
# modpost's undefined-symbol messages are all there is to ignore.
ok=1
build_tree "$build/cmstat" "$kdir" ARCH=i386 W=1 KBUILD_MODPOST_WARN=1 \
	CMSTAT_BENCH= CMSTAT_TESTS= CMSTAT_KUNIT= || ok=0
grep -iE 'warning:|error:' "$build/cmstat.log" |
	grep -vE 'modpost: (".*" \[.*\] undefined!|suppressed [0-9]+ unresolved)|Module\.symvers is missing' \
	>"$build/cmstat.problems"
# But the kernel has no libgcc: a 64-bit division the compiler left to one
# of its helpers would not load.
nm -u "$build/cmstat/module/cmstat.ko" 2>&1 | grep -E '__u?(div|mod)di3' |
	sed 's/^/needs libgcc: /' >>"$build/cmstat.problems"
[ -s "$build/cmstat.problems" ] && ok=0
diag "$build/cmstat.problems"
ktap_result "cmstat.ko builds for i386 with W=1" "$ok" "log $build/cmstat.log"
ktap_print
