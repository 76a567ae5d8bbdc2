#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# disasm-writer.sh [KDIR]: compile a four-counter writer section the way a
# client module is compiled (default: against Debian's stock 6.12 headers,
# the production configuration, no sanitisers), disassemble it, and print
# its instruction count, LOCK-prefixed instructions and fences.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ensure_pkgs make gcc binutils
kdir=${1:-/usr/src/linux-headers-$(stock_abi 6.12)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/scripts/probe"
cp -r "$CMSTAT_ROOT/include" "$dir/"
cp "$CMSTAT_ROOT"/scripts/probe/{Kbuild,writer_probe.c} "$dir/scripts/probe/"
# cmstat.ko is not part of this build: let modpost leave its symbols be.
make -C "$kdir" M="$dir/scripts/probe" KBUILD_MODPOST_WARN=1 modules >"$dir/build.log" 2>&1 ||
	{ cat "$dir/build.log"; die "probe build failed"; }

objdump -d --no-show-raw-insn "$dir/scripts/probe/writer_probe.o" |
	awk '/<cmstat_probe_section>:/ { on = 1; next } on && /^$/ { exit } on' |
	sed 's/^ *[0-9a-f]*:\t//' >"$dir/insns"

echo "writer section (4 counters), built against $kdir:"
sed 's/^/    /' "$dir/insns"
total=$(grep -c . "$dir/insns")
# The body of the section: from the first per-CPU access to the last.
body=$(awk '/%gs:/ { if (!first) first = NR; last = NR } END { print last - first + 1 }' "$dir/insns")
locks=$(grep -cE '^lock|xchg.*\(' "$dir/insns" || true)
fences=$(grep -cE '^(m|l|s)fence' "$dir/insns" || true)
percpu=$(grep -c '%gs:' "$dir/insns" || true)
echo "instructions=$total section_body=$body percpu_ops=$percpu lock_prefixed=$locks fences=$fences"
