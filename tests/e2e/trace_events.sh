#!/usr/bin/env bash
# calltrace_event: a message longer than the bound is cut with a visible
# mark and count; control characters are escaped where the report and
# --dump print messages, so each event stays one line.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/ev" "$PROGRAMS/trace_events.c" -no-pie
run_traced "$T/ev.raw" "$T/ev"
"$REPORT_SAN" "$T/ev.raw" > "$T/report.txt" 2> "$T/err" || fail "report: $(cat "$T/err")"
events=$(sed -n '/^User events (time order): /,$p' "$T/report.txt")
expect_eq "count" "User events (time order): 4" "$(echo "$events" | sed -n 1p)"
rows=$(echo "$events" | grep -E '^ +-?[0-9]+\.[0-9]+  ')
expect_eq "one row per event" 4 "$(echo "$rows" | wc -l)"
echo "$rows" | has ' first line\\nsecond line$' || fail "newline: $rows"
echo "$rows" | has ' tab\\there$' || fail "tab: $rows"
echo "$rows" | has ' back\\\\slash$' || fail "backslash: $rows"
long=$(echo "$rows" | grep 'xxxx')
case $long in *'x...['[0-9]*' more bytes]') ;; *) fail "long message: no mark";; esac
kept=$(echo "$long" | grep -o 'x*\.\.\.' | tr -d . | wc -c)
cut=$(echo "$long" | sed 's/.*\.\.\.\[\([0-9]*\) more bytes\]$/\1/')
expect_eq "kept + cut" 3000 $((kept - 1 + cut))

"$REPORT_SAN" --dump "$T/ev.raw" > "$T/dump.txt" || fail "dump"
expect_eq "V lines" 4 "$(grep -c ' V ' "$T/dump.txt")"
grep -q ' V first line\\nsecond line$' "$T/dump.txt" || fail "dump newline"
grep -q ' V tab\\there$' "$T/dump.txt" || fail "dump tab"
echo ok
