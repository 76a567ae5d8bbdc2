#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-kernel.sh FLAVOUR: scripts/kernel.sh FLAVOUR, for the callers that
# still name this script.
exec bash "$(dirname "$0")/kernel.sh" "$@"
