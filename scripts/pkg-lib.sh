# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the packaging checks share (scripts/packaging.sh on private DKMS
# trees, scripts/deb-check.sh in a throwaway root where dpkg drives DKMS):
# a check's failures collected into one KTAP result, commands whose logs
# are kept, what DKMS built, installed and removed, and the sample client
# built against the installed files.  Sourced after lib.sh and ktap.sh.

# show: its input, indented, on stderr, for whoever reads the run: stdout
# holds the KTAP document alone.
show() { sed 's/^/    /' >&2; }

# logged LOG COMMAND...: COMMAND with its output in LOG, whose tail goes to
# stderr if it fails; COMMAND's status.
logged() {
	local log=$1 rc
	shift
	"$@" >"$log" 2>&1 && return 0
	rc=$?
	{ echo "$*: status $rc, log $log:"; tail -n 20 "$log"; } | show
	return "$rc"
}

# fail WHY: the check under way fails, for the reason WHY (one line), which
# pkg_result makes a diagnostic of its result.
PKG_WHY=()
fail() { PKG_WHY+=("$*"); }

# fail_if_any WHAT LINES: fail, if LINES (what a check found wrong, a line
# each) is not empty: they all go to stderr, their count and the first to
# the reason, "WHAT (COUNT): FIRST".
fail_if_any() {
	[ -n "$2" ] || return 0
	show <<<"$2"
	fail "$1 ($(grep -c . <<<"$2")): $(head -n 1 <<<"$2")"
}

# pkg_result NAME [DETAIL]: the KTAP result of the check under way: it
# passed unless fail was called since the last result.  Returns 1 if not.
pkg_result() {
	local why ok=1
	for why in "${PKG_WHY[@]}"; do
		ktap_diag "$1: $why"
		ok=0
	done
	PKG_WHY=()
	ktap_result "$1" "$ok" "${2:-}"
	[ "$ok" = 1 ]
}

# has_cmstat_exports SYMVERS: the Module.symvers SYMVERS has cmstat's
# exports, from module/cmstat (not from a client that copied them).
has_cmstat_exports() {
	awk -F '\t' '$2 == "cmstat_heap_create" && $3 ~ /(^|\/)module\/cmstat$/ { found = 1 }
		END { exit !found }' "$1" 2>/dev/null
}

# --- DKMS ----------------------------------------------------------------
#
# The same checks whoever drives DKMS: packaging.sh's own dkms commands on
# private trees, or cmstat-dkms's maintainer scripts in a root of their
# own.  dkms_site LOGDIR TREE SRC INST COMMAND... says where: COMMAND runs
# dkms there; TREE, SRC and INST are its /var/lib/dkms, /usr/src and
# /lib/modules as seen from here; the build's make.log is kept in LOGDIR.
dkms_site() {
	DKMS_LOGS=$1 DKMS_TREE=$2 DKMS_SRC=$3 DKMS_INST=$4
	shift 4
	DKMS_RUN=("$@")
}

# dkms_state VER ABI: what dkms status says of cmstat VER for ABI: built,
# installed, added or nothing.
dkms_state() {
	"${DKMS_RUN[@]}" status -m cmstat -v "$1" -k "$2" 2>/dev/null |
		sed -n 's/^cmstat[/,].*: \([a-z]*\).*/\1/p;T;q'
}

# ko_uncompressed KO: the module KO, decompressed as DKMS may have
# compressed it, on stdout.  xz -f copies what is not xz as it is.
ko_uncompressed() {
	case "$1" in
	*.zst) zstd -qdc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) xz -dcf "$1" ;;
	esac
}

# dkms_check NAME VER ABI STATE: one result: cmstat VER is STATE (built or
# installed) for ABI, the module (in the dkms tree, or in the install tree
# once installed) has version VER, the build's make.log no warning, and
# dkms.conf's POST_BUILD saved a Module.symvers with cmstat's exports for
# ABI in the source tree, where clients find it.  Sets DKMS_KO, the module.
dkms_check() {
	local name=$1 ver=$2 abi=$3 want=$4 state v log ko where=$DKMS_TREE/cmstat/$2/$3
	local symvers=$DKMS_SRC/cmstat-$ver/$abi/Module.symvers
	state=$(dkms_state "$ver" "$abi")
	[ "$state" = "$want" ] || fail "dkms status '$state', not $want"
	[ "$want" = built ] || where=$DKMS_INST/$abi/updates/dkms
	DKMS_KO=$(find "$where" -path '*/cmstat.ko*' -print -quit 2>/dev/null)
	v=$(modinfo -F version "$DKMS_KO" 2>/dev/null)
	[ "$v" = "$ver" ] || fail "cmstat.ko '${DKMS_KO:-none}': version '$v', not $ver"
	# cmstat-drgn reads cmstat's types from it (dkms.conf's STRIP).
	ko_uncompressed "$DKMS_KO" >"$DKMS_LOGS/cmstat.ko.check" &&
		readelf -S "$DKMS_LOGS/cmstat.ko.check" | grep -q '\.debug_info' ||
		fail "cmstat.ko '${DKMS_KO:-none}': no debug info, which cmstat-drgn needs"
	rm -f "$DKMS_LOGS/cmstat.ko.check"
	# A failed build leaves its log in build/, a good one in ABI/ARCH/log/.
	log=$(find "$DKMS_TREE/cmstat/$ver" -name make.log -print -quit 2>/dev/null)
	cp "$log" "$DKMS_LOGS/dkms-make.log" 2>/dev/null || fail "no make.log"
	fail_if_any make.log "$(grep -iE 'warning:|error:' "$log" 2>/dev/null)"
	has_cmstat_exports "$symvers" || fail "no ${symvers#"$DKMS_SRC"/} with cmstat's exports"
	ko=${DKMS_KO##*/}
	pkg_result "$name" "dkms status ${state:-none}; module ${ko:-none};\
 make.log $DKMS_LOGS/dkms-make.log"
}

# dkms_check_gone NAME VER ABI: one result: cmstat VER is no longer built
# or installed for ABI, and dkms.conf's POST_REMOVE deleted its
# Module.symvers.
dkms_check_gone() {
	local name=$1 ver=$2 abi=$3 state
	local symvers=$DKMS_SRC/cmstat-$ver/$abi/Module.symvers
	state=$(dkms_state "$ver" "$abi")
	[ -z "$state" ] || [ "$state" = added ] || fail "dkms status: still $state"
	fail_if_any "modules left" "$(find "$DKMS_INST/$abi" -name 'cmstat*.ko*' 2>/dev/null)"
	[ ! -e "$symvers" ] || fail "POST_REMOVE left ${symvers#"$DKMS_SRC"/}"
	pkg_result "$name" "dkms status: ${state:-nothing}"
}

# client_check NAME LOG ROOT DIR CMSTAT_DIR ABI COMMAND...: one result.
# COMMAND (output in LOG) builds a copy of samples/client in DIR against
# the headers and ABI's Module.symvers that CMSTAT_DIR holds, DIR and
# CMSTAT_DIR being paths in ROOT (/ for "", or a chroot).  The client must
# build with no undefined symbol or warning, depend on cmstat, take its
# headers from CMSTAT_DIR and nothing from this tree, and expect the CRC
# that Module.symvers gives cmstat_heap_create (modversions).  Sets
# CLIENT_KO.
client_check() {
	local name=$1 log=$2 root=$3 dir=$4 cmstat_dir=$5 abi=$6 deps incs crc_c crc_s
	shift 6
	CLIENT_KO=$root$dir/cmstat_demo.ko
	if ! logged "$log" "$@" || [ ! -f "$CLIENT_KO" ]; then
		fail "the build failed, log $log"; pkg_result "$name"; return
	fi
	fail_if_any "$log" "$(grep -iE 'undefined|warning:|error:' "$log")"
	deps=$(modinfo -F depends "$CLIENT_KO")
	[ "$deps" = cmstat ] || fail "cmstat_demo.ko depends on '$deps', not cmstat"
	incs=$(cat "$root$dir"/.*.cmd | grep -oE '[^ ]*/include/cmstat/' | sort -u)
	[ "$incs" = "$cmstat_dir/include/cmstat/" ] ||
		fail "headers from $(echo "$incs" | paste -sd ' '), not $cmstat_dir/include/cmstat/"
	fail_if_any "paths into $CMSTAT_ROOT" "$(cat "$root$dir"/.*.cmd "$root$dir/Module.symvers" |
		tr ' ' '\n' | grep -F "$CMSTAT_ROOT" | grep -vF -e "$dir" -e "$cmstat_dir")"
	crc_c=$(modprobe --dump-modversions "$CLIENT_KO" |
		awk '$2 == "cmstat_heap_create" { print $1 }')
	crc_s=$(awk '$2 == "cmstat_heap_create" { print $1 }' \
		"$root$cmstat_dir/$abi/Module.symvers")
	if [ -z "$crc_c" ] || [ "$((crc_c))" != "$((crc_s))" ]; then
		fail "cmstat_heap_create CRC: client '$crc_c', Module.symvers '$crc_s'"
	fi
	pkg_result "$name" "depends: $deps; headers and Module.symvers from $cmstat_dir; CRC $crc_c"
}
