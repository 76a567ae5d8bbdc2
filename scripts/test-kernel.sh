#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-kernel.sh FLAVOUR: build (or take from the cache) the test kernel
# FLAVOUR (debug or kcsan) and print its build directory, which holds
# arch/x86/boot/bzImage and the Module.symvers our modules link against.
#
# The kernel is "make tinyconfig" plus kunit/base.config plus
# kunit/FLAVOUR.config, built out of tree (O=) from Debian's linux-source-6.12.
# It is cached under $CMSTAT_CACHE/kernel/ keyed by the source package
# version and a hash of the fragments, this script and the compiler, so a
# change to any of them builds a new kernel and a fresh clone reuses an old one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: test-kernel.sh debug|kcsan}
frag="$CMSTAT_ROOT/kunit/$flavour.config"
[ -f "$frag" ] || die "no config fragment $frag"

ensure_pkgs "${HOST_PKGS[@]}"
src=$(kernel_source)
ver=$(basename "$src")
hash=$(cat "$CMSTAT_ROOT/kunit/base.config" "$frag" "$0" <(gcc --version) |
	sha256sum | cut -c1-12)
out="$CMSTAT_CACHE/kernel/$flavour-$ver-$hash"

if [ -e "$out/.done" ]; then
	log "test kernel $flavour: cached in $out"
	echo "$out"
	exit 0
fi

# check_options: every option we asked for survived olddefconfig.
check_options() {
	grep -h '^CONFIG_' "$CMSTAT_ROOT/kunit/base.config" "$frag" |
	while IFS= read -r line; do
		case "$line" in
		*=n) grep -q "^# ${line%=n} is not set" "$out/.config" ||
			! grep -q "^${line%=n}=" "$out/.config" ;;
		*) grep -qx "$line" "$out/.config" ;;
		esac || { echo "config option lost: $line"; return 1; }
	done
}

# build: each step checked by hand, as set -e does not apply in a
# command list whose status is tested.
build() {
	make -C "$src" O="$out" tinyconfig &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$CMSTAT_ROOT/kunit/base.config" "$frag" &&
	make -C "$src" O="$out" olddefconfig &&
	check_options &&
	make -C "$src" O="$out" -j"$JOBS" bzImage modules
}

log "building test kernel $flavour ($ver, config $hash) in $out"
rm -rf "$out" && mkdir -p "$out"
build >"$out/build.log" 2>&1 || {
	tail -n 30 "$out/build.log" >&2
	die "test kernel build failed, log in $out/build.log"
}
touch "$out/.done"
echo "$out"
