# SPDX-License-Identifier: GPL-2.0
"""KTAP documents nested as one subtest of another (the format of the
kernel's Documentation/dev-tools/ktap.rst, which KUnit prints and
kunit.py parses).

A file may hold several documents one after the other (several KUnit
modules each print one on a console), with lines that are not KTAP
between them.  They become the body of one subtest: their top-level
results renumbered, everything else indented by four spaces, and lines
that are not KTAP made diagnostics.
"""

import re
import sys

HEADER = re.compile(r"^K?TAP version [0-9]+$")
PLAN = re.compile(r"^1\.\.[0-9]+")
RESULT = re.compile(r"^(not ok|ok) [0-9]+ (.*)$")
NESTED_FAILURE = re.compile(r"^[ \t]+not ok [0-9]+ ")
KTAP_LINE = re.compile(r"^[ \t]*((not )?ok [0-9]+ |K?TAP version |1\.\.[0-9]+|#)")
INDENT = "    "


def nest(name, lines, status=0):
    """The documents in LINES as the subtest NAME: returns its lines
    (without the parent's result line) and whether it passed.

    It passes if LINES hold at least one result and none failed, at any
    level.  A non-zero STATUS (the producer's exit status) adds a failed
    result of its own: kunit.py counts only the innermost results, so
    every failure must be one."""
    body, count, failed, started = [], 0, False, False
    for line in lines:
        line = line.replace("\r", "")
        if HEADER.match(line):
            started = True
            continue
        if not started or PLAN.match(line):
            continue
        result = RESULT.match(line)
        if result:
            count += 1
            failed = failed or result.group(1) != "ok"
            body.append(f"{INDENT}{result.group(1)} {count} {result.group(2)}")
        elif KTAP_LINE.match(line) or not line.strip():
            failed = failed or bool(NESTED_FAILURE.match(line))
            body.append(INDENT + line)
        else:
            body.append(f"{INDENT}# {line}")
    passed = count > 0 and not failed
    if status:
        count += 1
        body.append(f"{INDENT}not ok {count} exit-status # {status}")
        passed = False
    head = [f"{INDENT}KTAP version 1", f"{INDENT}# Subtest: {name}",
            f"{INDENT}1..{count}"]
    return head + body, passed


def main(args):
    """harness ktap-nest NAME FILE [STATUS]: the subtest's lines on
    stdout; exit status 0 if it passed, 1 if not."""
    try:
        # Bytes that are not UTF-8 (a console's) pass through as they are.
        with open(args.file, encoding="utf-8", errors="surrogateescape") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        lines = []
    out, passed = nest(args.name, lines, args.status)
    sys.stdout.reconfigure(errors="surrogateescape")
    print("\n".join(out))
    return 0 if passed else 1
