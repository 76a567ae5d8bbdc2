# SPDX-License-Identifier: GPL-2.0
# kernels: runtime
# timeout: 2400
# last: on a kernel that delays kobject releases, ext4 and jbd2 stay loaded, and cmstat with them
# Three more kinds of in-tree module nobody here wrote, adopted with the
# one Kbuild line as ext2 and null_blk are (checks/adopt-modules.sh; the
# modules built by scripts/adopt-build.sh's RUNTIME list):
#   - a journalled filesystem: ext4, with jbd2, its journal, as a module
#     of its own;
#   - a compressed RAM disk: zram, the filesystem's disk, with its
#     compression streams made per CPU (their buffers and the disk's
#     table are vmalloc()'s, which adopt.h leaves to the kernel, and the
#     adoption report names);
#   - a network path with traffic: veth pairs on a bridge between two
#     network namespaces, HTTP across it.
# While they run, every snapshot keeps its identities.  What each group's
# heaps count, allocations and frees by size class or typed cache, is
# what the kmem tracepoints saw from the group's code (adopt-trace.sh: the
# filesystem and its journal run cmstat's out-of-line paths at once, and
# so do the veth pairs and their bridge).  Once everything is unmounted,
# deleted and unloaded, nothing is left: the heaps gone, every allocation
# freed, by the tracepoints and by cmstat's destroyed record.  But on a
# kernel that delays kobject releases (CONFIG_DEBUG_KOBJECT_RELEASE, 1 to
# 4 s) unloading ext4 is unsafe, with or without cmstat: its
# "features" kobject is released after the rmmod that freed the module,
# and the release reads ext4's kobj_type and calls ext4's release, both in
# the freed module's memory (fs/ext4/sysfs.c; an oops in __kobject_del
# seen once in make check).  There ext4 and jbd2 stay loaded, their heaps
# compared with the tracepoints' at rest, the books closed for the others;
# cmstat stays loaded under them, hence "last:".
. /etc/cmstat-check.sh
. /etc/cmstat-adopt.sh
. /etc/cmstat-adopt-trace.sh
MODS="zram jbd2 ext4 veth bridge"
for m in $MODS; do
	[ -e /lib/cmstat/$m-runtime.ko ] || { echo "no adopted $m was built for this kernel"; exit 1; }
done
fail=0
no() { echo "$*"; fail=1; }

# net_work: two namespaces, each with a veth pair's end, the other ends
# on a bridge; 8 MiB over HTTP across it, each MiB counted.  Then the
# pairs, the bridge and the namespaces deleted.
net_work() {
	brctl addbr br0 || { echo "no bridge"; return 1; }
	# No multicast snooping: its group entries, made for the namespaces'
	# MLD reports, are freed with kfree_rcu(), which the kernel does in
	# batches (kfree_bulk()) that fire no kmem event, so the tracepoints
	# could not see those frees.
	f=/sys/class/net/br0/bridge/multicast_snooping
	[ ! -e $f ] || echo 0 > $f
	ip link set br0 up || { echo "br0 not up"; return 1; }
	# Each namespace held by a process of its own.
	unshare -n sleep 2147483647 &
	ns1=$!
	unshare -n sleep 2147483647 &
	ns2=$! n=0
	for p in $ns1 $ns2; do
		n=$((n + 1))
		i=0
		until alive $p && [ -n "$(readlink /proc/$p/ns/net)" ] &&
			[ "$(readlink /proc/$p/ns/net)" != "$(readlink /proc/self/ns/net)" ]; do
			i=$((i + 1))
			[ $i -le $HANG ] || { echo "no namespace of its own for $p"; return 1; }
			sleep 1
		done
		ip link add h$n type veth || { echo "no veth pair"; return 1; }
		# busybox's ip names the peer vethN, whatever "peer name" says.
		peer=$(ip link show h$n | sed -n 's/^[0-9]*: [^@]*@\([^:]*\):.*/\1/p')
		ip link set "$peer" netns $p && brctl addif br0 h$n && ip link set h$n up &&
			nsenter -t $p -n ip link set "$peer" name eth0 &&
			nsenter -t $p -n ip addr add 10.9.0.$n/24 dev eth0 &&
			nsenter -t $p -n ip link set eth0 up ||
			{ echo "veth pair $n not set up"; return 1; }
	done
	mkdir -p /tmp/www
	dd if=/dev/urandom of=/tmp/www/blob bs=4096 count=256 2>/dev/null
	nsenter -t $ns2 -n httpd -f -p 8080 -h /tmp/www &
	httpd=$!
	i=0
	until nsenter -t $ns2 -n netstat -ltn 2>/dev/null | grep -q ':8080 '; do
		i=$((i + 1))
		[ $i -le $HANG ] || { echo "httpd never listened"; return 1; }
		sleep 1
	done
	net_ok=0 i=0
	while [ $i -lt 8 ]; do
		# No -T: busybox 1.35's wget dies of a segmentation fault with it.
		got=$(nsenter -t $ns1 -n wget -q -O - http://10.9.0.2:8080/blob | wc -c)
		[ "$got" = 1048576 ] || { echo "transfer $i: $got bytes of 1048576"; net_ok=1; }
		i=$((i + 1))
	done
	kill $httpd
	# The pairs first: a namespace's end would go with the namespace.
	ip link del h1 && ip link del h2 && ip link set br0 down && brctl delbr br0 ||
		{ echo "deleting the network failed"; net_ok=1; }
	kill $ns1 $ns2
	wait $httpd $ns1 $ns2 2>/dev/null	# no "Terminated"
	return $net_ok
}

# net_clean: whatever net_work left when it failed half-way, gone, so that
# the modules can be unloaded.
net_clean() {
	kill $httpd $ns1 $ns2 2>/dev/null
	for l in h1 h2; do
		ip link del $l 2>/dev/null
	done
	ip link set br0 down 2>/dev/null && brctl delbr br0
}

# Of the "last:" checks this one runs first, by its name, before any that
# pins cmstat.
[ ! -e /tmp/cmstat-pinned ] ||
	{ echo "an earlier check pinned cmstat: $(cat /tmp/cmstat-pinned)"; exit 1; }
# A cmstat of its own: its destroyed record then holds these heaps only.
# The kernel's jbd2, which cmstat_adopt_test needs, makes way for ours.
rmmod cmstat && insmod /lib/cmstat/cmstat.ko && adopt_deps || exit 1
[ ! -d /sys/module/jbd2 ] || rmmod jbd2 || exit 1
trap trace_end EXIT
trace_begin || exit 1
printf 'jbd2 fs\next4 fs\nveth net\nbridge net\n' > /tmp/adopt-groups
reader_begin

# zram alone: a disk, its compressors' contexts made per CPU, the
# filesystem's image written to it.
period zram
insmod /lib/cmstat/zram-runtime.ko num_devices=1 || exit 1
echo 64M > /sys/block/zram0/disksize || no "zram's disksize refused"
zcat /lib/cmstat/ext4.img.gz > /dev/zram0 || no "writing the ext4 image failed"
period fs
insmod /lib/cmstat/jbd2-runtime.ko && insmod /lib/cmstat/ext4-runtime.ko || exit 1
adopt_fs ext4 /dev/zram0 4 || fail=1
# The disk reset, then removed while zram stays loaded: on a kernel that
# delays kobject releases (CONFIG_DEBUG_KOBJECT_RELEASE, 1 to 4 s) the
# disk's release reads zram's block_device_operations, and would fault
# if zram's rmmod had freed them first (seen once).  The network part
# runs between the removal and that rmmod.
period zram
echo 1 > /sys/block/zram0/reset || no "zram's reset failed"
echo 0 > /sys/class/zram-control/hot_remove || no "removing zram0 failed"
period net
insmod /lib/cmstat/veth-runtime.ko && insmod /lib/cmstat/bridge-runtime.ko || exit 1
httpd='' ns1='' ns2=''
net_work || { fail=1; net_clean; }
reader_end || fail=1

# Every module still loaded, idle: the heaps against the tracepoints.
# The bridge's ports are freed by their kobjects' release, in the
# bridge's code, which a kernel that delays releases
# (CONFIG_DEBUG_KOBJECT_RELEASE, 1 to 4 s) runs that much later; its
# forwarding entries an RCU grace period later.  Both before the heaps
# are read, and before the bridge's code goes.
! adopt_releases_delayed || sleep 5
heaps_settle $MODS || fail=1
keys_compare $MODS || fail=1

# Unloaded, the last in first.
gone="bridge veth ext4 jbd2 zram"
if adopt_releases_delayed; then
	gone="bridge veth zram"
	echo "ext4 and jbd2 stay loaded: ext4 cannot be unloaded where kobject releases are delayed" |
		tee /tmp/cmstat-pinned
fi
for m in $gone; do
	rmmod $m || no "rmmod $m failed"
done
! adopt_releases_delayed || sleep 5
# shellcheck disable=SC2086 # a list of modules
books_closed $gone || fail=1
[ -e /tmp/cmstat-pinned ] && exit $fail
for m in $(sed '1!G;h;$!d' /lib/cmstat/adopt-deps); do
	rmmod "$m" 2>/dev/null
done
exit $fail
