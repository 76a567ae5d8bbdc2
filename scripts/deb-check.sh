#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check.sh: the checks of the Debian packages, part of "make check".
#
# deb-check.sh build [ABI]: before the VMs boot (scripts/packaging.sh runs
#   it, in the background beside check.sh's serial builds), against
#   Debian's stock headers for ABI (default: the stock 6.12 kernel's):
#   make deb      scripts/deb.sh builds both packages
#   contents      each package holds what it must (the tree's dkms.conf,
#                 headers, module sources, viewer) and no build product
#   lintian       no error and no warning
#   man page      cmstat(8) renders without a warning (man --warnings,
#                 groff -ww), its options are those of "cmstat --help",
#                 both ways, and the debugfs files it names are those the
#                 viewer reads
#   DKMS          cmstat-dkms installed by dpkg into a throwaway root: its
#                 postinst has DKMS build and install cmstat.ko for ABI,
#                 and the POST_BUILD step save Module.symvers
#   client        the sample client, copied from what the package installed,
#                 builds in the root with its Makefile's defaults (so with no
#                 path into this tree), needs cmstat, and has the symbol
#                 CRCs of the saved Module.symvers
#   units         cmstat-tools's units pass systemd-analyze verify; the
#                 timer is installed disabled
#   removal       the kernel-removal hook deletes that kernel's
#                 Module.symvers; dpkg --purge leaves no cmstat file
#   host          the host's /var/lib/dkms, /usr/src and /lib/modules are
#                 as they were
#   The DKMS-built cmstat.ko and the client go to .build/deb-check/vm/ as
#   deb-cmstat.ko and deb-cmstat_demo.ko, for the stock ABI VM
#   (check.sh's stock_vm_prepare; scripts/guest/stock-init loads them).
#
# deb-check.sh report LOG: after that VM, from its console log LOG:
#   VM            it loaded both modules, ran the viewer, unloaded them
#   promtool      "promtool check metrics" says nothing of its
#                 "cmstat --prometheus" text, with the client's heaps in it
#   exporter      the ExecStart of cmstat-prometheus.service, run with the
#                 packaged viewer against the copy of the VM's debugfs files
#                 (CMSTAT_DEBUGFS) and the output directory moved into the
#                 work directory: writes a .prom file that promtool accepts,
#                 only by renaming a temporary file of the same directory
#                 over it (strace shows every open and rename); without the
#                 module it writes nothing and exits 0, silently
#
# The throwaway root is an overlay file system whose lower layer is the
# host's root, read-only, and whose upper layer is a tmpfs, mounted in a
# mount namespace of its own (unshare), entered with chroot: dpkg, the
# package's maintainer scripts and DKMS run there exactly as on the host,
# with the host's dkms, compiler and kernel headers, and every write lands
# in the tmpfs, which disappears with the namespace, even when the run is
# killed.  In that root only the ABI kernel is left in /lib/modules, so the
# postinst builds for that kernel alone.  JOBS=N caps DKMS's make
# parallelism.  Prints one "PASS|FAIL  $GATE_PREFIX: ..." line per check
# (GATE_PREFIX default "deb"); exits non-zero if any fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

GATE_PREFIX=${GATE_PREFIX:-deb}
work=$CMSTAT_ROOT/.build/deb-check
pkgs=$work/pkgs
vm=$work/vm

indent() { sed 's/^/    /'; }

# --- build -------------------------------------------------------------

# check_contents: what each package must hold, and must not.
check_contents() {
	local ok=1 ver=$1 dk tools f want list
	dk=$(ls "$pkgs"/cmstat-dkms_*_all.deb 2>/dev/null || true)
	tools=$(ls "$pkgs"/cmstat-tools_*_all.deb 2>/dev/null || true)
	if [ -z "$dk" ] || [ -z "$tools" ]; then
		gate "package contents" 0 "cmstat-dkms or cmstat-tools not built"
		return
	fi
	rm -rf "$work/dkms-deb" "$work/tools"
	if ! dpkg-deb -x "$dk" "$work/dkms-deb" || ! dpkg-deb -x "$tools" "$work/tools"; then
		gate "package contents" 0 "dpkg-deb -x failed"
		return
	fi
	local s=usr/src/cmstat-$ver
	cd "$CMSTAT_ROOT"
	# Every source DKMS builds, as in the tree (new files are caught too).
	for f in Kbuild Makefile dkms.conf dkms-symvers.sh include/cmstat/*.h \
		module/Kbuild module/*.[ch] samples/client/Kbuild \
		samples/client/Makefile samples/client/*.c; do
		cmp -s "$f" "$work/dkms-deb/$s/$f" ||
			{ ok=0; echo "cmstat-dkms: $s/$f missing or not the tree's"; }
	done
	[ -x "$work/dkms-deb/$s/dkms-symvers.sh" ] ||
		{ ok=0; echo "cmstat-dkms: $s/dkms-symvers.sh not executable"; }
	list=$(dpkg-deb -c "$dk" | awk '{ print $NF }')
	if echo "$list" | grep -E '\.(o|ko|mod|cmd)$|Module\.symvers|/bench/|/kunit/'; then
		ok=0
		echo "cmstat-dkms: build products or test modules in the package"
	fi
	cmp -s scripts/cmstat "$work/tools/usr/sbin/cmstat" && [ -x "$work/tools/usr/sbin/cmstat" ] ||
		{ ok=0; echo "cmstat-tools: usr/sbin/cmstat missing or not scripts/cmstat"; }
	for want in usr/share/man/man8/cmstat.8.gz \
		lib/systemd/system/cmstat-prometheus.service \
		lib/systemd/system/cmstat-prometheus.timer; do
		[ -f "$work/tools/$want" ] || { ok=0; echo "cmstat-tools: no $want"; }
	done
	gate "package contents" "$ok" "$(dpkg-deb -c "$dk" | grep -c '^-') files in\
 cmstat-dkms, $(dpkg-deb -c "$tools" | grep -c '^-') in cmstat-tools"
}

check_lintian() {
	local out rc=0 e w
	lintian --fail-on error,warning "$pkgs"/*.changes >"$work/lintian.log" 2>&1 || rc=$?
	# As root lintian says so on standard error: that one line is no finding.
	out=$(grep -v '^running with root privileges is not recommended!$' "$work/lintian.log" ||
		true)
	e=$(echo "$out" | grep -c '^E: ' || true)
	w=$(echo "$out" | grep -c '^W: ' || true)
	[ -z "$out" ] || echo "$out" | indent
	gate "lintian" "$([ "$rc" = 0 ] && [ -z "$out" ] && echo 1)" \
		"status $rc, $e errors, $w warnings, $(echo "$out" | grep -c .) lines in all;\
 $(cd "$pkgs" && echo *.changes *.deb)"
}

# check_man: the packaged cmstat(8) against the packaged viewer.
check_man() {
	local ok=1 page=$work/tools/usr/share/man/man8/cmstat.8.gz
	local viewer=$work/tools/usr/sbin/cmstat warn man_opts help_opts d v
	if [ ! -f "$page" ] || [ ! -x "$viewer" ]; then
		gate "cmstat(8)" 0 "no man page or viewer in cmstat-tools"
		return
	fi
	warn=$( { LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" >"$work/cmstat.8.txt"; } 2>&1
		zcat "$page" | groff -ww -z -man 2>&1 || echo "groff -ww -z -man failed")
	[ -z "$warn" ] || { ok=0; echo "$warn" | indent; }
	[ -s "$work/cmstat.8.txt" ] || { ok=0; echo "man -l rendered nothing"; }
	# The options: the tags of the OPTIONS section, and every option the
	# usage names.
	man_opts=$(awk '/^[A-Z]/ { on = ($0 == "OPTIONS") } on && /^       -/' \
		"$work/cmstat.8.txt" | grep -oE '(^|[ ,|])--?[a-z]+' | tr -d ' ,|' | sort -u ||
		true)
	help_opts=$("$viewer" --help 2>&1 | grep -oE '(^|[ [|])--?[a-z]+' |
		tr -d ' [|' | sort -u || true)
	if [ -z "$man_opts" ] || [ "$man_opts" != "$help_opts" ]; then
		ok=0
		echo "options in cmstat(8) but not in cmstat --help:" \
			$(comm -23 <(echo "$man_opts") <(echo "$help_opts"))
		echo "options in cmstat --help but not in cmstat(8):" \
			$(comm -13 <(echo "$man_opts") <(echo "$help_opts"))
	fi
	# The debugfs files: FILES names each one the viewer reads.
	d=$(grep -oE '/sys/kernel/debug/cmstat/[a-z_]+' "$work/cmstat.8.txt" |
		sed 's|.*/||' | sort -u || true)
	v=$(grep -oE '\$DEBUGFS/[a-z_]+' "$viewer" | sed 's|.*/||' | sort -u || true)
	if [ "$d" != "$v" ]; then
		ok=0
		echo "debugfs files in cmstat(8): $(echo $d); read by the viewer: $(echo $v)"
	fi
	gate "cmstat(8): no warning, options as in --help, debugfs files as read" "$ok" \
		"$(echo "$man_opts" | grep -c .) options: $(echo $man_opts)"
}

# root_run: the throwaway-root checks, in a mount namespace of their own.
root_run() {
	local abi=$1 ver=$2
	local layer=$work/layer mnt=$work/root ok detail rc
	mkdir -p "$layer" "$mnt"
	if ! { mount -t tmpfs -o mode=0755 tmpfs "$layer" &&
		mkdir "$layer/upper" "$layer/work" &&
		mount -t overlay overlay \
			-o "lowerdir=/,upperdir=$layer/upper,workdir=$layer/work" "$mnt" &&
		mount --rbind /proc "$mnt/proc" && mount --rbind /sys "$mnt/sys" &&
		mount --rbind /dev "$mnt/dev" && mount -t tmpfs tmpfs "$mnt/tmp"; }; then
		gate "throwaway root" 0 "cannot mount the overlay on $mnt"
		exit 1
	fi
	r() { chroot "$mnt" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive parallel_jobs="$JOBS" "$@"; }

	# The ABI kernel alone, and no man-db index run on installing.
	find "$mnt/lib/modules" -mindepth 1 -maxdepth 1 ! -name "$abi" -exec rm -rf {} +
	rm -f "$mnt/var/lib/man-db/auto-update"
	mkdir "$mnt/tmp/pkgs"
	cp "$pkgs"/*.deb "$mnt/tmp/pkgs/"

	# --- dpkg -i: the postinst has DKMS build and install
	rc=0
	r dpkg -i /tmp/pkgs/cmstat-dkms_"$ver"_all.deb /tmp/pkgs/cmstat-tools_"$ver"_all.deb \
		>"$work/dpkg-install.log" 2>&1 || rc=$?
	local symvers=$mnt/usr/src/cmstat-$ver/$abi/Module.symvers ko status
	ko=$(find "$mnt/lib/modules/$abi/updates/dkms" -name 'cmstat.ko*' 2>/dev/null |
		head -n1 || true)
	status=$(r dkms status -m cmstat -v "$ver" -k "$abi" 2>/dev/null || true)
	ok=1
	detail="dpkg status $rc; dkms status: ${status:-nothing}"
	if [ "$rc" != 0 ] || [ -z "$ko" ] || ! echo "$status" | grep -q ': installed'; then
		ok=0
		indent <"$work/dpkg-install.log"
		local mk
		mk=$(ls "$mnt/var/lib/dkms/cmstat/$ver/build/make.log" \
			"$mnt/var/lib/dkms/cmstat/$ver/$abi"/*/log/make.log 2>/dev/null |
			head -n1 || true)
		[ -n "$mk" ] && tail -n 20 "$mk" | indent
	else
		cat "$mnt/var/lib/dkms/cmstat/$ver/$abi"/*/log/make.log >"$work/dkms-make.log" ||
			true
		if grep -iE 'warning:|error:' "$work/dkms-make.log" | indent | grep .; then
			ok=0
			detail="$detail; warnings in the build"
		fi
		[ "$(modinfo -F version "$ko")" = "$ver" ] ||
			{ ok=0; echo "$ko: version '$(modinfo -F version "$ko")', not $ver"; }
		detail="$detail; ${ko#"$mnt"}"
	fi
	if awk -F '\t' '$2 == "cmstat_heap_create" && $3 ~ /(^|\/)module\/cmstat$/ { found = 1 }
		END { exit !found }' "$symvers" 2>/dev/null; then
		detail="$detail; ${symvers#"$mnt"} saved"
	else
		ok=0
		detail="$detail; no ${symvers#"$mnt"} with cmstat's exports"
	fi
	gate "dpkg -i cmstat-dkms: DKMS builds and installs cmstat.ko for $abi" "$ok" "$detail"

	# --- the sample client, from the package's copy, with its Makefile's
	# defaults: CMSTAT_DIR the newest /usr/src/cmstat-*/<release>/.
	ok=0
	detail="nothing to build against"
	rm -f "$vm"/*.ko
	if [ -f "$symvers" ]; then
		rc=0
		r sh -c "cp -r /usr/src/cmstat-$ver/samples/client /tmp/client &&
			make -C /tmp/client KDIR=/lib/modules/$abi/build" \
			>"$work/client.log" 2>&1 || rc=$?
		local c=$mnt/tmp/client deps crc_c crc_s
		ok=1
		if [ "$rc" != 0 ] || [ ! -f "$c/cmstat_demo.ko" ]; then
			ok=0
			detail="make status $rc, log $work/client.log"
			tail -n 20 "$work/client.log" | indent
		else
			grep -iE 'undefined|warning:|error:' "$work/client.log" | indent | grep . && ok=0
			deps=$(modinfo -F depends "$c/cmstat_demo.ko")
			[ "$deps" = cmstat ] || { ok=0; echo "cmstat_demo.ko depends on '$deps'"; }
			grep -q "/usr/src/cmstat-$ver/include/cmstat/alloc.h" "$c/.cmstat_demo.o.cmd" ||
				{ ok=0; echo "not compiled against /usr/src/cmstat-$ver/include"; }
			if grep -q "$CMSTAT_ROOT" "$c/.cmstat_demo.o.cmd" "$c/.cmstat_demo.ko.cmd" \
				"$c/Module.symvers" 2>/dev/null; then
				ok=0
				echo "the client's build names $CMSTAT_ROOT"
			fi
			# modversions: the CRC the client expects is the saved one.
			crc_c=$(modprobe --dump-modversions "$c/cmstat_demo.ko" |
				awk '$2 == "cmstat_heap_create" { print $1 }' || true)
			crc_s=$(awk '$2 == "cmstat_heap_create" { print $1 }' "$symvers")
			[ -n "$crc_c" ] && [ "$((crc_c))" = "$((crc_s))" ] ||
				{ ok=0; echo "cmstat_heap_create CRC: client '$crc_c', Module.symvers '$crc_s'"; }
			detail="depends: $deps; headers and Module.symvers from /usr/src/cmstat-$ver; CRC $crc_c"
		fi
		if [ "$ok" = 1 ]; then
			mkdir -p "$vm"
			case "$ko" in
			*.xz) xz -dc "$ko" ;;
			*.zst) zstd -qdc "$ko" ;;
			*.gz) gzip -dc "$ko" ;;
			*) cat "$ko" ;;
			esac >"$vm/deb-cmstat.ko"
			cp "$c/cmstat_demo.ko" "$vm/deb-cmstat_demo.ko"
			echo "$abi" >"$vm/abi"
		fi
	fi
	gate "sample client built against cmstat-dkms's files alone" "$ok" "$detail"

	# --- the exporter's units
	ok=1
	local en
	r systemd-analyze verify cmstat-prometheus.timer cmstat-prometheus.service \
		>"$work/units.log" 2>&1 || ok=0
	grep . "$work/units.log" | indent | grep . && ok=0
	en=$(r systemctl is-enabled cmstat-prometheus.timer 2>&1 || true)
	[ "$en" = disabled ] || { ok=0; echo "cmstat-prometheus.timer is '$en', not disabled"; }
	gate "units: systemd-analyze verify clean, timer not enabled" "$ok" "timer $en"

	# --- removal: a kernel's removal (its prerm hook from dkms), then the
	# purge.  A Module.symvers of a kernel DKMS built for but did not
	# install to, which DKMS's POST_REMOVE never sees, is made up for the
	# prerm's cleanup.
	ok=1
	r /etc/kernel/prerm.d/dkms "$abi" >"$work/kernel-prerm.log" 2>&1 || ok=0
	if [ -e "$symvers" ]; then
		ok=0
		echo "the removal of kernel $abi left ${symvers#"$mnt"}"
	fi
	mkdir -p "$mnt/usr/src/cmstat-$ver/0.0.0-built-only"
	echo "0x0	cmstat_heap_create	module/cmstat	EXPORT_SYMBOL_GPL	" \
		>"$mnt/usr/src/cmstat-$ver/0.0.0-built-only/Module.symvers"
	rc=0
	r dpkg --purge cmstat-dkms cmstat-tools >"$work/dpkg-purge.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || ok=0
	if grep -i 'warning' "$work/dpkg-purge.log" | indent | grep .; then
		ok=0
	fi
	local left
	left=$(find "$mnt/usr/src" "$mnt/var/lib/dkms" "$mnt/lib/modules" \
		"$mnt/lib/systemd" "$mnt/etc/systemd" "$mnt/usr/sbin" \
		"$mnt/usr/share/man/man8" -name '*cmstat*' 2>/dev/null | sed "s|^$mnt||" || true)
	[ -z "$left" ] || { ok=0; echo "left after the purge:"; echo "$left" | indent; }
	gate "kernel removal, then dpkg --purge: no cmstat file left" "$ok" \
		"dpkg --purge status $rc; $(echo "$left" | grep -c .) files left"
}

# host_state: what must not change on the host.
host_state() {
	{ find /var/lib/dkms /usr/src /lib/modules -printf '%p %y %s %m %T@ %C@\n' 2>/dev/null ||
		true; } | sort
}

build() {
	local abi=$1 ver rc
	[ -r "/usr/src/linux-headers-$abi/include/config/kernel.release" ] ||
		die "no kernel headers for $abi"
	rm -rf "$work" && mkdir -p "$work"	# no module of an earlier run for the VM
	ensure_pkgs "${DEB_PKGS[@]}"
	ver=$(make -s -C "$CMSTAT_ROOT" version)

	rc=0
	bash "$CMSTAT_ROOT/scripts/deb.sh" "$pkgs" >"$work/deb.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || indent <"$work/deb.log"
	gate "make deb" "$([ "$rc" = 0 ] && echo 1)" \
		"$(cd "$pkgs" 2>/dev/null && echo *.deb), log $pkgs/build.log"
	[ "$rc" = 0 ] || exit 1

	check_contents "$ver"
	check_lintian
	check_man

	host_state >"$work/host-before"
	rc=0
	unshare --mount --propagation private \
		bash "$CMSTAT_ROOT/scripts/deb-check.sh" _root "$abi" "$ver" || rc=$?
	[ "$rc" = 0 ] || { gate_failed=1; echo "the throwaway root's checks exited with $rc"; }
	host_state >"$work/host-after"
	if cmp -s "$work/host-before" "$work/host-after"; then
		gate "host's /var/lib/dkms, /usr/src, /lib/modules untouched" 1 \
			"$(wc -l <"$work/host-after") entries as before"
	else
		{ diff "$work/host-before" "$work/host-after" || true; } | head -n 20 | indent
		gate "host's /var/lib/dkms, /usr/src, /lib/modules untouched" 0 "they changed"
	fi
	exit $gate_failed
}

# --- report ------------------------------------------------------------

# between LOG TAG: the console between cmstat-TAG-begin and cmstat-TAG-end,
# without the kernel's own lines.
between() {
	tr -d '\r' <"$1" | sed -n "/^cmstat-$2-begin$/,/^cmstat-$2-end$/p" |
		grep -vE "^cmstat-$2-(begin|end)$|^\[ *[0-9]+\.[0-9]+\] " || true
}

report() {
	local log=$1 ok out rc lines
	ensure_pkgs prometheus strace
	if [ ! -f "$vm/deb-cmstat.ko" ]; then
		gate "stock VM: the packages' modules" 0 "no module was built (see the build checks)"
		exit 1
	fi
	# --- the VM
	lines=$(tr -d '\r' <"$log" | grep -o 'cmstat-deb: .*' || true)
	ok=1
	for s in load-cmstat load-client viewer unload-client unload-cmstat; do
		echo "$lines" | grep -qx "cmstat-deb: ok $s" || ok=0
	done
	[ "$ok" = 1 ] || echo "${lines:-no cmstat-deb line}" | indent
	gate "stock $(cat "$vm/abi") VM: DKMS's cmstat.ko and the client built against cmstat-dkms load, work, unload" \
		"$ok" "log $log"

	# --- promtool on the VM's text
	between "$log" deb-prometheus >"$work/vm.prom"
	out=$(promtool check metrics <"$work/vm.prom" 2>&1) && rc=0 || rc=$?
	ok=1
	[ "$rc" = 0 ] && [ -z "$out" ] || { ok=0; echo "$out" | indent; }
	for h in demo demo1; do
		grep -q "^cmstat_heap_live_bytes{heap=\"$h\",state=\"active\"} [1-9]" "$work/vm.prom" ||
			{ ok=0; echo "no live bytes of heap $h in the VM's text"; }
	done
	gate "promtool check metrics on the VM's cmstat --prometheus" "$ok" \
		"status $rc, $(grep -c '^# TYPE' "$work/vm.prom" || true) families,\
 $(grep -c '^cmstat' "$work/vm.prom" || true) samples; $work/vm.prom"

	# --- the exporter, against the copy of the VM's debugfs files
	local cap=$work/capture tf=$work/textfile exec cmd
	rm -rf "$cap" "$tf" && mkdir -p "$cap" "$tf"
	between "$log" deb-debugfs | base64 -d | tar -xzf - -C "$cap" 2>"$work/capture.err" || true
	ok=1
	exec=$(sed -n 's/^ExecStart=//p' \
		"$work/tools/lib/systemd/system/cmstat-prometheus.service" || true)
	# The packaged viewer, and the output directory moved here.
	cmd=$(echo "$exec" | sed -e "s|^/usr/sbin/cmstat |$work/tools/usr/sbin/cmstat |" \
		-e "s|/var/lib/prometheus/node-exporter/|$tf/|g")
	case "$exec" in
	"/usr/sbin/cmstat --textfile /var/lib/prometheus/node-exporter/cmstat.prom"*) ;;
	*) ok=0; echo "ExecStart is '$exec'" ;;
	esac
	if [ ! -d "$cap/debugfs-copy" ]; then
		ok=0
		echo "no copy of the VM's debugfs files:"; indent <"$work/capture.err"
	fi
	echo stale >"$tf/cmstat.prom"
	rc=0
	CMSTAT_DEBUGFS=$cap/debugfs-copy strace -f -qq -e signal=none \
		-e trace=open,openat,creat,truncate,rename,renameat,renameat2,unlink,unlinkat,link,linkat \
		-o "$work/exporter.strace" $cmd >"$work/exporter.out" 2>&1 || rc=$?
	[ "$rc" = 0 ] && [ ! -s "$work/exporter.out" ] ||
		{ ok=0; echo "status $rc:"; indent <"$work/exporter.out"; }
	out=$(promtool check metrics <"$tf/cmstat.prom" 2>&1) || ok=0
	[ -z "$out" ] || { ok=0; echo "$out" | indent; }
	CMSTAT_DEBUGFS=$cap/debugfs-copy "$work/tools/usr/sbin/cmstat" --prometheus \
		>"$work/expected.prom" 2>&1 || true
	cmp -s "$work/expected.prom" "$tf/cmstat.prom" ||
		{ ok=0; echo "cmstat.prom is not what cmstat --prometheus prints"; }
	[ "$(stat -c %a "$tf/cmstat.prom")" = 644 ] ||
		{ ok=0; echo "cmstat.prom has mode $(stat -c %a "$tf/cmstat.prom"), not 644"; }
	# The file itself is never opened to write, truncated or unlinked: it
	# appears by one rename from the same directory.
	if grep -E "\"$tf/cmstat.prom\".*O_(WRONLY|RDWR|CREAT|TRUNC)|(creat|truncate|unlink|unlinkat)\(.*\"$tf/cmstat.prom\"" \
		"$work/exporter.strace" | indent | grep .; then
		ok=0
		echo "cmstat.prom was written in place"
	fi
	grep -qE "rename(at2?)?\(.*\"$tf/\.cmstat\.prom\.[^\"/]*\", .*\"$tf/cmstat\.prom\".*\) = 0" \
		"$work/exporter.strace" || { ok=0; echo "no rename of a temporary file over cmstat.prom"; }
	[ "$(ls -A "$tf")" = cmstat.prom ] || { ok=0; echo "left in the directory: $(ls -A "$tf")"; }
	# Without the module (CMSTAT_DEBUGFS naming no directory): nothing
	# written, the stale file gone, status 0, silence.
	rc=0
	CMSTAT_DEBUGFS=$work/no-such-dir $cmd >"$work/exporter-unloaded.out" 2>&1 || rc=$?
	[ "$rc" = 0 ] && [ ! -s "$work/exporter-unloaded.out" ] && [ -z "$(ls -A "$tf")" ] ||
		{ ok=0; echo "without the module: status $rc, output '$(cat "$work/exporter-unloaded.out")', left: $(ls -A "$tf")"; }
	gate "exporter: cmstat-prometheus.service's command writes a valid .prom atomically, nothing without the module" \
		"$ok" "$(grep -c '^cmstat' "$work/expected.prom" || true) samples from the VM's debugfs files"
	exit $gate_failed
}

case "${1:-}" in
build) build "${2:-$(stock_abi 6.12)}" ;;
report) [ -n "${2:-}" ] || die "usage: deb-check.sh report LOG"; report "$2" ;;
_root) root_run "$2" "$3"; exit $gate_failed ;;
*) die "usage: deb-check.sh build [ABI] | report LOG" ;;
esac
