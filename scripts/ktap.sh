# SPDX-License-Identifier: GPL-2.0
#
# KTAP, the one way every cmstat script reports a result (the format of
# Documentation/dev-tools/ktap.rst, which the kernel's KUnit prints and
# kunit.py parses).  Sourced by the host scripts after lib.sh.
# shellcheck disable=SC2016 # awk programs, in single quotes
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

# KTAP_AWK: reads KTAP documents, one after the other (several KUnit
# modules each print one on a console), and prints their results as the
# body of one document: the top-level results renumbered, everything else
# indented by 4 spaces, and lines that are not KTAP made diagnostics.
# Prints a first line of two words, "ok" or "not_ok" (no result, or a
# failure at any level) and the number of top-level results, then the
# body.
KTAP_AWK='
	function out(s) { body[++nb] = s }
	{ sub(/\r$/, "") }
	/^K?TAP version [0-9]+$/ { started = 1; next }
	!started { next }
	/^1\.\.[0-9]+/ { next }
	/^(not )?ok [0-9]+ / {
		result = /^not ok/ ? "not ok" : "ok"
		bad += result != "ok"
		sub(/^(not )?ok [0-9]+ /, "")
		out("    " result " " ++n " " $0)
		next
	}
	/^[ \t]+not ok [0-9]+ / { bad++ }
	/^[ \t]*((not )?ok [0-9]+ |K?TAP version |1\.\.[0-9]+|#)/ || /^[ \t]*$/ {
		out("    " $0)
		next
	}
	{ out("    # " $0) }
	END {
		print ((n > 0 && bad == 0) ? "ok" : "not_ok"), n + 0
		for (i = 1; i <= nb; i++)
			print body[i]
	}'

# ktap_subtest NAME FILE [STATUS]: the KTAP document(s) in FILE as one
# subtest NAME of this document.  It passes if FILE holds at least one
# result and none of them, at any level, failed.  A non-zero STATUS (the
# producer's exit status) adds a failed result of its own: kunit.py counts
# only the innermost results, so every failure must be one.
ktap_subtest() {
	local name=$1 file=$2 status=${3:-0} verdict count body
	KTAP_COUNT=$((KTAP_COUNT + 1))
	body=$(tr -d '\r' <"$file" 2>/dev/null | awk "$KTAP_AWK")
	read -r verdict count <<<"${body%%$'\n'*}"
	verdict=${verdict/not_ok/not ok}
	[ "$status" = 0 ] || count=$((count + 1))
	KTAP_LINES+=("    KTAP version 1" "    # Subtest: $name" "    1..$count")
	[ "$body" = "${body#*$'\n'}" ] || KTAP_LINES+=("${body#*$'\n'}")
	if [ "$status" != 0 ]; then
		KTAP_LINES+=("    not ok $count exit-status # $status")
		verdict="not ok"
	fi
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
