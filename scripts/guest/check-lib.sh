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
