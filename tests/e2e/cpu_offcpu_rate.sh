#!/usr/bin/env bash
# A request loop that sleeps between requests (tests/programs/
# cpu_switch_rate.c), switching out and in as fast as nanosleep lets it,
# thousands of times a second: no context-switch record may be lost (the
# ring was drained every 8 KiB of records, 16 KiB of switches later, and
# dropped 4486 of 10000 at only 800 switches a second), and the on-CPU
# time the records give cannot exceed the thread's own CPU clock.  Both
# checks are exact or one-sided: nothing depends on the machine's speed.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
build_traced "$T/sw" "$PROGRAMS/cpu_switch_rate.c"
run_traced "$T/s.raw" "$T/sw" 5000 0 > "$T/out" || fail "the program failed"
"$REPORT_SAN" -b "$T/s.raw" > "$T/r.txt" || fail "report"
grep -q '^On-CPU: from context switches' "$T/r.txt" ||
    skip "no context-switch records here: $(grep -i 'on-cpu' "$T/r.txt" | head -1)"
! has "context-switch records were lost" "$T/r.txt" ||
    fail "$(grep 'were lost' "$T/r.txt")"
clock_ns=$(sed -n 's/^clock_ns //p' "$T/out")
# "  tid N: X(elapsed) Y(on-CPU) ...": Y in ns
on_ns=$(sed -n 's/^  tid [0-9]*: [^ ]*(elapsed) \([0-9.]*\)\([a-z]*\)(on-CPU).*/\1 \2/p' "$T/r.txt" |
        awk '{f = $2 == "ns" ? 1 : $2 == "us" ? 1e3 : $2 == "ms" ? 1e6 : 1e9
              printf "%.0f\n", $1 * f}')
[ -n "$on_ns" ] && [ -n "$clock_ns" ] || fail "no figures: $(cat "$T/out" "$T/r.txt")"
# on-CPU from the switches is inside the thread's CPU time (+1 ms for the
# clock read after the last traced event and rounding)
awk -v on="$on_ns" -v c="$clock_ns" 'BEGIN { exit !(on > 0 && on <= c + 1e6) }' ||
    fail "on-CPU ${on_ns} ns, the thread's CPU clock ${clock_ns} ns"
echo "ok"
