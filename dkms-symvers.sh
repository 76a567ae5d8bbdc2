#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-symvers.sh save|remove RELEASE DIR: the POST_BUILD and POST_REMOVE
# steps of dkms.conf, which keep cmstat's Module.symvers where client
# modules build against it (samples/client/Makefile, README.md): in
# DIR/RELEASE/, DIR being the DKMS source tree (/usr/src/cmstat-<version>,
# whose include/ holds the headers) and RELEASE the kernel's release.
#
#   save     run by DKMS in its build directory after a build: copies the
#            build's Module.symvers to DIR/RELEASE/Module.symvers
#   remove   run by DKMS when it removes the module from a kernel: deletes
#            that file, and DIR/RELEASE if nothing else is in it
set -euo pipefail

usage() {
	echo "usage: dkms-symvers.sh save|remove RELEASE DIR" >&2
	exit 2
}

[ $# = 3 ] || usage
release=$2 dir=$3
case "$release" in
"" | . | .. | */*) usage ;;
esac
[ -d "$dir" ] || { echo "dkms-symvers.sh: no directory $dir" >&2; exit 1; }

case "$1" in
save)
	grep -qw 'cmstat_heap_create' Module.symvers ||
		{ echo "dkms-symvers.sh: no cmstat symbols in $PWD/Module.symvers" >&2; exit 1; }
	install -d "$dir/$release"
	install -m 0644 Module.symvers "$dir/$release/Module.symvers"
	;;
remove)
	rm -f "$dir/$release/Module.symvers"
	rmdir "$dir/$release" 2>/dev/null || true
	;;
*)
	usage
	;;
esac
