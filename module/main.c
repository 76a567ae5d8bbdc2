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

/*
 * The steps of cmstat_init() that have something to undo, in its order:
 * the value of the last one done.  cmstat_unwind() undoes them, last
 * first, both when a step fails and at unload, so that the two cannot
 * drift apart.  Each step comes after what it uses: the owner table is
 * the class caches', the inline accounting's switch follows accounting
 * and debug_free, the heaps' objects come from the class caches, and the
 * files read the heaps.  The steps between these have nothing to undo:
 * static keys set before any client can link to cmstat, and the owner
 * table, static and read only while the class caches exist.
 */
enum cmstat_step {
	CMSTAT_STEP_NONE,
	CMSTAT_STEP_CLASSES,	/* the size classes' caches */
	CMSTAT_STEP_DEBUG,	/* debug_free=1 may track objects from here */
	CMSTAT_STEP_HEAPS,	/* the heaps' group */
	CMSTAT_STEP_SYSFS,
	CMSTAT_STEP_LOADED,	/* the debugfs files, the last step */
};

static void cmstat_unwind(enum cmstat_step done)
{
	switch (done) {
	case CMSTAT_STEP_LOADED:
		cmstat_debugfs_exit();
		fallthrough;
	case CMSTAT_STEP_SYSFS:
		cmstat_sysfs_exit();
		fallthrough;
	case CMSTAT_STEP_HEAPS:
		cmstat_heaps_exit();
		/*
		 * With no heap left nothing is handed on any more: what was
		 * goes back to the class caches before they are destroyed.
		 */
		cmstat_free_later_flush();
		fallthrough;
	case CMSTAT_STEP_DEBUG:
		cmstat_debug_exit();
		fallthrough;
	case CMSTAT_STEP_CLASSES:
		cmstat_classes_exit(done == CMSTAT_STEP_LOADED);
		fallthrough;
	case CMSTAT_STEP_NONE:
		break;
	}
}

static int __init cmstat_init(void)
{
	enum cmstat_step done = CMSTAT_STEP_NONE;
	int err;

	cmstat_accounting_init(accounting);
	err = cmstat_classes_init();
	if (err)
		goto fail;
	done = CMSTAT_STEP_CLASSES;
	err = cmstat_owner_init();
	if (err)
		goto fail;
	cmstat_debug_init(debug_free);
	cmstat_alloc_init();
	done = CMSTAT_STEP_DEBUG;
	err = cmstat_heaps_init();
	if (err)
		goto fail;
	done = CMSTAT_STEP_HEAPS;
	err = cmstat_sysfs_init();
	if (err)
		goto fail;
	cmstat_debugfs_init();
	pr_info("loaded: %u size classes, accounting %s%s\n",
		CMSTAT_NR_CLASSES, accounting ? "on" : "off",
		debug_free ? ", debug_free on" : "");
	return 0;

fail:
	cmstat_unwind(done);
	return err;
}

static void __exit cmstat_exit(void)
{
	cmstat_unwind(CMSTAT_STEP_LOADED);
	pr_info("unloaded\n");
}

/*
 * Built in (a kernel tree, Kconfig's CMSTAT=y), before the device
 * initcalls of clients built in too; as a module, module_init().
 */
subsys_initcall(cmstat_init);
module_exit(cmstat_exit);

MODULE_DESCRIPTION("Consistent per-CPU memory statistics and a size-class allocator");
MODULE_AUTHOR("The cmstat developers");
MODULE_LICENSE("GPL");
/*
 * The one definition of cmstat's version: the Makefile reads it from this
 * line for "make install"; dkms.conf repeats it and make check compares.
 */
MODULE_VERSION("0.2.0");
