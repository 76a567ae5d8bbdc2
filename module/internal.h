/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared between cmstat's own source files, not exported. */
#ifndef _CMSTAT_INTERNAL_H
#define _CMSTAT_INTERNAL_H

#include <cmstat/counters.h>

void cmstat_accounting_init(bool enable);

#endif /* _CMSTAT_INTERNAL_H */
