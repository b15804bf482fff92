#!/usr/bin/env bash
# CALLTRACE_FLIGHT: a run many times longer than its ring, then SIGSEGV.
# The trace keeps the newest blocks only, and by construction
# (tests/programs/flight_crash.c) the newest calls are last_a x 1000,
# last_b x 500 and boom, inside run() and main(), which were entered long
# before the oldest kept block: the reader recovers them from its STACK
# record.  early() ran first and is overwritten.  Snapshots by signal and
# by `calltrace control PID snapshot` copy the ring of a running process.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/fc" "$PROGRAMS/flight_crash.c"
ulimit -c 0
export CALLTRACE_FLIGHT=256K CALLTRACE_BUFSIZE=64K

calls() {  # FILE NAME: the flat profile's call count of NAME
    awk -v n="$2" '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
        f && NF > 2 && $(NF-1) == n { print ($4 ~ /^[0-9]+$/) ? $4 : "open" }' "$1"
}

check() {  # WHAT RAW: the newest calls, exactly, and the ring's summary
    local what=$1 raw=$2
    "$REPORT_SAN" -b "$raw" > "$T/$what.txt" 2>"$T/$what.err" ||
        fail "$what: report: $(cat "$T/$what.err")"
    expect_eq "$what: last_a" 1000 "$(calls "$T/$what.txt" last_a)"
    expect_eq "$what: last_b" 500 "$(calls "$T/$what.txt" last_b)"
    expect_eq "$what: early (overwritten)" "" "$(calls "$T/$what.txt" early)"
    expect_eq "$what: run (open before the oldest block)" open "$(calls "$T/$what.txt" run)"
    expect_eq "$what: main" open "$(calls "$T/$what.txt" main)"
    ticks=$(calls "$T/$what.txt" tick)
    [ "$ticks" -gt 1000 ] && [ "$ticks" -lt 400000 ] || fail "$what: $ticks tick calls"
    grep -q '^ Lost events: 0$' "$T/$what.txt" || fail "$what: $(grep Lost "$T/$what.txt")"
    grep -q '^ Unmatched: 0 returns with no call' "$T/$what.txt" || fail "$what: $(grep Unmatched "$T/$what.txt")"
    grep -Eq '^ flight recorder: ring of 4 blocks, 256 KiB; [1-9][0-9]* older blocks overwritten; covers the last ' "$T/$what.txt" ||
        fail "$what: summary: $(grep -i flight "$T/$what.txt")"
    # Every view tells the same story.
    "$REPORT" --dump "$raw" > "$T/$what.dump"
    expect_eq "$what: dump last_b" 500 "$(grep -c ' C last_b$' "$T/$what.dump")"
    expect_eq "$what: dump tick" "$ticks" "$(grep -c ' C tick$' "$T/$what.dump")"
}

set +e
"$T/fc" 2>/dev/null; plain=$?
run_traced "$T/crash.raw" "$T/fc" 2>/dev/null; traced=$?
set -e
expect_eq "status" "$plain" "$traced"
expect_eq "signal" SEGV "$(kill -l $traced)"
size=$(stat -c %s "$T/crash.raw")
# Header, ring and MAPS blocks: far less than the 400000 calls would take.
[ "$size" -lt $((400 * 1024)) ] || fail "trace of $size bytes"
check crash "$T/crash.raw"
expect_eq "boom" 1 "$(calls "$T/crash.txt" boom)"

# Snapshots by signal while the program waits; it is not stopped.
CALLTRACE_CONTROL=1 CALLTRACE_FLIGHT_SIGNAL=USR1 CALLTRACE_OUTPUT=$T/live.raw LD_PRELOAD=$LIB \
    "$T/fc" 400000 pause > "$T/live.out" &
pid=$!
for _ in $(seq 200); do grep -q ready "$T/live.out" 2>/dev/null && break; sleep 0.05; done
grep -q ready "$T/live.out" || { kill -9 $pid; fail "never got ready"; }
kill -USR1 $pid
for _ in $(seq 100); do [ -s "$T/live.raw.snap1" ] && break; sleep 0.05; done
kill -USR1 $pid
for _ in $(seq 100); do [ -s "$T/live.raw.snap2" ] && break; sleep 0.05; done
kill -0 $pid || fail "the program died of the snapshot signal"
# And by the control channel.
expect_eq "control snapshot" "snapshot $T/live.raw.snap3" "$("$FRONT" control $pid snapshot)"
kill -TERM $pid
set +e; wait $pid; set -e
for s in snap1 snap2 snap3; do
    [ -f "$T/live.raw.$s" ] || fail "no $s"
    check "$s" "$T/live.raw.$s"
    expect_eq "$s: boom" "" "$(calls "$T/$s.txt" boom)"
    grep -q '^ snapshot: taken while the process ran on' "$T/$s.txt" || fail "$s: not marked a snapshot"
done

# The front end: calltrace record --flight, and a snapshot taken during the
# recording follows the trace to OUTPUT.snap1.
unset CALLTRACE_FLIGHT
set +e
"$FRONT" record -q -o "$T/rec.raw" --flight=256K -- "$T/fc" 2>/dev/null; rc=$?
set -e
expect_eq "record: status" "$traced" "$rc"
check rec "$T/rec.raw"
"$FRONT" record -q -o "$T/recs.raw" --flight=256K --flight-signal=USR1 -- \
    "$T/fc" 400000 pause > "$T/recs.out" &
fe=$!
for _ in $(seq 200); do grep -q ready "$T/recs.out" 2>/dev/null && break; sleep 0.05; done
child=$(program_of $fe) || fail "record: no child"
kill -USR1 "$child"
for _ in $(seq 100); do [ -n "$(find "$T" -name 'calltrace-*.raw.snap1')" ] && break; sleep 0.05; done
kill -TERM "$child"
set +e; wait $fe; set -e
[ -f "$T/recs.raw.snap1" ] || fail "record: the snapshot did not follow the trace: $(find "$T" -name '*snap*')"
check recs "$T/recs.raw.snap1"
echo ok
