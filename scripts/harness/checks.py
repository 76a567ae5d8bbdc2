# SPDX-License-Identifier: GPL-2.0
"""The guest checks of make check, and how they are shared out between a
kernel's VMs.

A check is one file in scripts/guest/checks/.  Its header says where it
runs, as tags of the kernels ("# kernels: debug stock"; flavours.py names
each kernel's tags).  "# last: why" runs it after the others; "# timeout:
seconds" overrides the runner's (scripts/guest/init reads that one).

How long each check took on each kernel in the last run is kept in
$CMSTAT_CACHE/durations/KERNEL, a "NAME SECONDS" line per check, so that a
kernel's checks can be shared out evenly between its VMs.
"""

import dataclasses
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CHECKS_DIR = os.path.join(ROOT, "scripts", "guest", "checks")
# A check the last run did not time counts this many seconds.
UNTIMED = 20
TOOK = re.compile(r"^# ([a-z0-9-]+): took ([0-9]+) s$")


@dataclasses.dataclass(frozen=True)
class Check:
    """One check: its name, the tags of the kernels it runs on, and
    whether it runs after the others."""

    name: str
    tags: frozenset
    last: bool


def read_all(directory=CHECKS_DIR):
    """Every check, by name."""
    found = []
    for entry in sorted(os.listdir(directory)):
        if not entry.endswith(".sh"):
            continue
        tags, last = set(), False
        with open(os.path.join(directory, entry), encoding="utf-8") as f:
            for line in f:
                if line.startswith("# kernels: "):
                    tags.update(line.split()[2:])
                last = last or line.startswith("# last: ")
        found.append(Check(entry[:-3], frozenset(tags), last))
    return found


def wanted(all_checks, names=""):
    """The checks NAMES (CHECKS: space-separated) names, or all of them if
    it is empty."""
    names = set(names.split())
    return [c for c in all_checks if not names or c.name in names]


def all_tags(directory=CHECKS_DIR):
    """Every tag some check names."""
    return {t for c in read_all(directory) for t in c.tags}


def checks_for(all_checks, tags):
    """The checks a kernel with these tags runs, by name, those with a
    "# last:" header at the end."""
    mine = [c for c in all_checks if c.tags & set(tags)]
    return [c.name for c in mine if not c.last] + \
        [c.name for c in mine if c.last]


def nowhere(all_checks, tags):
    """The checks whose header names none of these tags: a typo would
    otherwise leave a check that never runs."""
    somewhere = set(checks_for(all_checks, tags))
    return [c.name for c in all_checks if c.name not in somewhere]


def share(names, nvms, times):
    """NAMES shared out between NVMS VMs, longest first to the least
    loaded (a check without a time counts UNTIMED); each VM's share keeps
    the order NAMES gave, so that "# last:" checks stay last."""
    load = [0] * nvms
    vm_of = {}
    order = sorted(range(len(names)),
                   key=lambda i: (-times.get(names[i], UNTIMED), names[i]))
    for i in order:
        best = load.index(min(load))
        load[best] += times.get(names[i], UNTIMED)
        vm_of[i] = best
    return [[n for i, n in enumerate(names) if vm_of[i] == vm]
            for vm in range(nvms)]


def durations_path(kernel, env=os.environ):
    """Where the times of KERNEL's checks are kept."""
    cache = env.get("CMSTAT_CACHE") or os.path.expanduser("~/.cache/cmstat")
    return os.path.join(cache, "durations", kernel)


def read_durations(path):
    """The times a run kept, by check; none if there is no file."""
    times = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                name, _, seconds = line.partition(" ")
                if seconds.strip().isdigit():
                    times[name] = int(seconds)
    except FileNotFoundError:
        pass
    return times


def record_durations(path, logs):
    """Keep the times of the checks these KTAP documents report ("# NAME:
    took N s"), replacing the file at once."""
    times = {}
    for log in logs:
        try:
            with open(log, encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = TOOK.match(line.rstrip("\r\n"))
                    if m:
                        times.setdefault(m.group(1), int(m.group(2)))
        except FileNotFoundError:
            pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".new", "w", encoding="utf-8") as f:
        for name in sorted(times):
            f.write(f"{name} {times[name]}\n")
    os.replace(path + ".new", path)
    return len(times)


def main(args, env=os.environ):
    """harness checks for|nowhere|share|record ...: see __main__.py."""
    mine = wanted(read_all(), env.get("CHECKS", ""))
    if args.what == "for":
        print(" ".join(checks_for(mine, args.tags)))
    elif args.what == "nowhere":
        print(" ".join(nowhere(mine, args.tags)))
    elif args.what == "share":
        times = read_durations(durations_path(args.kernel, env))
        for names in share(checks_for(mine, args.tags), args.vms, times):
            print(" ".join(names))
    elif args.what == "record":
        record_durations(durations_path(args.kernel, env), args.logs)
    return 0
