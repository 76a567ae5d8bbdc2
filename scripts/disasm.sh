#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# disasm.sh [KDIR]: compile cmstat's inline code the way a client module
# is compiled (scripts/probe/cmstat_probe.c; default: against Debian's
# stock 6.12 headers, the production configuration, no sanitisers),
# disassemble each probe function, and print it with its static counts:
# instructions in all (fast and slow paths), per-CPU read-modify-writes
# (instructions with a %gs: destination), LOCK-prefixed instructions and
# fences.  The last line sums up the writer section, as bench.sh shows it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ensure_pkgs make gcc binutils
kdir=${1:-/usr/src/linux-headers-$(stock_abi 6.12)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/scripts/probe"
cp -r "$CMSTAT_ROOT/include" "$dir/"
cp "$CMSTAT_ROOT"/scripts/probe/{Kbuild,cmstat_probe.c,cmstat_probe.h} "$dir/scripts/probe/"
# cmstat.ko is not part of this build: let modpost leave its symbols be.
make -C "$kdir" M="$dir/scripts/probe" KBUILD_MODPOST_WARN=1 modules >"$dir/build.log" 2>&1 ||
	{ cat "$dir/build.log"; die "probe build failed"; }

# counts FUNCTION: its instructions, one per line, and the counts line.
# awk reads objdump's output to the end: stopping early would kill objdump
# with SIGPIPE, which pipefail makes this script's status.
counts() {
	objdump -d --no-show-raw-insn "$dir/scripts/probe/cmstat_probe.o" |
		awk -v f="<$1>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on' |
		sed 's/^ *[0-9a-f]*:\t//' >"$dir/insns"
	echo "$1, built against $kdir:"
	sed 's/^/    /' "$dir/insns"
	printf '%s: instructions=%s percpu_rmw=%s lock_prefixed=%s fences=%s\n' "$1" \
		"$(grep -c . "$dir/insns")" "$(percpu_rmw <"$dir/insns")" \
		"$(grep -cE '^lock|^xchg.*\(' "$dir/insns" || true)" \
		"$(grep -cE '^(m|l|s)fence' "$dir/insns" || true)"
}

# percpu_rmw: how many instructions read, modify and write per-CPU memory:
# an arithmetic mnemonic whose destination, the last operand, is %gs:.
percpu_rmw() {
	awk '{ sub(/#.*/, ""); m = $1; $1 = ""
	       gsub(/\([^)]*\)/, "()")	# commas inside an address
	       n = split($0, op, ",")
	       if (m ~ /^(inc|dec|add|sub|and|or|xor|neg|not)[bwlq]?$/ &&
		   op[n] ~ /%gs:/) c++ }
	     END { print c + 0 }'
}

summary=
for f in cmstat_probe_section cmstat_probe_section_task cmstat_probe_alloc_8 \
	 cmstat_probe_alloc_8_atomic cmstat_probe_free_8 cmstat_probe_cache_alloc \
	 cmstat_probe_cache_free cmstat_probe_cache_of; do
	counts "$f"
	summary="$summary$(counts "$f" | tail -n 1)"$'\n'
done
echo
printf '%s' "$summary"
echo "$summary" | sed -n 's/^cmstat_probe_section: //p'
