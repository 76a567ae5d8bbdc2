#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# packaging.sh [ABI]: the packaging checks, part of "make check", against
# Debian's stock headers for ABI (default: the stock 6.12 kernel's).
# Prints one KTAP document, a result for each of version, dkms-add,
# dkms-build, dkms-install, dkms-remove, make-install,
# client-against-installed (scripts/pkg-lib.sh's client_check, against the
# staged files), modinfo-cmstat, modinfo-client, make-uninstall, and deb
# (scripts/deb-check.sh build's document, as a subtest); each is described
# at its function.
#
# dkms runs on trees of its own: --dkmstree, --sourcetree, --installtree
# and its signing key in the work directory, and --no-depmod (dkms would
# run depmod on /lib/modules whatever the install tree).  So a real cmstat
# registration, /usr/src, /var/lib/dkms and /lib/modules are never
# touched, and a run killed half-way leaves only the work directory, which
# the next run empties.  JOBS=N caps make's parallelism (check.sh runs this
# beside its serial builds with JOBS=1).  Logs go to the work directory,
# the tail of a failed one to stderr.  Exits non-zero if any check fails.
# shellcheck source-path=SCRIPTDIR
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/pkg-lib.sh"

start=$(date +%s)
abi=${1:-$(stock_abi 6.12)}
kdir=/usr/src/linux-headers-$abi
[ -r "$kdir/include/config/kernel.release" ] || die "no kernel headers in $kdir"
ensure_pkgs dkms dpkg-dev
work=$CMSTAT_ROOT/.build/packaging
src=$work/cmstat
stage=$work/stage
dk=$work/dkms

# copy_sources: a copy of the sources without build products, as a release
# would have, and of the client alone.
copy_sources() {
	rm -rf "$work" && mkdir -p "$work" && copy_tree "$src" &&
		find "$src" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' -o \
			-name '.*.cmd' -o -name Module.symvers -o -name modules.order \) -delete &&
		cp -r "$src/samples/client" "$work/client"
}

# check_version: "make version" reads main.c's MODULE_VERSION; dkms.conf
# and debian/changelog repeat it by hand.  Sets ver, and dver, dkms.conf's:
# dkms goes by dkms.conf alone, so that a disagreement does not stop it.
check_version() {
	local v_dkms v_deb
	ver=$(make -s -C "$src" version)
	v_dkms=$(bash -c '. "$1" && echo "$PACKAGE_NAME $PACKAGE_VERSION"' _ "$src/dkms.conf")
	v_deb=$(dpkg-parsechangelog -l "$CMSTAT_ROOT/debian/changelog" -S Version 2>&1)
	dver=${v_dkms#* }
	[ -n "$ver" ] || fail "no MODULE_VERSION in module/main.c"
	[ "$v_dkms" = "cmstat $ver" ] || fail "dkms.conf says '$v_dkms', main.c '$ver'"
	[ "$v_deb" = "$ver" ] || fail "debian/changelog says '$v_deb', main.c '$ver'"
	pkg_result version "$ver"
}

# dkms_private COMMAND...: dkms on the work directory's trees.
dkms_private() {
	mok_signing_key=$dk/mok.key mok_certificate=$dk/mok.pub \
		dkms --dkmstree "$dk/tree" --sourcetree "$dk/src" --installtree "$dk/inst" "$@"
}

# check_dkms: add, build, install and remove of the copy of the sources:
# the build saves Module.symvers in the source tree (dkms.conf's
# POST_BUILD), the removal deletes it (pkg-lib.sh's dkms_check*).  Sets
# built_ko, a copy of what dkms built (what users get).
check_dkms() {
	local id=cmstat/$dver
	mkdir -p "$dk/tree" "$dk/src" "$dk/inst/$abi"
	dkms_site "$work" "$dk/tree" "$dk/src" "$dk/inst" dkms_private
	logged "$work/dkms-add.log" dkms_private add "$src" || fail "dkms add failed"
	pkg_result dkms-add "$(dkms --version)"
	logged "$work/dkms-build.log" dkms_private build "$id" -k "$abi" \
		--kernelsourcedir "$kdir" -j "$JOBS" || fail "dkms build failed"
	dkms_check dkms-build "$dver" "$abi" built && cp "$DKMS_KO" "$work/" &&
		built_ko=$work/${DKMS_KO##*/}
	logged "$work/dkms-install.log" dkms_private install "$id" -k "$abi" --no-depmod ||
		fail "dkms install failed"
	dkms_check dkms-install "$dver" "$abi" installed
	logged "$work/dkms-remove.log" dkms_private remove "$id" --all --no-depmod ||
		fail "dkms remove failed"
	[ ! -e "$dk/tree/cmstat" ] || fail "cmstat still in the dkms tree"
	dkms_check_gone dkms-remove "$dver" "$abi"
}

# check_make_install: make install DESTDIR=stage installs the headers,
# Module.symvers and the modules, and writes nothing outside the stage.
check_make_install() {
	local dev=$stage/usr/src/cmstat-$ver f mods
	logged "$work/install.log" make -j"$JOBS" -C "$src" install DESTDIR="$stage" KDIR="$kdir" ||
		{ fail "make install failed"; pkg_result make-install; return; }
	for f in "$src"/include/cmstat/*.h; do
		cmp -s "$f" "$dev/include/cmstat/${f##*/}" ||
			fail "not installed: include/cmstat/${f##*/}"
	done
	has_cmstat_exports "$dev/$abi/Module.symvers" ||
		fail "no cmstat exports in usr/src/cmstat-$ver/$abi/Module.symvers"
	mods=$(cd "$stage/lib/modules/$abi" && find extra -name 'cmstat*.ko*' | sort |
		paste -sd ' ')
	case " $mods" in
	*" extra/module/cmstat.ko"*) ;;
	*) fail "cmstat.ko not installed in lib/modules/$abi/extra" ;;
	esac
	# DESTDIR must cover everything: kbuild's lines name what it wrote.
	fail_if_any "written outside DESTDIR" "$(grep -E '^ +(INSTALL|XZ|GZIP|ZSTD|SIGN|DEPMOD) ' \
		"$work/install.log" | grep -v " $stage/")"
	pkg_result make-install "$mods; headers and $abi/Module.symvers in usr/src/cmstat-$ver"
}

# check_modinfo NAME KO [VERSION]: the fields a distribution's tools show,
# and a MODULE_PARM_DESC for each parameter (every module_param* records
# its type, so parmtype lists them all).
check_modinfo() {
	local name=$1 ko=$2 want_ver=${3:-} f ver declared described
	[ -e "$ko" ] || { fail "$ko was not built"; pkg_result "$name"; return; }
	for f in description author license; do
		[ -n "$(modinfo -F "$f" "$ko")" ] || fail "no $f"
	done
	ver=$(modinfo -F version "$ko")
	[ -z "$want_ver" ] || [ "$ver" = "$want_ver" ] || fail "version '$ver', not '$want_ver'"
	declared=$(modinfo -F parmtype "$ko" | sed 's/:.*//' | sort -u)
	# kmod merges parmtype into parm: "name:description (type)", and
	# "name: (type)" when MODULE_PARM_DESC is missing.
	described=$(modinfo -F parm "$ko" | awk '{
		n = index($0, ":"); d = substr($0, n + 1)
		sub(/ *\([^()]*\)$/, "", d); gsub(/^ +| +$/, "", d)
		if (n > 1 && d != "") print substr($0, 1, n - 1) }' | sort -u)
	fail_if_any "parameters without MODULE_PARM_DESC" \
		"$(comm -23 <(echo "$declared") <(echo "$described"))"
	pkg_result "$name" "${ko##*/}: version ${ver:-none}; $(grep -c . <<<"$declared")\
 parameters declared, $(grep -c . <<<"$described") described"
}

# check_make_uninstall: it leaves no file in the stage.
check_make_uninstall() {
	logged "$work/uninstall.log" make -C "$src" uninstall DESTDIR="$stage" KDIR="$kdir" ||
		fail "make uninstall failed"
	fail_if_any "files left" "$(cd "$stage" && find . -type f)"
	pkg_result make-uninstall
}

copy_sources || die "cannot copy the sources to $src"
check_version
check_dkms
check_make_install
client_check client-against-installed "$work/client.log" "" "$work/client" \
	"$stage/usr/src/cmstat-$ver" "$abi" \
	make -j"$JOBS" -C "$work/client" KDIR="$kdir" CMSTAT_DIR="$stage/usr/src/cmstat-$ver"
# Of what dkms built, else of make install's build.
check_modinfo modinfo-cmstat "${built_ko:-$src/module/cmstat.ko}" "$ver"
check_modinfo modinfo-client "$work/client/cmstat_demo.ko"
check_make_uninstall
# The Debian packages, in a work directory of their own.
bash "$CMSTAT_ROOT/scripts/deb-check.sh" build "$abi" >"$work/deb-check.ktap"
ktap_subtest deb "$work/deb-check.ktap" $?
log "packaging checks took $(($(date +%s) - start)) s; work directory $work"
ktap_print
