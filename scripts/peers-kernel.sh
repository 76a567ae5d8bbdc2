#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# peers-kernel.sh: build (or take from the cache) the kernel make
# bench-peers boots, and print its build directory: "make tinyconfig" plus
# bench/peers.config, out of tree (O=) from Debian's linux-source-6.12,
# cached under $CMSTAT_CACHE/kernel/ as test-kernel.sh caches the test
# kernels (keyed by the source package version and a hash of the fragment,
# this script and the compiler).  The directory holds:
#
#   arch/x86/boot/bzImage   the kernel of the fragment, with SLUB_STATS
#   bzImage-nostats         the same kernel without SLUB_STATS, the
#                           baseline of the SLUB statistics' figures
#   Module.symvers          what our modules link against; they load in
#                           both kernels (SLUB_STATS changes only mm/slub.c)
#   config.diff             the two kernels' configurations, compared
#
# SLUB_STATS has no run-time switch, so the baseline is a second kernel;
# built first, with only that option changed, it costs one full build and
# the recompilation of mm/slub.c, not two full builds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frag="$CMSTAT_ROOT/bench/peers.config"

ensure_pkgs "${HOST_PKGS[@]}"
src=$(kernel_source)
ver=$(basename "$src")
hash=$(cat "$frag" "$0" <(gcc --version) | sha256sum | cut -c1-12)
out="$CMSTAT_CACHE/kernel/peers-$ver-$hash"

if [ -e "$out/.done" ]; then
	log "peers kernel: cached in $out"
	echo "$out"
	exit 0
fi

# check_options: every option of the fragment but SLUB_STATS must have
# survived olddefconfig, and SLUB_STATS must be as the build wants it ($1).
check_options() {
	grep -h '^CONFIG_' "$frag" | sed "s/^CONFIG_SLUB_STATS=.*/CONFIG_SLUB_STATS=$1/" |
	while IFS= read -r line; do
		case "$line" in
		*=n) grep -q "^# ${line%=n} is not set" "$out/.config" ||
			! grep -q "^${line%=n}=" "$out/.config" ;;
		*) grep -qx "$line" "$out/.config" ;;
		esac || { echo "config option lost: $line"; return 1; }
	done
}

# build: the two kernels, one after the other in $out.  Every step is
# checked by hand: set -e does not apply inside a function whose status
# the caller tests.
build() {
	make -C "$src" O="$out" tinyconfig &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" &&
	"$src/scripts/config" --file "$out/.config" --disable SLUB_STATS &&
	make -C "$src" O="$out" olddefconfig &&
	check_options n &&
	make -C "$src" O="$out" -j"$JOBS" bzImage modules &&
	cp "$out/arch/x86/boot/bzImage" "$out/bzImage-nostats" &&
	cp "$out/.config" "$out/config-nostats" || return 1
	nostats=$(date +%s)

	# kbuild rebuilds only what depends on the option that changed.
	"$src/scripts/config" --file "$out/.config" --enable SLUB_STATS &&
	make -C "$src" O="$out" olddefconfig &&
	check_options y &&
	make -C "$src" O="$out" -j"$JOBS" bzImage modules || return 1
	# Nothing but SLUB_STATS may differ between the two kernels.
	diff "$out/config-nostats" "$out/.config" >"$out/config.diff"
	if [ "$(grep -c '^[<>]' "$out/config.diff")" != 2 ] ||
	   ! grep -q '^> CONFIG_SLUB_STATS=y$' "$out/config.diff"; then
		echo "the two configurations differ in more than SLUB_STATS:"
		cat "$out/config.diff"
		return 1
	fi
	echo "build times: without SLUB_STATS $((nostats - start)) s," \
		"then with it $(($(date +%s) - nostats)) s"
}

log "building the peers kernel ($ver, config $hash) in $out"
start=$(date +%s)
rm -rf "$out" && mkdir -p "$out"
build >"$out/build.log" 2>&1 || {
	tail -n 30 "$out/build.log" >&2
	die "peers kernel build failed, log in $out/build.log"
}
log "peers kernel: $(tail -n 1 "$out/build.log")"
touch "$out/.done"
echo "$out"
