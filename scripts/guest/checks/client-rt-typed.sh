# SPDX-License-Identifier: GPL-2.0
# kernels: debug rt stock
# Typed caches whose objects keep a state across their free: a
# constructor's pattern in the first word (of 24-byte objects, and of
# 4-byte ones, smaller than a pointer), and the value a lockless reader
# of a SLAB_TYPESAFE_BY_RCU cache reads after the free.  A client frees
# objects of each from a hard hrtimer and under a raw spinlock.  On
# PREEMPT_RT cmstat hands those frees on to a work item, and nothing it
# does on the way may write into them: the RCU ones read unchanged after
# the free, and the constructed ones come back with their pattern.
# Elsewhere the slab allocator frees them at once, and the same holds.
# With cmstat as loaded by default, with accounting=0 and with
# debug_free=1: each takes another path to the free.
. /etc/cmstat-check.sh
case "$(uname -v)" in
*PREEMPT_RT*) rt=1 ;;
*) rt=0 ;;
esac
judge() {
	echo "$1" | grep -q '^in hard interrupt context: yes;' || return 1
	if [ $rt = 1 ]; then
		echo "$1" | grep -q 'frees handed on: 0$' && return 1
		# Else nothing was checked.  KASAN's quarantine keeps them on
		# the debug kernel, which is not PREEMPT_RT.
		echo "$1" | grep -q ' 0 came back' &&
			{ echo "no freed object came back"; return 1; }
	else
		echo "$1" | grep -q 'frees handed on: 0$' || return 1
	fi
	echo "$1" | grep -q '^SLAB_TYPESAFE_BY_RCU: 64 freed, 0 changed' ||
		return 1
	[ "$(echo "$1" | grep -c '^constructor.*, 0 without the pattern$')" = 2 ]
}
client_each_load rt_typed judge
