# SPDX-License-Identifier: GPL-2.0
#
# The workload of the two adopted modules (scripts/adopt-build.sh), for
# the adoption check and its benchmark (make_initramfs installs this as
# /etc/cmstat-adopt.sh): null_blk, memory-backed, as the disk of an ext2
# filesystem.  Each phase prints what failed, and returns non-zero then.
# Sourced: the variables are the caller's, and named so as not to clash.

ADOPT_CONFIG=/sys/kernel/config/nullb/nullb0
ADOPT_DISK=/dev/nullb0

# adopt_deps: the kernel modules the two need, loaded.
adopt_deps() {
	for m in $(cat /lib/cmstat/adopt-deps); do
		[ -d /sys/module/"$m" ] || insmod /lib/cmstat/"$m".ko || return 1
	done
}

# adopt_disk: the disk, made through configfs from a loaded null_blk;
# pages written, discarded, then written by mke2fs.
adopt_disk() {
	mkdir -p /sys/kernel/config
	mount -t configfs none /sys/kernel/config 2>/dev/null
	mkdir $ADOPT_CONFIG || return 1
	for a in memory_backed=1 discard=1 size=1024 blocksize=4096 power=1; do
		echo "${a#*=}" > "$ADOPT_CONFIG/${a%=*}" || return 1
	done
	dd if=/dev/zero of=$ADOPT_DISK bs=4096 count=512 2>/dev/null ||
		{ echo "dd to $ADOPT_DISK failed"; return 1; }
	blkdiscard -o 0 -l 1048576 $ADOPT_DISK || { echo "blkdiscard failed"; return 1; }
	mke2fs -q -b 4096 $ADOPT_DISK > /dev/null || { echo "mke2fs failed"; return 1; }
}

# adopt_fs: with ext2 loaded, files made, read, renamed and removed on
# the disk, mounted twice; then caches dropped.
adopt_fs() {
	mkdir -p /mnt
	mount -t ext2 $ADOPT_DISK /mnt || { echo "mount failed"; return 1; }
	round=0
	while [ $round -lt 40 ]; do
		d=/mnt/d$round
		mkdir $d
		dd if=/dev/zero of=$d/f bs=1024 count=$((round * 3 + 1)) 2>/dev/null
		echo "file $round" > $d/small
		ln -s small $d/link
		mv $d/small $d/renamed
		[ $((round % 3)) = 0 ] && rm -r $d
		round=$((round + 1))
	done
	umount /mnt || { echo "umount failed"; return 1; }
	mount -t ext2 $ADOPT_DISK /mnt || { echo "second mount failed"; return 1; }
	cat /mnt/d*/renamed /mnt/d*/f > /dev/null || { echo "reading back failed"; return 1; }
	ls -lR /mnt > /dev/null
	rm -r /mnt/d*
	umount /mnt || { echo "second umount failed"; return 1; }
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# adopt_discard: the whole disk discarded, every page null_blk holds freed.
adopt_discard() {
	blkdiscard $ADOPT_DISK || { echo "blkdiscard of the disk failed"; return 1; }
}

# adopt_disk_remove: the disk gone, before null_blk is.
adopt_disk_remove() {
	echo 0 > $ADOPT_CONFIG/power && rmdir $ADOPT_CONFIG ||
		{ echo "removing $ADOPT_DISK failed"; return 1; }
}
