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
# resolving), shellcheck on every shell script, pyflakes on every Python
# one, the harness's own tests (scripts/harness/test_harness.py) and
# cmstat-adopt's (test_cmstat_adopt.py), and the viewer's on saved stats
# files (tests/viewer/run.sh).
# KSRC defaults to the unpacked linux-source-6.12, KDIR to the debug test
# kernel (built if need be).  Prints one KTAP document, a result per gate with its counts; exits
# non-zero if any gate fails.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ktap.sh"

ensure_pkgs "${HOST_PKGS[@]}"
ksrc=${1:-$(kernel_source)}
kdir=${2:-$(bash "$CMSTAT_ROOT/scripts/kernel.sh" debug)} || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

cd "$CMSTAT_ROOT" || exit 1
mapfile -t files < <(git ls-files -co --exclude-standard '*.c' '*.h' 2>/dev/null ||
	find include module bench samples kunit scripts -name '*.[ch]')
nfiles=${#files[@]}
# Quiet, checkpatch prints nothing for a clean file: only its status and
# the file count tell a clean run from one that did not run.  Version
# checks belong in the compat header, and only there: checkpatch, which
# would have none, is told so, and the gate below holds the rest to it.
"$ksrc/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
	--ignore LINUX_VERSION_CODE -f "${files[@]}" >"$dir/checkpatch" 2>&1
cp_rc=$?
read -r e w c < <(awk '/^total:/ { e += $2; w += $4; c += $6 }
	END { print e + 0, w + 0, c + 0 }' "$dir/checkpatch")
[ "$cp_rc" = 0 ] || ktap_diag "$(head -n 30 "$dir/checkpatch")"
ktap_result "checkpatch --strict" "$([ "$cp_rc" = 0 ] && [ "$nfiles" -gt 0 ] && echo 1)" \
	"$nfiles files, $e errors, $w warnings, $c checks, status $cp_rc"

scattered=$(grep -l 'LINUX_VERSION_CODE' "${files[@]}" |
	grep -vx 'include/cmstat/compat.h')
ktap_result "version checks only in include/cmstat/compat.h" \
	"$([ -z "$scattered" ] && echo 1)" "elsewhere: ${scattered:-none}"

# LINT_TREE: a tree make check already built with C=2 W=1 against KDIR.
tree=${LINT_TREE:-$dir/tree}
[ -n "${LINT_TREE:-}" ] || build_tree "$tree" "$kdir" C=2 W=1
build_rc=$(cat "$tree.rc")
checked=$(grep -c ' CHECK ' "$tree.log")
warn=$(build_problems "$tree.log")
if [ "$warn" != 0 ] || [ "$build_rc" != 0 ]; then
	ktap_diag "$(tail -n 20 "$tree.log")"
fi
ktap_result "sparse C=2 and W=1" \
	"$([ "$warn" = 0 ] && [ "$build_rc" = 0 ] && [ "$checked" -gt 0 ] && echo 1)" \
	"$checked files checked by sparse, $warn warnings, make status $build_rc"

"$ksrc/scripts/kernel-doc" -Wall -none include/cmstat/*.h module/*.c bench/*.c samples/client/*.c tests/client/*.[ch] tests/adopt/*.c tests/adopt-miss/*.c \
	>"$dir/kdoc" 2>&1
kd=$(grep -c . "$dir/kdoc")
[ "$kd" = 0 ] || ktap_diag "$(head -n 20 "$dir/kdoc")"
ktap_result "kernel-doc -Wall" "$([ "$kd" = 0 ] && echo 1)" "$kd warnings"

# Every shell script: the host's in bash; the guest's, the viewer and the
# package's maintainer script in POSIX sh (busybox's ash in the VMs), but
# for the Debian 13 system VM's, in bash (*.bash).  SC1091: the guest's
# scripts source files the VM has, the host does not.
host_sh=(scripts/*.sh dkms-symvers.sh tests/viewer/run.sh)
guest_sh=(scripts/guest/init scripts/guest/*-init scripts/guest/*.sh
	scripts/guest/checks/*.sh scripts/cmstat debian/*.prerm)
{
	shellcheck -x -P SCRIPTDIR -s bash -S warning "${host_sh[@]}"
	shellcheck -s dash -S warning -e SC1091 "${guest_sh[@]}"
	shellcheck -s bash -S warning -e SC1091 scripts/guest/*.bash
} >"$dir/shellcheck" 2>&1
nsc=$(grep -c '^In .* line [0-9]*:' "$dir/shellcheck")
[ "$nsc" = 0 ] || ktap_diag "$(head -n 40 "$dir/shellcheck")"
ktap_result shellcheck "$([ "$nsc" = 0 ] && echo 1)" \
	"$((${#host_sh[@]} + ${#guest_sh[@]})) scripts, $nsc findings"

# The Python scripts: pyflakes, and the harness's own tests (the report's
# with this kernel tree's kunit_parser).
py=(scripts/*.py scripts/harness/*.py scripts/cmstat-drgn scripts/cmstat-adopt scripts/cmstat-adopt-check)
pyflakes3 "${py[@]}" >"$dir/pyflakes" 2>&1
npf=$(grep -c . "$dir/pyflakes")
[ "$npf" = 0 ] || ktap_diag "$(head -n 20 "$dir/pyflakes")"
ktap_result pyflakes "$([ "$npf" = 0 ] && echo 1)" "${#py[@]} scripts, $npf findings"
KSRC=$ksrc /usr/bin/python3 -m unittest discover -s scripts/harness -t scripts \
	>"$dir/harness" 2>&1
ht=$?
[ "$ht" = 0 ] || ktap_diag "$(tail -n 30 "$dir/harness")"
ktap_result "the harness's own tests" "$([ "$ht" = 0 ] && grep -q '^Ran [1-9]' "$dir/harness" &&
	! grep -q 'skipped=' "$dir/harness" && echo 1)" "$(grep '^Ran ' "$dir/harness")"

# The viewer on saved stats files (tests/viewer): every mode, with the
# system's sh and awk and with busybox's, as in the VMs.
bash tests/viewer/run.sh >"$dir/viewer" 2>&1
vt=$?
[ "$vt" = 0 ] || ktap_diag "$(tail -n 30 "$dir/viewer")"
ktap_result "the viewer on saved stats files" "$([ "$vt" = 0 ] && echo 1)" "$(tail -n 1 "$dir/viewer")"

# The documentation gates, one KTAP document of their own.
bash scripts/docs.sh check "$ksrc" >"$dir/docs" 2>"$dir/docs.err"
docs=$?
[ "$docs" = 0 ] || ktap_diag "$(tail -n 20 "$dir/docs.err")"
ktap_subtest docs "$dir/docs" "$docs"
ktap_print
