# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# Every file is root-only (0400, epoch 0600), and user nobody reads none.
insmod /lib/cmstat/cmstat_demo.ko objects=100 || exit 1
dirs="/sys/kernel/cmstat /sys/kernel/debug/cmstat"
fail=0
files=$(find $dirs -type f)
n=$(echo "$files" | grep -c .)
# Checking nothing would pass: the files of all/ and of the heap are there.
for f in /sys/kernel/cmstat/epoch /sys/kernel/cmstat/heaps/demo/live_bytes \
	 /sys/kernel/debug/cmstat/stats /sys/kernel/debug/cmstat/heaps/demo/stats; do
	echo "$files" | grep -qx "$f" || { echo "missing: $f"; fail=1; }
done
bad=$(find $dirs -type f \( -name epoch ! -perm 600 -o ! -name epoch ! -perm 400 \))
[ -z "$bad" ] || { echo "wrong modes: $bad"; fail=1; }
# One shell as nobody tries every file (read is a builtin: no fork per
# file).  /etc/passwd is the control: nobody must read that one, so that a
# refusal means something.
readable=$(su -s /bin/sh nobody -c "for f in /etc/passwd $(echo $files); do
	{ read -r x < \$f; } 2>/dev/null && echo \$f; done")
[ "$readable" = /etc/passwd ] ||
	{ echo "readable by nobody: $readable (expected /etc/passwd only)"; fail=1; }
su -s /bin/sh nobody -c "cmstat" >/tmp/viewer.out 2>&1
rc=$?
echo "$n files checked; nobody read only /etc/passwd; viewer as nobody: exit $rc: $(cat /tmp/viewer.out)"
[ $rc = 1 ] || fail=1
rmmod cmstat_demo
exit $fail
