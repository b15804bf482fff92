#!/usr/bin/env bash
# The trace does not depend on the program's descriptors or user.
#  - The program holds every descriptor it may (EMFILE for any open): the
#    file keeper's descriptor is in a table of its own, so no block is
#    missed: no line, nothing lost, every call recorded.  (Before, the
#    file was reopened in the program's table for each block, and the
#    trace had a gap while the program held them.)
#  - The process gives up its user (run as root; the file is root's): the
#    keeper's descriptor was opened before, as a log file's would be, so
#    the trace goes on, complete.
# Either way recorded plus lost is exactly what the program made, library
# calls included.  A gap that passes (a full disk) is tested in
# trace_storage.sh.
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
    [ ! -s "$T/err" ] || fail "$libcalls: tracer spoke: $(cat "$T/err")"
    "$REPORT" -b -p "$T/out/t.raw" > "$T/report" || fail "$libcalls: report"
    expect_eq "$libcalls: calls and returns, recorded or counted lost" "$want" \
        "$(total "$T/report")"
    expect_eq "$libcalls: lost" 0 "$(awk '/^ Lost events:/ {print $3}' "$T/report")"
    expect_eq "$libcalls: calls of f" 2000000 "$(calls_of f "$T/report")"
    [ $libcalls = none ] ||
        expect_eq "plt: getppid@plt after the gap" 1000 "$(calls_of getppid@plt "$T/report")"
    # No holes in the file.
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
[ ! -s "$T/err" ] || fail "setuid: tracer spoke: $(cat "$T/err")"
"$REPORT" -b -p "$T/out/t.raw" > "$T/report" || fail "setuid: report"
expect_eq "setuid: calls and returns recorded" 2200002 "$(total "$T/report")"
expect_eq "setuid: lost" 0 "$(awk '/^ Lost events:/ {print $3}' "$T/report")"
echo "ok: the trace needs none of the program's descriptors, nor its user"
