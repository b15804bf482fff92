#!/usr/bin/env bash
# calltrace_disable/enable, CALLTRACE_OFF/ON regions and CALLTRACE_SIGNAL:
# calls made while off are absent at both ends and the trace still nests.
# The same program built and run without the preload, as C and as C++.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/toggle" "$PROGRAMS/trace_toggle.c" -no-pie
nm "$T/toggle" > "$T/nm"
calls() { awk '$3=="C"{print $4}' "$1" | paste -sd' '; }

run_traced "$T/a.raw" "$T/toggle" > "$T/a.out"
expect_eq "stdout" "enabled=1 off_inside=0" "$(cat "$T/a.out")"
"$DEC" -n "$T/nm" "$T/a.raw" > "$T/a.txt" || fail "decode: $(tail -n 1 "$T/a.txt")"
expect_eq "calls" "main shown_a outer shown_b shown_b shown_b shown_c" "$(calls "$T/a.txt")"
expect_eq "returns" 7 "$(awk '$3=="R"' "$T/a.txt" | wc -l)"
expect_eq "toggles" "0 1" "$(awk '$3=="T"{print $4}' "$T/a.txt" | paste -sd' ')"

CALLTRACE_SIGNAL=USR2 run_traced "$T/b.raw" "$T/toggle" > "$T/b.out"
expect_eq "stdout (signal)" "enabled=1 off_inside=0" "$(cat "$T/b.out")"
"$DEC" -n "$T/nm" "$T/b.raw" > "$T/b.txt" || fail "decode: $(tail -n 1 "$T/b.txt")"
expect_eq "calls (signal)" "main shown_a outer shown_b shown_b shown_b shown_c shown_d shown_d" "$(calls "$T/b.txt")"
expect_eq "returns (signal)" 9 "$(awk '$3=="R"' "$T/b.txt" | wc -l)"

# Started paused: nothing until calltrace_enable(); main's own frame stays
# hidden at both ends.
CALLTRACE_START_PAUSED=1 run_traced "$T/c.raw" "$T/toggle" > /dev/null
"$DEC" -n "$T/nm" "$T/c.raw" > "$T/c.txt" || fail "decode: $(tail -n 1 "$T/c.txt")"
expect_eq "calls (paused)" "shown_b shown_b shown_b shown_c" "$(calls "$T/c.txt")"
expect_eq "returns (paused)" 4 "$(awk '$3=="R"' "$T/c.txt" | wc -l)"

# Without the preload: builds, runs, every control a no-op.
expect_eq "no preload" "enabled=0 off_inside=0" "$("$T/toggle")"
gcc -std=gnu11 -O1 -Wall -Wextra -Werror -I"$CT_ROOT/include" -o "$T/plain" "$PROGRAMS/trace_toggle.c"
expect_eq "plain C" "enabled=0 off_inside=0" "$("$T/plain")"
g++ -x c++ -O1 -Wall -Wextra -Werror -I"$CT_ROOT/include" -o "$T/plainxx" "$PROGRAMS/trace_toggle.c"
expect_eq "plain C++" "enabled=0 off_inside=0" "$("$T/plainxx")"
CALLTRACE_SIGNAL=USR2 run_traced "$T/d.raw" "$T/plainxx" >/dev/null
g++ -x c++ -O1 -finstrument-functions -no-pie -I"$CT_ROOT/include" -o "$T/tracedxx" "$PROGRAMS/trace_toggle.c"
run_traced "$T/e.raw" "$T/tracedxx" > "$T/e.out"
expect_eq "traced C++" "enabled=1 off_inside=0" "$(cat "$T/e.out")"
"$DEC" "$T/e.raw" > "$T/e.txt" || fail "decode C++: $(tail -n 1 "$T/e.txt")"
expect_eq "C++ calls" 7 "$(awk '$3=="C"' "$T/e.txt" | wc -l)"
echo ok
