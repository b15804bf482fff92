#!/usr/bin/env bash
# abort and SIGSEGV keep what was written and die by the same signal;
# a SIGKILL mid-run leaves a trace that still decodes, and a run that
# takes the killed run's file name at once gets a whole trace of its own.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/crash" "$PROGRAMS/trace_crash.c" -no-pie
nm "$T/crash" > "$T/nm"
ulimit -c 0
for how in abort segv; do
    set +e
    "$T/crash" "$how" 2>/dev/null; plain=$?
    run_traced "$T/$how.raw" "$T/crash" "$how" 2>"$T/err"; traced=$?
    set -e
    expect_eq "$how: status" "$plain" "$traced"
    expect_eq "$how: signal" "$([ $how = abort ] && echo ABRT || echo SEGV)" "$(kill -l $traced)"
    "$DEC" -n "$T/nm" "$T/$how.raw" > "$T/$how.txt" || fail "$how: decode: $(tail -n 1 "$T/$how.txt")"
    expect_eq "$how: step calls" 10 "$(awk '$3=="C" && $4=="step"' "$T/$how.txt" | wc -l)"
    expect_eq "$how: step returns" 10 "$(awk '$3=="R"' "$T/$how.txt" | wc -l)"
    expect_eq "$how: event" "about to $how" "$(awk '$3=="V"{sub(/^[^ ]+ [^ ]+ V /,""); print}' "$T/$how.txt")"
    expect_eq "$how: crash entered" 1 "$(awk '$3=="C" && $4=="crash"' "$T/$how.txt" | wc -l)"
    # Closed by the handler, but not a clean finish.
    case $(head -n 1 "$T/$how.txt") in *" flags=4 threads=1 lost=0 "*) ;;
        *) fail "$how: header $(head -n 1 "$T/$how.txt")";; esac
    grep -q '^B .* flags=1 ' "$T/$how.txt" || fail "$how: block not closed"
done

# SIGKILL: nothing runs at the end, the mapping keeps the data.
CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT=$T/kill.raw LD_PRELOAD=$LIB \
    "$T/crash" spin > "$T/fifo.out" &
pid=$!
for _ in $(seq 100); do grep -q ready "$T/fifo.out" 2>/dev/null && break; sleep 0.05; done
grep -q ready "$T/fifo.out" || { kill -9 $pid; fail "spin never got ready"; }
kill -9 $pid
set +e; wait $pid; rc=$?; set -e
expect_eq "killed" KILL "$(kill -l $rc)"
"$DEC" -n "$T/nm" "$T/kill.raw" > "$T/kill.txt" || fail "kill: decode: $(tail -n 1 "$T/kill.txt")"
ticks=$(awk '$3=="C" && $4=="tick"' "$T/kill.txt" | wc -l)
[ "$ticks" -gt 5000 ] || fail "kill: only $ticks tick calls"
expect_eq "kill: step calls" 10 "$(awk '$3=="C" && $4=="step"' "$T/kill.txt" | wc -l)"

# The same name again at once, three times: a killed run's file keeper
# may still be alive for a few ms, holding its file by descriptor alone;
# the next run, whose file takes the name, gets a whole trace.
for round in 1 2 3; do
    rm -f "$T"/again.raw* "$T/again.out"
    CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT=$T/again.raw LD_PRELOAD=$LIB \
        "$T/crash" spin > "$T/again.out" &
    pid=$!
    for _ in $(seq 100); do grep -q ready "$T/again.out" 2>/dev/null && break; sleep 0.05; done
    kill -9 $pid
    set +e; wait $pid; set -e
    rm -f "$T/again.raw"
    set +e; run_traced "$T/again.raw" "$T/crash" abort 2>/dev/null; set -e
    [ ! -e "$T/again.raw.1" ] || fail "round $round: the name was still taken"
    "$DEC" -n "$T/nm" "$T/again.raw" > "$T/again.txt" ||
        fail "round $round: decode: $(tail -n 1 "$T/again.txt")"
    expect_eq "round $round: step calls" 10 "$(awk '$3=="C" && $4=="step"' "$T/again.txt" | wc -l)"
    expect_eq "round $round: returns" 10 "$(awk '$3=="R"' "$T/again.txt" | wc -l)"
    expect_eq "round $round: event" "about to abort" \
        "$(awk '$3=="V"{sub(/^[^ ]+ [^ ]+ V /,""); print}' "$T/again.txt")"
    grep -q '^B .* flags=1 ' "$T/again.txt" || fail "round $round: block not closed"
done
echo ok
