# SPDX-License-Identifier: GPL-2.0
#
# The test VMs of make check: which checks each runs, the VMs running side
# by side, and each VM's KTAP document.  Sourced by check.sh after lib.sh,
# vm.sh and ktap.sh.
#
# A check is one file in scripts/guest/checks/.  Its header says where it
# runs, as tags of the kernels ("# kernels: debug stock"); which checks a
# kernel runs, and how they are shared out between its VMs, is
# scripts/harness/checks.py's to say.

# VMs run side by side, at most VM_JOBS at once.  Two, on two host cores:
# much of a debug VM's time is spent waiting (each rmmod waits for its
# module's delayed kobject releases), which the other VM fills.  Not more:
# a reader's cross-CPU calls wait for vCPUs the host has descheduled, and
# with four VMs of four vCPUs a check of 40 s took over ten minutes.
VM_JOBS=${VM_JOBS:-2}
VM_PIDS=()

# vm_wait_slot: until fewer than VM_JOBS VMs run.
vm_wait_slot() {
	local pid alive
	while :; do
		alive=()
		for pid in "${VM_PIDS[@]}"; do
			kill -0 "$pid" 2>/dev/null && alive+=("$pid")
		done
		VM_PIDS=("${alive[@]}")
		[ "${#VM_PIDS[@]}" -lt "$VM_JOBS" ] && return
		sleep 1
	done
}

# vm_start NAME ARCH KERNEL INITRD SMP TIMEOUT [CMDLINE...]: boot a test VM
# in the background, its console in $LOGDIR/check-NAME.log and QEMU's
# status in that .rc.
vm_start() {
	local name=$1 arch=$2 kernel=$3 initrd=$4 smp=$5 tmo=$6 log
	shift 6
	log=$LOGDIR/check-$name.log
	rm -f "$log"*
	vm_wait_slot
	log "booting $name with $smp vCPUs, console log: $log"
	(
		rc=0
		VM_ARCH=$arch run_vm "$kernel" "$initrd" "$log" "$tmo" "$smp" "$@" \
			${FILTER:+kunit.filter_glob=$FILTER} || rc=$?
		echo "$rc" >"$log.rc"
	) &
	VM_PIDS+=($!)
}

# vm_kill_all: end every VM still running (QEMU runs under timeout, a
# child of the VM's subshell, which passes the signal on).
vm_kill_all() {
	local pid
	for pid in "${VM_PIDS[@]}"; do
		pkill -P "$pid"
		kill "$pid"
	done 2>/dev/null
}

# vm_wait_all: until every VM has ended.
vm_wait_all() {
	local pid
	for pid in "${VM_PIDS[@]}"; do
		wait "$pid" 2>/dev/null
	done
	VM_PIDS=()
}

# What the kernel says when something went wrong.
CONSOLE_BAD='WARNING:|BUG:|KASAN:|kmemleak-report:|Oops|Kernel panic|general protection|UBSAN:|possible recursive locking|possible circular locking|inconsistent lock state|lock held when returning|blocked for more than|rcu_.*stall|Call [Tt]race:|cmstat-error:'
# Where it went wrong: the registers' RIP, the code bytes and the stack
# frames, shown with what CONSOLE_BAD found (a report's allocation and
# free stacks too), so that a failed run's summary tells where.
CONSOLE_WHERE='RIP: |Code: | [A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+'

# KCSAN reports, one per block from "BUG: KCSAN:" to the "=====" line.  A
# report is ours when the top frame of either racing access (the line after
# "read/write ... to 0x...") is in a cmstat module: a stack that merely
# passes through our code, because an interrupt hit it, is not.  Prints the
# log with the first line of each foreign report taken out (what another
# CPU printed in the middle of one stays, to be scanned), and their count
# last, alone on a line.
KCSAN_AWK='
	{ sub(/\r$/, "") }
	/BUG: KCSAN:/ { head = $0; blk = ""; inb = 1; ours = 0; top = 0; next }
	inb {
		blk = blk $0 "\n"
		if (top && $0 ~ /\[cmstat/) ours = 1
		top = ($0 ~ /(read|write).* to 0x/)
		if ($0 ~ /\] ==========/) {
			inb = 0
			if (ours) print head; else foreign++
			printf "%s", blk
		}
		next
	}
	{ print }
	END {
		if (inb)	# cut short: counted as ours
			printf "%s\n%s", head, blk
		print foreign + 0
	}'

# vm_report NAME: the KTAP document of the VM NAME: what its runner and
# the KUnit modules printed, then whether the console is clean (nothing
# the kernel reported; on the KCSAN kernel, no report of a race in
# cmstat's code) and whether the VM ended by itself.
vm_report() (
	local name=$1 log=$LOGDIR/check-$1.log rc bad foreign scan
	ktap_reset
	rc=$(cat "$log.rc" 2>/dev/null || echo lost)
	vm_attachment "$log" run >"$log.ktap"
	ktap_subtest run "$log.ktap"
	scan=$(awk "$KCSAN_AWK" "$log")
	foreign=$(tail -n 1 <<<"$scan")
	scan=$(head -n -1 <<<"$scan")
	bad=$(grep -E "$CONSOLE_BAD" <<<"$scan" | head -n 40)
	[ -z "$bad" ] ||
		ktap_diag "$(grep -E "$CONSOLE_BAD|$CONSOLE_WHERE" <<<"$scan" | head -n 80)"
	ktap_result console-clean "$([ -z "$bad" ] && echo 1)" \
		"$foreign KCSAN reports outside cmstat; log $log"
	if [ "$rc" = 124 ]; then
		ktap_result ended 0 "timed out: hang"
	else
		ktap_check ended "QEMU status $rc" grep -q cmstat-run-end "$log"
	fi
	ktap_print
)
