#!/usr/bin/env bash
# The kernel sampler keeps its events' descriptors in a descriptor table of
# its own: the program sees the same descriptors and gets the same numbers
# as untraced, and a pipe's end the program closes is closed (a copy left
# in the sampler's table would hold it open: the reader would never see
# end of file).  tests/programs/sample_fds.c; with strace where present,
# the sampler's unshare and period changes are seen to happen.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
gcc -std=gnu11 -O1 -g -o "$T/fds" "$PROGRAMS/sample_fds.c"
"$T/fds" > "$T/plain.out"
grep -q "child: read gave 0" "$T/plain.out" || fail "untraced: $(cat "$T/plain.out")"
# seccomp: the child's sampler is refused a table of its own
for how in cpu wall seccomp; do
    clock=cpu arg=
    [ "$how" = wall ] && clock=wall
    [ "$how" = seccomp ] && arg=seccomp
    set +e
    CALLTRACE_MODE=sample CALLTRACE_SAMPLE_CLOCK=$clock CALLTRACE_SAMPLE_INTERVAL=1ms \
        run_traced "$T/s-$how-%p.raw" "$T/fds" $arg > "$T/$how.out" 2> "$T/$how.err"
    rc=$?
    set -e
    expect_eq "$how: status" 0 "$rc"
    sort "$T/plain.out" > "$T/a"; sort "$T/$how.out" > "$T/b"
    cmp -s "$T/a" "$T/b" || fail "$how: output differs: $(diff "$T/a" "$T/b")"
    for raw in "$T"/s-"$how"-*.raw; do
        "$REPORT" --dump "$raw" | has ' S ' || fail "$how: no samples in $raw"
    done
done
# A period changes at a thread's second reopen of its event (the first,
# 100 ms in, gives it a smaller stack copy, so a new event), then every
# 16 samples or so, at the drain after (preload/sampling/sample_perf.c,
# "Jitter"): under strace, 1 change in 23 samples written (49 of 1123),
# where changes every 100 ms gave 1 in 122 (9 of 1098).  Under strace
# on a loaded machine the sampler counts fewer samples (180 of the
# parent's 300 on 2 busy cores; in a CI run 18 changes), so the burns are
# three times as long there, one change in 80 samples written is asked,
# and a run that falls short is made again.
strace_run() {
    rm -f "$T"/st-*.raw*
    CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms strace -f -o "$T/strace" \
        -e trace=unshare,ioctl env CALLTRACE_OUTPUT="$T/st-%p.raw" LD_PRELOAD="$LIB" \
        "$T/fds" long > /dev/null 2>&1 || fail "under strace: status $?"
    # a call strace saw interrupted ends on a "resumed" line
    [ "$(grep -cE 'unshare(\(CLONE_FILES|.*resumed>)\) *= 0' "$T/strace")" -ge 2 ] ||
        fail "no sampler's table of its own: $(grep unshare "$T/strace")"
    local changes samples=0 f n
    changes=$(grep -cE 'PERF_EVENT_IOC_PERIOD.*\) *= 0|ioctl resumed>.* = 0' "$T/strace")
    for f in "$T"/st-*.raw*; do
        n=$("$REPORT" -b "$f" | sed -n 's/^ Sampled: figures are statistical; \([0-9]*\) samples.*/\1/p')
        samples=$((samples + ${n:-0}))
    done
    [ "$samples" -ge 200 ] || fail "under strace: only $samples samples written"
    why="$changes periods changed through a kept descriptor in $samples samples, one in 80 at least expected"
    [ $((changes * 80)) -ge "$samples" ]
}
if can_strace; then
    three_tries strace_run
else
    echo "strace cannot trace here: the sampler's table and period changes unchecked"
fi
gcc -std=gnu11 -O1 -o "$T/closefrom" "$PROGRAMS/sample_closefrom.c"
seq 100000 > "$T/input"
"$T/closefrom" "$T/input" "$T/output" > "$T/cf-plain.out"
grep -q "read offset 0, written 0" "$T/cf-plain.out" ||
    fail "closefrom untraced: $(cat "$T/cf-plain.out")"
for timer in 1 0; do
    rm -f "$T/output"
    set +e
    CALLTRACE_MODE=sample CALLTRACE_SAMPLE_TIMER=$timer CALLTRACE_SAMPLE_INTERVAL=1ms \
        run_traced "$T/cf-$timer-%p.raw" "$T/closefrom" "$T/input" "$T/output" \
        > "$T/cf-$timer.out" 2> "$T/cf-$timer.err"
    rc=$?
    set -e
    expect_eq "closefrom, timer $timer: status" 0 "$rc"
    cmp -s "$T/cf-plain.out" "$T/cf-$timer.out" ||
        fail "closefrom, timer $timer: $(diff "$T/cf-plain.out" "$T/cf-$timer.out")"
    [ ! -s "$T/output" ] || fail "closefrom, timer $timer: the tracer wrote into the program's file"
    # samples taken; on the program's thread, walked through the whole
    # recursion (the kernel's copy of a stack this deep ends before main)
    "$REPORT" -p -b "$T"/cf-"$timer"-*.raw > "$T/cf-$timer.flat"
    want=" deep \["
    [ "$timer" = 1 ] && want=" main \["
    grep -qE "$want" "$T/cf-$timer.flat" ||
        fail "closefrom, timer $timer: no '$want' in: $(sed -n '/^Flat/,$p' "$T/cf-$timer.flat" | head)"
done
echo "ok: $(tr '\n' ';' < "$T/cpu.out") $(tr '\n' ';' < "$T/cf-1.out")"
