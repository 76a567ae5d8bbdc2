# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# No file shows anything that looks like a kernel address: hex words, or
# a 20-digit decimal (where a kernel address printed in decimal would lie).
insmod /lib/cmstat/cmstat_demo.ko objects=500 || exit 1
files=$(find /sys/kernel/cmstat /sys/kernel/debug/cmstat -type f)
hits=$(for f in $files; do
	cat "$f"
done | grep -Eo '0x[0-9a-fA-F]+|[0-9a-fA-F]{8,}' | grep -E '[a-fA-Fx]|^[0-9]{20}')
rmmod cmstat_demo
# Reading nothing would pass: the heap's stats file is among those read.
echo "$files" | grep -qx /sys/kernel/debug/cmstat/heaps/demo/stats ||
	{ echo "the demo heap's files are missing"; exit 1; }
[ -z "$hits" ] || { echo "address-like: $hits" | head -n 5; exit 1; }
echo "no address-like word in $(echo "$files" | grep -c .) files"
