#!/usr/bin/env bash
# What the report's header says of a damaged or odd trace: lost counts of
# 2^63 in every block saturate and are called damaged instead of summing
# to 0 modulo 2^64, and a newline in the program's name stays escaped on
# the header's first line.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
build_traced "$T/threads" "$PROGRAMS/dump_threads.c"
run_traced "$T/t.raw" "$T/threads" >/dev/null
[ -s "$T/t.raw" ] || skip "the tracer wrote no trace"

# Every EVENTS block's `lost` (offset 40 of its header) set to 2^63.
python3 - "$T/t.raw" "$T/lost.raw" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read()); off = 4096; n = 0
while off + 64 <= len(d):
    magic, kind, hs, size = struct.unpack_from('<IHHI', d, off)
    if magic != 0x4b4c4243:
        off += 4096; continue
    if kind == 1:
        struct.pack_into('<Q', d, off + 40, 2**63); n += 1
    off += max(size, 4096)
open(sys.argv[2], 'wb').write(d)
sys.exit(0 if n else 'no EVENTS block')
PY
"$REPORT_SAN" -b "$T/lost.raw" > "$T/r.txt"
grep -x " Lost events: 18446744073709551615 or more (damaged: the blocks' lost counts are impossibly large; their sum is saturated)" "$T/r.txt" > /dev/null ||
    fail "damaged lost counts: $(grep Lost "$T/r.txt")"

cp "$T/threads" "$T/bad"$'\n'"name"
run_traced "$T/n.raw" "$T/bad"$'\n'"name" >/dev/null
"$REPORT_SAN" -b "$T/n.raw" > "$T/r.txt"
expect_eq "first line" "Profiling: $T/bad\\nname" "$(sed -n 1p "$T/r.txt")"
# the command line is shell-quoted by the tracer, then escaped
expect_eq "second line" " Command: '$T/bad\\nname'" "$(sed -n 2p "$T/r.txt")"
echo "ok"
