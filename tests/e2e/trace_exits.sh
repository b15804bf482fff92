#!/usr/bin/env bash
# Every way a process ends: the exit status is the program's, a clean end
# is closed cleanly (quick_exit included), and at a clean end the frames
# other threads still have open (main waiting while a worker calls exit)
# end at the exit in a last block of their own, so no thread's time is lost.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/ex" "$PROGRAMS/trace_exits.c" -no-pie
nm "$T/ex" > "$T/nm"
ulimit -c 0
# mode status header-flags open-frames-of-main-at-its-end
while read -r mode status flags mainstack; do
    mkdir "$T/$mode"
    ( set +e; timeout 30 env CALLTRACE_OUTPUT="$T/$mode/t-%p.raw" LD_PRELOAD="$LIB" \
        "$T/ex" $mode "$T/ex" > /dev/null 2> "$T/$mode.err"; echo $? > "$T/rc" ) 2>/dev/null
    expect_eq "$mode: status" "$status" "$(cat "$T/rc")"
    [ ! -s "$T/$mode.err" ] || fail "$mode: tracer spoke: $(cat "$T/$mode.err")"
    raw=$(ls "$T/$mode"/*.raw | sed -n 1p)
    "$DEC" -n "$T/nm" "$raw" > "$T/$mode.txt" || fail "$mode: decode: $(tail -n 1 "$T/$mode.txt")"
    expect_eq "$mode: check" "check ok" "$(tail -n 1 "$T/$mode.txt")"
    head -n 1 "$T/$mode.txt" | has " flags=$flags " || fail "$mode: header $(head -n 1 "$T/$mode.txt")"
    expect_eq "$mode: steps" 10 "$(awk '$3=="C" && $4=="step"' "$T/$mode.txt" | sed -n 1,10p | wc -l)"
    if [ "$mainstack" != - ]; then
        pid=$(head -n 1 "$T/$mode.txt" | sed 's/H pid=\([0-9]*\).*/\1/')
        # The main thread's last block: the frames still open, then X.
        last=$(awk -v p="$pid" '$1=="B"{inb=($2==p)} inb && $1==p' "$T/$mode.txt" | tail -n 2 |
               awk '{ $1=""; $2=""; print }' | sed 's/^ *//' | paste -sd'|')
        expect_eq "$mode: main's end" "K $mainstack|X" "$last"
    fi
done <<'MODES'
quick_exit 3 5 -
thread_exit 0 5 2 main waiter
thread__exit 6 5 2 main waiter
signal_exit 4 5 -
atexit_exit 5 5 -
main_pthread_exit 0 5 -
thread_abort 134 4 -
MODES
grep -q '^[0-9]* [0-9]* C on_quick ' "$T/quick_exit.txt" || fail "quick_exit: handler not traced"
grep -q '^[0-9]* [0-9]* C on_signal ' "$T/signal_exit.txt" || fail "signal_exit: handler not traced"

# exec from a thread: the old image's file is closed cleanly with main's
# frames ended; the new image writes its own.
mkdir "$T/exec"
set +e
timeout 30 env CALLTRACE_OUTPUT="$T/exec/t.raw" LD_PRELOAD="$LIB" "$T/ex" thread_exec "$T/ex" > /dev/null 2> "$T/exec.err"; rc=$?
set -e
expect_eq "thread_exec: status" 7 "$rc"
expect_eq "thread_exec: files" 2 "$(ls "$T/exec" | wc -l)"
"$DEC" -n "$T/nm" "$T/exec/t.raw" > "$T/exec.txt" || fail "exec: decode"
head -n 1 "$T/exec.txt" | has " flags=5 " || fail "exec: header $(head -n 1 "$T/exec.txt")"
grep -q ' K 2 main waiter$' "$T/exec.txt" || fail "exec: main's frames not ended"
echo ok
