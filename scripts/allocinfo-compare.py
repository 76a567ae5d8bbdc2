#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""allocinfo-compare.py: cmstat's call-site rows beside /proc/allocinfo.

    allocinfo-compare.py --modules ext2,null_blk [--slabs SLABS] \\
        [--src MODULE=DIR]... [--include DIR] ALLOCINFO STATS

ALLOCINFO is /proc/allocinfo and STATS cmstat's stats file (format 5),
read at the same rest (scripts/guest/allocinfo-init); SLABS has a line
"name object_size slab_size" per slab cache; --src names where a
module's source is, whose lines say which call a line without a site row
is; --include the cmstat headers the modules were built with, which say
which of adopt.h's calls are sites.  For each module named, a
table of every allocinfo line of [MODULE] and every site row of the heap
of that name (adopt.h names a module's heap after it), keyed by function,
file and line, with allocinfo's bytes and calls (live objects) beside
cmstat's live_bytes and live_objects, and a verdict: "equal", or the
category of the difference and why.  Several codetags (or several site
rows) of one key, two calls on one line or one inline in several
translation units, are summed.

A line of a module built with CMSTAT_SITES is a cmstat site and a
codetag at once (include/cmstat/compat.h, __cmstat_site_hooks()): both
count the same objects, and allocinfo's bytes for a slab object are the
cache's s->size, which for a class cache is the class size, cmstat's
figure.  A typed cache's site row (its object size, live_bytes /
live_objects, that of a typed cache of the heap) is compared with that
cache's s->size from SLABS: larger than the object size cmstat counts by
the site's tag, alignment and a free pointer past a constructor's object.
Exits 1 if such a line disagrees in either figure, if a site row with
live objects has no allocinfo line, if a difference falls in no
category, if the typed caches' objects are neither at their site rows
nor within the unattributed row, or if no site was compared; 2 on
unreadable input.
"""

import argparse
import os
import re
import sys
from urllib.parse import unquote

# What include/cmstat/site.h keeps of a site's names.
FUNCTION_MAX = 63
FILE_MAX = 95

# The calls of the kmalloc() family that adopt.h makes call sites of
# (cmstat_kmalloc() and the rest, macros under CMSTAT_SITES), unless
# --include names the headers the modules were built with, which say.
SITED = {"kmalloc", "kzalloc", "kmalloc_array", "kcalloc",
         "kmalloc_track_caller", "kmem_cache_alloc", "kmem_cache_zalloc",
         "kmem_cache_alloc_lru", "alloc_inode_sb"}
DEFINE = re.compile(r"#\s*define\s+(\w+)\(([^)]*)\)(.*)", re.S)
ALLOC_NAME = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
ALLOCISH = re.compile(r"alloc|get_free|get_zeroed|page|percpu|dup|mempool")

ALLOCINFO_LINE = re.compile(
    r"^\s*(-?\d+)\s+(\d+)\s+(\S+):(\d+)(?:\s+\[(\S+)\])?\s+func:(\S+)\s*$")


def die(msg):
    print(f"allocinfo-compare.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read_allocinfo(path):
    """Every codetag: dicts of bytes, calls, file, line, module, function."""
    tags = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for text in f:
            text = text.rstrip("\n")
            if not text.strip() or text.startswith(("allocinfo", "#")):
                continue
            m = ALLOCINFO_LINE.match(text)
            if not m:
                die(f"{path}: not an allocinfo line: {text!r}")
            tags.append({"bytes": int(m[1]), "calls": int(m[2]),
                         "file": m[3], "line": int(m[4]),
                         "module": m[5] or "", "function": m[6]})
    if not tags:
        die(f"{path}: no allocinfo lines")
    return tags


def read_stats(path):
    """The heap records of a version 5 stats file: name -> record."""
    heaps = {}
    rec = None
    table = None
    with open(path, encoding="utf-8") as f:
        lines = [t.rstrip("\n") for t in f]
    if not lines or lines[0] != "cmstat-stats 5":
        die(f"{path}: not a version 5 stats file")
    for text in lines[1:]:
        words = text.split()
        if not words:
            rec = table = None
            continue
        if (words[0] in ("heap", "orphan") and len(words) == 2) or \
                (words[0] in ("destroyed", "all") and len(words) == 1):
            rec = {"kind": words[0], "keys": {}, "caches": [], "sites": []}
            table = None
            if words[0] == "heap":
                heaps[words[1]] = rec
            continue
        if rec is None:
            continue
        if words[0] == "class_bytes":
            table = "classes"
        elif words[0] == "cache_name":
            table = "caches"
        elif words[0] == "site_function":
            table = "sites"
        elif words[0] == "node" and words[1:2] == ["mallocs"]:
            table = "nodes"
        elif table is None and len(words) == 2:
            rec["keys"][words[0]] = int(words[1])
        elif table == "caches":
            rec["caches"].append({
                "name": unquote(words[0]), "object_bytes": int(words[1]),
                "live_objects": int(words[4]), "live_bytes": int(words[5])})
        elif table == "sites":
            rec["sites"].append({
                "function": unquote(words[0]), "file": unquote(words[1]),
                "line": int(words[2]), "mallocs": int(words[3]),
                "frees": int(words[4]), "live_objects": int(words[5]),
                "live_bytes": int(words[6])})
    return heaps


def read_slabs(path):
    """name -> (object_size, slab_size) of every slab cache."""
    slabs = {}
    if path:
        with open(path, encoding="utf-8") as f:
            for text in f:
                w = text.split()
                if len(w) == 3:
                    slabs[w[0]] = (int(w[1]), int(w[2]))
    return slabs


def macros(path):
    """(name, body, under CMSTAT_SITES) of every function-like macro of
    a header, continuation lines joined."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"\\\n", " ", f.read())
    stack = []
    found = []
    for line in text.split("\n"):
        t = line.strip()
        if t.startswith(("#if", "#ifdef", "#ifndef")):
            stack.append(t.split()[:2] == ["#ifdef", "CMSTAT_SITES"])
        elif t.startswith("#else") and stack:
            stack[-1] = False
        elif t.startswith("#endif") and stack:
            stack.pop()
        else:
            m = DEFINE.match(t)
            if m:
                found.append((m[1], m[3], any(stack)))
    return found


def sited_calls(include):
    """The kernel's names that adopt.h turns into a cmstat call site: those
    it defines as a macro that gives its call a site (__CMSTAT_SITE_HERE())
    or calls one that does, adopt.h's own (kmem_cache_alloc() and its
    family, alloc_inode_sb()) or another header's under CMSTAT_SITES
    (cmstat_kmalloc() and the rest)."""
    cm = os.path.join(include, "cmstat")
    defs = []
    adopted = set()
    for h in sorted(os.listdir(cm)):
        if not h.endswith(".h"):
            continue
        for n, b, sites in macros(os.path.join(cm, h)):
            if h == "adopt.h":
                adopted.add(n)
            if sites or h == "adopt.h":
                defs.append((n, b))
    sited = {n for n, b in defs if "__CMSTAT_SITE_HERE" in b}
    while True:
        more = {n for n, b in defs if set(ALLOC_NAME.findall(b)) & sited}
        if more <= sited:
            break
        sited |= more
    # A name that picks its form by its arguments (kvrealloc()): a site
    # if its forms are.
    for n, b in defs:
        pasted = re.match(r"\s*CONCATENATE\((\w+),", b)
        if pasted and any(c.startswith(pasted[1]) for c in sited):
            sited.add(n)
    return sited & adopted


def key_of(function, file, line):
    """What cmstat keeps of a site's names, as its row key."""
    return (function[:FUNCTION_MAX], file[:FILE_MAX], line)


def short(file):
    """A file as the table shows it: from the build directory on."""
    i = file.find("/.build/")
    return file[i + 8:] if i >= 0 else file


def calls_on(file, line, srcdir):
    """The call names on a module's source line, or, if it has none that
    allocates (the continuation of a call), on the two lines before it."""
    path = file if os.path.isabs(file) else os.path.join(srcdir or "", file)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            src = f.readlines()
    except OSError:
        return None
    for n in range(line, max(line - 3, 0), -1):
        names = ALLOC_NAME.findall(src[n - 1].split("//")[0]) \
            if n <= len(src) else []
        if any(m in SITED or ALLOCISH.search(m) for m in names):
            return names
    return []


def classify(tag, srcdir, sited_names):
    """Category and reason of an allocinfo line of a module that has no
    site row; category None: a cmstat site that should have had one."""
    file, fn = tag["file"], tag["function"]
    live = tag["bytes"] or tag["calls"]
    if file.endswith("include/cmstat/adopt.h") and "kernel_cache" in fn:
        return ("kernel's cache", f"{fn}() of cmstat/adopt.h: a cache of "
                "the kernel's, not on the heap; cmstat does not count it")
    if "/include/cmstat/" in file:
        return ("unsited branch", f"{fn}() of cmstat/"
                f"{os.path.basename(file)} without a site, a branch this "
                "module's sited calls never take: cmstat would count it "
                "unattributed")
    if file.startswith(("include/", "arch/")):
        return ("not routed", f"an inline of the kernel's {file}, which "
                "adopt.h reads with the kernel's meaning: the kernel's "
                "allocation, cmstat does not count it")
    names = calls_on(file, tag["line"], srcdir)
    if names is None:
        return ("unexplained", "source line not found")
    sited = [n for n in names if n in sited_names]
    if sited:
        if not live:
            return ("never allocated", f"{sited[0]}(), a cmstat site that "
                    "has not allocated: no row yet, 0 at allocinfo")
        return (None, f"{sited[0]}(), a cmstat site, has no site row")
    other = [n for n in names if ALLOCISH.search(n)] or names or ["?"]
    return ("not routed", f"{other[0]}(): adopt.h does not route it, "
            "cmstat does not count it")


def typed_cache_of(heap, site, slabs):
    """The typed caches of @heap whose objects a site row's are, by their
    size (live_bytes / live_objects), as (caches, (object_size, slab_size))
    of their slab; or (None, why not) if none is, or if two of that size
    have slabs of different sizes."""
    n, b = site["live_objects"], site["live_bytes"]
    if not n or b % n:
        return None, "not whole objects of one size"
    caches = [c for c in heap["caches"] if c["object_bytes"] == b // n]
    if not caches:
        return None, f"no typed cache of {b // n} B in the heap"
    names = " and ".join(c["name"] for c in caches)
    sizes = {slabs.get(c["name"]) for c in caches}
    if None in sizes:
        return None, f"no slab size of {names} (--slabs)"
    if len(sizes) > 1:
        slab = " and ".join(str(s[1]) for s in sorted(sizes))
        return None, (f"typed caches {names} are both of {b // n} B, their "
                      f"slabs of {slab} B: cannot tell which")
    return caches, sizes.pop()


def typed_why(caches, slab):
    """Why allocinfo counts more per object than cmstat for a typed cache."""
    obj = caches[0]["object_bytes"]
    names = " or ".join(c["name"] for c in caches)
    same = (f" ({len(caches)} typed caches of the heap have {obj} B objects "
            "and slabs of that size)" if len(caches) > 1 else "")
    return (f"typed cache {names}{same}: allocinfo counts its slab object, "
            f"{slab[1]} B, {slab[1] - obj} B more each than the {obj} B "
            f"object: {slab[0] - obj} B tag past the object, "
            f"{slab[1] - slab[0]} B the slab's own (alignment, a free "
            "pointer past a constructor's object)")


def fmt(n):
    return "-" if n is None else str(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", required=True)
    ap.add_argument("--slabs")
    ap.add_argument("--src", action="append", default=[],
                    help="MODULE=DIR: where a module's relative files are")
    ap.add_argument("--include",
                    help="the cmstat headers the modules were built with")
    ap.add_argument("allocinfo")
    ap.add_argument("stats")
    args = ap.parse_args()
    modules = args.modules.split(",")
    srcdirs = dict(s.split("=", 1) for s in args.src)
    tags = read_allocinfo(args.allocinfo)
    heaps = read_stats(args.stats)
    slabs = read_slabs(args.slabs)
    sited_names = sited_calls(args.include) if args.include else SITED

    bad = []            # what makes the comparison fail
    typed = []          # the typed caches' lines
    typed_at = {m: {"objects": 0, "bytes": 0, "more": 0} for m in modules}
    cats = {}           # category -> lines
    equal = 0
    rows = []

    def row(site, ab, ac, cb, co, verdict, cat, ntags=1):
        if ntags > 1:
            verdict += f" ({ntags} codetags)"
        rows.append((site, ab, ac, cb, co, verdict))
        n, b = cats.get(cat, (0, 0))
        cats[cat] = (n + 1, b + (ab or 0))

    # The class caches: allocinfo counts s->size per object.
    classes = {name: sz for name, sz in slabs.items()
               if re.fullmatch(r"cmstat-\d+(\.\d+)?", name)}
    padded = {n: s for n, s in classes.items() if s[0] != s[1]}

    for mod in modules:
        heap = heaps.get(mod)
        if heap is None:
            bad.append(f"no heap {mod} in the stats file")
            continue
        ai = {}
        for t in tags:
            if t["module"] != mod:
                continue
            k = key_of(t["function"], t["file"], t["line"])
            a = ai.setdefault(k, dict(t, bytes=0, calls=0, n=0))
            a["bytes"] += t["bytes"]
            a["calls"] += t["calls"]
            a["n"] += 1
        cm = {}
        unattributed = None
        for s in heap["sites"]:
            if s["line"] == 0:
                unattributed = s
                continue
            k = key_of(s["function"], s["file"], s["line"])
            c = cm.setdefault(k, dict(s, live_bytes=0, live_objects=0, n=0))
            c["live_bytes"] += s["live_bytes"]
            c["live_objects"] += s["live_objects"]
            c["n"] += 1
        rows.append(None)
        rows.append((f"[{mod}]: {len(ai)} allocinfo keys "
                     f"({sum(a['n'] for a in ai.values())} codetags), "
                     f"{len(cm)} site rows of heap {mod}",))
        for k in sorted(set(ai) | set(cm), key=lambda k: (k[1], k[2], k[0])):
            a, c = ai.get(k), cm.get(k)
            site = f"{k[0]} {short(k[1])}:{k[2]}"
            if a and c:
                # Equal as a class site's, or else as a typed cache's at
                # its slab's size: a class may have a typed cache's object
                # size, but a sited typed cache's slab object is larger
                # than its object by the tag at least.
                n = c["live_objects"]
                exact = (a["bytes"], a["calls"]) == (c["live_bytes"], n)
                caches, slab = (None, None) if exact else \
                    typed_cache_of(heap, c, slabs)
                if caches:
                    typed_at[mod]["objects"] += n
                    typed_at[mod]["bytes"] += c["live_bytes"]
                    typed_at[mod]["more"] += a["bytes"] - c["live_bytes"]
                if exact:
                    cat, why = "equal", "equal"
                elif caches and (a["bytes"], a["calls"]) == (n * slab[1], n):
                    cat = "typed cache site"
                    why = "equal at the slab's size: " + \
                        typed_why(caches, slab)
                else:
                    cat = "DIFFERS"
                    if caches:
                        why = (f"DIFFERS: a cmstat site of typed cache "
                               f"{' or '.join(x['name'] for x in caches)}, "
                               f"by {a['bytes'] - n * slab[1]} B from {n} x "
                               f"{slab[1]} B (its slab's size) and "
                               f"{a['calls'] - n} objects")
                    else:
                        why = (f"DIFFERS: a cmstat site, by "
                               f"{a['bytes'] - c['live_bytes']} B and "
                               f"{a['calls'] - n} objects")
                        if heap["caches"]:
                            why += f"; not a typed cache's: {slab}"
                    if padded:
                        why += "; padded class caches: see below"
                    bad.append(f"{site}: {why}")
                if cat != "DIFFERS":
                    equal += 1
                row(site, a["bytes"], a["calls"], c["live_bytes"], n, why,
                    cat, a["n"])
            elif a:
                cat, why = classify(a, srcdirs.get(mod), sited_names)
                if cat is None:
                    bad.append(f"{site}: {why}")
                    cat, why = "DIFFERS", "DIFFERS: " + why
                elif cat == "unexplained":
                    bad.append(f"{site}: {why}")
                row(site, a["bytes"], a["calls"], None, None, why, cat,
                    a["n"])
            else:
                if c["live_objects"]:
                    bad.append(f"{site}: site row with {c['live_objects']} "
                               "live objects, no allocinfo line")
                    row(site, None, None, c["live_bytes"], c["live_objects"],
                        "DIFFERS: no allocinfo line", "DIFFERS")
                else:
                    bad.append(f"{site}: site row without an allocinfo line")
                    row(site, None, None, c["live_bytes"], c["live_objects"],
                        "no allocinfo line, nothing live", "unexplained")
        # The unattributed row: not a line, what no site is known for.
        # The typed caches' objects at no site row must be in it.
        ub, uo = (unattributed["live_bytes"], unattributed["live_objects"]) \
            if unattributed else (0, 0)
        ta = typed_at[mod]
        tb = sum(c["live_bytes"] for c in heap["caches"])
        to = sum(c["live_objects"] for c in heap["caches"])
        mb, mo = tb - ta["bytes"], to - ta["objects"]
        if unattributed:
            why = (f"not a line, what cmstat knows no site for: typed "
                   f"caches' objects at no site row {mo} obj {mb} B (below), "
                   f"other calls without a site {uo - mo} obj {ub - mb} B; "
                   "allocinfo has those at cmstat.ko's [cmstat] lines, "
                   "shared by all heaps")
            row("unattributed (- - 0)", None, None, ub, uo, why,
                "unattributed row")
        names = ", ".join(f"{c['name']} {c['live_objects']} x "
                          f"{c['object_bytes']} B (slab object_size/s->size "
                          f"{'/'.join(map(str, slabs.get(c['name'], '??')))}"
                          " B)" for c in heap["caches"]) or "none"
        lined = 0 <= mo <= uo and 0 <= mb <= ub
        typed.append(f"  heap {mod}: typed caches {names}: {to} objects, "
                     f"{tb} B = at their site rows {ta['objects']} objects "
                     f"{ta['bytes']} B + at no site row {mo} objects {mb} B, "
                     f"in the unattributed row's {uo} objects {ub} B: "
                     + ("NOT EQUAL" if not lined else
                        "within it" if mo else "equal"))
        if ta["more"]:
            typed.append(f"  allocinfo counts {ta['more']} B more than cmstat "
                         f"at [{mod}]'s typed-cache site lines: a slab "
                         "object (s->size: the tag, alignment, a free "
                         "pointer past a constructor's object) is larger "
                         "than the object size cmstat counts")
        if not lined:
            bad.append(f"heap {mod}: typed caches: {to} objects {tb} B, "
                       f"{ta['objects']} objects {ta['bytes']} B at their "
                       f"site rows, {mo} objects {mb} B neither there nor "
                       f"within the unattributed row's {uo} objects {ub} B")

    # cmstat.ko's own lines: every heap's out-of-line allocations, and
    # cmstat's own memory.  Context for the unattributed rows.
    own = sorted((t for t in tags if t["module"] == "cmstat" and t["calls"]),
                 key=lambda t: (t["file"], t["line"]))

    head = ("site (function file:line)", "allocinfo_bytes", "allocinfo_calls",
            "cmstat_live_bytes", "cmstat_live_objects", "verdict")
    width = max([len(head[0])] + [len(r[0]) for r in rows
                                  if r and len(r) > 1])
    print(f"{head[0]:<{width}} {head[1]:>15} {head[2]:>15} {head[3]:>17} "
          f"{head[4]:>19}  {head[5]}")
    for r in rows:
        if r is None:
            print()
        elif len(r) == 1:
            print(r[0])
        else:
            print(f"{r[0]:<{width}} {fmt(r[1]):>15} {fmt(r[2]):>15} "
                  f"{fmt(r[3]):>17} {fmt(r[4]):>19}  {r[5]}")
    print()
    print("Typed caches, beside their site rows:")
    for t in typed:
        print(t)
    print()
    if padded:
        print("Class caches whose slab object is larger than the class "
              "(allocinfo counts the larger): " +
              ", ".join(f"{n} {s[0]}/{s[1]}" for n, s in sorted(padded.items())))
    elif classes:
        print(f"Class caches: all {len(classes)} have slab_size = object_size "
              "= the class size: allocinfo's bytes per object are cmstat's.")
    print()
    print("cmstat.ko's own lines with live objects (every heap's out-of-line "
          "allocations and cmstat's own memory; not compared):")
    for t in own:
        print(f"  {t['function']} {short(t['file'])}:{t['line']} "
              f"{t['bytes']} B {t['calls']} calls")
    print()
    agree = ("equal", "typed cache site", "never allocated",
             "unattributed row")
    failed = ("DIFFERS", "unexplained")
    diffs = sorted((c, nb) for c, nb in cats.items()
                   if c not in agree + failed)
    print(f"summary: {equal} sites equal ("
          f"{cats.get('typed cache site', (0, 0))[0]} of them a typed "
          "cache's, at its slab's size), "
          f"{cats.get('never allocated', (0, 0))[0]} more sites never "
          "allocated (no row, 0 at allocinfo); "
          f"{sum(nb[0] for _, nb in diffs)} allocinfo lines are no "
          "cmstat site: "
          + (", ".join(f"{nb[0]} {c} ({nb[1]} B)" for c, nb in diffs)
             or "none")
          + f"; {cats.get('unattributed row', (0, 0))[0]} unattributed "
          "rows, not lines"
          + "".join(f"; {cats[c][0]} {c}" for c in failed if c in cats))
    if not equal:
        bad.append("no site compared")
    for b in bad:
        print(f"FAIL: {b}")
    print("result: " + ("FAIL" if bad else
                        "every cmstat site equal, every difference explained"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
