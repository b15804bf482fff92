#!/usr/bin/env bash
# calltrace recv takes the streams of three traced processes at once, a
# fork child and an exec'ed image each on a connection of its own, and
# stores one trace per stream, named by pid, each reading like a local one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stream-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
[ -x "$FRONT" ] || fail "no $FRONT"
build_traced "$T/fork" "$PROGRAMS/trace_fork.c"
build_traced "$T/threads" "$PROGRAMS/report_threads.c"
cat > "$T/exec.c" <<'C'
#include <unistd.h>
__attribute__((noinline)) static void before(void) {}
int main(int argc, char **argv)
{
    before();
    if (argc > 1)
        return 3;
    execl(argv[0], argv[0], "again", (char *)0);
    return 1;
}
C
build_traced "$T/exec" "$T/exec.c"

# fork: parent + child; exec: two images; threads: one process.
start_recv "$T/in" 5
net="CALLTRACE_OUTPUT=tcp:127.0.0.1:$PORT"
set +e
env CALLTRACE_BUFSIZE=4K $net LD_PRELOAD=$LIB "$T/fork" > "$T/fork.out" 2> "$T/fork.err" &
fpid=$!
env $net LD_PRELOAD=$LIB "$T/exec" > "$T/exec.out" 2> "$T/exec.err" &
epid=$!
env CALLTRACE_BUFSIZE=4K $net LD_PRELOAD=$LIB "$T/threads" > "$T/threads.out" 2> "$T/threads.err" &
tpid=$!
wait $fpid; frc=$?
wait $epid; erc=$?
wait $tpid; trc=$?
set -e
expect_eq "fork status" 4 "$frc"
expect_eq "exec status" 3 "$erc"
expect_eq "threads status" 0 "$trc"
cat "$T"/*.err
[ ! -s "$T/fork.err" ] && [ ! -s "$T/exec.err" ] && [ ! -s "$T/threads.err" ] ||
    fail "the tracer spoke"
wait_ended "$RECV_PID"
expect_eq "streams ended cleanly" 5 "$(grep -c 'ended cleanly' "$T/in.log")"
expect_eq "files" 5 "$(ls "$T/in" | wc -l)"

count() { call_counts "$1" | awk -v f="$2" '$2==f{n=$1} END{print n+0}'; }
# Which file is which: by the calls in it.
for f in "$T"/in/*; do
    "$REPORT" "$f" > "$f.rep" 2>&1 || fail "report $f: $(tail -n 3 "$f.rep")"
    ! grep -q "not closed cleanly" "$f.rep" || fail "$f: not closed cleanly"
done
parent=$(grep -l "in_parent" "$T"/in/*.rep | sed -n 1p); parent=${parent%.rep}
child=$(grep -l "in_child" "$T"/in/*.rep | grep -v "^$parent.rep$" | sed -n 1p); child=${child%.rep}
expect_eq "parent in_parent" 5 "$(count "$parent" in_parent)"
expect_eq "parent after_fork" 3 "$(count "$parent" after_fork)"
expect_eq "parent in_child" 0 "$(count "$parent" in_child)"
expect_eq "child in_child" 7 "$(count "$child" in_child)"
expect_eq "child in_parent" 0 "$(count "$child" in_parent)"
expect_eq "child named by its pid" "calltrace-$(sed -n 's/^ Pid: //p' "$child.rep").raw" "$(basename "$child")"
ex="$T/in/calltrace-$epid.raw $T/in/calltrace-$epid.raw.1"
ls $ex > /dev/null || fail "exec: expected two traces of pid $epid"
for f in $ex; do
    expect_eq "exec: before() in $(basename "$f")" 1 "$(count "$f" before)"
done
CALLTRACE_BUFSIZE=4K CALLTRACE_OUTPUT=$T/threads-local.raw LD_PRELOAD=$LIB "$T/threads" > /dev/null
call_counts "$T/threads-local.raw" > "$T/threads-local.counts"
call_counts "$T/in/calltrace-$tpid.raw" > "$T/threads-net.counts"
diff "$T/threads-local.counts" "$T/threads-net.counts" || fail "threads: counts differ"
expect_eq "threads" "$(sed -n 's/^ Threads: \([0-9]*\).*/\1/p' "$T/in/calltrace-$tpid.raw.rep")" \
    "$("$REPORT" "$T/threads-local.raw" | sed -n 's/^ Threads: \([0-9]*\).*/\1/p')"
echo ok
