#!/usr/bin/env bash
# A program that turns the TSC off for itself (prctl(PR_SET_TSC,
# PR_TSC_SIGSEGV)) runs traced as untraced, with each clock (tsc,
# tsc-fenced, monotonic): the tracer moves to CLOCK_MONOTONIC by system
# call first and records on.  One that
# enters seccomp strict mode (prctl or the seccomp system call) runs as
# untraced too: the trace is closed first, with one line.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/notsc" "$PROGRAMS/trace_notsc.c" -no-pie
nm "$T/notsc" > "$T/nm"
N=20000
set +e
"$T/notsc" tsc $N > "$T/plain" 2> "$T/plain.err"; rc=$?
set -e
[ $rc -eq 77 ] && skip "PR_SET_TSC is not available here: $(cat "$T/plain.err")"
[ $rc -eq 0 ] || fail "untraced run: $rc"
ulimit -c 0
# Some hypervisors let the TSC be read anyway: then the clock's switch is
# checked, not the fault it avoids.
( "$T/notsc" enforced 0 ) 2>/dev/null && echo "note: PR_SET_TSC does not make the TSC fault on this machine"
for clock in tsc tsc-fenced monotonic; do
    rm -f "$T"/t.raw*
    set +e
    ( CALLTRACE_CLOCK=$clock CALLTRACE_BUFSIZE=4K run_traced "$T/t.raw" "$T/notsc" tsc $N \
        > "$T/$clock.out" 2> "$T/$clock.err"; echo $? > "$T/rc" ) 2>/dev/null
    set -e
    expect_eq "$clock: status" 0 "$(cat "$T/rc")"
    cmp -s "$T/plain" "$T/$clock.out" || fail "$clock: output $(cat "$T/$clock.out")"
    [ ! -s "$T/$clock.err" ] || fail "$clock: stderr $(cat "$T/$clock.err")"
    "$DEC" -n "$T/nm" "$T/t.raw" > "$T/$clock.txt" || fail "$clock: decode: $(tail -n 1 "$T/$clock.txt")"
    # main's calls before and after, and the thread's, all recorded.
    expect_eq "$clock: f calls" $((3 * N)) "$(awk '$3=="C" && $4=="f"' "$T/$clock.txt" | wc -l)"
    expect_eq "$clock: note" 1 "$(awk '$3=="V"' "$T/$clock.txt" | grep -c 'turned the TSC off')"
    child=$(ls "$T"/t.raw.* | sed -n 1p)
    "$DEC" -n "$T/nm" "$child" > "$T/$clock.child" || fail "$clock: child decode"
    expect_eq "$clock: child's f calls" "$N" "$(awk '$3=="C" && $4=="f"' "$T/$clock.child" | wc -l)"
done

for how in strict strict-sys; do
    set +e
    "$T/notsc" $how $N > "$T/plain" 2> "$T/plain.err"; prc=$?
    rm -f "$T"/t.raw*
    # 4 KiB blocks: the calls after it would need a new block, opened by
    # a system call the mode forbids.
    ( CALLTRACE_BUFSIZE=4K run_traced "$T/t.raw" "$T/notsc" $how $N > "$T/$how.out" 2> "$T/$how.err"; echo $? > "$T/rc" ) 2>/dev/null
    set -e
    [ $prc -eq 77 ] && skip "seccomp strict mode is not available here: $(cat "$T/plain.err")"
    expect_eq "$how: status" "$prc" "$(cat "$T/rc")"
    cmp -s "$T/plain" "$T/$how.out" || fail "$how: output $(cat "$T/$how.out")"
    expect_eq "$how: message" "calltrace: the program enters seccomp strict mode, where the tracer can neither read a clock nor write its trace: the trace ends here" "$(cat "$T/$how.err")"
    "$DEC" -n "$T/nm" "$T/t.raw" > "$T/$how.txt" || fail "$how: decode"
    expect_eq "$how: f calls before" "$N" "$(awk '$3=="C" && $4=="f"' "$T/$how.txt" | wc -l)"
done
echo ok
