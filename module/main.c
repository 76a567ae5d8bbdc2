// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat module entry: parameters, init and exit.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "internal.h"

static bool accounting = true;
module_param(accounting, bool, 0444);
MODULE_PARM_DESC(accounting,
		 "Record statistics (default 1). 0 turns every writer section into a patched-out branch; set at load time only.");

static int __init cmstat_init(void)
{
	cmstat_accounting_init(accounting);
	pr_info("loaded, accounting %s\n", accounting ? "on" : "off");
	return 0;
}

static void __exit cmstat_exit(void)
{
	pr_info("unloaded\n");
}

module_init(cmstat_init);
module_exit(cmstat_exit);

MODULE_DESCRIPTION("Consistent per-CPU memory statistics and a size-class allocator");
MODULE_AUTHOR("The cmstat developers");
MODULE_LICENSE("GPL");
