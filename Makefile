# SPDX-License-Identifier: GPL-2.0
#
# cmstat: consistent per-CPU memory statistics.
#
#   make [KDIR=...]   build cmstat.ko, the sample client, the benchmark module
#                     (not with CMSTAT_BENCH=), the test client (not with
#                     CMSTAT_TESTS=) and the KUnit modules if KDIR has KUnit
#                     (not with CMSTAT_KUNIT=)
#   make clean
#   make install      modules into /lib/modules/<release>/extra; headers and
#                     Module.symvers into /usr/src/cmstat-<version>/ for client
#                     modules (DESTDIR=, INSTALL_MOD_PATH=, KDIR= honoured)
#   make uninstall    remove what make install installed
#   make deb          the Debian packages cmstat-dkms (the source for DKMS,
#                     headers, a Module.symvers per kernel) and cmstat-tools
#                     (the viewer, cmstat(8), the Prometheus exporter timer),
#                     with dpkg-buildpackage -us -uc -b in a copy of the
#                     tree: .build/deb/*.deb (DEB_DIR=dir elsewhere)
#   make version      print the version (MODULE_VERSION in module/main.c;
#                     dkms.conf and debian/changelog repeat it)
#   make check        the whole test suite in QEMU (see README.md)
#   make lint         checkpatch --strict, sparse, W=1, kernel-doc, docs
#   make demo         the module on Debian's stock kernel in QEMU
#   make bench        benchmarks on Debian's stock kernel in QEMU (SMP=N
#                     vCPUs for the writer and allocator cases, RUNS=N,
#                     READER_CPUS="1 2 4 8 16", BOOT_ARGS=...)
#   make bench-peers  cmstat's accounting against allocation profiling and
#                     SLUB_STATS, in a kernel built with them and cached
#                     (scripts/kernel.sh peers); RUNS=N, PEERS_CPUS="1 4"
#   make allocinfo    cmstat's call-site rows beside /proc/allocinfo, line by
#                     line: ext2 and null_blk adopted with sites, at rest, in a
#                     kernel with allocation profiling, built and cached
#                     (scripts/kernel.sh allocinfo); LOGDIR/allocinfo.txt
#   make intree KSRC=/path/to/linux [MAINTAINER='Name <address>']
#                     put cmstat into a kernel tree as a series of four
#                     patches (git am in a git tree, patch -p1 otherwise),
#                     for kunit.py run --kunitconfig=lib/cmstat
#   make kunit-intree KSRC="tree..." [KUNIT_ARCH=x86_64|arm64]
#   make drgn-check     cmstat-drgn on dumps of a stock 6.12 guest's memory
#                     that, on copies of the trees, and kunit.py's run in
#                     each: on UML, as make check does, or under QEMU
#                     with KUNIT_CPUS=N vCPUs (default 4)
#
# Knobs for check: SMP=N (vCPUs, default 4), FILTER=glob (KUnit suite.case),
# KCSAN=0 (skip the KCSAN kernel), DEBUG_VMS=N (VMs sharing the debug
# kernel's checks, default 2), VM_JOBS=N (VMs at once, default 2),
# VM_TIMEOUT=seconds, LOGDIR=dir (console logs and check.ktap, default
# ./logs; a failing VM's log is also kept as LOGDIR/failed-<time>-<vm>.log),
# CMSTAT_CACHE=dir (kernels and kernel trees, default ~/.cache/cmstat).

KDIR ?= /lib/modules/$(shell uname -r)/build

# The version is defined once, in module/main.c, where modinfo finds it.
VERSION := $(shell sed -n 's/^MODULE_VERSION("\([^"]*\)");$$/\1/p' $(CURDIR)/module/main.c)
# The release of the kernel in KDIR, not necessarily the running one.
KERNELRELEASE ?= $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)

# What a client module builds against, in the layout ZFS uses, so that one
# directory serves every kernel the modules are built for.
DEVDIR = $(DESTDIR)/usr/src/cmstat-$(VERSION)
MODDIR = $(DESTDIR)$(INSTALL_MOD_PATH)/lib/modules/$(KERNELRELEASE)
# A staged install (DESTDIR) leaves depmod to the package's scripts; kbuild
# runs depmod only when KDIR has a System.map, which headers packages lack.
DEPMOD = $(if $(DESTDIR),:,depmod \
	$(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KERNELRELEASE))

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || \
		find . -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' | xargs rm -f

install-paths:
	@test -n "$(VERSION)" || { echo "no MODULE_VERSION in module/main.c" >&2; exit 1; }
	@test -n "$(KERNELRELEASE)" || { echo "no kernel release in $(KDIR)" >&2; exit 1; }

# Installed: cmstat.ko and the sample client, not the benchmark, test
# client and KUnit modules, which exist for this tree's tests (see Kbuild).
INSTALLED = CMSTAT_BENCH= CMSTAT_TESTS= CMSTAT_KUNIT=

install: install-paths
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(INSTALLED) modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(INSTALLED) INSTALL_MOD_DIR=extra \
		INSTALL_MOD_PATH=$(DESTDIR)$(INSTALL_MOD_PATH) modules_install
	install -d $(DEVDIR)/include/cmstat $(DEVDIR)/$(KERNELRELEASE)
	install -m 0644 include/cmstat/*.h $(DEVDIR)/include/cmstat/
	install -m 0644 Module.symvers $(DEVDIR)/$(KERNELRELEASE)/
	$(DEPMOD)

# Only the files install put there: /usr/src/cmstat-<version> may also be
# the DKMS source tree.
uninstall: install-paths
	rm -f $(foreach d,module samples/client,$(MODDIR)/extra/$(d)/cmstat*.ko*)
	rmdir $(addprefix $(MODDIR)/extra/,module samples/client samples) \
		$(MODDIR)/extra 2>/dev/null || true
	rm -f $(addprefix $(DEVDIR)/include/cmstat/,$(notdir $(wildcard include/cmstat/*.h)))
	rm -f $(DEVDIR)/$(KERNELRELEASE)/Module.symvers
	rmdir $(DEVDIR)/include/cmstat $(DEVDIR)/include $(DEVDIR)/$(KERNELRELEASE) \
		$(DEVDIR) 2>/dev/null || true
	$(DEPMOD)

version:
	@echo $(VERSION)

check:
	bash scripts/check.sh

lint:
	bash scripts/lint.sh

demo:
	bash scripts/demo.sh

bench:
	bash scripts/bench.sh

bench-peers:
	bash scripts/bench-peers.sh

allocinfo:
	bash scripts/allocinfo-check.sh

deb:
	bash scripts/deb.sh $(DEB_DIR)

intree:
	@test -n "$(KSRC)" || { echo "make intree KSRC=/path/to/linux" >&2; exit 1; }
	python3 scripts/intree.py "$(KSRC)" $(if $(MAINTAINER),--maintainer "$(MAINTAINER)")

kunit-intree:
	bash scripts/kunit-intree.sh $(or $(KSRC),$(error make kunit-intree KSRC=/path/to/linux...))

drgn-check:
	bash scripts/drgn-check.sh

.PHONY: all modules clean install-paths install uninstall version check lint demo bench bench-peers allocinfo deb intree kunit-intree drgn-check
