#!/usr/bin/env bash
# The tracer holds no descriptor of the program's: programs that close every
# descriptor, close_range, dup2 over low numbers, reuse numbers, or daemonize
# and close everything, get byte-identical files and output with and without
# the tracer, and the trace is still complete.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/fds" "$PROGRAMS/trace_fds.c" -no-pie
nm "$T/fds" > "$T/nm"
for mode in closeall range dup2 reuse daemon; do
    mkdir -p "$T/plain-$mode" "$T/traced-$mode" "$T/trace-$mode"
    set +e
    "$T/fds" $mode "$T/plain-$mode" > "$T/plain-$mode.out"; plain=$?
    CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT="$T/trace-$mode/t-%p.raw" \
        LD_PRELOAD=$LIB "$T/fds" $mode "$T/traced-$mode" \
        > "$T/traced-$mode.out" 2> "$T/$mode.err"; traced=$?
    set -e
    expect_eq "$mode: status" 0 "$plain"
    expect_eq "$mode: traced status" 0 "$traced"
    diff -r "$T/plain-$mode" "$T/traced-$mode" > /dev/null ||
        fail "$mode: the program's files differ under the tracer"
    cmp -s "$T/plain-$mode.out" "$T/traced-$mode.out" || fail "$mode: stdout differs"
    [ ! -s "$T/$mode.err" ] || fail "$mode: tracer spoke: $(head -n 2 "$T/$mode.err")"
    want=$(sed -n 's/^f=\([0-9]*\).*/\1/p' "$T/plain-$mode.out")
    total=0
    for raw in "$T/trace-$mode"/*.raw; do
        "$DEC" -n "$T/nm" "$raw" > "$raw.txt" || fail "$mode: decode $raw: $(tail -n 1 "$raw.txt")"
        head -n 1 "$raw.txt" | grep -q ' flags=5 ' || fail "$mode: not closed cleanly: $(head -n 1 "$raw.txt")"
        n=$(awk '$3=="C" && $4=="f"' "$raw.txt" | wc -l)
        total=$((total + n))
    done
    expect_eq "$mode: calls of f in the trace" "$want" "$total"
done
echo ok
