#!/usr/bin/env bash
# A stream cut anywhere (the listener or the network gone): at every block
# boundary, inside every block header and in the middle of every block, the
# reader reads what is there up to the last complete record, says where the
# stream stops (exit 2, one message naming the byte) and never crashes; the
# calls it finds never decrease as the cut moves on, and the whole stream
# has them all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stream-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
command -v nc > /dev/null || skip "no nc (netcat-openbsd; scripts/install-deps.sh)"
cat > "$T/threads.c" <<'C'
#include <pthread.h>
static volatile long sink;
__attribute__((noinline)) void leaf(long i) { sink += i; }
__attribute__((noinline)) void *work(void *arg)
{
    for (long i = 0; i < 2500; i++)
        leaf(i);
    return arg;
}
int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, work, 0);
    work(0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    return 0;
}
C
build_traced "$T/threads" "$T/threads.c"
port=$(free_port)
nc_capture "$port" "$T/full.raw"
wait_listening "$port"
CALLTRACE_BUFSIZE=4K CALLTRACE_OUTPUT=tcp:127.0.0.1:$port LD_PRELOAD=$LIB "$T/threads" > /dev/null
wait_ended "$NC_PID"
CALLTRACE_BUFSIZE=4K CALLTRACE_OUTPUT=$T/local.raw LD_PRELOAD=$LIB "$T/threads" > /dev/null

# Cut points: in the header, then per block its start, a byte inside its
# header and the middle of its body.
python3 - "$T/full.raw" > "$T/cuts" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
cuts = {1, 100, 4095}
off = 4096
while off + 64 <= len(data):
    size = struct.unpack_from("<I", data, off + 8)[0]
    cuts.update({off, off + 33, off + 64 + (size - 64) // 2})
    off += size
cuts.add(len(data))
print("\n".join(str(c) for c in sorted(cuts) if c <= len(data)))
PY
[ "$(wc -l < "$T/cuts")" -gt 20 ] || fail "too few blocks: $(wc -l < "$T/cuts") cuts"
prev=0
while read -r cut; do
    head -c "$cut" "$T/full.raw" > "$T/cut.raw"
    set +e
    "$REPORT_SAN" --dump "$T/cut.raw" > "$T/cut.txt" 2> "$T/cut.err"; rc=$?
    set -e
    if [ "$cut" -lt 4096 ]; then
        expect_eq "cut at $cut: status" 2 "$rc"
        grep -q "cut.raw: byte [0-9]*: " "$T/cut.err" ||
            fail "cut at $cut: message: $(cat "$T/cut.err")"
        continue
    fi
    [ "$rc" = 0 ] || [ "$rc" = 2 ] || fail "cut at $cut: status $rc: $(tail -n 3 "$T/cut.err")"
    if [ "$rc" = 2 ]; then
        expect_eq "cut at $cut: one message" 1 "$(wc -l < "$T/cut.err")"
        grep -q "cut.raw: byte [0-9]*: truncated" "$T/cut.err" ||
            fail "cut at $cut: message: $(cat "$T/cut.err")"
    fi
    # every thread's calls (C, C1, C2: threads are numbered by their first
    # event, which a longer prefix may find earlier in another thread)
    n=$(awk '$2 ~ /^C[0-9]*$/' "$T/cut.txt" | wc -l)
    [ "$n" -ge "$prev" ] || fail "cut at $cut: $n calls, fewer than $prev at an earlier cut"
    prev=$n
done < "$T/cuts"
expect_eq "the whole stream: every call" \
    "$("$REPORT" --dump "$T/local.raw" | awk '$2 ~ /^C[0-9]*$/' | wc -l)" "$prev"
echo ok
