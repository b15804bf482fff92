#!/usr/bin/env bash
# Streaming under an address space limit (ulimit -v): the stream window
# took the first size that fit, most of what the program had left, and the
# program's own 2 GiB malloc failed.  Now the window takes an eighth of
# the limit at most: the program runs as it does untraced and the stream
# holds its calls.  Under a limit too small for a window, the stream does
# not start (one line) and the program still runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/stream-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
command -v nc > /dev/null || skip "no nc (netcat-openbsd; scripts/install-deps.sh)"
cat > "$T/asv.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile long sink;
__attribute__((noinline)) void f(long i) { sink += i; }
int main(void)
{
    for (long i = 0; i < 100000; i++)
        f(i);
    size_t n = (size_t)2 << 30;
    char *p = malloc(n);
    if (!p) {
        puts("malloc failed");
        return 1;
    }
    memset(p, 1, 4096);
    puts("done");
    return 0;
}
C
build_traced "$T/asv" "$T/asv.c"
out=$(ulimit -v 4000000; "$T/asv") || fail "untraced under ulimit -v: $out"
expect_eq "untraced" done "$out"

# traced_under LIMIT_KB OUT: the program under ulimit -v, streaming to a
# capture into OUT; sets rc and out, stderr in $T/err.
traced_under() {
    local port
    port=$(free_port)
    nc_capture "$port" "$2"
    wait_listening "$port"
    set +e
    out=$(ulimit -v "$1"
          CALLTRACE_OUTPUT=tcp:127.0.0.1:$port LD_PRELOAD=$LIB \
              "$T/asv" 2> "$T/err"); rc=$?
    set -e
    wait_ended "$NC_PID"
}

traced_under 4000000 "$T/stream.raw"
expect_eq "traced: status" 0 "$rc"
expect_eq "traced: output" done "$out"
[ ! -s "$T/err" ] || fail "traced: tracer spoke: $(cat "$T/err")"
calls=$("$REPORT" -b -p "$T/stream.raw" | awk 'NF > 1 && $(NF-1) == "f" && $4 ~ /^[0-9]+$/ { print $4 }')
expect_eq "calls of f in the stream" 100000 "$calls"

# The tracer connects, then finds no room for the window and hangs up.
traced_under 600000 "$T/stream2.raw"
# 600 MB cannot hold the program's 2 GiB either: it says so itself.
expect_eq "small limit: output" "malloc failed" "$out"
expect_eq "small limit: status" 1 "$rc"
expect_eq "small limit: one line" 1 "$(wc -l < "$T/err")"
has "cannot map the stream window" "$T/err" || fail "small limit: $(cat "$T/err")"
echo "ok: the stream window leaves the program its address space"
