#!/usr/bin/env bash
# A trace that fails part-way with its file still there (here: no
# descriptor left to reopen it for the next block) says so in one line,
# and counts every call and return it did not record: recorded plus lost
# is exactly what the program made, library calls included (a lazily
# bound slot's first call after the failure used to leave the slot
# unpatched, so its later calls went uncounted).  Before, everything after
# the failure was dropped without a count.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/lost" "$PROGRAMS/lost_after_failure.c"
for libcalls in plt none; do
    rm -rf "$T/out"; mkdir "$T/out"
    out=$(CALLTRACE_LIBCALLS=$libcalls CALLTRACE_BUFSIZE=64K \
        CALLTRACE_OUTPUT="$T/out/t.raw" LD_PRELOAD=$LIB "$T/lost" 2> "$T/err") ||
        fail "$libcalls: the program failed: $out $(cat "$T/err")"
    want=${out#events=}
    # Without library calls recorded, only main's and f's events count.
    [ $libcalls = none ] && want=2000002
    expect_eq "$libcalls: one line" 1 "$(wc -l < "$T/err")"
    has "cannot reopen the file: Too many open files; tracing stopped" "$T/err" ||
        fail "$libcalls: message: $(cat "$T/err")"
    "$REPORT" -b -p "$T/out/t.raw" > "$T/report" || fail "$libcalls: report"
    has "stopped early after a write failure" "$T/report" ||
        fail "$libcalls: the report does not say the trace stopped early"
    got=$(awk '/^ Events:/ {c = substr($3, 2); r = $5}
               /^ Lost events:/ {l = $3} END {print c + r + l}' "$T/report")
    expect_eq "$libcalls: calls and returns, recorded or counted lost" "$want" "$got"
    lost=$(awk '/^ Lost events:/ {print $3}' "$T/report")
    [ "$lost" -gt 1000000 ] || fail "$libcalls: only $lost lost"
done
echo "ok: a trace that stops early counts what it did not record"
