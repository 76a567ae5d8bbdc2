# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# The kernel's allocating helpers whose memory a module frees with kfree(),
# kvfree() or kfree_const() (kmemdup_nul(), kstrdup_const(), strndup_user(),
# vmemdup_user(), memdup_array_user() and the rest), called by a module
# adopted with the one line (tests/client/cmstat_adopt_helpers_test.c):
# each object counts on the module's heap while held, and not once freed.
# The module prints KTAP; its parameter "failed" is the verdict.
. /etc/cmstat-check.sh
ktap_module cmstat_adopt_helpers_test
