# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# Writer sections nested in sections of their own context, as a client
# module nests them (tests/client/cmstat_nest_test.c): an allocation and a
# free inside a section, sections at depths 2 and 3, a large free inside
# a section under a raw spinlock.  Every snapshot consistent, the totals
# exact, no sequence counter left odd once the writers stop.  The module
# prints KTAP, and its parameter "failed" is the verdict; and no reader
# may have found a section open long enough to report it.
. /etc/cmstat-check.sh
fail=0
ktap_module cmstat_nest_test || fail=1
if dmesg | grep -E 'holds up readers|closed a writer section'; then
	echo "a reader waited for a section no client left open"
	fail=1
fi
exit $fail
