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

# adopt_fs [TYPE DISK SYNC]: with the filesystem TYPE (ext2) loaded, files
# made, read, renamed and removed on DISK ($ADOPT_DISK), mounted twice,
# synced every SYNC rounds if SYNC is given (a journal's commit); then
# caches dropped.
adopt_fs() {
	adopt_type=${1:-ext2} adopt_dev=${2:-$ADOPT_DISK} adopt_sync=${3:-0}
	mkdir -p /mnt
	mount -t $adopt_type $adopt_dev /mnt || { echo "mount failed"; return 1; }
	round=0
	while [ $round -lt 40 ]; do
		d=/mnt/d$round
		mkdir $d
		dd if=/dev/zero of=$d/f bs=1024 count=$((round * 3 + 1)) 2>/dev/null
		echo "file $round" > $d/small
		ln -s small $d/link
		mv $d/small $d/renamed
		[ $adopt_sync = 0 ] || [ $((round % adopt_sync)) != 0 ] || sync
		[ $((round % 3)) = 0 ] && rm -r $d
		round=$((round + 1))
	done
	umount /mnt || { echo "umount failed"; return 1; }
	mount -t $adopt_type $adopt_dev /mnt || { echo "second mount failed"; return 1; }
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

# adopt_releases_delayed: the kernel delays kobject releases
# (CONFIG_DEBUG_KOBJECT_RELEASE, 1 to 4 s): it has the work function that
# runs them late.  Its symbol, not its log, which a busy boot may rotate.
adopt_releases_delayed() {
	grep -q ' kobject_delayed_cleanup$' /proc/kallsyms
}

# adopt_disk_remove: the disk gone, before null_blk is.  On a kernel that
# delays kobject releases (CONFIG_DEBUG_KOBJECT_RELEASE, 1 to 4 s), a
# process holds the disk open while it goes, until the longest delay has
# passed twice over.  The block layer's "queue" kobject is part of the
# disk's struct, and its release frees nothing (block/blk-sysfs.c): the
# disk could be freed before that delayed release had run, its timer
# then used after the free (KASAN in run_timer_softirq, seen once in
# make check on the debug kernel), whoever's module the disk is.  Once
# the holder exits, the disk is freed only after its own delayed release
# and an RCU grace period, which every CPU, the timer's too, goes through.
adopt_disk_remove() {
	adopt_holder='' adopt_n=0
	if adopt_releases_delayed; then
		# shellcheck disable=SC2217 # stdin is how it holds the disk
		sleep 2147483647 < $ADOPT_DISK &
		adopt_holder=$!
		until [ "$(readlink /proc/$adopt_holder/fd/0)" = $ADOPT_DISK ]; do
			adopt_n=$((adopt_n + 1))
			[ -d /proc/$adopt_holder ] && [ $adopt_n -le 600 ] || {
				kill $adopt_holder 2>/dev/null
				echo "nothing holds $ADOPT_DISK open"
				return 1
			}
			sleep 1
		done
	fi
	adopt_rc=0
	echo 0 > $ADOPT_CONFIG/power || adopt_rc=1
	if [ -n "$adopt_holder" ]; then
		[ $adopt_rc = 1 ] || sleep 8
		kill $adopt_holder
		wait $adopt_holder 2>/dev/null	# no "Terminated"
	fi
	[ $adopt_rc = 0 ] && rmdir $ADOPT_CONFIG ||
		{ echo "removing $ADOPT_DISK failed"; return 1; }
}
