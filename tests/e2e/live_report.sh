#!/usr/bin/env bash
# The report of a trace that is still being written, of a copy made while
# it was, and of a process killed by SIGKILL: every call up to the last
# complete record, and a summary line that says which.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/spin" "$PROGRAMS/live_spin.c"

# flat_calls FILE FUNCTION: the calls column of FUNCTION's flat profile row
flat_calls() {
    "$REPORT_SAN" -p -b "$1" 2>"$T/err" |
        awk -v f="$2" 'NF > 2 && $(NF-1) == f && $NF ~ /^\[/ && !done { print $4; done = 1 }'
}

# start_blocked NAME: spin block 1000 traced into $T/NAME.raw, waiting on
# the fifo $T/NAME.in until fd 3 is closed; sets pid.
start_blocked() {
    rm -f "$T/$1.in"
    mkfifo "$T/$1.in"
    CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT=$T/$1.raw LD_PRELOAD=$LIB \
        "$T/spin" block 1000 < "$T/$1.in" > "$T/$1.out" &
    pid=$!
    exec 3> "$T/$1.in"
    for _ in $(seq 200); do
        grep -q ready "$T/$1.out" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "$1: the program never got ready"
}

# Still running: live, and the 1000 calls of step are all there.
start_blocked run
cp "$T/run.raw" "$T/copy.raw"
expect_eq "running: step calls" 1000 "$(flat_calls "$T/run.raw" step)"
"$REPORT_SAN" -p "$T/run.raw" > "$T/run.txt" 2>&1
grep -q "trace: live: not closed, its process (pid $pid) is still running" \
    "$T/run.txt" || fail "running: no live line: $(grep trace: "$T/run.txt")"
# Every view tells the same story: the dump has the same calls.
expect_eq "running: dump calls of step" 1000 \
    "$("$REPORT_SAN" --dump "$T/run.raw" | awk '$2 == "C" && $3 == "step"' | wc -l)"

# It ends cleanly: closed, nothing about live any more.
exec 3>&-
wait "$pid" || fail "running: status $?"
"$REPORT_SAN" -p "$T/run.raw" > "$T/done.txt" 2>&1
grep -q "trace: " "$T/done.txt" && fail "closed: $(grep 'trace: ' "$T/done.txt")"
expect_eq "closed: wait_here calls" 1 "$(flat_calls "$T/run.raw" wait_here)"

# The copy made while it ran: its process is gone now, the copy says so.
expect_eq "copy: step calls" 1000 "$(flat_calls "$T/copy.raw" step)"
"$REPORT_SAN" -p "$T/copy.raw" > "$T/copy.txt" 2>&1
grep -q "trace: not closed cleanly: its process (pid $pid) is gone" \
    "$T/copy.txt" || fail "copy: $(grep trace: "$T/copy.txt")"

# SIGKILL while it waits: gone, and everything up to the kill is there,
# wait_here's call included.
start_blocked kill
kill -9 "$pid"
set +e; wait "$pid"; rc=$?; set -e
exec 3>&-
expect_eq "killed" KILL "$(kill -l $rc)"
expect_eq "killed: step calls" 1000 "$(flat_calls "$T/kill.raw" step)"
expect_eq "killed: wait_here calls" 1 "$(flat_calls "$T/kill.raw" wait_here)"
"$REPORT_SAN" -p "$T/kill.raw" > "$T/kill.txt" 2>&1
grep -q "trace: not closed cleanly: its process (pid $pid) is gone" \
    "$T/kill.txt" || fail "killed: $(grep trace: "$T/kill.txt")"
echo ok
