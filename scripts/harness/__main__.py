# SPDX-License-Identifier: GPL-2.0
"""The host side of make check that is a program rather than shell:

  python3 scripts/harness flavours [--tags]
      the kernel flavours' table, validated (flavours.py)
  python3 scripts/harness checks for|nowhere TAG...
  python3 scripts/harness checks share KERNEL VMS TAG...
  python3 scripts/harness checks record KERNEL KTAP...
      the guest checks, shared out between a kernel's VMs (checks.py)
  python3 scripts/harness ktap-nest NAME FILE [STATUS]
      KTAP documents nested as one subtest (ktap.py)
  python3 scripts/harness report [--start EPOCH] KSRC LOGDIR
      the run's report, read with kunit.py's parser (report.py)

The shell scripts call it; the environment carries check.sh's knobs
(SMP, DEBUG_VMS, ONLY, KCSAN, CHECKS, CMSTAT_CACHE).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# pylint: disable=wrong-import-position
from harness import checks, flavours, ktap, report  # noqa: E402


def arguments():
    """The command line."""
    top = argparse.ArgumentParser(prog="harness", description=__doc__,
                                  formatter_class=argparse.RawTextHelpFormatter)
    sub = top.add_subparsers(dest="command", required=True)

    p = sub.add_parser("flavours")
    p.add_argument("--tags", action="store_true")
    p.set_defaults(run=flavours.main)

    p = sub.add_parser("checks")
    what = p.add_subparsers(dest="what", required=True)
    for name in ("for", "nowhere"):
        w = what.add_parser(name)
        w.add_argument("tags", nargs="*")
    w = what.add_parser("share")
    w.add_argument("kernel")
    w.add_argument("vms", type=int)
    w.add_argument("tags", nargs="*")
    w = what.add_parser("record")
    w.add_argument("kernel")
    w.add_argument("logs", nargs="*")
    p.set_defaults(run=checks.main)

    p = sub.add_parser("ktap-nest")
    p.add_argument("name")
    p.add_argument("file")
    p.add_argument("status", nargs="?", type=int, default=0)
    p.set_defaults(run=ktap.main)

    p = sub.add_parser("report")
    p.add_argument("--start", type=int, default=0)
    p.add_argument("ksrc")
    p.add_argument("logdir")
    p.set_defaults(run=report.main)
    return top.parse_args()


if __name__ == "__main__":
    args = arguments()
    sys.exit(args.run(args))
