#!/usr/bin/env bash
# The shadow stack's levels past the 960 a thread's state holds live in a
# mapping of their own, made when a thread first goes that deep: frames
# there must be kept as the others are.  tests/programs/deep_frames.c
# leaves frames by __builtin_longjmp, which no wrapper sees, so only the
# exit of mid(), found on the shadow stack below the top, can end them: at
# 3000 levels mid() is at level 1501.  On the thread's stack and in a
# coroutine whose frames are put away and brought back while main goes
# as deep in other functions.  At 10 levels, the same in the state's own.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
build_traced "$T/deep" "$PROGRAMS/deep_frames.c"

for mode in jump coro; do
    for n in 10 3000; do
        rm -f "$T/t.raw"*
        out=$(run_traced "$T/t.raw" "$T/deep" "$mode" "$n" 2>"$T/err") ||
            fail "$mode $n: status $?: $(cat "$T/err")"
        expect_eq "$mode $n: stderr" "" "$(cat "$T/err")"
        expect_eq "$mode $n: output" "$(CALLTRACE_OUTPUT=/dev/null "$T/deep" "$mode" "$n")" "$out"
        "$REPORT_SAN" --dump "$T/t.raw" >"$T/dump" || fail "$mode $n: --dump failed"
        # mid's exit ends the walk frames above it, then mid: the event
        # that follows its return comes right after mid's own return.
        before=$(awk '/ V[0-9]* mid returned$/ { print last; exit } { last = $NF }' "$T/dump")
        expect_eq "$mode $n: the record before the event" "mid" "$before"
        half=$((n / 2))
        expect_eq "$mode $n: walk calls" "$((half + 1))" "$(grep -c ' C[0-9]* walk$' "$T/dump")"
        expect_eq "$mode $n: walk returns" "$((half + 1))" "$(grep -c ' R[0-9]* walk$' "$T/dump")"
        expect_eq "$mode $n: walk_to_mid returns after the event" "$((half + 1))" \
            "$(awk '/ V[0-9]* mid returned$/ { on = 1 } on && / R[0-9]* walk_to_mid$/ { c++ } END { print c + 0 }' "$T/dump")"
        "$REPORT_SAN" -b -p "$T/t.raw" >"$T/report" || fail "$mode $n: report failed"
        grep -q "Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
            "$T/report" || fail "$mode $n: $(grep Unmatched "$T/report")"
        grep -q "Lost events: 0$" "$T/report" || fail "$mode $n: $(grep 'Lost events' "$T/report")"
    done
done
echo "frames past the state's levels kept, on the thread's stack and in a coroutine"
