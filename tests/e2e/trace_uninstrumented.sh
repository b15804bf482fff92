#!/usr/bin/env bash
# A program built without -finstrument-functions that records user events:
# the tracer says once at exit why the trace has no calls, and the report's
# summary says it too.  One that records nothing leaves no file.
# An instrumented program, even one that never turns tracing on, hears
# nothing.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$T/plain" "$PROGRAMS/trace_calls.c"
build_traced "$T/traced" "$PROGRAMS/trace_calls.c"
set +e
"$T/plain" > "$T/want.out"; want=$?
run_traced "$T/p.raw" "$T/plain" > "$T/p.out" 2> "$T/p.err"; rc=$?
set -e
expect_eq "status" "$want" "$rc"
cmp -s "$T/want.out" "$T/p.out" || fail "output differs"
expect_eq "message" "calltrace: $T/plain ran no instrumented function, so the trace has no calls; build it with -finstrument-functions, or use CALLTRACE_MODE=sample" "$(cat "$T/p.err")"
"$REPORT_SAN" "$T/p.raw" > "$T/p.txt" 2> "$T/r.err" || fail "report: $(cat "$T/r.err")"
grep -q "^ calls: none: the program ran no instrumented function; build it with -finstrument-functions, or use CALLTRACE_MODE=sample$" "$T/p.txt" ||
    fail "report does not say it: $(head -n 20 "$T/p.txt")"

set +e
CALLTRACE_QUIET=1 run_traced "$T/q.raw" "$T/plain" > /dev/null 2> "$T/q.err"
CALLTRACE_MODE=both run_traced "$T/b.raw" "$T/plain" > /dev/null 2> "$T/b.err"
CALLTRACE_START_PAUSED=1 run_traced "$T/s.raw" "$T/traced" > /dev/null 2> "$T/s.err"
run_traced "$T/t.raw" "$T/traced" > /dev/null 2> "$T/t.err"
set -e
expect_eq "quiet" "" "$(cat "$T/q.err")"
# both mode: the samples are the trace; the summary alone says no call ran
expect_eq "both mode" "" "$(cat "$T/b.err")"
"$REPORT_SAN" "$T/b.raw" > "$T/b.txt" 2>/dev/null || fail "report b"
grep -q "^ calls: none" "$T/b.txt" || fail "both mode: summary does not say no call ran"
expect_eq "paused, instrumented" "" "$(cat "$T/s.err")"
expect_eq "instrumented" "" "$(cat "$T/t.err")"
"$REPORT_SAN" "$T/t.raw" > "$T/t.txt" 2>/dev/null || fail "report t"
! grep -q "^ calls: none" "$T/t.txt" || fail "instrumented program reported as not"
# A shell (not instrumented) running the program: the shell records
# nothing, so it leaves no file and says nothing (the file is made at the
# first event); the program it runs, whose user events make a trace, keeps
# quiet too, its parent being traced.
mkdir "$T/sh"
(cd "$T/sh" && LD_PRELOAD=$LIB sh -c "$T/plain > /dev/null; ls > /dev/null") 2> "$T/sh.err" || true
expect_eq "a shell and its child say nothing" "" "$(cat "$T/sh.err")"
expect_eq "one file: the program's, not the shell's nor ls's" 1 "$(ls "$T/sh" | wc -l)"
"$REPORT_SAN" -b "$T/sh"/*.raw > "$T/sh.txt" 2>&1 || fail "report of the shell's child: $(tail -n 2 "$T/sh.txt")"
has "$T/plain" "$T/sh.txt" || fail "the one file is not the program's: $(head -n 5 "$T/sh.txt")"
# dash, ls and true alone: nothing at all, in the profile mode too, and
# with library calls recorded, as users have them by default (the
# profile mode's measure of a library call's cost at start once made the
# file there, and a process that kept its stderr then said it ran no
# instrumented function: dash here, python3 under zstd's test suite).
for mode in trace profile; do
    for libcalls in default none; do
        d=$T/none-$mode-$libcalls
        mkdir "$d"
        (cd "$d" && if [ $libcalls = default ]; then unset CALLTRACE_LIBCALLS; fi &&
            CALLTRACE_MODE=$mode LD_PRELOAD=$LIB dash -c 'ls > /dev/null; true') \
            2> "$T/none.err" || true
        expect_eq "dash and ls, $mode mode, library calls $libcalls: nothing said" "" "$(cat "$T/none.err")"
        expect_eq "dash and ls, $mode mode, library calls $libcalls: no file" "" "$(ls "$d")"
    done
done
echo ok
