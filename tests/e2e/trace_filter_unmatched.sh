#!/usr/bin/env bash
# A filter or trigger rule that names no function (a typo) records nothing
# (an include, an :on trigger) or leaves out nothing (an exclude): the
# tracer says which rules match nothing in one line on stderr at start,
# and the report's summary says it again from the trace.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
build_traced "$T/trig" "$PROGRAMS/filter_trigger.c"

CALLTRACE_FILTER=outr,-lef CALLTRACE_TRIGGER=strat:on \
    run_traced "$T/t.raw" "$T/trig" 2> "$T/err" || fail "the program failed"
expect_eq "stderr" "calltrace: filter: no function loaded so far matches 'outr', '-lef', 'strat:on' (so nothing is recorded)" "$(cat "$T/err")"
"$REPORT_SAN" -b "$T/t.raw" > "$T/r.txt"
grep -x " Filter rules matching no function: outr, -lef, strat:on (.*)" "$T/r.txt" > /dev/null ||
    fail "summary: $(grep Filter "$T/r.txt")"

# A rule that matches beside one that does not: only the latter is named,
# and what the matching rules select is recorded.
CALLTRACE_FILTER=outer,-lef run_traced "$T/m.raw" "$T/trig" 2> "$T/err" ||
    fail "the program failed"
expect_eq "stderr" "calltrace: filter: no function loaded so far matches '-lef'" "$(cat "$T/err")"
"$REPORT_SAN" -b "$T/m.raw" > "$T/r.txt"
grep -x " Filter rules matching no function: -lef (.*)" "$T/r.txt" > /dev/null ||
    fail "summary: $(grep Filter "$T/r.txt")"
"$REPORT_SAN" --tree "$T/m.raw" | has "outer() {" || fail "outer not recorded"

# Every rule matching: no word.
CALLTRACE_FILTER=outer run_traced "$T/o.raw" "$T/trig" 2> "$T/err" ||
    fail "the program failed"
[ ! -s "$T/err" ] || fail "stderr: $(cat "$T/err")"
! "$REPORT_SAN" -b "$T/o.raw" | has "matching no function" || fail "an unmatched rule reported"
echo "ok"
