#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Put cmstat into a kernel source tree, as a series of patches.

intree.py KSRC [--series DIR] [--maintainer 'Name <address>'] [--no-apply]

Writes the series, in git format-patch form, into DIR (default
.build/intree-series in this tree) and applies it to KSRC: with ``git am`` if KSRC is a
git repository, else with ``patch -p1``.  The series is made from this
tree's own files each time, so there is no second copy to keep:

1. ``include/cmstat/`` and ``lib/cmstat/`` (``module/``, with its Kbuild and
   Kconfig), and one line each in ``lib/Kconfig`` and ``lib/Makefile``;
2. the KUnit suites in ``lib/cmstat/kunit/`` and ``lib/cmstat/.kunitconfig``;
3. the documentation in ``Documentation/mm/cmstat/``, in the toctree of
   ``Documentation/mm/index.rst``;
4. a MAINTAINERS entry.

The patches are made in a scratch git repository that holds KSRC's
versions of the files they change, so that they apply to KSRC whether it
is a git repository or not.  ``--maintainer`` names the author of the
commits and the maintainer in MAINTAINERS; by default, git's user.name
and user.email.
"""

import argparse
import email.utils
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAINTAINERS_TITLE = "CMSTAT - CONSISTENT PER-CPU MEMORY STATISTICS"
DOC_DIR = "Documentation/mm/cmstat"
DOC_PAGES = ["index", "design", "allocator", "api", "admin-guide",
             "performance", "testing"]


def die(msg):
    sys.exit("intree.py: " + msg)


def run(args, cwd, env=None, stdin=None):
    res = subprocess.run(args, cwd=cwd, env=env, input=stdin, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if res.returncode:
        die("%s failed in %s:\n%s" % (" ".join(args), cwd, res.stdout))
    return res.stdout


def files(src_dir, names=None, suffixes=(".c", ".h")):
    """(source, name) of the files of this tree's SRC_DIR to carry."""
    out = []
    for name in sorted(os.listdir(os.path.join(ROOT, src_dir))):
        if (names and name in names) or name.endswith(suffixes):
            out.append((os.path.join(ROOT, src_dir, name), name))
    return out


def module_files():
    """cmstat.ko's sources; mutation.c builds only for this tree's tests
    (CMSTAT_MUTATIONS), mutation.h is read always."""
    return files("module", ("Kbuild", "Kconfig"))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def copy(pairs, repo, dest):
    for src, name in pairs:
        write(os.path.join(repo, dest, name), read(src))


def append_line(repo, path, line):
    text = read(os.path.join(repo, path))
    if not text.endswith("\n"):
        text += "\n"
    write(os.path.join(repo, path), text + line + "\n")


def add_to_toctree(text, entry):
    """TEXT with ENTRY in the last toctree of an mm index page, where it
    sorts."""
    lines = text.split("\n")
    start = max((i for i, l in enumerate(lines)
                 if l.startswith(".. toctree::")), default=None)
    if start is None:
        die("Documentation/mm/index.rst has no toctree")
    at = None
    for i in range(start + 1, len(lines)):
        if lines[i] and not lines[i].startswith(" "):
            break
        item = lines[i].strip()
        if item and not item.startswith(":"):
            at = i + 1
            if item > entry:
                at = i
                break
    if at is None:
        die("Documentation/mm/index.rst: its last toctree is empty")
    lines.insert(at, "   " + entry)
    return "\n".join(lines)


def maintainers_entry(maintainer):
    return "\n".join([
        MAINTAINERS_TITLE,
        "M:\t" + maintainer,
        "L:\tlinux-mm@kvack.org",
        "S:\tMaintained",
        "F:\t" + DOC_DIR + "/",
        "F:\tinclude/cmstat/",
        "F:\tlib/cmstat/"])


def add_to_maintainers(text, maintainer):
    """TEXT with the entry inserted where its title sorts among the
    titles of its first letter (a few entries elsewhere are out of
    order)."""
    lines = text.split("\n")
    try:
        first = lines.index("Maintainers List") + 1
    except ValueError:
        die("MAINTAINERS has no 'Maintainers List'")
    for i in range(first, len(lines) - 1):
        title = lines[i]
        is_title = (title and not lines[i - 1] and
                    lines[i + 1][:2] in ("M:", "R:", "L:", "S:"))
        if (is_title and title[0] == MAINTAINERS_TITLE[0] and
                title.upper() > MAINTAINERS_TITLE):
            # The entry, and the blank line before the next.
            lines.insert(i, maintainers_entry(maintainer) + "\n")
            return "\n".join(lines)
    die("MAINTAINERS: found no place for the entry")


def doc_pages(repo):
    """The documentation, with a hidden toctree on its index for Sphinx.

    The pages link each other as plain .rst files, so that docutils and
    GitHub render them; the kernel's Sphinx needs every page in a
    toctree."""
    for page in DOC_PAGES:
        text = read(os.path.join(ROOT, "Documentation", page + ".rst"))
        if page == "index":
            text += ("\n.. toctree::\n   :hidden:\n\n" +
                     "".join("   %s\n" % p for p in DOC_PAGES[1:]))
        write(os.path.join(repo, DOC_DIR, page + ".rst"), text)


def commit(repo, env, subject, body):
    run(["git", "add", "-A"], repo)
    msg = subject + "\n\n" + body.strip() + "\n\nSigned-off-by: %s\n" % \
        env["cmstat_maintainer"]
    run(["git", "commit", "-q", "-F", "-"], repo, env, msg)


def maintainer_env(maintainer):
    """The environment for git to commit as MAINTAINER."""
    name, addr = email.utils.parseaddr(maintainer)
    if not name or "@" not in addr:
        die("the maintainer must be 'Name <address>', not %r" % maintainer)
    return dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=addr,
                GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=addr,
                cmstat_maintainer=maintainer)


def make_series(ksrc, out, maintainer):
    """The series, in OUT, against KSRC's versions of the files it edits."""
    env = maintainer_env(maintainer)
    edited = ["lib/Kconfig", "lib/Makefile", "Documentation/mm/index.rst",
              "MAINTAINERS"]
    with tempfile.TemporaryDirectory() as repo:
        run(["git", "init", "-q"], repo)
        for path in edited:
            if not os.path.exists(os.path.join(ksrc, path)):
                die("%s has no %s: is it a kernel tree?" % (ksrc, path))
            write(os.path.join(repo, path), read(os.path.join(ksrc, path)))
        commit(repo, env, "base", "KSRC's files, which the series edits.")
        base = run(["git", "rev-parse", "HEAD"], repo).strip()

        copy(files("include/cmstat"), repo, "include/cmstat")
        copy(module_files(), repo, "lib/cmstat")
        append_line(repo, "lib/Kconfig", 'source "lib/cmstat/Kconfig"')
        append_line(repo, "lib/Makefile", "obj-$(CONFIG_CMSTAT) += cmstat/")
        commit(repo, env, "lib: add cmstat, consistent per-CPU memory statistics", """
Per-CPU counters whose snapshots are exact and consistent across every
counter, taken without stopping any CPU: writers add to per-CPU slots
inside sections bracketed by per-CPU sequence counters, and a reader
rotates a generation ring and folds the closed generation.  On top, a
size-class allocator whose every allocation and free is counted in one
section, with typed caches, and statistics in debugfs and sysfs.

This is the out-of-tree module of the same name, from its own tree.""")

        copy(files("kunit", (".kunitconfig", "Kbuild")), repo,
             "lib/cmstat/kunit")
        write(os.path.join(repo, "lib/cmstat/.kunitconfig"),
              read(os.path.join(ROOT, "kunit/.kunitconfig")))
        commit(repo, env, "lib/cmstat: add KUnit tests", """
Run them with:

  ./tools/testing/kunit/kunit.py run --kunitconfig=lib/cmstat

The concurrency suites need two CPUs or more and skip on fewer (UML).
cmstat_debug_kunit needs cmstat.debug_free=1 on the command line and
skips without it.""")

        doc_pages(repo)
        path = os.path.join(repo, "Documentation/mm/index.rst")
        write(path, add_to_toctree(read(path), "cmstat/index"))
        commit(repo, env, "Documentation/mm: add cmstat", """
The design, the allocator, the API, the administrator's guide,
performance and testing of cmstat.""")

        path = os.path.join(repo, "MAINTAINERS")
        write(path, add_to_maintainers(read(path), maintainer))
        commit(repo, env, "MAINTAINERS: add cmstat", "Add an entry for cmstat.")

        if os.path.isdir(out):
            shutil.rmtree(out)
        run(["git", "format-patch", "-q", "-o", out, base + "..HEAD"], repo)
    return sorted(os.path.join(out, p) for p in os.listdir(out))


def apply(ksrc, patches, maintainer):
    if os.path.isdir(os.path.join(ksrc, ".git")):
        run(["git", "am", "-q"] + patches, ksrc, maintainer_env(maintainer))
        return "git am"
    for p in patches:
        run(["patch", "-p1", "-s", "--forward", "-i", p], ksrc)
    return "patch -p1"


def default_maintainer():
    def cfg(key):
        res = subprocess.run(["git", "config", key], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE)
        return res.stdout.strip()
    name, addr = cfg("user.name"), cfg("user.email")
    return "%s <%s>" % (name, addr) if name and addr else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ksrc", help="the kernel source tree")
    ap.add_argument("--series", help="where the patches go")
    ap.add_argument("--maintainer", default=default_maintainer(),
                    help="'Name <address>': the commits' author and the "
                    "MAINTAINERS entry's M:")
    ap.add_argument("--no-apply", action="store_true",
                    help="write the series only")
    args = ap.parse_args()
    ksrc = os.path.abspath(args.ksrc)
    if os.path.exists(os.path.join(ksrc, "lib/cmstat")):
        die("%s already has lib/cmstat" % ksrc)
    out = os.path.abspath(args.series or
                          os.path.join(ROOT, ".build", "intree-series"))
    if not args.maintainer:
        die("no maintainer: give --maintainer 'Name <address>' "
            "(or set git's user.name and user.email)")
    patches = make_series(ksrc, out, args.maintainer)
    how = "written" if args.no_apply else "applied with " + apply(ksrc, patches, args.maintainer)
    print("%d patches in %s, %s" % (len(patches), out, how))
    for p in patches:
        print("  " + os.path.basename(p))


if __name__ == "__main__":
    main()
