#!/usr/bin/env bash
# Claims of docs/ and README.md that no other test checks, each tested
# against a real trace.  The document and section are named at each check.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"

cat > "$T/claims.c" <<'C'
#include "calltrace.h"
__attribute__((noinline)) static int leaf(int x) { return x + 1; }
int main(void)
{
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += leaf(i);
    calltrace_event("tab\there newline\nthere");
    return s == 55 ? 0 : 1;
}
C
build_traced "$T/claims" "$T/claims.c"
run_traced "$T/c.raw" "$T/claims"

# dump-format.md "Names": the full report's last index section names each
# function's file:line; -p and -q do not print it.
"$REPORT_SAN" "$T/c.raw" > "$T/full.txt"
grep -A3 '^Where the functions are defined' "$T/full.txt" | has -E ' leaf +.*claims\.c:2$' ||
    fail "dump-format.md: no file:line for leaf in the full report"
for opt in -p -q; do
    ! "$REPORT_SAN" $opt "$T/c.raw" | has '^Where the functions are defined' ||
        fail "dump-format.md: $opt prints the definitions"
done

# report-format.md: every section but the last (the user events) ends with
# a form feed line, as in gprof
expect_eq "report-format.md: form feed lines (flat, graph, index)" 3 \
    "$(grep -c $'^\f$' "$T/full.txt")"

# dump-format.md "Keys": S and E lines end in the key and one space;
# "Notes": a user message's tab and newline are escaped (\t, \n)
"$REPORT_SAN" --dump "$T/c.raw" > "$T/dump.txt"
grep -Eq '^[0-9.]+ S $' "$T/dump.txt" || fail "dump-format.md: no 'S ' line"
grep -Eq '^[0-9.]+ E $' "$T/dump.txt" || fail "dump-format.md: no 'E ' line"
grep -qF ' V tab\there newline\nthere' "$T/dump.txt" ||
    fail "dump-format.md: user message: $(grep ' V ' "$T/dump.txt")"
# "R lines name the function"
expect_eq "dump-format.md: R lines of leaf" 10 "$(grep -c ' R leaf$' "$T/dump.txt")"

# README "Configuration": an existing trace file is never overwritten
run_traced "$T/c.raw" "$T/claims"
[ -f "$T/c.raw.1" ] || fail "README: the second run did not write c.raw.1"
cmp -s "$T/c.raw" "$T/c.raw.1" && fail "README: c.raw was overwritten"

# README "The report": exit status 2 for an unreadable input
set +e
"$REPORT_SAN" "$T/nonexistent.raw" 2>/dev/null; rc=$?
set -e
expect_eq "README: exit status for a missing input" 2 "$rc"
