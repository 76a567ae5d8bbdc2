#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# packaging.sh [ABI]: the packaging checks, part of "make check", against
# Debian's stock headers for ABI (default: the stock 6.12 kernel's).
#
#   version       MODULE_VERSION in module/main.c (as "make version" reads
#                 it), dkms.conf's PACKAGE_VERSION and debian/changelog's
#                 version agree
#   dkms          dkms add, build, install and remove of a copy of the
#                 sources; dkms build's and install's output is printed;
#                 the build saves Module.symvers in the source tree
#                 (dkms.conf's POST_BUILD) and the removal deletes it
#   make install  DESTDIR=stage, then make uninstall
#   client        a copy of samples/client alone builds against the staged
#                 headers and Module.symvers: no undefined symbol, and it
#                 depends on cmstat
#   modinfo       description, author, license, version, and a description
#                 for every parameter
#   deb: ...      the Debian packages: scripts/deb-check.sh build, whose
#                 lines come under this script's prefix
#
# dkms runs on trees of its own: --dkmstree, --sourcetree, --installtree
# and its signing key in the work directory, and --no-depmod (dkms would
# run depmod on /lib/modules whatever the install tree).  So a real cmstat
# registration, /usr/src, /var/lib/dkms and /lib/modules are never
# touched, and a run killed half-way leaves only the work directory, which
# the next run empties.  JOBS=N caps make's parallelism (check.sh runs this
# beside its serial builds with JOBS=1).  Prints one "PASS|FAIL  packaging:"
# line per check; exits non-zero if any fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

start=$(date +%s)
abi=${1:-$(stock_abi 6.12)}
kdir=/usr/src/linux-headers-$abi
[ -r "$kdir/include/config/kernel.release" ] || die "no kernel headers in $kdir"
ensure_pkgs dkms dpkg-dev
work=$CMSTAT_ROOT/.build/packaging
src=$work/cmstat
stage=$work/stage
GATE_PREFIX=packaging

indent() { sed 's/^/    /'; }

# check_modinfo NAME KO [VERSION]: the fields a distribution's tools show,
# and a MODULE_PARM_DESC for each parameter (every module_param* records
# its type, so parmtype lists them all).
check_modinfo() {
	local name=$1 ko=$2 want_ver=${3:-} ok=1 f ver declared described missing
	for f in description author license; do
		[ -n "$(modinfo -F "$f" "$ko")" ] || { ok=0; echo "$name: no $f"; }
	done
	ver=$(modinfo -F version "$ko")
	if [ -n "$want_ver" ] && [ "$ver" != "$want_ver" ]; then
		ok=0
		echo "$name: version '$ver', expected '$want_ver'"
	fi
	declared=$(modinfo -F parmtype "$ko" | sed 's/:.*//' | sort -u)
	# kmod merges parmtype into parm: "name:description (type)", and
	# "name: (type)" when MODULE_PARM_DESC is missing.
	described=$(modinfo -F parm "$ko" | awk '{
		n = index($0, ":"); d = substr($0, n + 1)
		sub(/ *\([^()]*\)$/, "", d); gsub(/^ +| +$/, "", d)
		if (n > 1 && d != "") print substr($0, 1, n - 1) }' | sort -u)
	missing=$(comm -23 <(echo "$declared") <(echo "$described") | tr '\n' ' ')
	if [ -n "${missing% }" ]; then
		ok=0
		echo "$name: parameters without MODULE_PARM_DESC: $missing"
	fi
	gate "modinfo $name" "$ok" "version ${ver:-none}; $(echo "$declared" | grep -c .)\
 parameters declared, $(echo "$described" | grep -c .) described"
}

rm -rf "$work" && mkdir -p "$work"
# A copy of the sources without build products, as a release would have.
copy_tree "$src"
find "$src" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' -o \
	-name '.*.cmd' -o -name Module.symvers -o -name modules.order \) -delete
cp -r "$src/samples/client" "$work/client"

# --- version: "make version" reads main.c's MODULE_VERSION; dkms.conf
# and debian/changelog repeat it by hand (and modinfo of the built module
# is checked below).
v_main=$(make -s -C "$src" version || true)
v_dkms=$(bash -c '. "$1" && echo "$PACKAGE_NAME $PACKAGE_VERSION"' _ "$src/dkms.conf" ||
	true)
v_deb=$(dpkg-parsechangelog -l "$CMSTAT_ROOT/debian/changelog" -S Version 2>&1 || true)
ok=0
[ -n "$v_main" ] && [ "$v_dkms" = "cmstat $v_main" ] && [ "$v_deb" = "$v_main" ] && ok=1
gate "version agrees" "$ok" \
	"make version '$v_main', dkms.conf '$v_dkms', debian/changelog '$v_deb'"
ver=$v_main
# dkms goes by dkms.conf alone, so a disagreement fails one check, not all.
dver=${v_dkms#* }

# --- dkms
dk=$work/dkms
mkdir -p "$dk/tree" "$dk/src" "$dk/inst/$abi"
dkms_() {
	mok_signing_key=$dk/mok.key mok_certificate=$dk/mok.pub \
		dkms --dkmstree "$dk/tree" --sourcetree "$dk/src" --installtree "$dk/inst" "$@"
}
ok=1
detail=
symvers=$dk/src/cmstat-$dver/$abi/Module.symvers
if ! dkms_ add "$src" >"$work/dkms-add.log" 2>&1; then
	ok=0
	detail="dkms add failed"
	indent <"$work/dkms-add.log"
fi
if [ "$ok" = 1 ]; then
	rc=0
	dkms_ build "cmstat/$dver" -k "$abi" --kernelsourcedir "$kdir" -j "$JOBS" \
		>"$work/dkms-build.log" 2>&1 || rc=$?
	echo "dkms build cmstat/$dver -k $abi ($(dkms --version)), status $rc:"
	indent <"$work/dkms-build.log"
	makelog=$(find "$dk/tree" -name make.log | head -n1 || true)
	[ -n "$makelog" ] && cp "$makelog" "$work/dkms-make.log"
	built=$(find "$dk/tree/cmstat/$dver/$abi" -path '*/module/cmstat.ko*' 2>/dev/null |
		head -n1 || true)
	status=$(dkms_ status "cmstat/$dver" -k "$abi" 2>/dev/null || true)
	if [ "$rc" != 0 ] || [ -z "$built" ] || ! echo "$status" | grep -q ': built'; then
		ok=0
		detail="dkms build failed"
		[ -e "$work/dkms-make.log" ] && tail -n 30 "$work/dkms-make.log" | indent
	elif grep -iE 'warning:|error:' "$work/dkms-make.log" | indent | grep .; then
		ok=0
		detail="warnings in the build"
	else
		cp "$built" "$work/"
		detail="$(basename "$built") built, make.log $work/dkms-make.log"
		# dkms.conf's POST_BUILD: where client modules look for it.
		if grep -q 'cmstat_heap_create.*module/cmstat' "$symvers" 2>/dev/null; then
			detail="$detail; Module.symvers saved in the source tree"
		else
			ok=0
			detail="$detail; no ${symvers#"$dk/"} with cmstat's exports"
		fi
		rc=0
		dkms_ install "cmstat/$dver" -k "$abi" --no-depmod >"$work/dkms-install.log" 2>&1 ||
			rc=$?
		echo "dkms install cmstat/$dver -k $abi --no-depmod, status $rc:"
		indent <"$work/dkms-install.log"
		inst=$(find "$dk/inst/$abi" -name 'cmstat.ko*' | sed "s|^$dk/inst/||" || true)
		status=$(dkms_ status "cmstat/$dver" -k "$abi" 2>/dev/null || true)
		if [ "$rc" = 0 ] && [ -n "$inst" ] && echo "$status" | grep -q ': installed'; then
			detail="$detail; installed as $inst"
		else
			ok=0
			detail="$detail; dkms install failed"
		fi
	fi
	if ! dkms_ remove "cmstat/$dver" --all --no-depmod >"$work/dkms-remove.log" 2>&1 ||
	   [ -n "$(find "$dk/inst/$abi" -name 'cmstat.ko*')" ] ||
	   [ -e "$dk/tree/cmstat" ]; then
		ok=0
		detail="$detail; dkms remove failed"
		indent <"$work/dkms-remove.log"
	fi
	# dkms.conf's POST_REMOVE.
	if [ -e "$symvers" ]; then
		ok=0
		detail="$detail; dkms remove left ${symvers#"$dk/"}"
	fi
fi
gate "dkms add, build, install, remove against $abi" "$ok" "$detail"
dkms_ko=$(find "$work" -maxdepth 1 -name 'cmstat.ko*' | head -n1)

# --- make install, and the client built against what it installed
ok=1
detail=
if ! make -j"$JOBS" -C "$src" install DESTDIR="$stage" KDIR="$kdir" \
	>"$work/install.log" 2>&1; then
	ok=0
	detail="make install failed, log $work/install.log"
	tail -n 20 "$work/install.log" | indent
else
	dev=$stage/usr/src/cmstat-$ver
	for f in "$src"/include/cmstat/*.h; do
		cmp -s "$f" "$dev/include/cmstat/${f##*/}" ||
			{ ok=0; echo "not installed: include/cmstat/${f##*/}"; }
	done
	grep -q 'cmstat_heap_create.*module/cmstat' "$dev/$abi/Module.symvers" 2>/dev/null ||
		{ ok=0; echo "no cmstat exports in $dev/$abi/Module.symvers"; }
	mods=$(find "$stage/lib/modules/$abi/extra" -name 'cmstat*.ko*' 2>/dev/null |
		sed "s|^$stage/lib/modules/$abi/||" | sort | tr '\n' ' ' || true)
	case " $mods" in
	*" extra/module/cmstat.ko"*) ;;
	*) ok=0; echo "cmstat.ko not installed in lib/modules/$abi/extra" ;;
	esac
	# DESTDIR must cover everything: kbuild's lines name what it wrote.
	if grep -E '^ +(INSTALL|XZ|GZIP|ZSTD|SIGN|DEPMOD) ' "$work/install.log" |
	   grep -v " $stage/" | indent | grep .; then
		ok=0
		echo "make install wrote outside DESTDIR"
	fi
	detail="${mods% }; headers and $abi/Module.symvers in usr/src/cmstat-$ver"
fi
gate "make install DESTDIR=stage KDIR=<$abi headers>" "$ok" "$detail"

ok=0
detail="nothing installed to build against"
if [ -d "$stage/usr/src/cmstat-$ver" ]; then
	ok=1
	dev=$stage/usr/src/cmstat-$ver
	client=$work/client
	if ! make -j"$JOBS" -C "$client" KDIR="$kdir" CMSTAT_DIR="$dev" \
		>"$work/client.log" 2>&1; then
		ok=0
		detail="build failed, log $work/client.log"
		tail -n 20 "$work/client.log" | indent
	else
		deps=$(modinfo -F depends "$client/cmstat_demo.ko" || true)
		if grep -iE 'undefined|warning:|error:' "$work/client.log" | indent | grep .; then
			ok=0
		fi
		case ",$deps," in
		*,cmstat,*) ;;
		*) ok=0; echo "cmstat_demo.ko depends on '$deps', not cmstat" ;;
		esac
		# The headers came from the stage, not from a tree next to it.
		grep -q "$dev/include/cmstat/alloc.h" "$client/.cmstat_demo.o.cmd" ||
			{ ok=0; echo "cmstat_demo.o was not compiled against $dev/include"; }
		if grep -qE "($CMSTAT_ROOT|$src)/include/cmstat" "$client/.cmstat_demo.o.cmd"; then
			ok=0
			echo "cmstat_demo.o used the source tree's headers"
		fi
		detail="no undefined symbol, depends: $deps, headers from stage"
	fi
fi
gate "sample client built alone against the installed files" "$ok" "$detail"

# --- modinfo: of what dkms built (what users get), else of make install's
# build; the client's too
[ -n "$dkms_ko" ] || dkms_ko=$src/module/cmstat.ko
if [ -e "$dkms_ko" ]; then
	check_modinfo cmstat.ko "$dkms_ko" "$ver"
else
	gate "modinfo cmstat.ko" 0 "cmstat.ko was not built"
fi
if [ -e "$work/client/cmstat_demo.ko" ]; then
	check_modinfo cmstat_demo.ko "$work/client/cmstat_demo.ko"
else
	gate "modinfo cmstat_demo.ko" 0 "the client was not built"
fi

# --- make uninstall leaves no file in the stage
ok=1
if ! make -C "$src" uninstall DESTDIR="$stage" KDIR="$kdir" \
	>"$work/uninstall.log" 2>&1; then
	ok=0
	tail -n 20 "$work/uninstall.log" | indent
fi
left=$(find "$stage" -type f 2>/dev/null | sed "s|^$stage/||" || true)
[ -z "$left" ] || { ok=0; echo "$left" | indent; }
gate "make uninstall DESTDIR=stage" "$ok" "$(echo "$left" | grep -c .) files left"

# --- the Debian packages, in a work directory of their own
GATE_PREFIX="$GATE_PREFIX: deb" bash "$CMSTAT_ROOT/scripts/deb-check.sh" build "$abi" ||
	gate_failed=1

echo "packaging checks took $(($(date +%s) - start)) s; work directory $work"
exit $gate_failed
