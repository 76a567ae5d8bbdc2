#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs.sh api [KSRC]: the API reference, on standard output: the kernel-doc
#   comments (include/cmstat/*.h, and the exported functions of module/*.c)
#   in plain reStructuredText, in the order and sections of
#   Documentation/api.rst, whose item lists they replace; made with the
#   kernel's own scripts/kernel-doc from KSRC (default: the unpacked
#   linux-source-6.12) and scripts/kdoc_plain.py.  Nothing in the tree is
#   written: the headers are the reference, api.rst the guide to it.
# docs.sh check [KSRC]: the documentation gates, one KTAP document with a
#   result each (scripts/lint.sh runs them):
#   - kernel-doc -Wall has nothing to say about the headers and exports,
#     and api.rst names every item it documents, once (kdoc_plain.py
#     --check);
#   - every .rst under Documentation/ renders with plain docutils (Debian's
#     python3-docutils, not Sphinx) without a single system message, as
#     rst2html5 --strict would, but listing all of them;
#   - every relative link in the rendered pages and in README.md names a
#     file that exists, and its #fragment an id of the target page.
#   Exits non-zero if any gate fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ktap.sh"

mode=${1:-}
case "$mode" in
api|check) ;;
*) die "usage: scripts/docs.sh api|check [KSRC]" ;;
esac

# Debian's own interpreter: the docutils the gates promise is the one
# python3-docutils installs for it, whatever python3 comes first in PATH.
PYTHON=/usr/bin/python3
# Pygments: docutils warns about a code-block it cannot highlight.
ensure_pkgs python3 python3-docutils python3-pygments
ksrc=${2:-$(kernel_source)}
cd "$CMSTAT_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# generate OUT [--check]: api.rst, its kernel-doc blocks filled from the
# comments (with --check, only checked: OUT is left empty); kernel-doc's
# warnings go to $tmp/kdoc.warn.
generate() {
	local -a exports
	# Only files that export something: -export on the others is a
	# warning.  Not module/mutation.c, whose export exists only in test
	# builds.
	mapfile -t exports < <(grep -l '^EXPORT_SYMBOL' module/*.c |
		grep -vx module/mutation.c)
	# Any Sphinx version from 3 on selects the C-domain markup that
	# kdoc_plain.py converts; without one kernel-doc looks for
	# sphinx-build, and warns when there is none.
	{
		"$ksrc/scripts/kernel-doc" -Wall -rst -sphinx-version 3.0 \
			include/cmstat/*.h &&
		"$ksrc/scripts/kernel-doc" -Wall -rst -sphinx-version 3.0 \
			-export "${exports[@]}"
	} 2>"$tmp/kdoc.warn" >"$tmp/kdoc.rst" || return 1
	"$PYTHON" scripts/kdoc_plain.py ${2:-} Documentation/api.rst \
		<"$tmp/kdoc.rst" >"$1"
}

if [ "$mode" = api ]; then
	generate "$tmp/api.rst" || { cat "$tmp/kdoc.warn" >&2; die "no reference"; }
	cat "$tmp/kdoc.warn" >&2
	cat "$tmp/api.rst"
	exit 0
fi

if generate "$tmp/api.rst" --check 2>"$tmp/gen.err"; then
	kd=$(grep -c . "$tmp/kdoc.warn" || true)
	[ "$kd" = 0 ] || ktap_diag "$(head -n 20 "$tmp/kdoc.warn")"
	ktap_result "kernel-doc clean, every item in api.rst" "$([ "$kd" = 0 ] && echo 1)" \
		"$kd kernel-doc warnings"
else
	ktap_diag "$(cat "$tmp/gen.err" "$tmp/kdoc.warn")"
	ktap_result "kernel-doc clean, every item in api.rst" 0 \
		"kernel-doc failed, or api.rst does not name every item once"
fi

# docutils and the links, a document of their own.
status=0
"$PYTHON" scripts/docs_check.py "$CMSTAT_ROOT" >"$tmp/pages" || status=$?
ktap_subtest pages "$tmp/pages" "$status"
ktap_print
