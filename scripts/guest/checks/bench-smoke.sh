# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# cmstat_bench, with few iterations, runs every case of every group and
# unloads cleanly (make bench runs it for real; here the debug kernel
# watches it).  Expected sample lines: writer 9 cases x 2, reader 25
# (4 readers, 17 cuts of all heaps: 1 heap idle or active on 2 or all
# CPUs, 16 and 256 heaps idle or 1, 4 or all active on 2 or all, and 4
# cuts of a heap with 1 or 4000 call sites: its totals, or every row),
# allocator 3 cases x 11 sizes (cmstat_on, kmem_cache, kmalloc: cmstat is
# loaded with accounting on here), and 9 more cases x 2 sizes (variants
# of cmstat, the raw cache freed by kfree(), a typed cache, a typed cache
# as an adopted module reaches it, the unsized free, and the sized,
# unsized and typed pairs of a module built with call sites).
echo "cmstat bench-smoke start" >/dev/kmsg
insmod /lib/cmstat/cmstat_bench.ko writer_iters=2000 reader_iters=2 \
	alloc_iters=200 || exit 1
rmmod cmstat_bench || exit 1
for g in writer:18 reader:25 alloc:33 alloc_extra:18; do
	n=$(dmesg | sed -n '/cmstat bench-smoke start/,$p' |
		grep -c "cmstat_bench: sample ${g%:*} ")
	echo "${g%:*}: $n sample lines, ${g#*:} expected"
	[ "$n" = "${g#*:}" ] || exit 1
done
