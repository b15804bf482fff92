#!/usr/bin/env bash
# CALLTRACE_OUTPUT=tcp:HOST:PORT: a trace captured by a plain `nc -l` reads
# exactly like the same program traced into a local file (call counts,
# threads, events), with many small blocks; a quiet program's events reach
# the listener while it still runs (snapshots of open blocks, each second).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stream-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
command -v nc > /dev/null || skip "no nc (netcat-openbsd; scripts/install-deps.sh)"
build_traced "$T/calls" "$PROGRAMS/trace_calls.c"
build_traced "$T/threads" "$PROGRAMS/report_threads.c"

for prog in calls threads; do
    port=$(free_port)
    nc_capture "$port" "$T/$prog-net.raw"
    wait_listening "$port"
    set +e
    CALLTRACE_BUFSIZE=4K CALLTRACE_OUTPUT=tcp:127.0.0.1:$port LD_PRELOAD=$LIB \
        "$T/$prog" > "$T/$prog-net.out" 2> "$T/$prog-net.err"; rc_net=$?
    CALLTRACE_BUFSIZE=4K CALLTRACE_OUTPUT=$T/$prog-local.raw LD_PRELOAD=$LIB \
        "$T/$prog" > "$T/$prog-local.out" 2> "$T/$prog-local.err"; rc_local=$?
    set -e
    timeout 10 tail --pid="$NC_PID" -f /dev/null || fail "$prog: nc did not end"
    expect_eq "$prog: status" "$rc_local" "$rc_net"
    cmp -s "$T/$prog-net.out" "$T/$prog-local.out" || fail "$prog: output differs"
    [ ! -s "$T/$prog-net.err" ] || fail "$prog: tracer spoke: $(cat "$T/$prog-net.err")"
    call_counts "$T/$prog-net.raw" > "$T/$prog-net.counts"
    call_counts "$T/$prog-local.raw" > "$T/$prog-local.counts"
    [ -s "$T/$prog-local.counts" ] || fail "$prog: no calls in the local trace"
    diff "$T/$prog-local.counts" "$T/$prog-net.counts" ||
        fail "$prog: call counts differ between the stream and the file"
    "$REPORT" "$T/$prog-local.raw" > "$T/$prog-local.rep"
    "$REPORT" "$T/$prog-net.raw" > "$T/$prog-net.rep"
    # Events: the total also counts the OVERHEAD pair of each block
    # switch, and how many blocks the records fill depends on their time
    # deltas' sizes, so only the kinds of the program's events are held equal.
    for key in Threads: Events: "Lost events:" Unmatched:; do
        a=$(grep "^ $key" "$T/$prog-local.rep" | sed 's/(tid.*//; s/Events: [0-9]* /Events: /')
        b=$(grep "^ $key" "$T/$prog-net.rep" | sed 's/(tid.*//; s/Events: [0-9]* /Events: /')
        expect_eq "$prog: $key" "$a" "$b"
    done
    ! grep -q "not closed cleanly" "$T/$prog-net.rep" ||
        fail "$prog: the streamed trace lost its final header"
done
expect_eq "calls: leaf" "1200 leaf" "$(awk '$2=="leaf"{print $1, $2}' "$T/calls-net.counts")"

# The front end: calltrace record --host/--port streams, writes nothing
# locally, and exits with the program's status.
port=$(free_port)
nc_capture "$port" "$T/record-net.raw"
wait_listening "$port"
mkdir "$T/cwd"
set +e
(cd "$T/cwd" && "$FRONT" record --host 127.0.0.1 --port "$port" "$T/calls" > /dev/null 2> "$T/record.err"); rc=$?
set -e
wait_ended "$NC_PID" 10
expect_eq "record --port: status" 7 "$rc"
[ ! -s "$T/record.err" ] || fail "record --port spoke: $(cat "$T/record.err")"
expect_eq "record --port: nothing written locally" "" "$(ls -A "$T/cwd")"
call_counts "$T/record-net.raw" > "$T/record-net.counts"
diff "$T/calls-local.counts" "$T/record-net.counts" || fail "record --port: counts differ"

# A program that goes quiet: its open block reaches the listener as a
# snapshot while the program still sleeps.
cat > "$T/quiet.c" <<'C'
#include <unistd.h>
static volatile int sink;
__attribute__((noinline)) void early(void) { sink++; }
int main(void)
{
    for (int i = 0; i < 25; i++)
        early();
    sleep(4);
    return 0;
}
C
build_traced "$T/quiet" "$T/quiet.c"
port=$(free_port)
nc_capture "$port" "$T/quiet.raw"
wait_listening "$port"
CALLTRACE_OUTPUT=tcp:127.0.0.1:$port LD_PRELOAD=$LIB "$T/quiet" &
qpid=$!
sleep 2.5
cp "$T/quiet.raw" "$T/quiet-live.raw"
expect_eq "quiet: early while running" "25 early" \
    "$(call_counts "$T/quiet-live.raw" | awk '$2=="early"{print $1, $2}')"
wait "$qpid"
timeout 10 tail --pid="$NC_PID" -f /dev/null || fail "quiet: nc did not end"
expect_eq "quiet: early at the end" "25 early" \
    "$(call_counts "$T/quiet.raw" | awk '$2=="early"{print $1, $2}')"

# SIGKILL: the sender outlives the program and sends what it wrote, its
# open block included, as a killed program's file would keep it.
cat > "$T/killed.c" <<'C'
#include <stdio.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void f(void) { sink++; }
int main(void)
{
    for (int i = 0; i < 777; i++)
        f();
    puts("ready");
    fflush(stdout);
    for (;;)
        pause();
}
C
build_traced "$T/killed" "$T/killed.c"
port=$(free_port)
nc_capture "$port" "$T/killed.raw"
wait_listening "$port"
CALLTRACE_OUTPUT=tcp:127.0.0.1:$port LD_PRELOAD=$LIB "$T/killed" > "$T/killed.out" &
kpid=$!
for i in $(seq 50); do [ -s "$T/killed.out" ] && break; sleep 0.1; done
kill -KILL "$kpid"
{ wait "$kpid"; } 2> /dev/null || true
wait_ended "$NC_PID" 10
expect_eq "killed: f" "777 f" "$(call_counts "$T/killed.raw" | awk '$2=="f"{print $1, $2}')"
"$REPORT" "$T/killed.raw" > "$T/killed.rep"
grep -q "not closed cleanly" "$T/killed.rep" || fail "killed: the report should say so"
echo ok
