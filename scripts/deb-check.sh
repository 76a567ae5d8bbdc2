#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check.sh: the checks of the Debian packages, part of "make check".
# Each mode prints one KTAP document, a result per check, each described
# at its function; logs go to the work directory, a failed one's tail to
# stderr.  Exits non-zero if any check fails.
#
# deb-check.sh build [ABI]: before the VMs boot (scripts/packaging.sh runs
#   it, in the background beside check.sh's serial builds), against
#   Debian's stock headers for ABI (default: the stock 6.12 kernel's):
#   make-deb, contents, lintian, man-page of the packages; dkms,
#   client-against-installed, units, kernel-removal, purge in a throwaway
#   root; host-untouched.  The DKMS-built cmstat.ko and the client go to
#   .build/deb-check/vm/ as deb-cmstat.ko and deb-cmstat_demo.ko, with
#   their ABI in abi, for the stock VM of that ABI (check.sh's stock_vm;
#   the check scripts/guest/checks/deb-modules.sh loads them).
#
# deb-check.sh report LOG: after that VM, from the attachments its
#   deb-modules check left on its console log LOG: promtool, exporter,
#   exporter-unloaded.
#
# The throwaway root is an overlay file system whose lower layer is the
# host's root, read-only, and whose upper layer is a tmpfs, mounted in a
# mount namespace of its own (unshare: build runs in it), entered with
# chroot: dpkg, the package's maintainer scripts and DKMS run there exactly
# as on the host, with the host's dkms, compiler and kernel headers, and
# every write lands in the tmpfs, which disappears with the namespace, even
# when the run is killed.  In that root only the ABI kernel is left in
# /lib/modules, so the postinst builds for that kernel alone.  JOBS=N caps
# DKMS's make parallelism.
# shellcheck source-path=SCRIPTDIR
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/vm.sh"
. "$(dirname "$0")/pkg-lib.sh"

work=$CMSTAT_ROOT/.build/deb-check
pkgs=$work/pkgs
vm=$work/vm
mnt=$work/root
tools=$work/tools

# --- build: the packages ---------------------------------------------------

# check_make_deb: scripts/deb.sh builds both packages.
check_make_deb() {
	logged "$work/deb.log" bash "$CMSTAT_ROOT/scripts/deb.sh" "$pkgs" ||
		fail "scripts/deb.sh failed, log $pkgs/build.log"
	pkg_result make-deb "$(cd "$pkgs" 2>/dev/null && echo *.deb)"
}

# check_contents: what each package must hold (the tree's dkms.conf,
# headers, module sources, viewer, man page, units), and no build product.
check_contents() {
	local s=usr/src/cmstat-$ver f want
	# Unpacked for the checks that follow too.
	if ! dpkg-deb -x "$pkgs/cmstat-dkms_${ver}_all.deb" "$work/dkms-deb" ||
		! dpkg-deb -x "$pkgs/cmstat-tools_${ver}_all.deb" "$tools"; then
		fail "cannot unpack the packages of $ver"; pkg_result contents; return
	fi
	# Every source DKMS builds, as in the tree (new files are caught too).
	for f in Kbuild Makefile dkms.conf dkms-symvers.sh include/cmstat/*.h \
		module/Kbuild module/*.[ch] samples/client/Kbuild \
		samples/client/Makefile samples/client/*.c; do
		cmp -s "$CMSTAT_ROOT/$f" "$work/dkms-deb/$s/$f" ||
			fail "cmstat-dkms: $s/$f missing or not the tree's"
	done
	[ -x "$work/dkms-deb/$s/dkms-symvers.sh" ] ||
		fail "cmstat-dkms: $s/dkms-symvers.sh not executable"
	fail_if_any "cmstat-dkms: build products or test modules" "$(cd "$work/dkms-deb" &&
		find . | grep -E '\.(o|ko|mod|cmd)$|Module\.symvers|/bench/|/kunit/')"
	[ -x "$tools/usr/sbin/cmstat" ] || fail "cmstat-tools: usr/sbin/cmstat not executable"
	cmp -s "$CMSTAT_ROOT/scripts/cmstat" "$tools/usr/sbin/cmstat" ||
		fail "cmstat-tools: usr/sbin/cmstat missing or not scripts/cmstat"
	for tool in cmstat-adopt cmstat-adopt-check cmstat-drgn; do
		cmp -s "$CMSTAT_ROOT/scripts/$tool" "$tools/usr/bin/$tool" &&
			[ -x "$tools/usr/bin/$tool" ] ||
			fail "cmstat-tools: usr/bin/$tool missing, not executable or not the tree's"
	done
	for want in usr/share/man/man8/cmstat.8.gz usr/share/man/man1/cmstat-adopt.1.gz \
		usr/share/man/man1/cmstat-adopt-check.1.gz usr/share/man/man1/cmstat-drgn.1.gz \
		lib/systemd/system/cmstat-prometheus.service \
		lib/systemd/system/cmstat-prometheus.timer; do
		[ -f "$tools/$want" ] || fail "cmstat-tools: no $want"
	done
	pkg_result contents "$(find "$work/dkms-deb" -type f | grep -c .) files in cmstat-dkms,\
 $(find "$tools" -type f | grep -c .) in cmstat-tools"
}

# check_lintian: no error and no warning.
check_lintian() {
	local rc=0
	lintian --fail-on error,warning "$pkgs"/*.changes >"$work/lintian.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || fail "status $rc, log $work/lintian.log"
	# As root lintian says so on standard error: that one line is no finding.
	fail_if_any findings "$(grep -v \
		'^running with root privileges is not recommended!$' "$work/lintian.log")"
	pkg_result lintian "$(cd "$pkgs" && echo *.changes *.deb)"
}

# options: the options its input names, one a line, sorted.
options() {
	grep -oE '(^|[][ ,|])--?[a-z]+' | tr -d '][ ,|' | sort -u
}

# man_warnings PAGE TEXT: what man --warnings and groff -ww say of the
# packaged PAGE, rendered into TEXT.
man_warnings() {
	{ LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$1" >"$2"; } 2>&1
	zcat "$1" | groff -ww -z -man 2>&1 || echo "groff -ww -z -man failed"
	[ -s "$2" ] || echo "man -l rendered nothing of $1"
}

# check_man: the packaged cmstat(8), cmstat-adopt(1),
# cmstat-adopt-check(1) and cmstat-drgn(1) render
# without a warning (man --warnings, groff -ww); cmstat(8)'s options are
# those of the packaged "cmstat --help", both ways, and the debugfs files
# it names those the viewer reads.
check_man() {
	local page=$tools/usr/share/man/man8/cmstat.8.gz text=$work/cmstat.8.txt
	local viewer=$tools/usr/sbin/cmstat man_opts help_opts d v
	fail_if_any warnings "$(man_warnings "$page" "$text"
		man_warnings "$tools/usr/share/man/man1/cmstat-adopt.1.gz" \
			"$work/cmstat-adopt.1.txt"
		man_warnings "$tools/usr/share/man/man1/cmstat-adopt-check.1.gz" \
			"$work/cmstat-adopt-check.1.txt"
		man_warnings "$tools/usr/share/man/man1/cmstat-drgn.1.gz" \
			"$work/cmstat-drgn.1.txt")"
	# The options: the tags of the OPTIONS section, and every option the
	# usage names.
	man_opts=$(awk '/^[A-Z]/ { on = ($0 == "OPTIONS") } on && /^       -/' "$text" | options)
	help_opts=$("$viewer" --help 2>&1 | options)
	[ -n "$man_opts" ] || fail "no options in cmstat(8)"
	fail_if_any "options in cmstat(8), not in cmstat --help" \
		"$(comm -23 <(echo "$man_opts") <(echo "$help_opts"))"
	fail_if_any "options in cmstat --help, not in cmstat(8)" \
		"$(comm -13 <(echo "$man_opts") <(echo "$help_opts"))"
	# The debugfs files: FILES names each one the viewer reads.
	d=$(grep -oE '/sys/kernel/debug/cmstat/[a-z_]+' "$text" | sed 's|.*/||' | sort -u)
	# shellcheck disable=SC2016 # the viewer's own $DEBUGFS, literally
	v=$(grep -oE '\$DEBUGFS/[a-z_]+' "$viewer" | sed 's|.*/||' | sort -u)
	[ "$d" = "$v" ] || fail "debugfs files in cmstat(8): $(echo "$d" | paste -sd ' ')\
 read by the viewer: $(echo "$v" | paste -sd ' ')"
	pkg_result man-page "$(echo "$man_opts" | paste -sd ' ')"
}

# --- build: the throwaway root -----------------------------------------

# root_mount: the throwaway root on $mnt, with /proc, /sys and /dev, and a
# /tmp of its own.
root_mount() {
	local layer=$work/layer
	mkdir -p "$layer" "$mnt" &&
		mount -t tmpfs -o mode=0755 tmpfs "$layer" &&
		mkdir "$layer/upper" "$layer/work" &&
		mount -t overlay overlay \
			-o "lowerdir=/,upperdir=$layer/upper,workdir=$layer/work" "$mnt" &&
		mount --rbind /proc "$mnt/proc" && mount --rbind /sys "$mnt/sys" &&
		mount --rbind /dev "$mnt/dev" && mount -t tmpfs tmpfs "$mnt/tmp"
}

# in_root COMMAND...: COMMAND in the throwaway root, as dpkg would run it.
in_root() {
	chroot "$mnt" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive parallel_jobs="$JOBS" "$@"
}

# root_prepare: the ABI kernel alone, no man-db index run on installing,
# the packages in /tmp/pkgs.
root_prepare() {
	find "$mnt/lib/modules" -mindepth 1 -maxdepth 1 ! -name "$abi" -exec rm -rf {} +
	rm -f "$mnt/var/lib/man-db/auto-update"
	mkdir "$mnt/tmp/pkgs" && cp "$pkgs"/*.deb "$mnt/tmp/pkgs/"
}

# check_dpkg_install: dpkg -i; cmstat-dkms's postinst has DKMS build and
# install cmstat.ko for ABI, and its POST_BUILD step save Module.symvers.
check_dpkg_install() {
	logged "$work/dpkg-install.log" in_root dpkg -i /tmp/pkgs/cmstat-dkms_"$ver"_all.deb \
		/tmp/pkgs/cmstat-tools_"$ver"_all.deb || fail "dpkg -i failed"
	dkms_check dkms "$ver" "$abi" installed
}

# check_deb_client: the sample client, from the package's copy, with its
# Makefile's defaults (CMSTAT_DIR the newest /usr/src/cmstat-*/<release>/):
# so with no path into this tree.
check_deb_client() {
	local dir=/usr/src/cmstat-$ver
	client_check client-against-installed "$work/client.log" "$mnt" /tmp/client "$dir" "$abi" \
		in_root sh -c "cp -r $dir/samples/client /tmp/client &&
			make -C /tmp/client KDIR=/lib/modules/$abi/build"
}

# keep_for_vm KO CLIENT: the modules for the stock VM, uncompressed for
# busybox's insmod, and their ABI.
keep_for_vm() {
	mkdir -p "$vm" && ko_uncompressed "$1" >"$vm/deb-cmstat.ko" &&
		cp "$2" "$vm/deb-cmstat_demo.ko" && echo "$abi" >"$vm/abi"
}

# silent OUT COMMAND...: fail unless COMMAND (output in OUT) exits 0 and
# says nothing.
silent() {
	local out=$1 rc=0
	shift
	"$@" >"$out" 2>&1 || rc=$?
	[ "$rc" = 0 ] || fail "exit status $rc"
	fail_if_any output "$(cat "$out")"
}

# check_units: cmstat-tools's units pass systemd-analyze verify; the
# timer is installed disabled.
check_units() {
	local en
	silent "$work/units.log" in_root systemd-analyze verify cmstat-prometheus.timer \
		cmstat-prometheus.service
	en=$(in_root systemctl is-enabled cmstat-prometheus.timer 2>&1)
	[ "$en" = disabled ] || fail "cmstat-prometheus.timer is '$en', not disabled"
	pkg_result units "timer $en"
}

# check_kernel_removal: the removal of kernel ABI (dkms's prerm hook)
# removes the module and that kernel's Module.symvers.
check_kernel_removal() {
	logged "$work/kernel-prerm.log" in_root /etc/kernel/prerm.d/dkms "$abi" ||
		fail "/etc/kernel/prerm.d/dkms failed"
	dkms_check_gone kernel-removal "$ver" "$abi"
}

# check_purge: dpkg --purge leaves no cmstat file, not even the
# Module.symvers of a kernel DKMS built for but did not install to, which
# POST_REMOVE never sees and the prerm cleans up: one is made up here.
check_purge() {
	local built_only=$mnt/usr/src/cmstat-$ver/0.0.0-built-only
	mkdir -p "$built_only"
	printf '0x0\tcmstat_heap_create\tmodule/cmstat\tEXPORT_SYMBOL_GPL\t\n' \
		>"$built_only/Module.symvers"
	logged "$work/dpkg-purge.log" in_root dpkg --purge cmstat-dkms cmstat-tools ||
		fail "dpkg --purge failed"
	fail_if_any "dpkg --purge warnings" "$(grep -i warning "$work/dpkg-purge.log")"
	fail_if_any "left after the purge" "$(find "$mnt/usr/src" "$mnt/var/lib/dkms" \
		"$mnt/lib/modules" "$mnt/lib/systemd" "$mnt/etc/systemd" "$mnt/usr/sbin" \
		"$mnt/usr/bin" "$mnt/usr/share/man/man8" "$mnt/usr/share/man/man1" -name '*cmstat*' 2>/dev/null | sed "s|^$mnt||")"
	pkg_result purge
}

# root_checks: install, build a client, remove, in the throwaway root.
root_checks() {
	local ko=
	dkms_site "$work" "$mnt/var/lib/dkms" "$mnt/usr/src" "$mnt/lib/modules" in_root dkms
	root_prepare
	check_dpkg_install && ko=$DKMS_KO
	if check_deb_client && [ -n "$ko" ]; then
		keep_for_vm "$ko" "$CLIENT_KO" || ktap_result vm-modules 0 "cannot copy them to $vm"
	fi
	check_units
	check_kernel_removal
	check_purge
}

# host_state: what must not change on the host.
host_state() {
	find /var/lib/dkms /usr/src /lib/modules -printf '%p %y %s %m %T@ %C@\n' 2>/dev/null | sort
}

# check_host_untouched: the host's /var/lib/dkms, /usr/src and /lib/modules
# are as they were.
check_host_untouched() {
	host_state >"$work/host-after"
	fail_if_any changes "$(diff "$work/host-before" "$work/host-after" | head -n 20)"
	pkg_result host-untouched "$(wc -l <"$work/host-after") entries in /var/lib/dkms, /usr/src,\
 /lib/modules"
}

build() {
	[ -r "/usr/src/linux-headers-$abi/include/config/kernel.release" ] ||
		die "no kernel headers for $abi"
	rm -rf "$work" && mkdir -p "$work"	# no module of an earlier run for the VM
	ensure_pkgs "${DEB_PKGS[@]}"
	ver=$(make -s -C "$CMSTAT_ROOT" version)
	check_make_deb || return
	check_contents
	check_lintian
	check_man
	host_state >"$work/host-before"
	if root_mount; then
		root_checks
	else
		ktap_result throwaway-root 0 "cannot mount the overlay on $mnt"
	fi
	check_host_untouched
}

# --- report ----------------------------------------------------------------

# check_promtool: "promtool check metrics" says nothing of the VM's
# "cmstat --prometheus" text, with the client's heaps in it.  (That the
# modules loaded, worked and unloaded there is the VM's own result,
# deb-modules, of scripts/guest/checks/deb-modules.sh.)
check_promtool() {
	local prom=$work/vm.prom h
	vm_attachment "$console" deb-prometheus >"$prom" || fail "no end of the Prometheus text"
	fail_if_any "promtool check metrics" "$(promtool check metrics <"$prom" 2>&1 ||
		echo "promtool status $?")"
	for h in demo demo1; do
		grep -q "^cmstat_heap_live_bytes{heap=\"$h\",state=\"active\"} [1-9]" "$prom" ||
			fail "no live bytes of heap $h"
	done
	pkg_result promtool "stock $(cat "$vm/abi") VM: $(grep -c '^# TYPE' "$prom") families,\
 $(grep -c '^cmstat' "$prom") samples; $prom"
}

# exporter_command: the ExecStart of cmstat-prometheus.service, with the
# packaged viewer and the output directory moved to $tf; sets exporter.
exporter_command() {
	local exec
	exec=$(sed -n 's/^ExecStart=//p' "$tools/lib/systemd/system/cmstat-prometheus.service")
	case "$exec" in
	"/usr/sbin/cmstat --textfile /var/lib/prometheus/node-exporter/cmstat.prom"*) ;;
	*) fail "ExecStart is '$exec'" ;;
	esac
	read -ra exporter <<<"$(echo "$exec" |
		sed -e "s|^/usr/sbin/cmstat |$tools/usr/sbin/cmstat |" \
			-e "s|/var/lib/prometheus/node-exporter/|$tf/|g")"
}

# check_exporter: the exporter, against the copy of the VM's debugfs files
# (CMSTAT_DEBUGFS), writes a .prom file that promtool accepts, only by
# renaming a temporary file of the same directory over it (strace shows
# every open and rename).
check_exporter() {
	local cap=$work/capture trace=$work/exporter.strace
	local prom=$tf/cmstat.prom expected=$work/expected.prom mode
	rm -rf "$cap" && mkdir -p "$cap"
	vm_attachment "$console" deb-debugfs | base64 -d |
		tar -xzf - -C "$cap" 2>"$work/capture.err" ||
		fail "no copy of the VM's debugfs files: $(head -n 1 "$work/capture.err")"
	exporter_command
	echo stale >"$prom"
	local calls=open,openat,creat,truncate,rename,renameat,renameat2,unlink,unlinkat,link,linkat
	silent "$work/exporter.out" env CMSTAT_DEBUGFS="$cap/debugfs-copy" strace -f -qq \
		-e signal=none -e trace="$calls" -o "$trace" "${exporter[@]}"
	fail_if_any "promtool check metrics" "$(promtool check metrics <"$prom" 2>&1 ||
		echo "promtool status $?")"
	CMSTAT_DEBUGFS=$cap/debugfs-copy "$tools/usr/sbin/cmstat" --prometheus >"$expected" 2>&1
	cmp -s "$expected" "$prom" || fail "cmstat.prom is not what cmstat --prometheus prints"
	mode=$(stat -c %a "$prom")
	[ "$mode" = 644 ] || fail "cmstat.prom has mode $mode, not 644"
	# The file itself is never opened to write, truncated or unlinked: it
	# appears by one rename from the same directory.
	fail_if_any "cmstat.prom written in place" "$(grep -E \
		-e "\"$prom\".*O_(WRONLY|RDWR|CREAT|TRUNC)" \
		-e "(creat|truncate|unlink|unlinkat)\(.*\"$prom\"" "$trace")"
	grep -qE "rename(at2?)?\(.*\"$tf/\.cmstat\.prom\.[^\"/]*\", .*\"$prom\".*\) = 0" "$trace" ||
		fail "no rename of a temporary file over cmstat.prom"
	fail_if_any "left in the directory" "$(cd "$tf" && find . -mindepth 1 ! -name cmstat.prom)"
	pkg_result exporter "$(grep -c '^cmstat' "$expected") samples from the VM's debugfs files"
}

# check_exporter_unloaded: without the module (CMSTAT_DEBUGFS naming no
# directory): nothing written, the earlier file gone, status 0, silence.
check_exporter_unloaded() {
	[ ${#exporter[@]} -gt 0 ] || fail "no exporter command"
	silent "$work/exporter-unloaded.out" env CMSTAT_DEBUGFS="$work/no-such-dir" "${exporter[@]}"
	fail_if_any "left in the directory" "$(cd "$tf" && find . -mindepth 1)"
	pkg_result exporter-unloaded
}

report() {
	tf=$work/textfile exporter=()
	ensure_pkgs prometheus strace
	[ -f "$vm/deb-cmstat.ko" ] ||
		{ ktap_result vm-modules 0 "no module was built (see deb-check.sh build)"; return; }
	rm -rf "$tf" && mkdir -p "$tf"
	check_promtool
	check_exporter
	check_exporter_unloaded
}

case "${1:-}" in
build)
	# All of it in a mount namespace of its own, whose mounts (the throwaway
	# root's) go with it, even when the run is killed.
	[ -n "${DEB_CHECK_NS:-}" ] ||
		exec env DEB_CHECK_NS=1 unshare --mount --propagation private bash "$0" "$@"
	abi=${2:-$(stock_abi 6.12)}
	build
	;;
report)
	[ -n "${2:-}" ] || die "usage: deb-check.sh report LOG"
	console=$2
	report
	;;
*) die "usage: deb-check.sh build [ABI] | report LOG" ;;
esac
ktap_print
