# SPDX-License-Identifier: GPL-2.0
"""The kernel flavours of make check: one line per kernel our modules are
built against, with named fields, validated before anything is built.

scripts/flavours.sh turns each line into its kernel, its builds and its
VMs; this module only says what they are.
"""

import dataclasses
import os
import shlex
import sys

from harness import checks

# The stock kernels' VMs boot with red zones on cmstat's caches, so that
# alignment and usercopy are checked where they can fail.
RED_ZONES = "slub_debug=Z,cmstat-*"
# The KASAN kernel boots with four-level page tables.  With five (QEMU's
# -cpu max has LA57), KASAN's "has this address shadow?" reads the LA57
# bit of the boot CPU's capabilities, which identify_cpu() clears and
# sets again while interrupts are on: an interrupt in that window that
# takes a lock in the direct map is reported as a wild memory access
# (handle_edge_irq from identify_cpu(), under a busy host), and run_vm
# boots the VM again once it has run every check.
KASAN_PAGING = "no5lvl"

KINDS = {
    # built from Debian's linux-source-6.12 by scripts/kernel.sh, from
    # kunit/base.config, the arch's fragment and kunit/CONFIG.config
    "test": {"debug", "kcsan", "rt", "kunit-arm64"},
    # Debian 12's stock kernel of the series (stock_abi), image and
    # headers from Debian's archive, never installed
    "debian": {"6.1", "6.12", "6.12-rt"},
    # Debian 13's (6.12, or backports: the newest 7.x trixie-backports
    # has when the run starts), the modules built in the Debian 13 root
    # with its gcc-14 (scripts/trixie-lib.sh)
    "trixie": {"6.12", "backports"},
    # the whole Debian 13 system of that kernel (scripts/trixie-system.sh),
    # booted from its disk with systemd, which runs its own checks
    # (scripts/guest/system-check.bash)
    "system": {"backports"},
}
ARCHES = {"x86_64", "arm64"}
# What a flavour gets beyond the modules built with W=1:
WITH = {
    "C=2",      # sparse on that build (lint.sh reads the debug one's)
    "mutant",   # cmstat and its KUnit module built to break the protocol,
                # for the mutation proof and the quiet reader's control
    "adopted",  # the in-tree modules of the adoption check
    "sites",    # those modules also built with call-site rows, for
                # checks/adopt-sites.sh
    "deb",      # the Debian packages' modules, as DKMS built them for its
                # kernel, for checks/deb-modules.sh
    "nohz",     # two isolated nohz_full CPUs (with 4 vCPUs or more), for
                # the quiet reader's check
    "numa",     # two NUMA nodes of 1 GiB, a socket of vCPUs each, for the
                # node rows (checks/client-sites.sh, the sites KUnit suite)
    "runtime",  # zram, jbd2, ext4, veth and bridge adopted as well, for
                # checks/adopt-runtime.sh: goes with the tag "runtime"
}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Flavour:
    """One kernel of make check.

    name:    its VMs' (NAME-1, NAME-2... when it has several).
    kernel:  KIND:SERIES, where it comes from (KINDS).
    arch:    x86_64, or arm64: the modules cross-built, QEMU's virt board.
    vms:     the VMs its checks are shared out between; 0: a build only.
    vcpus:   each VM's.
    tags:    the "# kernels:" tags whose checks it runs.
    with_:   what it gets beyond the modules built with W=1 (WITH).
    cmdline: what the kernel's command line adds.
    why:     what it adds to the run.
    """

    name: str
    kernel: str
    arch: str = "x86_64"
    vms: int = 1
    vcpus: int
    tags: tuple = ()
    with_: tuple = ()
    cmdline: tuple = ()
    why: str

    def problems(self, check_tags):
        """What is wrong with this line, given the tags checks name."""
        found = []
        kind, _, series = self.kernel.partition(":")
        if series not in KINDS.get(kind, ()):
            found.append(f"kernel {self.kernel!r}: not one of "
                         + ", ".join(f"{k}:{s}" for k in sorted(KINDS)
                                     for s in sorted(KINDS[k])))
        if self.arch not in ARCHES:
            found.append(f"arch {self.arch!r}: not one of {sorted(ARCHES)}")
        for what in set(self.with_) - WITH:
            found.append(f"with {what!r}: not one of {sorted(WITH)}")
        if self.vms < 0 or self.vcpus < 1:
            found.append(f"vms {self.vms}, vcpus {self.vcpus}")
        # A tag no check names runs nothing: a typo would go unseen.
        for tag in self.tags:
            if tag not in check_tags and tag != self.arch:
                found.append(f"tag {tag!r}: no check names it")
        # The runtime check's tag without its modules would fail it; its
        # modules without the tag would build for nothing.
        if ("runtime" in self.tags) != ("runtime" in self.with_):
            found.append("tag 'runtime' without with 'runtime', or the "
                         "other way round")
        if self.vms and kind != "system" and not self.tags:
            found.append("VMs without a tag: they would run no check")
        return [f"{self.name}: {p}" for p in found]

    def shell(self):
        """The line as a bash associative array's body, every value quoted."""
        fields = {
            "name": self.name,
            "kernel": self.kernel,
            "arch": self.arch,
            "vms": str(self.vms),
            "vcpus": str(self.vcpus),
            "tags": " ".join(self.tags),
            "with": ",".join(self.with_),
            "cmdline": " ".join(self.cmdline),
        }
        return " ".join(f"[{k}]={shlex.quote(v)}" for k, v in fields.items())


def table(env=os.environ):
    """FLAVOURS, in the order they start: the test kernels first, as their
    VMs take longest.  SMP and DEBUG_VMS are check.sh's knobs."""
    smp = int(env.get("SMP", "4"))
    debug_vms = int(env.get("DEBUG_VMS", "2"))
    stock = {"vcpus": smp, "tags": ("stock", "x86_64"), "cmdline": (RED_ZONES,)}
    return [
        Flavour(name="debug", kernel="test:debug", vms=debug_vms, vcpus=smp,
                tags=("debug", "runtime"), cmdline=(KASAN_PAGING,),
                with_=("C=2", "mutant", "adopted", "sites", "runtime"),
                why="KASAN, lockdep, kmemleak and the rest; every check but "
                    "the stock ones"),
        # kmemleak: publish-concurrent-readers took 1555 s against 81
        # unloaded; two VMs side by side beside one hog, 329 s with
        # kmemleak, 91 s without.
        Flavour(name="debug-busy", kernel="test:debug", vcpus=smp,
                tags=("debug-busy",), cmdline=(KASAN_PAGING, "kmemleak=off"),
                why="the debug kernel without kmemleak, for the checks that "
                    "keep every vCPU allocating while readers read: "
                    "kmemleak's one global lock, held by a vCPU the host "
                    "has descheduled, made them 4 to 20 times as slow "
                    "beside one CPU hog (TCG has no paravirtual spinlocks)"),
        Flavour(name="kcsan", kernel="test:kcsan", vcpus=smp, tags=("kcsan",),
                why="the data races; skipped with KCSAN=0"),
        Flavour(name="rt", kernel="test:rt", vcpus=smp, tags=("rt",),
                with_=("mutant",),
                why="PREEMPT_RT, the KUnit suites and the mutation proof"),
        Flavour(name="kunit-arm64", kernel="test:kunit-arm64", arch="arm64",
                vcpus=smp, tags=("kunit-arm64",), with_=("mutant",),
                why="weak ordering and non-coherent DMA, the same"),
        Flavour(name="trixie-6.12", kernel="trixie:6.12", vms=0, vcpus=1,
                why="Debian 13's compiler and headers, built against only"),
        Flavour(name="system", kernel="system:backports", vcpus=2,
                cmdline=("root=/dev/vda", "rw", "systemd.show_status=error"),
                why="the path an administrator takes, apt, DKMS, systemd "
                    "and the exporter on Debian 13"),
        Flavour(name="stock-6.1", kernel="debian:6.1", with_=("adopted",),
                why="Debian 12's released kernel series, the oldest "
                    "make check builds against", **stock),
        Flavour(name="stock-rt", kernel="debian:6.12-rt", with_=("adopted",),
                why="PREEMPT_RT as Debian ships it, where softirqs run in "
                    "threads and the allocators may sleep", **stock),
        Flavour(name="next", kernel="trixie:backports",
                with_=("adopted", "deb"),
                why="the kernel API as it is now (7.x), which has moved on "
                    "since 6.12 in ways that broke out-of-tree modules",
                **stock),
        Flavour(name="arm64", kernel="debian:6.12", arch="arm64", vcpus=2,
                tags=("stock", "arm64"), with_=("adopted",),
                cmdline=(RED_ZONES,),
                why="DMA is not coherent there, and the test client's "
                    "alignment check can fail; as Debian ships it, small "
                    "kmalloc() buffers bounced through a swiotlb.  Two "
                    "vCPUs: alignment and a driver's use, not concurrency"),
        Flavour(name="arm64-noforce", kernel="debian:6.12", arch="arm64",
                vcpus=2, tags=("stock", "arm64"),
                cmdline=(RED_ZONES, "swiotlb=noforce"),
                why="the same without a bounce buffer: kmalloc()'s minimum "
                    "alignment is a cache line"),
        Flavour(name="stock-6.12", kernel="debian:6.12",
                with_=("mutant", "adopted", "sites", "runtime", "deb", "nohz",
                       "numa"),
                why="Debian's kernel most users run, with the most checks; "
                    "last, as it waits for the packaging checks' modules",
                **dict(stock, tags=stock["tags"] + ("runtime",))),
    ]


def validate(flavours, check_tags):
    """Every problem of the table: its lines', and names used twice."""
    found = [p for f in flavours for p in f.problems(check_tags)]
    names = [f.name for f in flavours]
    found += [f"{n}: named twice" for n in sorted(set(names))
              if names.count(n) > 1]
    return found


def selected(flavours, only="", kcsan="1"):
    """The lines a run starts: ONLY's names if set, kcsan unless KCSAN=0."""
    wanted = set(filter(None, only.split(",")))
    return [f for f in flavours
            if (not wanted or f.name in wanted)
            and (f.name != "kcsan" or kcsan == "1")]


def main(args, env=os.environ):
    """harness flavours: the table, validated, as a line per flavour a run
    starts (a bash associative array's body); with --tags, every tag some
    flavour runs the checks of, one per line."""
    flavours = table(env)
    found = validate(flavours, checks.all_tags())
    if found:
        for p in found:
            print(f"flavours: {p}", file=sys.stderr)
        return 1
    if args.tags:
        print("\n".join(sorted({t for f in flavours for t in f.tags})))
        return 0
    for f in selected(flavours, env.get("ONLY", ""), env.get("KCSAN", "1")):
        print(f.shell())
    return 0
