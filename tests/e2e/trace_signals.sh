#!/usr/bin/env bash
# CALLTRACE_SIGNAL refuses every signal the program or the tracer needs with
# one line, and a crash under such a setting still dies with its status;
# a program that takes the toggle signal keeps its handler and is told once.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/crash" "$PROGRAMS/trace_crash.c" -no-pie
build_traced "$T/sig" "$PROGRAMS/trace_signals.c" -no-pie
nm "$T/sig" > "$T/nm"
ulimit -c 0
for s in SEGV BUS ILL FPE ABRT TRAP SYS KILL STOP PROF CHLD INT TERM 11; do
    # The subshell keeps bash's own "Segmentation fault" line out of the log.
    ( set +e; CALLTRACE_SIGNAL=$s timeout 20 env CALLTRACE_OUTPUT="$T/$s.raw" \
        LD_PRELOAD="$LIB" "$T/crash" segv 2> "$T/$s.err"; echo $? > "$T/rc" ) 2>/dev/null
    rc=$(cat "$T/rc")
    expect_eq "$s: crash status" 139 "$rc"
    expect_eq "$s: lines" 1 "$(wc -l < "$T/$s.err")"
    grep -q "^calltrace: CALLTRACE_SIGNAL='$s': SIG[A-Z]* is needed by the program or the tracer; expected USR1, USR2 or a real-time signal ([0-9]*-[0-9]*); using none$" "$T/$s.err" ||
        fail "$s: message: $(cat "$T/$s.err")"
done

for how in signal sigaction; do
    "$T/sig" $how > "$T/plain.out"
    CALLTRACE_SIGNAL=USR2 run_traced "$T/$how.raw" "$T/sig" $how > "$T/$how.out" 2> "$T/$how.err"
    cmp -s "$T/plain.out" "$T/$how.out" || fail "$how: output $(cat "$T/$how.out")"
    expect_eq "$how: handled" handled=3 "$(cat "$T/$how.out")"
    expect_eq "$how: message" "calltrace: the program installed its own handler for SIGUSR2 (CALLTRACE_SIGNAL): its handler wins; the signal no longer toggles tracing" "$(cat "$T/$how.err")"
    "$DEC" -n "$T/nm" "$T/$how.raw" > "$T/$how.txt" || fail "$how: decode"
    expect_eq "$how: work traced" 3 "$(awk '$3=="C" && $4=="work"' "$T/$how.txt" | wc -l)"
    expect_eq "$how: no toggle" 0 "$(awk '$3=="T"' "$T/$how.txt" | wc -l)"
done
echo ok
