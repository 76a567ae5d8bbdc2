#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit-intree.sh SRC...: cmstat's KUnit suites as a kernel developer runs
# them.  For each kernel source tree SRC (never written to): a copy of it
# made of hard links, cmstat put in by scripts/intree.py, and
#
#	./tools/testing/kunit/kunit.py run --kunitconfig=lib/cmstat
#
# with cmstat built in, on UML (uniprocessor), or with KUNIT_ARCH=x86_64
# or arm64 under QEMU with KUNIT_CPUS vCPUs (default 4).  In three steps
# (build, exec with the raw KTAP kept, parse), so that the suites' KTAP
# nests in make check's report and kunit.py's own summary line is in the
# log.  kunit.py's build directory stays in $CMSTAT_CACHE/kunit-ARCH, one
# per source version: only cmstat is compiled again.  Prints KTAP.
# shellcheck source-path=SCRIPTDIR
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ktap.sh"

BUILDDIR=${BUILDDIR:-$CMSTAT_ROOT/.build}
ARCH=${KUNIT_ARCH:-um}
ARCH_ARGS=()
# To catch a hang only: UML runs the suites in about 20 s; QEMU's TCG with
# KUNIT_CPUS vCPUs on a busy host, the stress suites in up to an hour.
TIMEOUT=1800
case "$ARCH" in
um) ;;
x86_64|arm64)
	TIMEOUT=$((7200 * ${KUNIT_CPUS:-4} / 4))
	ARCH_ARGS=(--arch="$ARCH" --kconfig_add CONFIG_SMP=y
		--qemu_args="-smp ${KUNIT_CPUS:-4}")
	[ "$ARCH" = x86_64 ] || ARCH_ARGS+=(--cross_compile=aarch64-linux-gnu-) ;;
*) die "KUNIT_ARCH: um, x86_64 or arm64, not $ARCH" ;;
esac

# The files the series edits: copied, not linked, so that no write to them
# can reach SRC through a shared inode.
EDITED=(lib/Kconfig lib/Makefile MAINTAINERS Documentation/mm/index.rst)

# intree_copy SRC TREE: TREE, SRC's files hard-linked, the edited ones
# copied, and cmstat applied.
intree_copy() {
	local src=$1 tree=$2 f
	rm -rf "$tree" && mkdir -p "$(dirname "$tree")" && cp -al "$src" "$tree" || return 1
	for f in "${EDITED[@]}"; do
		cp --remove-destination "$src/$f" "$tree/$f" || return 1
	done
	python3 "$CMSTAT_ROOT/scripts/intree.py" "$tree" \
		--maintainer "cmstat make check <check@cmstat.invalid>" \
		--series "$tree.series"
}

# run SRC: the KUnit run in a copy of SRC.
run() {
	local src=$1 ver tree build log ktap ok=1 kunit
	ver=$(basename "$src")
	# One copy per architecture, as each has its build directory: UML's
	# without a suffix.
	tree=$CMSTAT_CACHE/intree/$ver
	[ "$ARCH" = um ] || tree+=-$ARCH
	build=$CMSTAT_CACHE/kunit-$ARCH/$ver
	log=$BUILDDIR/kunit-$ARCH-$ver.log
	ktap=$BUILDDIR/kunit-$ARCH-$ver.ktap
	kunit=(python3 "$tree/tools/testing/kunit/kunit.py")
	mkdir -p "$BUILDDIR" "$(dirname "$build")"
	: >"$ktap"
	{
		intree_copy "$src" "$tree" &&
			cd "$tree" &&
			"${kunit[@]}" build --kunitconfig=lib/cmstat --build_dir="$build" \
				--jobs="$JOBS" "${ARCH_ARGS[@]}" &&
			"${kunit[@]}" exec --build_dir="$build" --raw_output=kunit \
				--timeout="$TIMEOUT" "${ARCH_ARGS[@]}" >"$ktap"
	} >"$log" 2>&1 || ok=0
	# With --raw_output, exec's status is not the tests': parse's is, and
	# counts a run cut short (a timeout, a crash) as a failure.
	"${kunit[@]}" parse "$ktap" >"$log.parsed" 2>&1 || ok=0
	sed 's/\x1b\[[0-9;]*m//g; s/^\[[0-9:]*\] //' "$log.parsed" >>"$log"
	ktap_diag "$(grep '^Testing complete' "$log" | sed 's/^/kunit.py: /')"
	[ "$ok" = 1 ] || ktap_diag "$(tail -n 20 "$log")"
	ktap_subtest "kunit.py run --kunitconfig=lib/cmstat, $ARCH, $ver" \
		"$ktap" "$((1 - ok))"
	[ "$ok" = 1 ] && [ "$ARCH" = um ] && built_clean "$tree" "$build" "$ver"
}

# built_clean TREE BUILD VER: lib/cmstat compiled again in TREE's build
# directory BUILD with W=1 and sparse (C=2), which kunit.py does not use:
# built in and uniprocessor, warnings kunit.py would not show.
built_clean() {
	local log=$BUILDDIR/kunit-um-$3-W1.log clean=0
	make -C "$1" ARCH=um O="$2" W=1 C=2 -j"$JOBS" lib/cmstat/ >"$log" 2>&1 &&
		! grep -qE 'warning:|error:' "$log" && clean=1
	[ "$clean" = 1 ] || ktap_diag "$(grep -E 'warning:|error:' "$log" | head -n 20)"
	ktap_result "lib/cmstat in $3, built in on UML: W=1 and sparse clean" \
		"$clean" "log $log"
}

ensure_pkgs python3 patch git
for src in "$@"; do
	run "$src"
done
ktap_print
