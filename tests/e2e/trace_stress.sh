#!/usr/bin/env bash
# The tracer under stress (docs/reliability.md): 64 threads creating and
# ending threads, forking, and taking signals with instrumented handlers,
# both synchronous and from a thread that signals at random.  No crash, no
# hang, the same output and exit status as without the tracer, every trace
# readable and nested, and the counts consistent: exact where no signal
# could interrupt the tracer, and within the lost count otherwise.
# Longer:  STRESS_THREADS=64 STRESS_ROUNDS=64 STRESS_TIMEOUT=3600 bash tests/e2e/trace_stress.sh
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
threads=${STRESS_THREADS:-64}
rounds=${STRESS_ROUNDS:-8}
limit=${STRESS_TIMEOUT:-300}   # seconds for each run
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/stress" "$PROGRAMS/trace_stress.c" -no-pie
nm "$T/stress" > "$T/nm"
set +e
timeout "$limit" "$T/stress" "$threads" "$rounds" > "$T/plain.out" 2>/dev/null; plain=$?
mkdir "$T/tr"
timeout "$limit" env CALLTRACE_OUTPUT="$T/tr/t-%p.raw" LD_PRELOAD="$LIB" \
    "$T/stress" "$threads" "$rounds" > "$T/traced.out" 2> "$T/traced.err"; rc=$?
set -e
expect_eq "plain status" 3 "$plain"
[ "$rc" -ne 124 ] || fail "no end within $limit s (deadlock?)"
expect_eq "status" 3 "$rc"
cmp -s "$T/plain.out" "$T/traced.out" || fail "output differs: $(cat "$T/traced.out")"
grep -q '^async=[0-9]*$' "$T/traced.err" && [ "$(wc -l < "$T/traced.err")" = 1 ] ||
    fail "stderr: $(head -n 3 "$T/traced.err")"
async=$(sed 's/async=//' "$T/traced.err")
get() { sed "s/.* $1=\([0-9]*\).*/\1/" "$T/plain.out"; }
forks=$(get forks)
expect_eq "files" $((forks + 1)) "$(ls "$T/tr" | wc -l)"
parent=""
child_leaf=0
for raw in "$T/tr"/*.raw; do
    "$DEC" -n "$T/nm" "$raw" > "$raw.txt" || fail "decode $raw: $(tail -n 1 "$raw.txt")"
    expect_eq "$raw: nested" "check ok" "$(tail -n 1 "$raw.txt")"
    head -n 1 "$raw.txt" | has ' flags=5 ' || fail "$raw: not closed cleanly: $(head -n 1 "$raw.txt")"
    if awk '$3=="C" && $4=="child_work"' "$raw.txt" | has .; then
        # A forked child: its own calls only, exactly.
        expect_eq "$raw: leaf" 100 "$(awk '$3=="C" && $4=="leaf"' "$raw.txt" | wc -l)"
        lost=$(head -n 1 "$raw.txt" | sed 's/.* lost=\([0-9]*\).*/\1/')
        expect_eq "$raw: lost" 0 "$lost"
        child_leaf=$((child_leaf + 100))
    else
        [ -z "$parent" ] || fail "two parent files: $parent $raw"
        parent=$raw
    fi
done
expect_eq "children's leaf calls" "$(get leaf_children)" "$child_leaf"
[ -n "$parent" ] || fail "no parent file"
c() { awk -v f="$1" '$3=="C" && $4==f' "$parent.txt" | wc -l; }
lost=$(head -n 1 "$parent.txt" | sed 's/.* lost=\([0-9]*\).*/\1/')
threads_seen=$(head -n 1 "$parent.txt" | sed 's/.* threads=\([0-9]*\).*/\1/')
# Each worker, each short thread, the signaller and main.
expect_eq "threads" $((threads + $(get short_threads) + 2)) "$threads_seen"
for f in leaf:leaf_parent on_sync:sync short_thread:short_threads; do
    want=$(get "${f#*:}")
    got=$(c "${f%:*}")
    # Events dropped while an async handler interrupted the tracer are
    # counted in lost; nothing else may be missing, nothing invented.
    [ "$got" -le "$want" ] && [ $((got + lost)) -ge "$want" ] ||
        fail "${f%:*}: $got in the trace, $want made, $lost lost"
done
got=$(c on_async)
[ "$got" -le "$async" ] && [ $((got + lost)) -ge "$async" ] ||
    fail "on_async: $got in the trace, $async handled, $lost lost"
echo "ok: $threads threads x $rounds rounds, $forks forks, $async async signals, $lost lost"
