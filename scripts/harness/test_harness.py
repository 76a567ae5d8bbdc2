# SPDX-License-Identifier: GPL-2.0
"""The harness's own tests: python3 -m unittest discover -s scripts/harness
(lint.sh runs them, with KSRC set for the report's).  Each feeds in what
the harness must refuse or flag, not only what it must accept."""

import io
import os
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# pylint: disable=wrong-import-position
from harness import checks, flavours, ktap, report  # noqa: E402


class FlavoursTest(unittest.TestCase):
    """The table: valid as it stands, and every kind of mistake named."""

    def test_table_is_valid(self):
        self.assertEqual(flavours.validate(flavours.table({}),
                                           checks.all_tags()), [])

    def test_mistakes_are_named(self):
        good = flavours.table({})[0]
        bad = flavours.Flavour(name="x", kernel="test:debgu", arch="mips",
                               vcpus=0, tags=("stokc",), with_=("mutnat",),
                               why="")
        untagged = flavours.Flavour(name="y", kernel="debian:6.12", vms=-1,
                                    vcpus=2, why="")
        unbuilt = flavours.Flavour(name="z", kernel="debian:6.12", vcpus=2,
                                   tags=("stock", "runtime"), why="")
        found = "\n".join(flavours.validate([bad, good, good, untagged,
                                             unbuilt], checks.all_tags()))
        for what in ("test:debgu", "mips", "mutnat", "stokc", "vcpus 0",
                     f"{good.name}: named twice", "y: vms -1",
                     "y: VMs without a tag", "z: tag 'runtime' without"):
            self.assertIn(what, found)

    def test_a_field_misspelt_or_missing_is_refused(self):
        with self.assertRaises(TypeError):
            flavours.Flavour(name="x", kernel="test:debug", vcpu=4, why="")
        with self.assertRaises(TypeError):
            flavours.Flavour(name="x", kernel="test:debug", why="")

    def test_selection(self):
        table = flavours.table({"SMP": "2", "DEBUG_VMS": "3"})
        self.assertEqual([f.vms for f in table if f.name == "debug"], [3])
        self.assertEqual({f.vcpus for f in table if "stock" in f.tags
                          and f.arch == "x86_64"}, {2})
        names = [f.name for f in flavours.selected(table, "rt,kcsan", "0")]
        self.assertEqual(names, ["rt"])
        self.assertIn("kcsan", [f.name for f in flavours.selected(table)])

    def test_shell_line_keeps_a_star_quoted(self):
        line = [f for f in flavours.table({}) if f.name == "stock-6.12"][0]
        self.assertIn("[cmdline]='slub_debug=Z,cmstat-*'", line.shell())


class ChecksTest(unittest.TestCase):
    """Which checks a kernel runs, and their sharing out."""

    def setUp(self):
        self.all = [checks.Check("a", frozenset({"debug"}), False),
                    checks.Check("b", frozenset({"debug", "stock"}), True),
                    checks.Check("c", frozenset({"stock"}), False),
                    checks.Check("d", frozenset({"kcsna"}), False)]

    def test_last_ones_last(self):
        self.assertEqual(checks.checks_for(self.all, ["stock"]), ["c", "b"])

    def test_a_typo_runs_nowhere(self):
        self.assertEqual(checks.nowhere(self.all, ["debug", "stock"]), ["d"])

    def test_share_balances_and_keeps_order(self):
        names = ["p", "q", "r", "s", "t"]
        times = {"p": 100, "q": 60, "r": 50, "s": 10}
        shares = checks.share(names, 2, times)
        self.assertEqual(sorted(n for s in shares for n in s), names)
        loads = [sum(times.get(n, checks.UNTIMED) for n in s) for s in shares]
        self.assertLessEqual(max(loads) - min(loads), 100)
        self.assertEqual(shares, [["p", "t"], ["q", "r", "s"]])
        self.assertEqual(checks.share(names, 3, {})[2], ["r"])

    def test_durations_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "x.ktap")
            with open(log, "w", encoding="utf-8") as f:
                f.write("# soak: took 216 s\n# soak: took 9 s\n"
                        "# not a time: took x s\n# kunit: took 63 s\r\n")
            path = os.path.join(d, "durations", "debug")
            self.assertEqual(checks.record_durations(path, [log]), 2)
            self.assertEqual(checks.read_durations(path),
                             {"soak": 216, "kunit": 63})
        self.assertEqual(checks.read_durations("/nonexistent"), {})


class KtapTest(unittest.TestCase):
    """Documents nested as one subtest."""

    TWO = ["noise", "KTAP version 1", "1..2", "ok 1 a",
           "    KTAP version 1", "    1..1", "    not ok 1 deep",
           "not ok 2 b # SKIP why", "console line", "TAP version 14",
           "1..1", "ok 7 c"]

    def test_renumbered_and_indented(self):
        lines, passed = ktap.nest("n", ["KTAP version 1", "1..1", "ok 3 a",
                                        "stray", ""])
        self.assertTrue(passed)
        self.assertEqual(lines, ["    KTAP version 1", "    # Subtest: n",
                                 "    1..1", "    ok 1 a", "    # stray",
                                 "    "])

    def test_a_failure_at_any_level_fails(self):
        lines, passed = ktap.nest("n", self.TWO)
        self.assertFalse(passed)
        self.assertIn("    ok 3 c", lines)
        self.assertIn("    1..3", lines)
        _, passed = ktap.nest("n", ["KTAP version 1", "1..1", "ok 1 a",
                                    "    not ok 1 inner"])
        self.assertFalse(passed)

    def test_status_and_emptiness_fail(self):
        lines, passed = ktap.nest("n", ["KTAP version 1", "1..1", "ok 1 a"], 2)
        self.assertFalse(passed)
        self.assertEqual(lines[-1], "    not ok 2 exit-status # 2")
        self.assertEqual(ktap.nest("n", ["no KTAP here"]),
                         (["    KTAP version 1", "    # Subtest: n",
                           "    1..0", ], False))


@unittest.skipUnless(os.environ.get("KSRC"), "KSRC: a kernel tree's kunit.py")
class ReportTest(unittest.TestCase):
    """The report, read with the kernel tree's kunit_parser."""

    def run_report(self, body):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "check.ktap"), "w",
                      encoding="utf-8") as f:
                f.write("\n".join(body) + "\n")
            out = io.StringIO()
            stdout, sys.stdout = sys.stdout, out
            try:
                status = report.main(types.SimpleNamespace(
                    ksrc=os.environ["KSRC"], logdir=d, start=0))
            finally:
                sys.stdout = stdout
        return status, out.getvalue()

    def stage(self, inner):
        nested, passed = ktap.nest("stage", inner)
        return (["KTAP version 1", "1..1"] + nested
                + [f"{'ok' if passed else 'not ok'} 1 stage"])

    def test_pass(self):
        status, out = self.run_report(self.stage(
            ["KTAP version 1", "1..2", "ok 1 a", "ok 2 b # SKIP no"]))
        self.assertEqual(status, 0)
        self.assertTrue(out.endswith("1 passed, 0 failed\n"), out)

    def test_nested_failure_named_with_its_diagnostics(self):
        status, out = self.run_report(self.stage(
            ["KTAP version 1", "1..2", "ok 1 a", "# why it failed",
             "not ok 2 b"]))
        self.assertEqual(status, 1)
        self.assertIn("  stage.b\n    # why it failed\n", out)
        self.assertTrue(out.endswith("1 passed, 1 failed\n"), out)

    def test_a_skipped_failure_and_nothing_at_all_fail(self):
        status, out = self.run_report(["KTAP version 1", "1..2", "ok 1 a",
                                       "not ok 2 b # SKIP"])
        self.assertEqual(status, 1)
        self.assertTrue(out.endswith("1 passed, 1 failed\n"), out)
        status, out = self.run_report([])
        self.assertEqual(status, 1)


if __name__ == "__main__":
    unittest.main()
