// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat_nmi_check: compiled, never loaded, by scripts/i386-check.sh
 * against a 32-bit (i386) kernel tree.  x86 selects
 * CONFIG_ARCH_HAS_NMI_SAFE_THIS_CPU_OPS on i386 too, but the promise is
 * for the native word: a 64-bit this_cpu_add() there is the generic one,
 * which an NMI can split.  So cmstat must not take NMI writers on a 32-bit
 * kernel; this file fails to compile if it would.
 */

#include <linux/build_bug.h>
#include <linux/module.h>

#include <cmstat/counters.h>

static_assert(!CMSTAT_NMI_WRITERS || IS_ENABLED(CONFIG_64BIT),
	      "cmstat takes NMI writers on a 32-bit kernel, whose 64-bit per-CPU adds are not NMI-safe");

MODULE_DESCRIPTION("Compile-time check of cmstat's NMI writers on 32-bit kernels, never loaded");
MODULE_LICENSE("GPL");
