#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# adopt-sweep.sh KSRC KDIR MODDIR TREE OUT: the adoption line on modules
# of every kind nobody here tuned it to, from the kernel source KSRC,
# built against KDIR (Debian's stock headers) with W=1 and debug info as
# Documentation/allocator.rst tells a module author to, and each module
# built read by scripts/cmstat-adopt-check.  TREE is a built copy of this
# tree (its Module.symvers); MODDIR has the kernel's own modules, which
# say that a module builds without the line when the adopted build gives
# no reason to build it again.  Prints KTAP, a result per entry of SWEEP
# with its row of the table as a diagnostic; the logs are under OUT.
#
# An entry passes if every module it builds is adopted (or calls nothing
# adopt.h routes), with nothing missed and no warning the module built
# without the line lacks, or is refused by name (a library without
# module_init()), or does not build without the line either (a skip).
# The line is written by scripts/cmstat-adopt, as a module author would,
# with the flag it gives each file that defines its own pr_fmt() first;
# the table's pr_fmt column counts the "pr_fmt redefined" warnings that
# remain, each a new warning that fails the entry.
#
# The entry of kind "control" is the sweep's negative control: fs/fuse
# with the line as ccflags-y, as the docs gave it before, which the
# Makefile's own "ccflags-y =" then discards.  It passes only if the
# sweep finds cuse.ko not adopted: a sweep that cannot see a module the
# line missed would pass it as adopted.
#
# An entry's result is kept in $CMSTAT_CACHE/adopt-sweep under a hash of
# all it was made from: the module's sources, cmstat's headers, this
# script, lib.sh and the checker, KDIR's configuration, release and
# symbols, TREE's symbols (their CRCs, not where TREE is) and the
# compiler, if it passed.  SWEEP_JOBS
# entries are built at once (2).
# shellcheck source-path=SCRIPTDIR
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ktap.sh"

ksrc=$(realpath "$1") kdir=$(realpath "$2") moddir=$(realpath "$3") tree=$(realpath "$4")
out=$(realpath -m "$5")
CACHE=$CMSTAT_CACHE/adopt-sweep
CHECKER=$CMSTAT_ROOT/scripts/cmstat-adopt-check
ADOPTER=$CMSTAT_ROOT/scripts/cmstat-adopt

# KIND PATH: a directory with its own Makefile or Kbuild file, built as
# the kernel's configuration in KDIR has it, or one file of a directory
# whose Makefile builds many others (crypto/, lib/, drivers/net), built
# alone as "obj-m += NAME.o" with its directory's headers beside it.
# fs/fat is left out: an acceptance check outside this project adopts it.
SWEEP=(
	"fs-journal fs/ext4"
	"fs-journal fs/jbd2"
	"fs-log fs/nilfs2"
	"fs fs/isofs"
	"fs fs/udf"
	"fs fs/squashfs"
	"fs fs/minix"
	"fs fs/romfs"
	"fs fs/vboxsf"
	"fs fs/hfs"
	"fs fs/hfsplus"
	"fs fs/befs"
	"fs fs/efs"
	"fs fs/qnx4"
	"fs fs/qnx6"
	"fs fs/ufs"
	"fs fs/sysv"
	"fs fs/affs"
	"fs fs/omfs"
	"fs fs/freevxfs"
	"fs fs/bfs"
	"fs fs/hpfs"
	"fs fs/exfat"
	"fs fs/autofs"
	"fs fs/fuse"
	"library fs/mbcache.c"
	"block drivers/block/zram"
	"block drivers/block/drbd"
	"block drivers/block/aoe"
	"block drivers/block/loop.c"
	"block drivers/block/nbd.c"
	"block drivers/block/brd.c"
	"net-driver drivers/net/team"
	"net-driver drivers/net/ipvlan"
	"net-driver drivers/net/vxlan"
	"net-driver drivers/net/veth.c"
	"net-driver drivers/net/tun.c"
	"net-driver drivers/net/macvlan.c"
	"net-driver drivers/net/dummy.c"
	"net-protocol net/llc"
	"net-protocol net/8021q"
	"net-protocol net/l2tp"
	"net-protocol net/9p"
	"net-protocol net/mpls"
	"net-protocol net/hsr"
	"net-protocol net/key"
	"net-protocol net/can"
	"net-protocol net/phonet"
	"control fs/fuse"
	"crypto crypto/async_tx"
	"crypto crypto/cryptd.c"
	"compressor crypto/lz4.c"
	"compressor crypto/deflate.c"
	"compressor lib/lz4"
	"library lib/lru_cache.c"
	"library lib/reed_solomon"
	"library lib/ts_kmp.c"
)

# The line of the negative control: dropped by a later "ccflags-y =".
CONTROL_LINE='ccflags-y += -I$(CMSTAT_INCLUDE) -include cmstat/adopt.h'

# source_of PATH DEST: PATH of KSRC, as its module's build directory DEST.
source_of() {
	local path=$1 dest=$2
	rm -rf "$dest"
	if [[ $path == *.c ]]; then
		mkdir -p "$dest"
		cp "$ksrc/$path" "$dest/"
		cp "$ksrc/$(dirname "$path")"/*.h "$dest/" 2>/dev/null
		echo "obj-m += $(basename "$path" .c).o" >"$dest/Makefile"
	else
		cp -r "$ksrc/$path" "$dest"
	fi
}

# kbuild_file DIR: the file kbuild reads in DIR, Kbuild before Makefile.
kbuild_file() {
	if [ -e "$1/Kbuild" ]; then echo "$1/Kbuild"; else echo "$1/Makefile"; fi
}

# build_in DIR LOG: the module in DIR built; make's status.
build_in() {
	make -C "$kdir" M="$1" W=1 KCFLAGS=-g CMSTAT_INCLUDE="$CMSTAT_ROOT/include" \
		KBUILD_EXTRA_SYMBOLS="$tree/Module.symvers" modules >"$2" 2>&1
}

# inputs KIND PATH: what an entry's result is made from, hashed.
inputs() {
	local kind=$1 path=$2
	{
		if [[ $path == *.c ]]; then
			cat "$ksrc/$path" "$ksrc/$(dirname "$path")"/*.h 2>/dev/null
		else
			find "$ksrc/$path" -type f | sort | xargs cat
		fi
		find "$CMSTAT_ROOT/include/cmstat" -type f | sort | xargs cat
		cat "$SWEEP_SCRIPT" "$CMSTAT_ROOT/scripts/lib.sh" "$CHECKER" "$ADOPTER" "$kdir/.config" \
			"$kdir/include/config/kernel.release"
		# Each symbol's CRC, not the path of the module that exports
		# it: a clone elsewhere (CI's) finds the same results.
		cut -f1,2 "$kdir/Module.symvers" "$tree/Module.symvers"
		gcc --version
		echo "$kind $path"
	} | sha256sum | cut -d' ' -f1
}

# sweep_entry KIND PATH DIR: one entry built in DIR; writes DIR.result
# (1, skip or 0, and how many modules are adopted), DIR.row (its row of
# the table) and DIR.report (the checker's reports and the problems that
# decided it).
sweep_entry() {
	local kind=$1 path=$2 dir=$3 ok=1 rc=0 plain='' new='' prfmt verdict ko kos=()
	local adopted=0 missed=0 kernel=0 other=0 report status m k o
	: >"$dir.report"
	source_of "$path" "$dir"
	if [ "$kind" = control ]; then
		sed -i "1i $CONTROL_LINE" "$(kbuild_file "$dir")"
	else
		"$ADOPTER" "$dir" >>"$dir.report"
	fi
	build_in "$dir" "$dir.log" || rc=$?
	prfmt=$(problem_lines "$dir.log" "$dir" | grep -c '"pr_fmt" redefined')
	# Built again without the line only if the adopted build needs it.
	if [ "$rc" != 0 ] || [ -n "$(problem_lines "$dir.log" "$dir")" ]; then
		source_of "$path" "$dir-unadopted"
		build_in "$dir-unadopted" "$dir-unadopted.log" && plain=yes || plain=no
		new=$(comm -23 <(problem_lines "$dir.log" "$dir") \
			<(problem_lines "$dir-unadopted.log" "$dir-unadopted") |
			grep -v '"cmstat_adopt_heap_of_module_init"')
		[ -z "$new" ] || { ok=0; head -n 20 <<<"$new" >>"$dir.report"; }
	fi
	mapfile -t kos < <(find "$dir" -name '*.ko' | sort)
	if [ "$rc" != 0 ]; then
		verdict=failed
		if [ "$plain" = no ]; then
			verdict='fails without it' ok=skip
		elif grep -q '"cmstat_adopt_heap_of_module_init" .* undefined' "$dir.log"; then
			verdict='refused: no module_init()'
		else
			ok=0
		fi
	else
		verdict=built
		[ "${#kos[@]}" -gt 0 ] || ok=0
		[ -n "$plain" ] || plain="shipped $(shipped "${kos[@]}")/${#kos[@]}"
	fi
	for ko in "${kos[@]}"; do
		status=0
		report=$("$CHECKER" "$ko" 2>&1) || status=$?
		[ "$status" = 0 ] || ok=0
		echo "$report" >>"$dir.report"
		read -r m k o < <(sed -n \
			's/.*: \([0-9]*\) missed, \([0-9]*\) kernel, \([0-9]*\) other;.*/\1 \2 \3/p' \
			<<<"$report")
		[ -z "$m" ] || adopted=$((adopted + 1))
		missed=$((missed + ${m:-0})) kernel=$((kernel + ${k:-0})) other=$((other + ${o:-0}))
	done
	if [ "$kind" = control ]; then
		# Passes on what it exists to show, and adopts nothing of the tally.
		ok=0 verdict="control: $verdict"
		[ "$rc" != 0 ] || ! grep -q 'not an adopted module' "$dir.report" || ok=1
		adopted=0
	fi
	echo "$ok $adopted" >"$dir.result"
	row "$kind" "$path" "$verdict" "${#kos[@]}" "$adopted" "$plain" \
		"$(grep -c . <<<"$new")" "$prfmt" "$missed" "$kernel" "$other" >"$dir.row"
}

# row FIELD...: a row of the table.
row() {
	printf '%-12s %-24s %-25s %4s %7s %-14s %5s %6s %6s %6s %5s\n' "$@"
}

# shipped KO...: how many of the modules KDIR's kernel ships in MODDIR.
shipped() {
	local ko n=0
	for ko in "$@"; do
		find "$moddir" -name "$(basename "$ko")*" | grep -q . && n=$((n + 1))
	done
	echo "$n"
}

# entry I: entry I of SWEEP, from the cache or built; its files are
# OUT/I.*, and the cache's copy of them.
entry() {
	local kind path key dir=$out/$1 f
	read -r kind path <<<"${SWEEP[$1]}"
	key=$(inputs "$kind" "$path")
	if [ -e "$CACHE/$key.result" ]; then
		for f in result row report; do cp "$CACHE/$key.$f" "$dir.$f"; done
		return
	fi
	sweep_entry "$kind" "$path" "$dir"
	# Only a pass: a failure may be the machine's (a full disk, make killed).
	[ "$(cut -d' ' -f1 "$dir.result")" = 1 ] || return
	mkdir -p "$CACHE"
	for f in result row report; do cp "$dir.$f" "$CACHE/$key.$f"; done
}

rm -rf "$out" && mkdir -p "$out"
SWEEP_SCRIPT=$(realpath "$0")
export -f entry sweep_entry row source_of kbuild_file build_in problem_lines inputs shipped
export ksrc kdir moddir tree out CACHE CHECKER ADOPTER CONTROL_LINE CMSTAT_ROOT SWEEP_SCRIPT
seq 0 $((${#SWEEP[@]} - 1)) |
	SWEEP_LIST=$(printf '%s\n' "${SWEEP[@]}") xargs -P "${SWEEP_JOBS:-2}" -I{} \
	bash -c 'mapfile -t SWEEP <<<"$SWEEP_LIST"; entry "$1"' _ {}

ktap_diag "$(row kind source 'with the line' kos adopted 'without it' new pr_fmt \
	missed kernel other)"
modules=0
for i in "${!SWEEP[@]}"; do
	ktap_diag "$(cat "$out/$i.row")"
done
for i in "${!SWEEP[@]}"; do
	read -r kind path <<<"${SWEEP[$i]}"
	read -r result adopted <"$out/$i.result"
	modules=$((modules + adopted))
	[ "$result" = 1 ] || ktap_diag "$(cat "$out/$i.report")"
	name="adopted $path"
	[ "$kind" != control ] || name="control: $path with the line as ccflags-y, not adopted"
	ktap_result "$name" "$result" \
		"$([ "$result" = skip ] && echo 'does not build without the line either')"
done
ktap_result "the sweep adopts 40 modules or more" "$([ "$modules" -ge 40 ] && echo 1)" \
	"$modules modules adopted, from ${#SWEEP[@]} sources"
ktap_print
