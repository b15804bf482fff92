# Helpers for the tests that reach a running program through its control
# channel (CALLTRACE_CONTROL=1); source after lib.sh.  The program writes
# its lines to $T/out.

# waitfor LINE: the program printed LINE (10 s at most).
waitfor() {
    for _ in $(seq 200); do grep -qx "$1" "$T/out" && return 0; sleep 0.05; done
    fail "program never printed '$1'"
}

# wait_control_socket PID: sets sock to the program's control socket once
# it exists (5 s at most).
wait_control_socket() {
    sock=/tmp/calltrace-$(id -u)/$1.ctl
    for _ in $(seq 100); do [ -S "$sock" ] && return 0; sleep 0.05; done
    fail "no socket $sock"
}
