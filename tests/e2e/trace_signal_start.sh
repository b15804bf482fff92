#!/usr/bin/env bash
# A signal whose instrumented handler runs while the tracer is still
# setting up the interrupted thread: the thread gets one state and one
# block sequence, never two (a second one was never ended, and the
# trace showed an extra thread whose blocks interleaved with the real
# one's); the handler's events that cannot be recorded are counted lost.
# A handler that ran just before the making began once made a state of
# its own, which the interrupted making then replaced: 1 run in 15-40
# failed, so six runs are made.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/start" "$PROGRAMS/trace_signal_start.c" -no-pie
nm "$T/start" > "$T/nm"
n=300
for run in 1 2 3 4 5 6; do
    raw=$T/run$run.raw
    run_traced "$raw" "$T/start" $n > "$T/out" || fail "run $run: status $?"
    read -r threads work handled < <(sed 's/[a-z]*=//g' "$T/out")
    expect_eq "run $run: work" "$n" "$work"
    "$DEC" -n "$T/nm" "$raw" > "$raw.txt" ||
        fail "run $run: decode: $(grep -m1 'check FAILED' "$raw.txt")"
    head=$(head -n 1 "$raw.txt")
    expect_eq "run $run: threads in the trace" $((n + 1)) "$(sed 's/.* threads=\([0-9]*\).*/\1/' <<< "$head")"
    lost=$(sed 's/.* lost=\([0-9]*\).*/\1/' <<< "$head")
    expect_eq "run $run: thread_main" "$n" "$(awk '$3=="C" && $4=="thread_main"' "$raw.txt" | wc -l)"
    got=$(awk '$3=="C" && $4=="on_signal"' "$raw.txt" | wc -l)
    [ "$got" -le "$handled" ] && [ $((got + lost)) -ge "$handled" ] ||
        fail "run $run: on_signal: $got in the trace, $handled handled, $lost lost"
    echo "run $run: $handled signals handled, $got recorded, $lost events lost" >&2
done
echo ok
