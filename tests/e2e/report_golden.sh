#!/usr/bin/env bash
# Golden reports of small traced programs: recursion, a cycle, a leaf with
# several callers, user events, and two threads (merged and --threads).
# Times vary from run to run, so report_gprof.py masks them and puts the
# time-sorted parts in name order; counts, names and structure must match
# tests/golden/ exactly.  CT_UPDATE_GOLDEN=1 rewrites the golden files.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"
command -v python3 >/dev/null || skip "python3 not installed"
PY="python3 $CT_ROOT/tests/e2e/report_gprof.py"
GOLDEN=$CT_ROOT/tests/golden

compare() { # NAME REPORT
    $PY check "$2" || fail "$1: call graph lines gprof2dot would not parse"
    $PY normalize "$2" > "$T/$1.txt"
    if [ "${CT_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$T/$1.txt" "$GOLDEN/$1.txt"
    fi
    diff -u "$GOLDEN/$1.txt" "$T/$1.txt" || fail "$1 differs from the golden file"
}

gcc -std=gnu11 -O0 -g -finstrument-functions -I"$CT_ROOT/include" \
    -o "$T/report_calls" "$PROGRAMS/report_calls.c"
run_traced "$T/calls.raw" "$T/report_calls" >/dev/null
"$REPORT_SAN" -b "$T/calls.raw" > "$T/calls.out" || fail "report failed"
compare report_calls "$T/calls.out"
expect_eq "user events in time order" "start|middle: 84915|done" \
    "$(sed -n '/^User events/,$p' "$T/calls.out" | awk 'NR > 3 {print $4, $5}' |
       sed 's/ $//' | paste -sd'|')"
# the exact identity is printed in ticks
awk '/^In ticks:/ { if ($3 + $5 + $7 + $9 != $11) exit 1; found = 1 }
     END { exit !found }' "$T/calls.out" || fail "cpu+overhead+unmetered+unknown != elapsed"

gcc -std=gnu11 -O0 -g -finstrument-functions -I"$CT_ROOT/include" \
    -o "$T/report_threads" "$PROGRAMS/report_threads.c" -lpthread
run_traced "$T/threads.raw" "$T/report_threads" >/dev/null
"$REPORT_SAN" -b "$T/threads.raw" > "$T/threads.out" || fail "report failed"
compare report_threads "$T/threads.out"
"$REPORT_SAN" -b --threads "$T/threads.raw" > "$T/per.out" || fail "--threads failed"
expect_eq "per-thread reports" 2 "$(grep -c '^==== Thread' "$T/per.out")"
# inner is called 30 times on one thread, 20 on the other
expect_eq "inner per thread" "20 30" \
    "$(awk '/^\[[0-9]+\].* inner \[/ {print $5}' "$T/per.out" | sort -n | paste -sd' ')"

# the call tree: leaf calls under inner, nesting shown by indentation
"$REPORT_SAN" --tree --depth=3 "$T/calls.raw" > "$T/tree.out" || fail "--tree failed"
grep -q '^ *\[ *[0-9]*\] |   work() {$' "$T/tree.out" || fail "tree: no work() {"
grep -Eq '^ *[0-9.]+ [num ]*s( +[0-9.]+ [num ]*s)? \[ *[0-9]*\] \|   \} /\* work \*/$' "$T/tree.out" ||
    fail "tree: no closing line with work's duration (and on-CPU time)"
grep -q '|     scale();$' "$T/tree.out" || fail "tree: no nested scale();"
! grep -q '|       ' "$T/tree.out" || fail "tree: --depth=3 not honoured"
