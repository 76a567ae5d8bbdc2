// SPDX-License-Identifier: GPL-2.0
/*
 * cmstat protocol mutations, compiled only into test builds made with
 * CMSTAT_MUTATIONS=y (scripts/check.sh builds them for the test VMs; no
 * installed module has this file or its parameter).  Mutations 1, 2 and 4
 * break the protocol in one way each, so that the stress tests can show
 * they catch a broken protocol and not only a racy sum: with a mutation
 * they must report violations, without one none.  Mutation 3 brings back
 * the reader that sends an IPI to every CPU, idle and isolated ones too:
 * the control of the check that the reader leaves those alone.  The hooks
 * that act on the parameter are in mutation.h, private to cmstat and its
 * KUnit modules.
 */

#include <linux/export.h>
#include <linux/moduleparam.h>

#include "internal.h"

int cmstat_mutation;
EXPORT_SYMBOL_GPL(cmstat_mutation);
module_param_named(mutation, cmstat_mutation, int, 0444);
MODULE_PARM_DESC(mutation,
		 "Test builds only: 0 none, 1 the reader skips the wait, 2 all sections share one sequence counter, 3 the reader IPIs idle CPUs too, 4 nested sections of depths 2-3 (and 4-7...) share one, 5 a call site's row is counted in a section of its own");
