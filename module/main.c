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

static bool debug_free;
module_param(debug_free, bool, 0444);
MODULE_PARM_DESC(debug_free,
		 "Track live objects and refuse frees with the wrong size or heap (default 0, slow); set at load time only.");

static int __init cmstat_init(void)
{
	int err;

	cmstat_accounting_init(accounting);
	cmstat_debug_init(debug_free);
	cmstat_alloc_init();
	err = cmstat_heaps_init();
	if (err)
		return err;
	err = cmstat_classes_init();
	if (err)
		goto err_heaps;
	err = cmstat_owner_init();
	if (err)
		goto err_classes;
	err = cmstat_sysfs_init();
	if (err)
		goto err_classes;
	cmstat_debugfs_init();
	pr_info("loaded: %u size classes, accounting %s%s\n",
		CMSTAT_NR_CLASSES, accounting ? "on" : "off",
		debug_free ? ", debug_free on" : "");
	return 0;

err_classes:
	cmstat_classes_exit(false);
err_heaps:
	cmstat_heaps_uninit();
	return err;
}

static void __exit cmstat_exit(void)
{
	cmstat_debugfs_exit();
	cmstat_sysfs_exit();
	cmstat_heaps_exit();
	cmstat_free_later_flush();
	cmstat_debug_exit();
	cmstat_classes_exit(true);
	pr_info("unloaded\n");
}

module_init(cmstat_init);
module_exit(cmstat_exit);

MODULE_DESCRIPTION("Consistent per-CPU memory statistics and a size-class allocator");
MODULE_AUTHOR("The cmstat developers");
MODULE_LICENSE("GPL");
/*
 * The one definition of cmstat's version: the Makefile reads it from this
 * line for "make install"; dkms.conf repeats it and make check compares.
 */
MODULE_VERSION("0.2.0");
