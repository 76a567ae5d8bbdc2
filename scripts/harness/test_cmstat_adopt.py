# SPDX-License-Identifier: GPL-2.0
"""scripts/cmstat-adopt's own tests (lint.sh runs them with the harness's):
which files it gives the pr_fmt() flag, and that what it writes is what
make reads, in a Makefile whose last line continues or lacks its newline."""

import contextlib
import importlib.machinery
import importlib.util
import io
import os
import subprocess
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "cmstat-adopt")


def load_adopter():
    """scripts/cmstat-adopt as a module: its name has no .py."""
    loader = importlib.machinery.SourceFileLoader("cmstat_adopt", SCRIPT)
    spec = importlib.util.spec_from_loader("cmstat_adopt", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


adopter = load_adopter()

# A module's directory: path -> text.  Each .c file's comment says whether
# it needs the flag.
TREE = {
    # The last line continues, and has no newline.
    "Makefile": "obj-m += m.o\nm-y := own.o late.o local.o kernel_first.o "
                "sub2/deep.o \\\n\tnone.o \\",
    # Needs it: pr_fmt() before any #include.
    "own.c": '/* #include <x> in a comment */\n#define pr_fmt(fmt) "m: " fmt\n'
             "#include <linux/module.h>\n",
    # Does not: a kernel header first, so its own pr_fmt() warns unadopted too.
    "late.c": "#include <linux/kernel.h>\n#undef pr_fmt\n#define pr_fmt(fmt) fmt\n",
    # Needs it: its first header, its own, defines one under #ifndef.
    "local.c": '#include "local.h"\n#include <linux/fs.h>\n',
    "local.h": '#ifndef pr_fmt\n# define pr_fmt(fmt) "local: " fmt\n#endif\n'
               "#include <linux/slab.h>\n",
    # Does not: its own header includes a kernel header before its pr_fmt().
    "kernel_first.c": '#include "kernel_first.h"\n',
    "kernel_first.h": '#include <linux/printk.h>\n#define pr_fmt(fmt) "k: " fmt\n',
    # Does not: no pr_fmt() at all.
    "none.c": "#include <linux/module.h>\n",
    # Needs it, in the Makefile of its own directory.
    "sub/Makefile": "obj-m += s.o\n",
    "sub/s.c": "#define pr_fmt(fmt) KBUILD_MODNAME \": \" fmt\n",
    # Needs it, in the top Makefile, which lists it: sub2 has no Makefile.
    "sub2/deep.c": "#define pr_fmt(fmt) fmt\n",
}

FLAG = "-DCMSTAT_ADOPT_OWN_PR_FMT"


def make_value(directory, makefile, variable):
    """What make reads as variable in directory's makefile."""
    return subprocess.run(
        ["make", "-s", "-C", directory, "-f", makefile,
         "--eval", f"cmstat_show: ; @echo '$({variable})'", "cmstat_show"],
        check=True, capture_output=True, text=True).stdout.strip()


class AdoptTest(unittest.TestCase):
    """cmstat-adopt on TREE."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.top = self.dir.name
        for path, text in TREE.items():
            os.makedirs(os.path.dirname(os.path.join(self.top, path)),
                        exist_ok=True)
            with open(os.path.join(self.top, path), "w",
                      encoding="utf-8") as f:
                f.write(text)

    def tearDown(self):
        self.dir.cleanup()

    def adopt(self, *args):
        """cmstat-adopt run on the tree: its status and output."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = adopter.main(["cmstat-adopt", *args, self.top])
        return status, out.getvalue()

    def test_flags_go_to_the_files_that_define_pr_fmt_first(self):
        self.assertEqual(self.adopt()[0], 0)
        top = os.path.join(self.top, "Makefile")
        for stem in ("own", "local", "sub2/deep"):
            self.assertEqual(make_value(self.top, top, f"CFLAGS_{stem}.o"),
                             FLAG, stem)
        for stem in ("late", "kernel_first", "none"):
            self.assertEqual(make_value(self.top, top, f"CFLAGS_{stem}.o"),
                             "", stem)
        self.assertEqual(make_value(os.path.join(self.top, "sub"), "Makefile",
                                    "CFLAGS_s.o"), FLAG)

    def test_the_line_and_the_module_survive_a_continued_last_line(self):
        self.adopt()
        top = os.path.join(self.top, "Makefile")
        self.assertEqual(make_value(self.top, top, "subdir-ccflags-y"),
                         adopter.ADOPT_LINE.split("+= ", 1)[1]
                         .replace("$(CMSTAT_INCLUDE)", ""))
        self.assertIn("none.o", make_value(self.top, top, "m-y").split())

    def test_a_second_run_and_a_dry_run_write_nothing(self):
        status, said = self.adopt("-n")
        self.assertEqual(status, 0)
        self.assertIn(FLAG, said)
        with open(os.path.join(self.top, "Makefile"), encoding="utf-8") as f:
            self.assertEqual(f.read(), TREE["Makefile"])
        self.adopt()
        with open(os.path.join(self.top, "Makefile"), encoding="utf-8") as f:
            once = f.read()
        self.assertEqual(self.adopt(), (0, ""))
        with open(os.path.join(self.top, "Makefile"), encoding="utf-8") as f:
            self.assertEqual(f.read(), once)

    def test_a_directory_without_a_makefile_is_refused(self):
        os.remove(os.path.join(self.top, "Makefile"))
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(self.adopt()[0], 2)
        self.assertIn("no Kbuild file or Makefile", err.getvalue())


if __name__ == "__main__":
    unittest.main()
