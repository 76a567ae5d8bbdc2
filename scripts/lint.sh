#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh [KSRC KDIR]: the style, static-analysis and documentation gates
# ("make lint", and part of "make check"): checkpatch --strict on every .c
# and .h (include/, module/, bench/, kunit/, scripts/ and the sample
# client in samples/client/), sparse (C=2) and W=1 on a build of all the
# modules against KDIR, kernel-doc -Wall on include/, module/, bench/ and
# samples/client/, and the documentation gates of scripts/docs.sh check
# (Documentation/api.rst up to date with the kernel-doc comments, every
# page clean under docutils' strict mode, every link between pages
# resolving).  KSRC defaults to the unpacked linux-source-6.12, KDIR to the
# debug test kernel (built if need be).  Prints one "PASS|FAIL  lint: ..."
# line per gate with its counts; exits non-zero if any gate fails.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ensure_pkgs "${HOST_PKGS[@]}"
ksrc=${1:-$(kernel_source)}
kdir=${2:-$(bash "$CMSTAT_ROOT/scripts/test-kernel.sh" debug)} || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
GATE_PREFIX=lint

cd "$CMSTAT_ROOT"
files=$(git ls-files -co --exclude-standard '*.c' '*.h' 2>/dev/null ||
	find include module bench samples kunit scripts -name '*.[ch]')
nfiles=$(echo $files | wc -w)
# Quiet, checkpatch prints nothing for a clean file: only its status and
# the file count tell a clean run from one that did not run.
"$ksrc/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
	-f $files >"$dir/checkpatch" 2>&1
cp_rc=$?
read -r e w c < <(awk '/^total:/ { e += $2; w += $4; c += $6 }
	END { print e + 0, w + 0, c + 0 }' "$dir/checkpatch")
[ "$cp_rc" = 0 ] || head -n 30 "$dir/checkpatch"
gate "checkpatch --strict" "$([ "$cp_rc" = 0 ] && [ "$nfiles" -gt 0 ] && echo 1)" \
	"$nfiles files, $e errors, $w warnings, $c checks, status $cp_rc"

build_rc=0
build_tree "$dir/tree" "$kdir" C=2 W=1 || build_rc=$?
checked=$(grep -c ' CHECK ' "$dir/tree.log")
warn=$(build_problems "$dir/tree.log")
[ "$warn" = 0 ] && [ "$build_rc" = 0 ] || tail -n 20 "$dir/tree.log"
gate "sparse C=2 and W=1" \
	"$([ "$warn" = 0 ] && [ "$build_rc" = 0 ] && [ "$checked" -gt 0 ] && echo 1)" \
	"$checked files checked by sparse, $warn warnings, make status $build_rc"

"$ksrc/scripts/kernel-doc" -Wall -none include/cmstat/*.h module/*.c bench/*.c samples/client/*.c tests/client/*.c \
	>"$dir/kdoc" 2>&1
kd=$(grep -c . "$dir/kdoc")
[ "$kd" = 0 ] || head -n 20 "$dir/kdoc"
gate "kernel-doc -Wall" "$([ "$kd" = 0 ] && echo 1)" "$kd warnings"

# docs.sh prints its own gate lines, under our prefix.  Should it die
# before printing any FAIL line (say, apt cannot install docutils), a gate
# of ours still records the failure.
GATE_PREFIX="lint: docs" bash scripts/docs.sh check "$ksrc" >"$dir/docs" 2>&1
docs=$?
cat "$dir/docs"
if [ "$docs" != 0 ]; then
	gate_failed=1
	grep -q '^FAIL  ' "$dir/docs" ||
		gate "docs" 0 "scripts/docs.sh check exited with $docs"
fi
exit $gate_failed
