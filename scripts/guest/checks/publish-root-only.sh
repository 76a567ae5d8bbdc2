# SPDX-License-Identifier: GPL-2.0
# Every file is root-only (0400, epoch 0600), and user nobody reads none.
insmod /lib/cmstat/cmstat_demo.ko objects=100 || exit 1
# Control: nobody can read an ordinary file, so a refusal below means
# something.
su -s /bin/sh nobody -c "cat /etc/passwd" >/dev/null ||
	{ echo "nobody cannot read /etc/passwd: the check would be blind"; exit 1; }
fail=0 n=0
for f in $(find /sys/kernel/cmstat /sys/kernel/debug/cmstat -type f); do
	n=$((n + 1))
	mode=$(stat -c %a "$f")
	case "$f:$mode" in
	*/epoch:600 | *:400) ;;
	*) echo "$f has mode $mode"; fail=1 ;;
	esac
	if su -s /bin/sh nobody -c "cat $f" >/dev/null 2>&1; then
		echo "nobody could read $f"
		fail=1
	fi
done
su -s /bin/sh nobody -c "cmstat" >/tmp/viewer.out 2>&1
rc=$?
echo "$n files checked; viewer as nobody: exit $rc: $(cat /tmp/viewer.out)"
[ $rc = 1 ] || fail=1
rmmod cmstat_demo
exit $fail
