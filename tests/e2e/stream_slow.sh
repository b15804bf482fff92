#!/usr/bin/env bash
# A listener that never existed, one that stops reading, one that goes
# away: the program's output and exit status never change, it ends in
# bounded time, the tracer says so in one line, and whatever it drops is
# counted: in the trace, calls + returns + user events + lost events equal
# those of the same program traced into a file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stream-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
LISTENER=$CT_ROOT/tests/e2e/tools/stream_listener.py
cat > "$T/busy.c" <<'C'
#include <stdio.h>
#include "calltrace.h"
static volatile long sink;
__attribute__((noinline)) void f(long i) { sink += i; }
int main(int argc, char **argv)
{
    /* Many times what the loopback connection's buffers hold (a few MB
     * each side, at 4-5 bytes a call), so a stalled listener must cost
     * dropped blocks. */
    long n = argc > 1 ? 10000000 : 100;
    for (long i = 0; i < n; i++) {
        f(i);
        if (i % 1000000 == 0)
            calltrace_event("at %ld", i);
    }
    printf("f=%ld\n", n);
    return 5;
}
C
build_traced "$T/busy" "$T/busy.c"
"$T/busy" big > "$T/plain.out" || [ $? = 5 ] || fail "plain run"

# A listener that never existed: TCP and unix.
port=$(free_port)
for addr in tcp:127.0.0.1:$port unix:$T/no-such.sock; do
    set +e
    CALLTRACE_OUTPUT=$addr LD_PRELOAD=$LIB "$T/busy" > "$T/absent.out" 2> "$T/absent.err"
    rc=$?
    set -e
    expect_eq "absent $addr: status" 5 "$rc"
    cmp -s "$T/absent.out" <(echo f=100) || fail "absent $addr: output"
    expect_eq "absent $addr: one line" 1 "$(wc -l < "$T/absent.err")"
    grep -q "^calltrace: cannot write trace to $addr: cannot connect: .*; tracing stopped$" "$T/absent.err" ||
        fail "absent $addr: message: $(cat "$T/absent.err")"
done

# Local reference: events of every kind.
CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT=$T/local.raw LD_PRELOAD=$LIB "$T/busy" big > /dev/null || true
events() {  # calls + returns + user events, and lost events
    "$REPORT" "$1" > "$1.rep"
    sed -n 's/^ Events: [0-9]* (\([0-9]*\) calls, \([0-9]*\) returns, \([0-9]*\) user events.*/\1 \2 \3/p' "$1.rep" |
        awk '{print $1 + $2 + $3}'
    sed -n 's/^ Lost events: \([0-9]*\).*/\1/p' "$1.rep"
}
read -r -d '' local_events local_lost < <(events "$T/local.raw"; printf '\0') || true
expect_eq "local: nothing lost" 0 "$local_lost"

# A listener that stops reading while the program runs, and reads again
# after it ended: the tracer drops whole blocks past the backlog, counts
# them, and the program neither waits nor changes.
python3 "$LISTENER" "$T/stall.port" "$T/stall.raw" stall "$T/stall.go" &
lpid=$!
for i in $(seq 50); do [ -f "$T/stall.port" ] && break; sleep 0.1; done
start=$(date +%s)
set +e
CALLTRACE_BUFSIZE=64K CALLTRACE_STREAM_BACKLOG=256K \
    CALLTRACE_OUTPUT=tcp:127.0.0.1:$(cat "$T/stall.port") LD_PRELOAD=$LIB \
    "$T/busy" big > "$T/stall.out" 2> "$T/stall.err"; rc=$?
set -e
elapsed=$(( $(date +%s) - start ))
touch "$T/stall.go"
wait_ended "$lpid"
expect_eq "stall: status" 5 "$rc"
cmp -s "$T/plain.out" "$T/stall.out" || fail "stall: output differs"
[ "$elapsed" -lt 30 ] || fail "stall: the program took ${elapsed}s"
# The sender's line reaches stderr at the program's next block switch or
# exit; on a loaded machine the sender may reach its backlog only after
# the program ended, and then the trailer alone counts the drops.
[ "$(wc -l < "$T/stall.err")" -le 1 ] || fail "stall: more than one line: $(cat "$T/stall.err")"
[ ! -s "$T/stall.err" ] ||
grep -q "^calltrace: the listener at tcp:127.0.0.1:[0-9]* is slower than the program: whole blocks are dropped and counted as lost events (CALLTRACE_STREAM_BACKLOG)$" "$T/stall.err" ||
    fail "stall: message: $(cat "$T/stall.err")"
read -r -d '' net_events net_lost < <(events "$T/stall.raw"; printf '\0') || true
[ "$net_lost" -gt 0 ] || fail "stall: nothing was counted as lost"
echo "stall: $net_events kept, $net_lost lost" >&2
expect_eq "stall: events kept + lost" "$local_events" "$((net_events + net_lost))"
! has "not closed cleanly" "$T/stall.raw.rep" || fail "stall: no trailer"

# A listener that takes nothing for CALLTRACE_STREAM_TIMEOUT: the sender
# gives up on it, the program says so once at its next block switch and
# runs on untraced.  (The listener reads again only after the program
# ended, to let the test end.)
# Before the pause the program writes more than the loopback socket's
# buffers hold (a few MB each side), so the sender is stuck on the
# listener when the pause begins, not only after the program ended.  It
# writes for a second at least: on a loaded machine the sender, short of
# CPU, drops most blocks unsent, and 5 M calls' worth could leave the
# socket unfilled (the timeout then came only at exit, unsaid).
cat > "$T/pause.c" <<'C'
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void f(long i) { sink += i; }
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
int main(void)
{
    double start = now();
    for (int round = 0; round < 5 || now() - start < 1.0; round++)
        for (long i = 0; i < 1000000; i++)
            f(i);
    sleep(2);
    for (long i = 0; i < 2000000; i++)
        f(i);
    puts("done");
    return 6;
}
C
build_traced "$T/pause" "$T/pause.c"
python3 "$LISTENER" "$T/hold.port" "$T/hold.raw" stall "$T/hold.go" &
lpid=$!
for i in $(seq 50); do [ -f "$T/hold.port" ] && break; sleep 0.1; done
set +e
CALLTRACE_BUFSIZE=64K CALLTRACE_STREAM_BACKLOG=256K CALLTRACE_STREAM_TIMEOUT=500 \
    CALLTRACE_OUTPUT=tcp:127.0.0.1:$(cat "$T/hold.port") LD_PRELOAD=$LIB \
    "$T/pause" > "$T/hold.out" 2> "$T/hold.err"; rc=$?
set -e
touch "$T/hold.go"
wait_ended "$lpid"
expect_eq "timeout: status" 6 "$rc"
expect_eq "timeout: output" done "$(cat "$T/hold.out")"
grep -q "^calltrace: cannot write trace to tcp:127.0.0.1:[0-9]*: the listener took no data for 500 ms; tracing stopped$" "$T/hold.err" ||
    fail "timeout: message: $(cat "$T/hold.err")"
[ "$(wc -l < "$T/hold.err")" -le 2 ] || fail "timeout: more than two lines: $(cat "$T/hold.err")"

# A listener that goes away after 100 KB: one line, tracing stops, the
# program runs on unchanged.  The sender says so through the program, at
# its next block switch: the program pauses half-way so that, however
# loaded the machine, the sender meets the closed connection while the
# program still has blocks to switch.
python3 "$LISTENER" "$T/gone.port" "$T/gone.raw" close 100000 &
lpid=$!
for i in $(seq 50); do [ -f "$T/gone.port" ] && break; sleep 0.1; done
set +e
CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT=tcp:127.0.0.1:$(cat "$T/gone.port") \
    LD_PRELOAD=$LIB "$T/pause" > "$T/gone.out" 2> "$T/gone.err"; rc=$?
set -e
wait_ended "$lpid"
expect_eq "gone: status" 6 "$rc"
expect_eq "gone: output" done "$(cat "$T/gone.out")"
expect_eq "gone: one line" 1 "$(wc -l < "$T/gone.err")"
grep -q "^calltrace: cannot write trace to tcp:127.0.0.1:[0-9]*: the listener closed the connection; tracing stopped$" "$T/gone.err" ||
    fail "gone: message: $(cat "$T/gone.err")"
echo ok
