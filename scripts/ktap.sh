# SPDX-License-Identifier: GPL-2.0
#
# KTAP, the one way every cmstat script reports a result (the format of
# Documentation/dev-tools/ktap.rst, which the kernel's KUnit prints and
# kunit.py parses).  Sourced by the host scripts after lib.sh.
#
# A script collects its results with ktap_result and ktap_subtest, and
# prints them as one document with ktap_print: the plan comes first, so
# the document is only printed once all its results are known.  What a
# script prints meanwhile for people (build logs, progress) goes to stderr
# or to its log, never between the KTAP lines.

# ktap_reset: start a new document (a subshell inherits its parent's).
ktap_reset() {
	KTAP_LINES=()
	KTAP_COUNT=0
	KTAP_FAILED=0
}
ktap_reset

# ktap_diag TEXT...: a diagnostic line, printed before the next result.
ktap_diag() {
	local line
	while IFS= read -r line; do
		KTAP_LINES+=("# $line")
	done <<<"$*"
}

# ktap_result NAME OK [DETAIL]: one test case.  OK is 1 for a pass, "skip"
# for a case that could not run here (DETAIL says why), anything else for a
# failure; DETAIL goes into a diagnostic line.
ktap_result() {
	local name=$1 ok=$2 detail=${3:-}
	KTAP_COUNT=$((KTAP_COUNT + 1))
	case "$ok" in
	1)	[ -n "$detail" ] && ktap_diag "$name: $detail"
		KTAP_LINES+=("ok $KTAP_COUNT $name") ;;
	skip)	KTAP_LINES+=("ok $KTAP_COUNT $name # SKIP $detail") ;;
	*)	[ -n "$detail" ] && ktap_diag "$name: $detail"
		KTAP_FAILED=$((KTAP_FAILED + 1))
		KTAP_LINES+=("not ok $KTAP_COUNT $name") ;;
	esac
}

# ktap_check NAME DETAIL COMMAND...: ktap_result of COMMAND's status.
ktap_check() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then
		ktap_result "$name" 1 "$detail"
	else
		ktap_result "$name" 0 "$detail"
	fi
}

# ktap_subtest NAME FILE [STATUS]: the KTAP document(s) in FILE as one
# subtest NAME of this document (scripts/harness/ktap.py nests them).  It
# passes if FILE holds at least one result and none of them, at any level,
# failed.  A non-zero STATUS (the producer's exit status) adds a failed
# result of its own: kunit.py counts only the innermost results, so every
# failure must be one.
ktap_subtest() {
	local name=$1 verdict=ok body
	KTAP_COUNT=$((KTAP_COUNT + 1))
	body=$(harness ktap-nest "$name" "$2" "${3:-0}") || verdict="not ok"
	KTAP_LINES+=("$body")
	[ "$verdict" = ok ] || KTAP_FAILED=$((KTAP_FAILED + 1))
	KTAP_LINES+=("$verdict $KTAP_COUNT $name")
}

# ktap_print: the document, plan first.  Returns 1 if any result failed.
ktap_print() {
	echo "KTAP version 1"
	echo "1..$KTAP_COUNT"
	[ "$KTAP_COUNT" -eq 0 ] || printf '%s\n' "${KTAP_LINES[@]}"
	[ "$KTAP_FAILED" -eq 0 ]
}
