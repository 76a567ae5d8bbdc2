#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel.sh [-n] FLAVOUR: the one kernel builder.  Builds FLAVOUR out of
# tree from Debian's linux-source-6.12, or finds it in the cache, and
# prints its build directory (logs go to stderr).  -n prints only what it
# would do: "index hit DIR", "reuse DIR", "adopt DIR" or "build DIR".
#
# Flavours, "make tinyconfig" plus fragments:
#   NAME    an x86 test kernel (debug, kcsan, rt, any kunit/NAME.config):
#           kunit/base.config + kunit/x86.config + kunit/NAME.config;
#           bzImage and modules
#   kunit-arm64  the arm64 test kernel, cross-built (aarch64-linux-gnu-):
#           kunit/base.config + kunit/kunit-arm64.config; Image and modules
#   peers   bench/peers.config (make bench-peers); bzImage and modules
#   peers-nostats  + bench/peers-nostats.config; built from a copy of the
#           peers build, so kbuild recompiles only what SLUB_STATS touches
#   allocinfo  + bench/allocinfo.config (make allocinfo): the peers kernel
#           with a block layer, null_blk and ext2; bzImage and modules
#   i386    ARCH=i386, tests/i386/kernel.config; modules_prepare only
# Every option the fragments ask for (the last to name it) must survive
# olddefconfig.
#
# Keyed by configuration: FLAVOUR-SOURCEVERSION-KEY in $CMSTAT_CACHE/kernel,
# KEY a hash of the .config made (it names the compiler and linker), the
# source version, the arch, the targets and BUILDER_REV; any finished
# kernel there with a byte-identical .config, built alike, is used as it
# is.  The index file there maps the inputs (fragments, gcc and ld
# versions, source version, arch, targets, BUILDER_REV) to the directory,
# so a cached run makes no .config; a miss makes one in a scratch
# directory (seconds).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# How kernels are built: raise it to build every kernel anew.  1 is also
# what test-kernel.sh, peers-kernel.sh and i386-check.sh built, before.
BUILDER_REV=1

dry=0
[ "${1:-}" = -n ] && { dry=1; shift; }
flavour=${1:?usage: kernel.sh [-n] FLAVOUR}
arch=x86 targets=(bzImage modules) seed='' cross=''
case "$flavour" in
i386) arch=i386 targets=(modules_prepare) frags=(tests/i386/kernel.config) ;;
kunit-arm64)
	arch=arm64 targets=(Image modules) cross=aarch64-linux-gnu-
	frags=(kunit/base.config kunit/kunit-arm64.config) ;;
peers) frags=(bench/peers.config) ;;
peers-nostats) frags=(bench/peers.config bench/peers-nostats.config) seed=peers ;;
allocinfo) frags=(bench/peers.config bench/allocinfo.config) ;;
*) frags=(kunit/base.config kunit/x86.config "kunit/$flavour.config") ;;
esac
frags=("${frags[@]/#/$CMSTAT_ROOT/}")
for f in "${frags[@]}"; do
	[ -f "$f" ] || die "no config fragment $f"
done

ensure_pkgs "${HOST_PKGS[@]}"
[ -z "$cross" ] || ensure_pkgs "${ARM64_PKGS[@]}"
src=$(kernel_source)
ver=$(basename "$src")
cache=$CMSTAT_CACHE/kernel
index=$cache/index
how="builder $BUILDER_REV source $ver arch $arch targets ${targets[*]}"
kmake=(make -C "$src" ARCH="$arch" ${cross:+CROSS_COMPILE=$cross})
inputs=$({ echo "$how"; cat "${frags[@]}"; "${cross}gcc" --version; "${cross}ld" --version; } |
	sha256sum | cut -c1-16)

# use DIR WHY: DIR is the kernel; say why, remember it in the index, print
# it, and stop.
use() {
	log "$flavour kernel: $2 $1"
	if [ "$dry" = 1 ]; then
		echo "$2 $1"
	else
		[ "$2" = "index hit" ] || echo "$inputs $(basename "$1")" >>"$index"
		echo "$1"
	fi
	exit 0
}

hit=$(awk -v k="$inputs" '$1 == k { d = $2 } END { print d }' "$index" 2>/dev/null) || true
[ -n "$hit" ] && [ -e "$cache/$hit/.done" ] && use "$cache/$hit" "index hit"

# check_options CONFIG: every option asked for survived olddefconfig.
check_options() {
	local line
	grep -h '^CONFIG_' "${frags[@]}" | awk -F= '{ last[$1] = $0 } END { for (o in last) print last[o] }' |
	while IFS= read -r line; do
		case "$line" in
		*=n) ! grep -q "^${line%=n}=" "$1" ;;
		*) grep -qx "$line" "$1" ;;
		esac || { echo "config option lost: $line"; return 1; }
	done
}

# built_as DIR: how DIR was built, as $how says it.  A kernel of the
# scripts before this one has no record: they built bzImage and modules,
# or an i386 tree's modules_prepare.
built_as() {
	local made="bzImage modules"
	if [ -e "$1/.built-as" ]; then
		cat "$1/.built-as"
		return
	fi
	[ -e "$1/arch/x86/boot/bzImage" ] || made=modules_prepare
	echo "builder 1 source $(basename "$(readlink "$1/source")")" \
		"arch $(sed -n '3s,^# Linux/\([^ ]*\) .*,\1,p' "$1/.config") targets $made"
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
{
	"${kmake[@]}" O="$scratch" tinyconfig &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$scratch" "$scratch/.config" "${frags[@]}" &&
	"${kmake[@]}" O="$scratch" olddefconfig &&
	check_options "$scratch/.config"
} >"$scratch/config.log" 2>&1 || {
	tail -n 20 "$scratch/config.log" >&2
	die "cannot configure the $flavour kernel"
}
key=$({ echo "$how"; cat "$scratch/.config"; } | sha256sum | cut -c1-12)
out=$cache/$flavour-$ver-$key
[ -e "$out/.done" ] && use "$out" reuse
for dir in "$cache"/*/; do
	dir=${dir%/}
	[ -e "$dir/.done" ] && cmp -s "$dir/.config" "$scratch/.config" &&
		[ "$(built_as "$dir")" = "$how" ] && use "$dir" adopt
done
[ "$dry" = 1 ] && use "$out" "build${seed:+ (from a copy of the $seed kernel)}"

[ -z "$seed" ] || seed=$(bash "$0" "$seed")
# One build at a time; a second caller of the same kernel waits, then
# finds it built.
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
[ -e "$out/.done" ] && use "$out" reuse
log "building the $flavour kernel ($ver, $arch, config $key) in $out"
start=$(date +%s)
rm -rf "$out" && mkdir -p "$out"
if [ -n "$seed" ]; then
	cp -a "$seed/." "$out/"
	rm -f "$out/.done" "$out/.built-as"
fi
cp "$scratch/.config" "$out/.config"
{
	"${kmake[@]}" O="$out" olddefconfig &&
	cmp "$scratch/.config" "$out/.config" &&
	"${kmake[@]}" O="$out" -j"$JOBS" "${targets[@]}"
} >"$out/build.log" 2>&1 || {
	tail -n 30 "$out/build.log" >&2
	die "the $flavour kernel did not build, log in $out/build.log"
}
echo "$how" >"$out/.built-as"
touch "$out/.done"
log "$flavour kernel built in $(($(date +%s) - start)) s"
use "$out" build
