#!/usr/bin/env bash
# calltrace recv against malformed and hostile streams: wrong magic, an
# absurd block size, a stream cut inside a block (half-closed), a sender
# that trickles, and 30 randomly damaged copies of a real stream, all at
# once beside a good one.  Each bad stream ends with one line naming the
# peer and why; the receiver never crashes and the good stream is stored
# whole.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stream-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
[ -x "$FRONT" ] || fail "no $FRONT"
command -v nc > /dev/null || skip "no nc (netcat-openbsd; scripts/install-deps.sh)"
build_traced "$T/calls" "$PROGRAMS/trace_calls.c"
port=$(free_port)
nc_capture "$port" "$T/good.raw"
wait_listening "$port"
CALLTRACE_BUFSIZE=4K CALLTRACE_OUTPUT=tcp:127.0.0.1:$port LD_PRELOAD=$LIB "$T/calls" > /dev/null || true
wait_ended "$NC_PID"

# 5 hand-made streams + 30 random ones + the traced program's.
start_recv "$T/in" 36
python3 - "$PORT" "$T/good.raw" <<'PY' &
import random, socket, struct, sys, threading, time
port, good = int(sys.argv[1]), open(sys.argv[2], "rb").read()
def send(data, trickle=False, half=False):
    s = socket.create_connection(("127.0.0.1", port))
    if trickle:
        for i in range(0, 4200, 700):
            s.sendall(data[i:i + 700]); time.sleep(0.3)
        data = data[4200:]
    s.sendall(data)
    if half:
        s.shutdown(socket.SHUT_WR); time.sleep(0.2)
    s.close()
bad_magic = b"NOTATRC\0" + good[8:]
absurd = bytearray(good); struct.pack_into("<I", absurd, 4096 + 8, 0x7ffff000)
cases = [(bad_magic,), (bytes(absurd),), (good[:4096 + 5000], False, True),
         (good, True), (good[:4096] + b"\0" * 64,)]
rnd = random.Random(11)
for _ in range(30):
    d = bytearray(good)
    for _ in range(rnd.randint(1, 8)):
        d[rnd.randrange(len(d))] = rnd.randrange(256)
    cases.append((bytes(d[:rnd.randrange(len(d) + 1)]),))
threads = [threading.Thread(target=send, args=c) for c in cases]
for t in threads: t.start()
for t in threads: t.join()
PY
senders=$!
CALLTRACE_BUFSIZE=4K CALLTRACE_OUTPUT=tcp:127.0.0.1:$PORT LD_PRELOAD=$LIB "$T/calls" > /dev/null 2> "$T/calls.err" || true
wait "$senders"
wait_ended "$RECV_PID" 30
wait "$RECV_PID" || fail "recv failed: $(tail -n 3 "$T/in.log")"
[ ! -s "$T/calls.err" ] || fail "the tracer spoke: $(cat "$T/calls.err")"
log=$T/in.log
grep -q "not a calltrace stream (no CALLTRC magic) at byte 0; connection closed$" "$log" || fail "wrong magic: $(cat "$log")"
grep -q "block size 2147479552 (expected a multiple of 4096, at most 1G) at byte 4096; connection closed" "$log" || fail "absurd size: $(cat "$log")"
grep -q "bad block magic 0x00000000 at byte 4096; connection closed" "$log" || fail "zero block: $(cat "$log")"
grep -q "the stream ended inside a block (kept: readable up to the last complete record)" "$log" || fail "half-closed: $(cat "$log")"
# Every connection ended with one line: 36 ends, some clean.
ends=$(grep -c -E "ended cleanly|connection closed|the stream ended" "$log")
expect_eq "one line at each end" 36 "$ends"
clean=$(grep -c "ended cleanly" "$log")
[ "$clean" -ge 2 ] || fail "the good streams did not end cleanly: $(cat "$log")"
# The traced program's own stream, beside all that: whole.
n=0
for f in "$T"/in/calltrace-*; do
    if "$REPORT" --dump "$f" > "$f.txt" 2> /dev/null &&
       [ "$(awk '$2=="C" && $3=="leaf"' "$f.txt" | wc -l)" = 1200 ]; then
        n=$((n + 1))
    fi
done
[ "$n" -ge 2 ] || fail "expected the good streams stored whole, found $n"
echo ok
