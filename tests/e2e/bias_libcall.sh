#!/usr/bin/env bash
# A library call's cost through the tracer's stub (docs/analysis.md, "The
# tracer's bias"): the tracer measures it at start beside a hooked call's,
# into the trace's header; `calltrace info` shows it, and the report's
# summary under --subtract-bias says how much more than a hooked call's it
# is, an excess not taken off.  tests/programs/bias_libcall.c calls
# cheap(), which costs about a ns, 20 000 times through the PLT: with the
# bias off its row is marked `~` (its figure is mostly the stub's excess),
# raw it is not.  With library calls not recorded, or in the profile mode,
# there is no such figure.
. "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALLS   # the default: recorded
gcc -std=gnu11 -O2 -shared -fPIC -o "$T/libcheap.so" "$PROGRAMS/bias_libcall_lib.c"
build_traced "$T/bl" "$PROGRAMS/bias_libcall.c" -L"$T" -lcheap -Wl,-rpath,"$T"
run_traced "$T/b.raw" "$T/bl" > "$T/out" || fail "bias_libcall failed"
expect_eq "program output" 20000 "$(cat "$T/out")"

"$FRONT" info "$T/b.raw" > "$T/info" || fail "calltrace info"
hooked=$(sed -nE 's/^tracer cost: +([0-9.]+) ns per call.*/\1/p' "$T/info")
lib=$(sed -nE 's/^ +([0-9.]+) ns per library call \(measured at start\)$/\1/p' "$T/info")
[ -n "$hooked" ] && [ -n "$lib" ] || fail "no tracer costs in: $(grep -A1 'tracer cost' "$T/info")"
# the stub saves the argument registers, keeps a frame and returns through
# a trampoline around the same hooks: more than a hooked call, by design
awk -v l="$lib" -v h="$hooked" 'BEGIN { exit !(l > h) }' ||
    fail "a library call ($lib ns) costs no more than a hooked one ($hooked ns)"

"$REPORT_SAN" -p -b --subtract-bias=start "$T/b.raw" > "$T/sub" || fail "report --subtract-bias"
re='^ +library calls: ([0-9.]+) ns each through the tracer.s stub at start, ([0-9.]+) more than a hooked call.s; the excess is not taken off$'
line=$(grep 'library calls:' "$T/sub")
[[ $line =~ $re ]] || fail "library calls line: $line"
expect_eq "library call figure" "$lib" "${BASH_REMATCH[1]}"
row() { awk '$4 ~ /^[0-9]+$/ && $7 == "cheap@plt"' "$1"; }
expect_eq "cheap@plt calls" 20000 "$(row "$T/sub" | awk '{print $4}')"
row "$T/sub" | has ' ~$' || fail "cheap@plt not marked with the bias off: $(row "$T/sub")"
has -E '^~ [0-9]+ functions?: less self time left than the bias taken off \(and a library call.s stub excess\)' "$T/sub" ||
    fail "no count of the marked rows"
"$REPORT_SAN" -p -b "$T/b.raw" > "$T/raw" || fail "report"
row "$T/raw" | has ' ~$' && fail "cheap@plt marked in the raw report: $(row "$T/raw")"
has 'library calls:' "$T/raw" && fail "a library calls line in the raw report"

# no library call recorded: no figure
rm -f "$T"/n.raw*
CALLTRACE_LIBCALLS=none run_traced "$T/n.raw" "$T/bl" > /dev/null || fail "run without library calls"
"$FRONT" info "$T/n.raw" | has 'per library call' && fail "a library call figure without library calls"
"$REPORT_SAN" -p -b --subtract-bias "$T/n.raw" | has 'library calls:' &&
    fail "a library calls line without library calls"
# the profile mode writes no call one by one
rm -f "$T"/p.raw*
CALLTRACE_MODE=profile run_traced "$T/p.raw" "$T/bl" > /dev/null || fail "profile run"
"$FRONT" info "$T/p.raw" | has 'per library call' && fail "a library call figure in a profile"
echo "library call $lib ns, hooked call $hooked ns; cheap@plt: $(row "$T/sub")"
