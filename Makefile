# SPDX-License-Identifier: GPL-2.0
#
# cmstat: consistent per-CPU memory statistics.
#
#   make [KDIR=...]   build cmstat.ko (and the KUnit module if KDIR has KUnit)
#   make clean
#   make check        the whole test suite in QEMU (see README.md)
#   make lint         checkpatch --strict, sparse, W=1, kernel-doc
#   make demo         the module on Debian's stock kernel in QEMU
#   make bench        benchmarks on Debian's stock kernel in QEMU
#                     (SMP=N vCPUs for the writer and allocator cases)
#
# Knobs for check: SMP=N (vCPUs, default 4), FILTER=glob (KUnit suites),
# KCSAN=0 (skip the KCSAN kernel), VM_TIMEOUT=seconds, LOGDIR=dir (console
# logs, default ./logs; a failing VM's log is also kept as
# LOGDIR/failed-<time>-<vm>.log), CMSTAT_CACHE=dir (kernels and packages,
# default ~/.cache/cmstat).

KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || \
		find . -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' | xargs rm -f

check:
	bash scripts/check.sh

lint:
	bash scripts/lint.sh

demo:
	bash scripts/demo.sh

bench:
	bash scripts/bench.sh

.PHONY: all modules clean check lint demo bench
