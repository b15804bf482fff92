#!/usr/bin/env bash
# CALLTRACE_FLIGHT with threads that each hold a slot of the ring while
# they wait (tests/programs/flight_threads.c).  A small ring is cut into
# 16 slots, so 2M holds 5 threads; a ring with as many slots as threads
# still keeps the busy thread's newest calls, which takes its own slot
# again, and loses nothing; with more threads than slots the threads that
# find none lose their events, counted, and the program never knows.
# Before, a 2M ring was 4 slots of 1M, and the busy thread lost every
# event after its first block, trying the whole ring for each (30x slower).
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/ft" "$PROGRAMS/flight_threads.c"
"$T/ft" 5 > "$T/plain.out"

calls() {  # FILE NAME: the flat profile's call count of NAME
    awk -v n="$2" '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
        f && NF > 2 && $(NF-1) == n { print ($4 ~ /^[0-9]+$/) ? $4 : "open" }' "$1"
}

run() {  # WHAT THREADS RING [VAR=VALUE...]: traces ft, reports into WHAT.txt
    local what=$1 threads=$2 ring=$3; shift 3
    local calls=300000
    [ "$ring" = 256K ] || calls=2000000
    env CALLTRACE_FLIGHT="$ring" CALLTRACE_OUTPUT="$T/$what.raw" "$@" \
        LD_PRELOAD="$LIB" "$T/ft" "$threads" "$calls" > "$T/$what.out" 2> "$T/$what.err" ||
        fail "$what: status $?"
    [ ! -s "$T/$what.err" ] || fail "$what: the tracer spoke: $(cat "$T/$what.err")"
    "$REPORT_SAN" -b "$T/$what.raw" > "$T/$what.txt" 2> "$T/$what.rerr" ||
        fail "$what: report: $(cat "$T/$what.rerr")"
    expect_eq "$what: tail, the newest calls" 300 "$(calls "$T/$what.txt" tail)"
}
lost() { sed -n 's/^ Lost events: \([0-9]*\).*/\1/p' "$T/$1.txt"; }
ring() { sed -n 's/^ flight recorder: ring of \([0-9]*\) blocks, \([^;]*\);.*/\1 \2/p' "$T/$1.txt"; }
overwritten() { sed -n 's/.*; \([0-9]*\) older blocks overwritten.*/\1/p' "$T/$1.txt"; }

# 2M with the default 1M blocks: 16 slots of 128K for 5 threads.
run small 4 2M
expect_eq "small: the ring" "16 2 MiB" "$(ring small)"
expect_eq "small: lost" 0 "$(lost small)"
[ "$(overwritten small)" -gt 0 ] || fail "small: the ring never turned"

# As many slots as threads (4 of 64K): the busy thread turns on its own.
run full 3 256K
expect_eq "full: the ring" "4 256 KiB" "$(ring full)"
expect_eq "full: lost" 0 "$(lost full)"
[ "$(overwritten full)" -gt 10 ] || fail "full: the ring turned $(overwritten full) times"
# The idle threads' 3 x 100 leaf calls stay in the slots they hold.
leaves=$(calls "$T/full.txt" leaf)
[ "$leaves" -ge 300 ] || fail "full: $leaves leaf calls kept"

# More threads than slots: some find none; their events are counted lost
# and the program's output is as untraced.
run over 5 256K
[ "$(lost over)" -gt 0 ] || fail "over: nothing counted lost"
cmp -s "$T/plain.out" "$T/over.out" || fail "over: the output differs"
echo ok
