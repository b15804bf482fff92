# Helpers for the streaming tests (stream_*.sh); source after lib.sh.

# A loopback TCP port nobody listens on now, chosen by the kernel.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until a socket listens on TCP port PORT (at most 5 s), without
# connecting: nc -l takes one connection only.
wait_listening() {
    local hex i
    hex=$(printf ':%04X ' "$1")
    for i in $(seq 50); do
        awk -v p="$hex" 'index($2 " ", p) && $4 == "0A" {f=1} END {exit !f}' \
            /proc/net/tcp /proc/net/tcp6 2>/dev/null && return 0
        sleep 0.1
    done
    fail "nothing listens on port $1"
}

# nc_capture PORT FILE: one connection's bytes into FILE, in the
# background; sets NC_PID.  -N is not given: nc ends when the sender closes.
nc_capture() {
    nc -l -p "$1" -s 127.0.0.1 > "$2" < /dev/null &
    NC_PID=$!
}

# Call counts per function as the report's --dump tells them, sorted.
call_counts() {
    "$REPORT" --dump "$1" | awk '$2=="C"{print $3}' | sort | uniq -c
}

# start_recv DIR N: calltrace recv on a port of its choosing, into DIR,
# ending after N streams; sets RECV_PID and PORT.
start_recv() {
    mkdir -p "$1"
    "$FRONT" recv --port 0 -d "$1" --streams "$2" 2> "$1.log" &
    RECV_PID=$!
    local i
    for i in $(seq 50); do
        PORT=$(sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\),.*/\1/p' "$1.log")
        [ -n "$PORT" ] && return 0
        sleep 0.1
    done
    fail "recv did not start: $(cat "$1.log")"
}

# wait_ended PID [SECONDS]: the process ends within SECONDS (default 20).
wait_ended() {
    timeout "${2:-20}" tail --pid="$1" -f /dev/null || fail "process $1 did not end"
}
