#!/usr/bin/env bash
# longjmp leaves frames whose exit hooks never run; the tracer closes them
# at the exit of the function it jumped back into, so the trace stays
# nested and every call is matched.  A call made between the longjmp and
# that exit (leaf here) is still seen inside the skipped frames: the
# tracer learns of the jump only at the exit.
. "$(dirname "$0")/lib.sh"
build_traced "$T/lj" "$PROGRAMS/trace_longjmp.c"
run_traced "$T/lj.raw" "$T/lj" > "$T/out"
expect_eq stdout "sum=6" "$(cat "$T/out")"
"$REPORT_SAN" -b -q "$T/lj.raw" > "$T/rep" || fail "report failed"
grep -q "0 returns with no call, 0 calls with no return, 0 frames open at the end" "$T/rep" ||
    fail "unmatched records: $(grep Unmatched "$T/rep")"
# exact counts: each function called 3 times
for f in outer middle inner leaf; do
    grep -Eq "^\[[0-9]+\] .* 3 +$f \[" "$T/rep" || fail "$f not called 3 times: $(grep " $f \[" "$T/rep")"
done
# in the raw records, inner and middle return (late) before outer does
"$REPORT_SAN" --dump "$T/lj.raw" | awk '{print $2, $3}' > "$T/dump"
expect_eq "nesting of one round" "C outer|C middle|C inner|C leaf|R leaf|R inner|R middle|R outer" \
    "$(grep -E ' (outer|middle|inner|leaf)$' "$T/dump" | head -8 | paste -sd'|')"
