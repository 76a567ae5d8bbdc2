# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the in-VM checks that wait for processes (make_initramfs
# installs it as /etc/cmstat-check.sh).  HANG, the bound of every wait in
# seconds, only catches a hang: generous, scaled to the vCPUs.

HANG=${HANG:-$((60 + 30 * ${SMP:-1}))}

# alive PID: the process runs (a zombie has ended).
alive() {
	s=$(sed -n 's/^.*) \(.\).*/\1/p' /proc/"$1"/stat 2>/dev/null)
	[ -n "$s" ] && [ "$s" != Z ]
}

# ended PID: wait until it ends, or HANG seconds.
ended() {
	i=0
	while alive "$1" && [ $i -lt $HANG ]; do
		sleep 1
		i=$((i + 1))
	done
	! alive "$1"
}

# finish PID: wait until the shell's child PID ends, or HANG seconds; rc
# is then its exit status (137: killed by SIGKILL), or "hang".  Not in a
# command substitution: a subshell cannot wait for its parent's children.
finish() {
	if ended "$1"; then
		wait "$1"
		rc=$?
	else
		rc=hang
	fi
}

# user_filter: the KUnit filter make check's FILTER= put on the kernel
# command line, if any.
user_filter() {
	sed -n 's/.*kunit\.filter_glob=\([^ ]*\).*/\1/p' /proc/cmdline
}

# kunit_run GLOB FILE [PARAM...]: load the KUnit module /lib/cmstat/FILE.ko
# and unload it once its suites have run; only the cases GLOB matches,
# unless FILTER= chose them for make check, and of those, with KUNIT_ATTRS
# set, those whose attributes it matches (KUnit's filter: "speed>slow").
# The results are the KTAP the module prints.  A mutant build,
# FILE_mutant.ko, keeps its module name.
kunit_run() {
	g=/sys/module/kunit/parameters/filter_glob
	a=/sys/module/kunit/parameters/filter
	# printf, not echo: a charp parameter keeps the newline.
	[ -n "$(user_filter)" ] || printf %s "$1" > $g
	[ -z "$KUNIT_ATTRS" ] || printf %s "$KUNIT_ATTRS" > $a
	shift
	f=$1
	shift
	insmod "/lib/cmstat/$f.ko" "$@" && rmmod "${f%_mutant}"
	rc=$?
	[ -n "$(user_filter)" ] || printf %s '*.*' > $g
	# Every speed, as before: KUnit refuses an empty filter, and with it
	# every suite.
	[ -z "$KUNIT_ATTRS" ] || printf %s 'speed>=very_slow' > $a
	return $rc
}

# kmemleak_on: the kernel tracks every allocation with kmemleak, whose one
# global lock the flavour debug-busy (kmemleak=off) is there to avoid.
kmemleak_on() {
	[ -e /sys/kernel/debug/kmemleak ] && ! grep -qw kmemleak=off /proc/cmdline
}

# needs_cpus N: skip the check (exit 4, with why) on fewer than N vCPUs.
needs_cpus() {
	[ "${SMP:-1}" -ge "$1" ] || { echo "needs $1 CPUs"; exit 4; }
}

# ktap_load NAME [PARAM...]: load the test module /lib/cmstat/NAME.ko
# with PARAMs, whose init runs its cases and prints their KTAP on the
# console (tests/client/cmstat_ktap.h), where the host reads it as it
# reads KUnit's; show what it printed under its own name (errors); read
# how many cases failed from its parameter "failed", and leave it loaded.
# rc 1 if a case or the load failed.  The kernel's log is cleared first,
# for the caller to search.
ktap_load() {
	dmesg -c > /dev/null
	ktap_rc=0
	m=$1
	shift
	insmod "/lib/cmstat/$m.ko" "$@" || ktap_rc=1
	dmesg | sed -n "s/^.*$m: //p"
	[ "$ktap_rc" = 1 ] && return 1
	[ "$(cat "/sys/module/$m/parameters/failed")" = 0 ] || ktap_rc=1
	return $ktap_rc
}

# ktap_module NAME [PARAM...]: ktap_load NAME, then unload it.  rc 1 if a
# case, the load or the unload failed.
ktap_module() {
	ktap_load "$@"
	mod_rc=$?
	grep -q "^$1 " /proc/modules || return 1
	rmmod "$1" || mod_rc=1
	return $mod_rc
}

# ktap_each_load NAME [PARAM...]: ktap_module NAME with cmstat as loaded by
# default, then with accounting=0 and with debug_free=1, each path of
# cmstat's to the free in turn.  rc 1 if a case, a load or an unload
# failed; 2 if cmstat would not load.
ktap_each_load() {
	each_fail=0
	for params in "" "accounting=0" "debug_free=1"; do
		if [ -n "$params" ]; then
			# shellcheck disable=SC2086 # one word, or none
			{ rmmod cmstat && insmod /lib/cmstat/cmstat.ko $params; } ||
				return 2
		fi
		echo "cmstat ${params:-default}"
		ktap_module "$@" || each_fail=1
	done
	return $each_fail
}
