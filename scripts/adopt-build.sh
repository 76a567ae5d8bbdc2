#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# adopt-build.sh KSRC KDIR MODDIR TREE OUT [MAKEARG...]: two in-tree modules
# nobody here wrote, and two test modules of ours, adopted as Documentation/allocator.rst tells a module
# author to: their directories copied from the kernel source KSRC into OUT,
# one line added to each Kbuild file, and built against KDIR with W=1 and
# cmstat's TREE (a built copy of this tree: its Module.symvers).  Prints
# the modules built and the kernel's modules they need; the log of each
# is OUT/NAME.log.  Also writes
# OUT/sections: for each module and cmstat.ko, its executable sections and
# their sizes, from which the check in the VM tells which module's code
# made a kmem event; and OUT/adopt-deps, the kernel's modules they need,
# copied from MODDIR (the kernel's build tree, or an unpacked
# /lib/modules/RELEASE) into OUT, in the order to load them.  With
# ADOPT_PLAIN=1, each is also built as the kernel has it, without the
# line, as OUT/NAME-plain.ko: the benchmark's baseline.  With
# ADOPT_SITES=1, each is also built adopted with call-site rows (the line
# that defines CMSTAT_SITES too), as OUT/NAME-sites.ko, for
# scripts/guest/checks/adopt-sites.sh.  With ADOPT_RUNTIME=1, the
# RUNTIME modules below are adopted too, for
# scripts/guest/checks/adopt-runtime.sh, with the ext4 image it mounts
# as OUT/ext4.img.gz.  With ADOPT_ROOT
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

# The runtime check's modules (ADOPT_RUNTIME=1), in the order they build
# and load, each as OUT/NAME-runtime.ko: the kernel's jbd2.ko, which
# cmstat_adopt_test needs, is OUT/jbd2.ko.  What each exports, the next
# ones link against.  jbd2 and ext4: a journalled filesystem, jbd2 a module of its
# own, adopted as well.  zram: a compressed RAM disk, ext4's disk there.
# veth and bridge: a network path; veth is one file of drivers/net, built
# alone (a DIR ending in .c), and the bridge's netfilter directory
# (ebtables' modules) is left out; br_netfilter.ko, one file of the
# bridge's Makefile, is built and not loaded.
RUNTIME=(
	"zram drivers/block/zram"
	"jbd2 fs/jbd2"
	"ext4 fs/ext4"
	"veth drivers/net/veth.c"
	"bridge net/bridge CONFIG_NETFILTER="
)

# adopt DIR: the module in DIR adopted as its author would, by
# scripts/cmstat-adopt.
adopt() {
	"$CMSTAT_ROOT/scripts/cmstat-adopt" "$1" >/dev/null
}

# The line that asks for call-site rows (Documentation/allocator.rst).
SITES_LINE='subdir-ccflags-y += -DCMSTAT_SITES'

# ko_of NAME: the module NAME's build makes, without the build's suffix.
ko_of() {
	local ko=${1%-plain}
	ko=${ko%-runtime}
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
	local mod name size flags
	mod=$(modinfo -F name "$1")
	# Name Type Address Off Size ES Flg ...
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
	while read -r name _ _ _ size _ flags _; do
		if [[ $flags == *X* ]]; then
			echo "${mod:-$(basename "$1" .ko)} $name $((16#$size))"
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
	*.c)
		mkdir "$out/$name" && cp "$ksrc/$dir" "$out/$name/" &&
			echo "obj-m += $(basename "$dir" .c).o" >"$out/$name/Makefile" ;;
	*) cp -r "$ksrc/$dir" "$out/$name" ;;
	esac
	[[ $name == *-plain || $name == *-unadopted ]] || adopt "$out/$name"
	[[ $name != *-sites ]] || sed -i "1i $SITES_LINE" "$out/$name/Makefile"
	"${RUN[@]}" make -C "$kdir" M="$(seen "$out/$name")" W=1 KCFLAGS="-g${KCFLAGS_MORE:-}" \
		CMSTAT_INCLUDE="$(seen "$tree/include")" \
		KBUILD_EXTRA_SYMBOLS="$symvers" "$@" modules \
		>"$out/$name.log" 2>&1 || return 1
	if [ "$(build_problems "$out/$name.log")" != 0 ]; then
		[[ $name != *-plain && $name != *-unadopted ]] &&
			[ -z "$(new_problems "$name" "$dir" "$@")" ] || return 1
	fi
	[[ $name == *-unadopted ]] || cp "$out/$name/$(ko_of "$name").ko" "$out/$name.ko"
}

# tree_view NAME DIR: the compiler flag that lets the kernel's headers
# reach NAME's own by the path they have in the kernel's tree: bridge's
# tracepoint header includes "../../../net/bridge/br_private.h", which
# Debian's headers package lacks.  OUT/NAME.tree/DIR links to OUT/NAME.
tree_view() {
	local view=$out/$1.tree dir=$2
	[[ $dir != *.c ]] || dir=$(dirname "$dir")
	mkdir -p "$view/include/trace/events" "$(dirname "$view/$dir")" &&
		ln -sr "$out/$1" "$view/$dir" &&
		echo " -iquote $(seen "$view/include/trace/events")"
}

# ext4_image OUT: an empty ext4 of 32 MiB with a journal, gzipped, made
# here: busybox's mke2fs makes ext2 only.  Its tables initialised now, so
# that the kernel's lazy initialisation has nothing to write later.
ext4_image() {
	local img=$1.img
	rm -f "$img" && truncate -s 32M "$img" &&
		mke2fs -q -F -t ext4 -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$img" &&
		gzip -f "$img"
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
# What the modules link against: cmstat's exports, and each adopted
# module's once built.
symvers=$(seen "$tree/Module.symvers")

# adopt_one NAME DIR ARGS...: NAME built adopted, its code's sections
# noted, and the kernel's modules it needs that are not adopted here
# copied.
adopt_one() {
	local name=$1
	build "$@" || return 1
	sections "$out/$name.ko" >>"$out/sections"
	echo "$out/$name.ko"
	symvers+=" $(seen "$out/$name/Module.symvers")"
	kernel_deps "$out/$name.ko"
}

# kernel_deps KO: the kernel's modules KO needs, and theirs before them
# (the bridge's stp needs llc), listed in OUT/adopt-deps in the order to
# load them; those adopted here are not the kernel's.
kernel_deps() {
	local dep
	for dep in $(modinfo -F depends "$1" | tr , ' '); do
		kernel_dep "$dep" || return 1
	done
}

# kernel_dep NAME: the kernel's module NAME and what it needs, as
# kernel_deps lists them, unless adopted here or listed already; prints
# the path of each copied, after those of what it needs.
kernel_dep() {
	[ "$1" = cmstat ] || [ -e "$out/$1-runtime.ko" ] || grep -qx "$1" "$out/adopt-deps" ||
		{ kernel_module "$1" >/dev/null && kernel_deps "$out/$1.ko" &&
			echo "$1" >>"$out/adopt-deps" && echo "$out/$1.ko"; }
}

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
	adopt_one "$name" "$dir" $args "$@" || rc=1
done
if [ "${ADOPT_RUNTIME:-0}" = 1 ]; then
	ext4_image "$out/ext4" && echo "$out/ext4.img.gz" || rc=1
	for entry in "${RUNTIME[@]}"; do
		read -r name dir args <<<"$entry"
		# shellcheck disable=SC2086 # the same
		KCFLAGS_MORE=$(tree_view "$name-runtime" "$dir") &&
			adopt_one "$name-runtime" "$dir" $args "$@" || rc=1
	done
	# ext4 asks the crypto API for crc32c, which the kernel would load
	# with modprobe; no module depends on it by symbol.
	kernel_dep crc32c_generic || rc=1
fi
echo "$out/sections"
echo "$out/adopt-deps"
exit "$rc"
