#!/usr/bin/env bash
# A process with a file size limit (ulimit -f): the trace stops short of
# it, as at CALLTRACE_LIMIT, and the program never gets the SIGXFSZ that
# ended it (status 153) when the tracer extended its file past the limit.
# Every event is either in the trace or counted lost; one line says why.
# The flight recorder's ring, larger than the limit, cannot be laid out:
# one line, no tracing, the program unharmed.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
cat > "$T/big.c" <<'C'
#include <stdio.h>
static volatile long sink;
__attribute__((noinline)) void f(long i) { sink += i; }
int main(void)
{
    for (long i = 0; i < 3000000; i++)
        f(i);
    puts("done");
    return 0;
}
C
build_traced "$T/big" "$T/big.c"
events_and_lost() {  # calls and returns recorded, plus events lost
    "$REPORT" -b -p "$1" | awk '
        /^ Events: / { c = substr($3, 2); r = $5 } /^ Lost events: / { l = $3 }
        END { print c + r + l }'
}
for bufsize in 1M 4K; do
    rm -rf "$T/out"; mkdir "$T/out"
    set +e
    (ulimit -f 2048
     CALLTRACE_LIBCALLS=none CALLTRACE_BUFSIZE=$bufsize \
         CALLTRACE_OUTPUT="$T/out/t.raw" LD_PRELOAD=$LIB "$T/big" \
         > "$T/out.txt" 2> "$T/err.txt"); rc=$?
    set -e
    expect_eq "$bufsize: status" 0 "$rc"
    expect_eq "$bufsize: output" done "$(cat "$T/out.txt")"
    expect_eq "$bufsize: one line" 1 "$(wc -l < "$T/err.txt")"
    grep -q "^calltrace: the trace reached the process's file size limit (ulimit -f, 2097152 bytes): later events are counted as lost$" "$T/err.txt" ||
        fail "$bufsize: message: $(cat "$T/err.txt")"
    size=$(stat -c %s "$T/out/t.raw")
    [ "$size" -le 2097152 ] || fail "$bufsize: trace of $size bytes, past the limit"
    # 3 M calls of f and one of main, each a call and a return.
    expect_eq "$bufsize: events recorded or counted lost" 6000002 \
        "$(events_and_lost "$T/out/t.raw")"
done

rm -rf "$T/out"; mkdir "$T/out"
set +e
(ulimit -f 2048
 CALLTRACE_FLIGHT=4M CALLTRACE_OUTPUT="$T/out/t.raw" LD_PRELOAD=$LIB \
     "$T/big" > "$T/out.txt" 2> "$T/err.txt"); rc=$?
set -e
expect_eq "flight: status" 0 "$rc"
expect_eq "flight: output" done "$(cat "$T/out.txt")"
expect_eq "flight: one line" 1 "$(wc -l < "$T/err.txt")"
has "cannot lay out the flight recorder ring: File too large; tracing stopped" "$T/err.txt" ||
    fail "flight: message: $(cat "$T/err.txt")"
echo "ok: the trace stops at the file size limit, the program runs on"
