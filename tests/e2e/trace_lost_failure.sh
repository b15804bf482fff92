#!/usr/bin/env bash
# What a trace does when a new block cannot be had.
#  - For now (here: the program holds every descriptor it may, so the file
#    cannot be reopened, EMFILE): one line, the thread's events are counted
#    lost, and it tries again every 10 ms; once the program gives its
#    descriptors back, recording goes on.  Before, tracing stopped for good
#    and dropped the rest without a count.
#  - For good (here: the process gave up its user, run as root, and the
#    file is root's): one line, tracing stops, and every later call and
#    return is still counted lost.
# Either way recorded plus lost is exactly what the program made, library
# calls included (a lazily bound slot's first call that is not recorded
# used to leave the slot unpatched, so its later calls went uncounted).
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/lost" "$PROGRAMS/lost_after_failure.c"
total() {  # calls and returns recorded, plus events lost
    awk '/^ Events:/ {c = substr($3, 2); r = $5}
         /^ Lost events:/ {l = $3} END {print c + r + l}' "$1"
}
calls_of() {  # NAME REPORT: calls column of NAME in the flat profile
    awk -v n="$1" 'NF > 1 && $(NF-1) == n && $4 ~ /^[0-9]+$/ {print $4}' "$2"
}
for libcalls in plt none; do
    rm -rf "$T/out"; mkdir "$T/out"
    out=$(CALLTRACE_LIBCALLS=$libcalls CALLTRACE_BUFSIZE=64K \
        CALLTRACE_OUTPUT="$T/out/t.raw" LD_PRELOAD=$LIB "$T/lost" 2> "$T/err") ||
        fail "$libcalls: the program failed: $out $(cat "$T/err")"
    want=${out#events=}
    # Without library calls recorded, only main's and f's events count.
    [ $libcalls = none ] && want=4000002
    expect_eq "$libcalls: one line" 1 "$(wc -l < "$T/err")"
    has "cannot reopen the file: Too many open files; events are counted lost until it can" "$T/err" ||
        fail "$libcalls: message: $(cat "$T/err")"
    "$REPORT" -b -p "$T/out/t.raw" > "$T/report" || fail "$libcalls: report"
    expect_eq "$libcalls: calls and returns, recorded or counted lost" "$want" \
        "$(total "$T/report")"
    lost=$(awk '/^ Lost events:/ {print $3}' "$T/report")
    [ "$lost" -gt 1000000 ] || fail "$libcalls: only $lost lost"
    f=$(calls_of f "$T/report")
    [ "$f" -gt 900000 ] && [ "$f" -lt 1100000 ] ||
        fail "$libcalls: $f calls of f recorded: not the second million"
    [ $libcalls = none ] ||
        expect_eq "plt: getppid@plt after the gap" 1000 "$(calls_of getppid@plt "$T/report")"
    # The blocks tried for in the gap were given back: no holes.
    apparent=$(stat -c %s "$T/out/t.raw")
    allocated=$(( $(stat -c %b "$T/out/t.raw") * $(stat -c %B "$T/out/t.raw") ))
    [ "$apparent" -le "$allocated" ] ||
        fail "$libcalls: $apparent bytes long, $allocated allocated: holes from the gap"
done

[ "$(id -u)" = 0 ] || { echo "ok (the setuid case needs root)"; exit 0; }
build_traced "$T/setuid" "$PROGRAMS/lost_setuid.c"
rm -rf "$T/out"; mkdir "$T/out"; chmod 755 "$T" "$T/out"
out=$(CALLTRACE_LIBCALLS=none CALLTRACE_BUFSIZE=64K \
    CALLTRACE_OUTPUT="$T/out/t.raw" LD_PRELOAD=$LIB "$T/setuid" 2> "$T/err") ||
    fail "setuid: the program failed: $out $(cat "$T/err")"
expect_eq "setuid: output" done "$out"
has "cannot reopen the file: Permission denied; tracing stopped" "$T/err" ||
    fail "setuid: message: $(cat "$T/err")"
"$REPORT" -b -p "$T/out/t.raw" > "$T/report" || fail "setuid: report"
has "stopped early after a write failure" "$T/report" ||
    fail "setuid: the report does not say the trace stopped early"
expect_eq "setuid: calls and returns, recorded or counted lost" 2200002 \
    "$(total "$T/report")"
echo "ok: a gap is counted and closed, a stop is counted"
