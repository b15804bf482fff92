#!/usr/bin/env bash
# calltrace top on a program that spends nearly all its time in hot():
# piped, one table per interval, hot first, and the end said once the
# trace is closed; in a terminal (tmux), a screen that shows hot first,
# refreshes, switches on a key and quits on q with the terminal as it was;
# a PID, and -- PROGRAM.
. "$(dirname "$0")/lib.sh"
[ -f "$FRONT" ] || fail "no $FRONT"
build_traced "$T/spin" "$PROGRAMS/live_spin.c"

# start_spin NAME SECONDS: spin traced into $T/NAME.raw; sets pid.
start_spin() {
    CALLTRACE_OUTPUT=$T/$1.raw LD_PRELOAD=$LIB "$T/spin" spin "$2" &
    pid=$!
    for _ in $(seq 100); do [ -s "$T/$1.raw" ] && return 0; sleep 0.05; done
    fail "$1: no trace"
}

# first_row FILE: the function of the first row of the last table
first_row() {
    awk '/^ SELF%/ { getline; row = $NF } END { print row }' "$1"
}

# Piped: plain tables until the program ends, and the end said.
start_spin plain 3
"$FRONT" top --interval 0.5 "$T/plain.raw" > "$T/plain.txt" 2>&1 ||
    fail "plain: status $?: $(tail -n 3 "$T/plain.txt")"
wait "$pid"
tables=$(grep -c '^calltrace top ' "$T/plain.txt")
[ "$tables" -ge 3 ] || fail "plain: only $tables tables"
awk '/^ SELF%/ { if ((getline row) > 0 && row ~ /%/) { n = split(row, w, " "); print w[n] } }' \
    "$T/plain.txt" | sed -n '2,$p' |
    grep -v -x hot && fail "plain: a table whose first row is not hot"
tail -n 1 "$T/plain.txt" | has "exited and closed its trace" ||
    fail "plain: end not said: $(tail -n 1 "$T/plain.txt")"
grep -q '\x1b' "$T/plain.txt" && fail "plain: escape sequences when piped"

# A PID and a number of refreshes; total time puts main first.
start_spin bypid 30
"$FRONT" top -n 2 -i 0.3 --total "$pid" > "$T/pid.txt" 2>&1 ||
    fail "pid: status $?: $(tail -n 3 "$T/pid.txt")"
expect_eq "pid: tables" 2 "$(grep -c '^calltrace top ' "$T/pid.txt")"
expect_eq "pid: sorted by total" main "$(first_row "$T/pid.txt")"
grep -q "^calltrace top  $T/bypid.raw  pid $pid (running)" "$T/pid.txt" ||
    fail "pid: header $(head -n 1 "$T/pid.txt")"

# Ctrl-C (SIGINT) ends the piped view with 128+2.
"$FRONT" top -i 0.2 "$T/bypid.raw" > "$T/int.txt" 2>&1 &
top=$!
sleep 0.7
kill -INT "$top"
set +e; wait "$top"; rc=$?; set -e
expect_eq "SIGINT: status" 130 "$rc"

# In a terminal.
command -v tmux >/dev/null || fail "tmux is missing (scripts/install-deps.sh)"
export TMUX_TMPDIR=$T   # a tmux server of our own
sock=ct-live-top
tmux -L "$sock" new-session -d -x 120 -y 30 \
    "stty -a > $T/before; $FRONT top -i 0.3 $T/bypid.raw; echo \$? > $T/rc; stty -a > $T/after; sleep 60"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; kill "$pid" 2>/dev/null || true; rm -rf "$T"' EXIT
screen() { tmux -L "$sock" capture-pane -p -t 0 > "$T/$1"; }
# until NAME CONDITION...: captures the screen into NAME until CONDITION
# holds (20 s at most: a loaded machine is slow, not wrong)
until_screen() {
    local name=$1; shift
    for _ in $(seq 100); do
        screen "$name"
        "$@" && return 0
        sleep 0.2
    done
    return 1
}
# the screen is drawn in pieces: wait for its last line too
hot_first() { [ "$(first_row "$T/s1")" = hot ] && has "keys: q quit" < "$T/s1"; }
until_screen s1 hot_first || fail "tty: hottest is not hot: $(cat "$T/s1")"
grep -q "keys: q quit   t sort by total time   a show since start" "$T/s1" ||
    fail "tty: no keys line: $(cat "$T/s1")"
changed() { ! cmp -s "$T/s1" "$T/s2"; }
until_screen s2 changed || fail "tty: the screen never changed"
tmux -L "$sock" send-keys -t 0 t
by_total() { grep -q "sorted by total time over the last interval" "$T/s3"; }
until_screen s3 by_total || fail "tty: t did not switch: $(sed -n 3p "$T/s3")"
main_first() { [ "$(first_row "$T/s3")" = main ]; }
until_screen s3 main_first || fail "tty: total first is not main: $(cat "$T/s3")"
tmux -L "$sock" send-keys -t 0 a
since() { grep -q "sorted by total time since start" "$T/s4"; }
until_screen s4 since || fail "tty: a did not switch: $(sed -n 3p "$T/s4")"
tmux -L "$sock" send-keys -t 0 q
for _ in $(seq 50); do [ -s "$T/rc" ] && break; sleep 0.1; done
expect_eq "tty: q status" 0 "$(cat "$T/rc" 2>/dev/null)"
for _ in $(seq 50); do [ -s "$T/after" ] && break; sleep 0.1; done
diff "$T/before" "$T/after" > /dev/null ||
    fail "tty: terminal settings not restored: $(diff "$T/before" "$T/after")"

# Ctrl-C in the terminal: 128+2, and the terminal put back all the same.
rm -f "$T/rc" "$T/before" "$T/after"
# A server of its own: a new session on the socket of a server that is
# still shutting down fails with "server exited unexpectedly".
tmux -L "$sock" kill-server 2>/dev/null || true
sock=ct-live-top-2
tmux -L "$sock" new-session -d -x 120 -y 30 \
    "stty -a > $T/before; $FRONT top -i 0.3 $T/bypid.raw; echo \$? > $T/rc; stty -a > $T/after; sleep 60"
until_screen s5 grep -q "keys: q quit" "$T/s5" || fail "tty: no second screen"
tmux -L "$sock" send-keys -t 0 C-c
for _ in $(seq 50); do [ -s "$T/after" ] && break; sleep 0.1; done
expect_eq "tty: Ctrl-C status" 130 "$(cat "$T/rc" 2>/dev/null)"
diff "$T/before" "$T/after" > /dev/null ||
    fail "tty: Ctrl-C left the terminal changed: $(diff "$T/before" "$T/after")"

# The process killed while watched: top sees it gone and says so.
"$FRONT" top -i 0.3 "$T/bypid.raw" > "$T/gone.txt" 2>&1 &
top=$!
sleep 1
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
for _ in $(seq 100); do kill -0 "$top" 2>/dev/null || break; sleep 0.1; done
kill -0 "$top" 2>/dev/null && { kill "$top"; fail "gone: top did not end"; }
wait "$top" || fail "gone: status $?"
tail -n 1 "$T/gone.txt" | has "process $pid is gone and its trace was not closed" ||
    fail "gone: $(tail -n 1 "$T/gone.txt")"

# -- PROGRAM: started traced and watched to its end.
(cd "$T" && "$FRONT" top -i 0.5 -- "$T/spin" spin 1.5) > "$T/run.txt" 2>&1 ||
    fail "-- PROGRAM: status $?: $(tail -n 3 "$T/run.txt")"
expect_eq "-- PROGRAM: hottest" hot "$(first_row "$T/run.txt")"
tail -n 1 "$T/run.txt" | has "exited and closed its trace" ||
    fail "-- PROGRAM: $(tail -n 1 "$T/run.txt")"
echo ok
