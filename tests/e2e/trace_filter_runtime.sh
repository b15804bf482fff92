#!/usr/bin/env bash
# Record-time filters changed while the program runs (`calltrace control
# PID filter SPEC`), with exact counts: rounds of a known call tree
# (tests/programs/filter_phases.c: nesting, a longjmp past a frame, a
# recursion) run under excludes, include levels, depth=, a :notrace
# trigger and no rule at all, in turn.  Most of these calls are decided
# by the filters' fast path (preload/filters/filter_fast.c), the trigger and
# the include functions by the slow path, and frames of one end in the
# other (the longjmp): the counts kept and left out are the rules'.
# Each change comes while the program waits in next_line, so the first
# event under new rules is the return of a call entered under the old:
# a thread must not go on deciding by the skip table of rules gone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
[ -x "$FRONT" ] || fail "no $FRONT"
build_traced "$T/fp" "$PROGRAMS/filter_phases.c"
mkfifo "$T/in"

CALLTRACE_CONTROL=1 CALLTRACE_LIBCALLS=none CALLTRACE_OUTPUT=$T/fp.raw \
    LD_PRELOAD=$LIB "$T/fp" < "$T/in" > "$T/out" &
pid=$!
exec 3> "$T/in"
trap 'exec 3>&-; kill -9 $pid 2>/dev/null || true; rm -rf "$T"' EXIT
n=0
rounds() { n=$((n + 1)); echo "$1" >&3; waitfor_count "$n"; }
# waitfor_count K: the program answered K rounds so far.
waitfor_count() {
    for _ in $(seq 200); do
        [ "$(grep -cx "done" "$T/out")" -ge "$1" ] && return 0; sleep 0.05
    done
    fail "program never answered round $1"
}
ctl() { "$FRONT" control $pid filter "$1" > /dev/null || fail "filter '$1'"; }

waitfor ready
wait_control_socket $pid
# One round: outer 1, mid 2, leaf 7 (6 + 1 in jumper), jumper 1, rec 3.
rounds 1                       # no rule
ctl '-mid';             rounds 2   # mid left out, leaf kept under it
ctl 'outer@2';          rounds 4   # outer and what it calls: no leaf, rec 1
ctl 'depth=3';          rounds 8   # main, outer, mid/jumper/rec(3)
ctl 'outer:notrace';    rounds 16  # nothing
ctl '-rec,-leaf';       rounds 32  # outer, mid, jumper
ctl '';                 rounds 64  # all again
# nest(6) waits inside nest(3) while nest is excluded: its inner calls
# are left out, and the four frames open return as themselves.
n=$((n + 1)); echo nest >&3; waitfor waiting
ctl '-nest'; echo go >&3; waitfor_count "$n"
echo exit >&3
exec 3>&-
wait $pid || fail "program status $?"

"$REPORT_SAN" -b "$T/fp.raw" > "$T/r.txt" || fail "report"
calls() { awk -v n="$2" '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
    f && NF > 2 && $(NF-1) == n { print $4 }' "$1"; }
got=""
for f in outer mid leaf jumper rec next_line nest after; do
    got+="$f=$(calls "$T/r.txt" $f) "
done
# outer: 1+2+4+8+32+64; mid: 2+8+16+64+128; leaf: 7+14+448;
# jumper as outer; rec: 3+6+4+8+192; next_line: the 10 lines' reads but
# the one entered under outer@2; nest: the four entered before -nest.
expect_eq "calls kept" \
    "outer=111 mid=218 leaf=469 jumper=111 rec=213 next_line=9 nest=4 after=4 " \
    "$got"
# Left out: 4 mid; 28 leaf + 8 rec + 1 next_line; 56 leaf + 16 rec; 16
# outer + 32 mid + 112 leaf + 16 jumper + 48 rec; 96 rec + 224 leaf;
# 3 nest.
has "Left out by the filter: 660 calls" "$T/r.txt" ||
    fail "left out: $(grep 'Left out' "$T/r.txt")"
expect_eq "nesting" \
    " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
    "$(grep '^ Unmatched:' "$T/r.txt")"
expect_eq "lost" " Lost events: 0" "$(grep '^ Lost events:' "$T/r.txt")"
# Each after() under the nest frame that made it: a return of a call
# left out must not end an open frame of its function (a recursion).
"$REPORT_SAN" --export=folded "$T/fp.raw" > "$T/folded" || fail "folded"
expect_eq "after() under its own nest frames" \
    "main;nest;after main;nest;nest;after main;nest;nest;nest;after main;nest;nest;nest;nest;after " \
    "$(awk '$1 ~ /;after$/ { print $1 }' "$T/folded" | sort | tr '\n' ' ')"
echo ok
