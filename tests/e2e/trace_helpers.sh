#!/usr/bin/env bash
# The block supplier and the stream's sender are not the program's
# children: /proc lists none, waitpid(-1, __WALL) reaps only the program's
# own and SIGCHLD comes only for them; the helpers still end with the
# program.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stream-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
[ -x "$FRONT" ] || fail "no $FRONT"
build_traced "$T/reap" "$PROGRAMS/helper_reap.c"
CALLS=200000
"$T/reap" $CALLS > "$T/plain.out"
expect_eq "untraced SIGCHLD" "SIGCHLD 2" "$(sed -n 3p "$T/plain.out")"
expect_eq "untraced" "children before fork: 0" "$(head -n 1 "$T/plain.out")"

# The supplier: 4 KiB blocks, a block switch every few hundred calls.
# A helper that is the program's child blocks waitpid(-1, __WALL) for
# ever: timeout makes that a failure.
CALLTRACE_BUFSIZE=4K CALLTRACE_SUPPLIER=1 timeout 120 env CALLTRACE_OUTPUT="$T/s.raw" LD_PRELOAD="$LIB" "$T/reap" $CALLS \
    > "$T/s.out" 2> "$T/s.err" || fail "supplier run: status $? $(cat "$T/s.err")"
diff "$T/plain.out" "$T/s.out" > "$T/s.diff" || fail "supplier: $(cat "$T/s.diff")"
"$REPORT" -b "$T/s.raw" > /dev/null || fail "supplier: report"

# The stream's sender.
start_recv "$T/in" 3  # the program and its two children
CALLTRACE_BUFSIZE=4K timeout 120 env CALLTRACE_OUTPUT=tcp:127.0.0.1:$PORT LD_PRELOAD="$LIB" \
    "$T/reap" $CALLS > "$T/n.out" 2> "$T/n.err" || fail "stream run: status $? $(cat "$T/n.err")"
diff "$T/plain.out" "$T/n.out" > "$T/n.diff" || fail "stream: $(cat "$T/n.diff")"
wait_ended "$RECV_PID"
[ "$(ls "$T/in" | wc -l)" -eq 3 ] || fail "stream: $(ls "$T/in")"

# The helpers end with the program (the sender once it has sent the
# rest, the supplier at its next look, 0.1 s): at most 20 s on a loaded
# machine, well below what would show a helper left running.
CALLTRACE_BUFSIZE=4K CALLTRACE_SUPPLIER=1 timeout 120 env CALLTRACE_OUTPUT="$T/h.raw" LD_PRELOAD="$LIB" "$T/reap" $CALLS "$T/helpers" \
    > "$T/h.out" 2> "$T/h.err" || fail "helpers run: status $?"
[ -s "$T/helpers" ] || fail "no helper process seen"
for pid in $(cat "$T/helpers"); do
    timeout 20 tail --pid="$pid" -f /dev/null || fail "helper $pid outlived the program"
done
echo ok
