#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# adopt-build.sh KSRC KDIR MODDIR TREE OUT [MAKEARG...]: two in-tree modules
# nobody here wrote, and two test modules of ours, adopted as Documentation/allocator.rst tells a module
# author to: their directories copied from the kernel source KSRC into OUT,
# one line added to each Kbuild file, and built against KDIR with W=1 and
# cmstat's TREE (a built copy of this tree: its Module.symvers).  Prints
# the modules built; the log of each is OUT/NAME.log.  Also writes
# OUT/sections: for each module and cmstat.ko, its executable sections and
# their sizes, from which the check in the VM tells which module's code
# made a kmem event; and OUT/adopt-deps, the kernel's modules they need,
# copied from MODDIR (the kernel's build tree, or an unpacked
# /lib/modules/RELEASE) into OUT, in the order to load them.  With
# ADOPT_PLAIN=1, each is also built as the kernel has it, without the
# line, as OUT/NAME-plain.ko: the benchmark's baseline.  With
# ADOPT_SITES=1, each is also built adopted with call-site rows (the line
# that defines CMSTAT_SITES too), as OUT/NAME-sites.ko, for
# scripts/guest/checks/adopt-sites.sh.  With ADOPT_ROOT
# set (a Debian root, scripts/trixie-lib.sh), make runs in that root, with
# the host's directory ADOPT_BIND, which holds TREE and OUT, as /build, and
# KDIR is a path in the root.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trixie-lib.sh"

ksrc=$1 kdir=$2 moddir=$3 tree=$4 out=$5
shift 5

# NAME, its directory in the kernel tree and what its make line needs.
# ext2: a filesystem (typed inode cache with a usercopy region and the
# inode list_lru, kvmalloc, kfree from an RCU callback); Debian's kernels
# serve ext2 with ext4 and do not set CONFIG_EXT2_FS.  null_blk: a block
# driver, whose memory backing allocates per page written and frees per
# page discarded.
# cmstat_adopt_test: this tree's tests/adopt (a directory of ours, @ in
# front), a module that mixes its own caches with the kernel's
# (scripts/guest/checks/client-adopt-caches.sh).
# cmstat_adopt_miss: this tree's tests/adopt-miss, built and never loaded,
# the negative control of the adoption report (scripts/cmstat-adopt-check).
ADOPTED=(
	"ext2 fs/ext2 CONFIG_EXT2_FS=m"
	"null_blk drivers/block/null_blk"
	"cmstat_adopt_test @tests/adopt"
	"cmstat_adopt_miss @tests/adopt-miss"
)

# adopt MAKEFILE: the one line a module author adds, put first, where no
# continuation of the file's own lines can take it in.
adopt() {
	sed -i "1i $ADOPT_LINE" "$1"
}

# The line that asks for call-site rows (Documentation/allocator.rst).
SITES_LINE='subdir-ccflags-y += -DCMSTAT_SITES'

# ko_of NAME: the module NAME's build makes, without the build's suffix.
ko_of() {
	local ko=${1%-plain}
	echo "${ko%-sites}"
}

# What runs make, and seen PATH: the host's PATH as make sees it.
RUN=()
[ -z "${ADOPT_ROOT:-}" ] || RUN=(root_run "$ADOPT_ROOT" "$ADOPT_BIND")
seen() {
	if [ -n "${ADOPT_ROOT:-}" ]; then echo "/build${1#"$ADOPT_BIND"}"; else echo "$1"; fi
}

# sections KO: "NAME SECTION SIZE" for each executable section of KO.
sections() {
	local name size flags
	# Name Type Address Off Size ES Flg ...
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
	while read -r name _ _ _ size _ flags _; do
		if [[ $flags == *X* ]]; then
			echo "$(basename "$1" .ko) $name $((16#$size))"
		fi
	done
}

# kernel_module NAME: the kernel's module NAME, from MODDIR into OUT.
kernel_module() {
	local ko
	ko=$(find "$moddir" -name "$1.ko" -o -name "$1.ko.xz" | head -n 1)
	[ -n "$ko" ] || { echo "no $1.ko under $moddir" >&2; return 1; }
	case "$ko" in
	*.xz) xz -dc "$ko" >"$out/$1.ko" ;;
	*) cp "$ko" "$out/$1.ko" ;;
	esac
	echo "$out/$1.ko"
}

# build NAME DIR ARGS...: the kernel's module in DIR, copied to OUT/NAME
# and built there with ARGS, as OUT/NAME.ko; with the one line, unless
# NAME ends in -plain or -unadopted.  With debug info (-g, which changes
# no instruction) whatever the kernel's config, for
# scripts/cmstat-adopt-check.  An adopted build fails on a warning that
# the module built without the line lacks (new_problems).
build() {
	local name=$1 dir=$2
	shift 2
	case "$dir" in
	@*) cp -r "$CMSTAT_ROOT/${dir#@}" "$out/$name" ;;
	*) cp -r "$ksrc/$dir" "$out/$name" ;;
	esac
	[[ $name == *-plain || $name == *-unadopted ]] || adopt "$out/$name/Makefile"
	[[ $name != *-sites ]] || sed -i "1i $SITES_LINE" "$out/$name/Makefile"
	"${RUN[@]}" make -C "$kdir" M="$(seen "$out/$name")" W=1 KCFLAGS=-g \
		CMSTAT_INCLUDE="$(seen "$tree/include")" \
		KBUILD_EXTRA_SYMBOLS="$(seen "$tree/Module.symvers")" "$@" modules \
		>"$out/$name.log" 2>&1 || return 1
	if [ "$(build_problems "$out/$name.log")" != 0 ]; then
		[[ $name != *-plain && $name != *-unadopted ]] &&
			[ -z "$(new_problems "$name" "$dir" "$@")" ] || return 1
	fi
	[[ $name == *-unadopted ]] || cp "$out/$name/$(ko_of "$name").ko" "$out/$name.ko"
}

# problems NAME: NAME's build log's warnings and errors.
problems() {
	problem_lines "$out/$1.log" "$out/$1"
}

# new_problems NAME DIR ARGS...: the warnings of NAME's adopted build that
# the module built as the kernel has it, in OUT/NAME-unadopted, lacks
# (W=1 on 6.1 finds kernel-doc problems in ext2 either way); also on
# standard error, for the log.  Built only when the adopted build warns.
new_problems() {
	local name=$1 dir=$2
	shift 2
	build "$name-unadopted" "$dir" "$@" >/dev/null 2>&1
	comm -23 <(problems "$name") <(problems "$name-unadopted") | tee /dev/stderr
}

rm -rf "$out" && mkdir -p "$out"
: >"$out/adopt-deps"
sections "$tree/module/cmstat.ko" >"$out/sections"
rc=0
for entry in "${ADOPTED[@]}"; do
	read -r name dir args <<<"$entry"
	# shellcheck disable=SC2086 # $args: the module's own make arguments
	if [ "${ADOPT_PLAIN:-0}" = 1 ] && [[ $dir != @* ]]; then
		build "$name-plain" "$dir" $args "$@" && echo "$out/$name-plain.ko" || rc=1
	fi
	# shellcheck disable=SC2086 # the same
	if [ "${ADOPT_SITES:-0}" = 1 ] && [[ $dir != @* ]]; then
		build "$name-sites" "$dir" $args "$@" && echo "$out/$name-sites.ko" || rc=1
	fi
	# shellcheck disable=SC2086 # the same
	if build "$name" "$dir" $args "$@"; then
		sections "$out/$name.ko" >>"$out/sections"
		echo "$out/$name.ko"
		for dep in $(modinfo -F depends "$out/$name.ko" | tr , ' '); do
			[ "$dep" = cmstat ] || grep -qx "$dep" "$out/adopt-deps" ||
				{ kernel_module "$dep" && echo "$dep" >>"$out/adopt-deps"; } || rc=1
		done
	else
		rc=1
	fi
done
echo "$out/sections"
echo "$out/adopt-deps"
exit "$rc"
