#!/usr/bin/env bash
# longjmp leaves frames whose exit hooks never run; the tracer ends them
# at the jump, so the trace stays nested, every call is matched, and the
# call made after the jump (leaf) sits under outer, which made it.  More
# kinds of jump in trace_jumps.sh.
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
# in the raw records, inner and middle end at the jump, before leaf starts
"$REPORT_SAN" --dump "$T/lj.raw" | awk '{print $2, $3}' > "$T/dump"
expect_eq "nesting of one round" "C outer|C middle|C inner|R inner|R middle|C leaf|R leaf|R outer" \
    "$(grep -E ' (outer|middle|inner|leaf)$' "$T/dump" | sed -n 1,8p | paste -sd'|')"
# setjmp returns twice, so no trampoline may stand for its return address:
# its call is written as one that returns at once (jump.c's stub), in
# outer before middle, once a round; the second return writes nothing.
CALLTRACE_LIBCALLS=plt run_traced "$T/plt.raw" "$T/lj" > "$T/out"
expect_eq "stdout with library calls" "sum=6" "$(cat "$T/out")"
"$REPORT_SAN" --dump "$T/plt.raw" | awk '{print $2, $3}' > "$T/plt.dump"
expect_eq "setjmp in one round" "C outer|C _setjmp@plt|R _setjmp@plt|C middle" \
    "$(grep -E ' (outer|middle|_setjmp@plt)$' "$T/plt.dump" | sed -n 1,4p | paste -sd'|')"
expect_eq "setjmp calls" 3 "$(grep -c '^C _setjmp@plt$' "$T/plt.dump")"
expect_eq "setjmp returns" 3 "$(grep -c '^R _setjmp@plt$' "$T/plt.dump")"
# With library calls off (the run above) nothing is written for it.
expect_eq "setjmp with library calls off" 0 "$(grep -c '_setjmp' "$T/dump")"
echo ok
