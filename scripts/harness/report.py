# SPDX-License-Identifier: GPL-2.0
"""make check's report: the run's one KTAP document read with the kernel
tree's own parser (tools/testing/kunit/kunit_parser.py), whose results
tree gives the counts and what failed, with no text scraped from its
output.

Prints the stress suites' figures, the tree's top level, what failed
with its diagnostics (last, above the counts: a CI that keeps only the
tail keeps them), kunit.py's counts, and "N passed, N failed".  Exits
non-zero on any failure, and when no test ran.
"""

import glob
import inspect
import os
import re
import sys
import time

STRESS = re.compile(r"# [a-z_]*: cpus=.*")
# How many of a failed case's diagnostics the report shows.
MAX_LOG = 60


def load_parser(ksrc):
    """kunit_parser and kunit_printer from the kernel tree KSRC."""
    sys.path.insert(0, os.path.join(ksrc, "tools", "testing", "kunit"))
    import kunit_parser  # pylint: disable=import-outside-toplevel
    import kunit_printer  # pylint: disable=import-outside-toplevel
    return kunit_parser, kunit_printer


def parse(ksrc, lines, view):
    """The results tree of LINES; kunit.py's view of them, as it prints it
    (without colour: VIEW is a file), goes to VIEW."""
    parser, printer = load_parser(ksrc)

    class Untimed(printer.Printer):
        """kunit.py's printer, without the time on each line."""

        def print_with_timestamp(self, message):
            self.print(message)

    out = Untimed(view)
    # Up to 6.12 the parser prints through its module's "stdout"; later
    # kernels take the printer as an argument.
    parser.stdout = out
    if "printer" in inspect.signature(parser.parse_run_tests).parameters:
        return parser, parser.parse_run_tests(lines, out)
    return parser, parser.parse_run_tests(lines)


def failures(parser, test, path=None):
    """The failed or crashed cases under TEST: (their dotted path, their
    diagnostics).  The root, kunit_parser's "main", has no name."""
    name = "" if path is None else ".".join(p for p in (path, test.name) if p)
    bad = (parser.TestStatus.FAILURE, parser.TestStatus.TEST_CRASHED,
           parser.TestStatus.FAILURE_TO_PARSE_TESTS)
    found = [f for sub in test.subtests for f in failures(parser, sub, name)]
    if not found and test.status in bad:
        found.append((name or "the whole run", test.log))
    return found


def stress_figures(logdir):
    """The stress suites' "# suite: cpus=..." lines of every VM."""
    found = []
    for log in sorted(glob.glob(os.path.join(logdir, "check-*.log"))):
        with open(log, encoding="utf-8", errors="replace") as f:
            found += [m.group(0) for m in map(STRESS.search, f) if m]
    return found


def top_level(lines):
    """The document's own top-level results, as it wrote them."""
    return [l for l in lines if re.match(r"^(not )?ok [0-9]+ ", l)]


def main(args):
    """harness report [--start EPOCH] KSRC LOGDIR: see the module's
    docstring; with --start, also how long the run took."""
    ktap = os.path.join(args.logdir, "check.ktap")
    parsed = os.path.join(args.logdir, "check.parsed")
    with open(ktap, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    with open(parsed, "w", encoding="utf-8") as view:
        parser, test = parse(args.ksrc, [l + "\n" for l in lines], view)
    print("The stress suites' figures:")
    for line in stress_figures(args.logdir):
        print(f"  {line}")
    print(f"The KTAP tree's top level ({ktap}; kunit.py's view in\n{parsed}):")
    top = top_level(lines)
    for line in top:
        print(f"  {line}")
    failed_cases = failures(parser, test)
    if failed_cases or test.counts.errors:
        print("What failed:")
        for name, log in failed_cases:
            print(f"  {name}")
            for line in log[-MAX_LOG:]:
                print(f"    {line.strip()}")
        if test.counts.errors:
            print(f"  kunit.py: {test.counts.errors} errors parsing {ktap}; "
                  f"see {parsed}")
    counts = test.counts
    print(f"Testing complete. {counts}")
    bad = counts.failed + counts.crashed + counts.errors
    # A top-level failure kunit.py does not count as one ("not ok ...
    # # SKIP"), and a run with nothing to count, fail all the same.
    if counts.total() == 0 or (not bad and any(l.startswith("not ok")
                                               for l in top)):
        bad += 1
    if args.start:
        print(f"make check took {int(time.time()) - args.start} s")
    print(f"{counts.passed} passed, {bad} failed")
    return 0 if bad == 0 and counts.passed > 0 else 1
