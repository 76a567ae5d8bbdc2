#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# system-check.bash: the checks of the whole Debian 13 system VM
# (scripts/trixie-system.sh), run by systemd at boot as
# /usr/local/sbin/cmstat-system-check, after multi-user.target, on the
# path an administrator takes: the packages installed with apt, cmstat
# loaded at boot by systemd-modules-load (DKMS built it for this kernel),
# the sample client loaded, cmstat-prometheus.timer enabled and firing,
# and prometheus-node-exporter serving cmstat's metrics on loopback to
# curl.  Prints the KTAP of its results (scripts/ktap.sh) between
# cmstat-run-begin and cmstat-run-end on the console, where the host's
# vm_report reads it, with the console's kernel reports.  Waits are
# bounded by count, to catch a hang only.
set -uo pipefail
. /usr/local/lib/cmstat-ktap.sh

PROM=/var/lib/prometheus/node-exporter/cmstat.prom
# Polls, a second apart, before a wait counts as hung.
HANG=600

# wait_for COMMAND...: until COMMAND succeeds, at most HANG polls.
wait_for() {
	local _
	for _ in $(seq "$HANG"); do
		"$@" && return 0
		sleep 1
	done
	return 1
}

# check_packages: both installed, one version.
check_packages() {
	local v
	v=$(dpkg-query -W -f='${db:Status-Abbrev}${Version}\n' cmstat-dkms cmstat-tools | sort -u)
	ktap_result packages "$([ "$(wc -l <<<"$v")" = 1 ] && [ "${v:0:2}" = ii ] && echo 1)" \
		"$(tr -s ' ' <<<"$v")"
}

# check_loaded_at_boot: systemd-modules-load loaded cmstat, the module
# DKMS built and installed for the running kernel.
check_loaded_at_boot() {
	local file ok=1 state
	state=$(systemctl is-active systemd-modules-load.service)
	file=$(modinfo -F filename cmstat 2>&1)
	[ "$state" = active ] && [ -d /sys/module/cmstat ] || ok=0
	case "$file" in
	/lib/modules/"$(uname -r)"/updates/dkms/cmstat.ko* | \
		/usr/lib/modules/"$(uname -r)"/updates/dkms/cmstat.ko*) ;;
	*) ok=0 ;;
	esac
	[ "$(cat /sys/module/cmstat/srcversion 2>&1)" = "$(modinfo -F srcversion cmstat)" ] || ok=0
	ktap_result loaded-at-boot "$ok" \
		"systemd-modules-load $state, $file, $(dkms status cmstat | tr '\n' ' ')"
}

# check_client: the sample client loads, and the viewer shows its heaps.
check_client() {
	local ok=1 out
	insmod /root/cmstat_demo.ko objects=3000 workers=2 heaps=2 || ok=0
	out=$(cmstat 2>&1) || ok=0
	grep -q demo <<<"$out" || ok=0
	[ "$ok" = 1 ] || ktap_diag "$out"
	ktap_result client "$ok" "$(grep -c demo <<<"$out") lines of the viewer name the client"
}

# prom_written: the timer's service has written cmstat.prom, with cmstat's
# metrics, at least once since $1 (a CLOCK_MONOTONIC µs count).
prom_written() {
	local at
	at=$(systemctl show -P ExecMainExitTimestampMonotonic cmstat-prometheus.service)
	[ "${at:-0}" -gt "$1" ] && grep -q '^cmstat_' "$PROM" 2>/dev/null
}

# check_timer: once enabled, cmstat-prometheus.timer fires, and fires
# again (OnUnitActiveSec), its service succeeding each time.
check_timer() {
	local ok=1 first
	systemctl enable --now cmstat-prometheus.timer 2>&1 || ok=0
	wait_for prom_written 0 || ok=0
	first=$(systemctl show -P ExecMainExitTimestampMonotonic cmstat-prometheus.service)
	wait_for prom_written "${first:-0}" || ok=0
	[ "$(systemctl show -P Result cmstat-prometheus.service)" = success ] || ok=0
	[ "$ok" = 1 ] || ktap_diag "$(systemctl status cmstat-prometheus.timer \
		cmstat-prometheus.service 2>&1 | tail -n 20)"
	ktap_result timer "$ok" "$(systemctl is-enabled cmstat-prometheus.timer), \
$(grep -c '^cmstat_' "$PROM" 2>/dev/null) cmstat samples in $PROM"
}

# check_exporter: prometheus-node-exporter, as Debian starts it, serves
# cmstat's metrics and the client's heaps, read over HTTP on loopback; its
# textfile collector found no error.
check_exporter() {
	local ok=1 out=/tmp/metrics
	wait_for curl -fsS -o "$out" http://127.0.0.1:9100/metrics || ok=0
	grep -q '^cmstat_.*demo' "$out" || ok=0
	grep -qx 'node_textfile_scrape_error 0' "$out" || ok=0
	[ "$ok" = 1 ] || ktap_diag "$(grep -E '^(cmstat_|node_textfile)' "$out" | head -n 20)"
	ktap_result exporter "$ok" "$(grep -c '^cmstat_' "$out") cmstat samples from \
$(systemctl is-active prometheus-node-exporter) prometheus-node-exporter"
}

# check_unload: the timer stopped, the client and cmstat unload.
check_unload() {
	local ok=1
	systemctl disable --now cmstat-prometheus.timer 2>&1 || ok=0
	rmmod cmstat_demo && rmmod cmstat || ok=0
	[ ! -d /sys/module/cmstat ] || ok=0
	ktap_result unload "$ok"
}

ktap_reset
check_packages
check_loaded_at_boot
check_client
check_timer
check_exporter
check_unload
{
	echo cmstat-run-begin
	ktap_print
	echo cmstat-run-end
}
