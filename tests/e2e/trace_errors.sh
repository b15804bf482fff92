#!/usr/bin/env bash
# Bad configuration values and an unwritable output: one clear line on
# stderr each, the program's output and exit status unchanged.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/calls" "$PROGRAMS/trace_calls.c"
set +e
out=$("$T/calls"); rc=$?
bad_out=$(run_traced "$T/nodir/x/out.raw" "$T/calls" 2>"$T/err"); bad_rc=$?
set -e
expect_eq "status" "$rc" "$bad_rc"
expect_eq "stdout" "$out" "$bad_out"
expect_eq "stderr lines" 1 "$(wc -l < "$T/err")"
grep -q "^calltrace: cannot write trace to $T/nodir/x/out.raw: .*; tracing stopped\$" "$T/err" ||
    fail "message: $(cat "$T/err")"
[ ! -e "$T/nodir" ] || fail "created a directory"

# Quiet: not a word.
set +e
CALLTRACE_QUIET=1 run_traced "$T/nodir/out.raw" "$T/calls" >/dev/null 2>"$T/err"
set -e
expect_eq "quiet" "" "$(cat "$T/err")"

set +e
bad_out=$(CALLTRACE_BUFSIZE=abc CALLTRACE_LIMIT=lots CALLTRACE_CLOCK=sundial \
    CALLTRACE_START_PAUSED=maybe CALLTRACE_SIGNAL=NOPE \
    run_traced "$T/ok.raw" "$T/calls" 2>"$T/err"); bad_rc=$?
set -e
expect_eq "status (bad values)" "$rc" "$bad_rc"
expect_eq "stdout (bad values)" "$out" "$bad_out"
expect_eq "first line" "calltrace: CALLTRACE_BUFSIZE='abc': expected a size such as 64K or 4M; using 1M" \
    "$(grep BUFSIZE "$T/err")"
expect_eq "stderr lines (bad values)" 5 "$(wc -l < "$T/err")"
for v in LIMIT CLOCK START_PAUSED SIGNAL; do
    grep -q "^calltrace: CALLTRACE_$v='[^']*': expected .*; using .*" "$T/err" || fail "no line for $v"
done
[ -s "$T/ok.raw" ] || fail "no trace with defaults"
echo ok
