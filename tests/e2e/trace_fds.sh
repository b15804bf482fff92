#!/usr/bin/env bash
# The tracer holds no descriptor of the program's: programs that close every
# descriptor, close_range, dup2 over low numbers, reuse numbers, or daemonize
# and close everything, get byte-identical files and output with and without
# the tracer, and the trace is still complete.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/fds" "$PROGRAMS/trace_fds.c" -no-pie
nm "$T/fds" > "$T/nm"
for mode in closeall range dup2 reuse daemon; do
    mkdir -p "$T/plain-$mode" "$T/traced-$mode" "$T/trace-$mode"
    set +e
    "$T/fds" $mode "$T/plain-$mode" > "$T/plain-$mode.out"; plain=$?
    CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT="$T/trace-$mode/t-%p.raw" \
        LD_PRELOAD=$LIB "$T/fds" $mode "$T/traced-$mode" \
        > "$T/traced-$mode.out" 2> "$T/$mode.err"; traced=$?
    set -e
    expect_eq "$mode: status" 0 "$plain"
    expect_eq "$mode: traced status" 0 "$traced"
    diff -r "$T/plain-$mode" "$T/traced-$mode" > /dev/null ||
        fail "$mode: the program's files differ under the tracer"
    cmp -s "$T/plain-$mode.out" "$T/traced-$mode.out" || fail "$mode: stdout differs"
    [ ! -s "$T/$mode.err" ] || fail "$mode: tracer spoke: $(head -n 2 "$T/$mode.err")"
    want=$(sed -n 's/^f=\([0-9]*\).*/\1/p' "$T/plain-$mode.out")
    total=0
    for raw in "$T/trace-$mode"/*.raw; do
        "$DEC" -n "$T/nm" "$raw" > "$raw.txt" || fail "$mode: decode $raw: $(tail -n 1 "$raw.txt")"
        head -n 1 "$raw.txt" | has ' flags=5 ' || fail "$mode: not closed cleanly: $(head -n 1 "$raw.txt")"
        n=$(awk '$3=="C" && $4=="f"' "$raw.txt" | wc -l)
        total=$((total + n))
    done
    expect_eq "$mode: calls of f in the trace" "$want" "$total"
done

# The trace file removed, or replaced by the program's own file of that
# name: one line, tracing stops, nothing is written anywhere else.
cat > "$T/gone.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void f(void) { sink++; }
/* gone TRACE remove|replace|ownerr LOG|epipe */
int main(int argc, char **argv)
{
    for (int i = 0; i < 1000; i++) f();
    if (strcmp(argv[2], "ownerr") == 0 && argc > 3) {
        /* Its own file where standard error was (a daemon's log). */
        close(2);
        if (open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644) != 2) return 1;
        if (write(2, "mine\n", 5) != 5) return 1;
    }
    if (strcmp(argv[2], "epipe") == 0)
        usleep(300000);  /* the reader of standard error has gone by now */
    unlink(argv[1]);
    if (strcmp(argv[2], "replace") == 0) {
        int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (write(fd, "mine\n", 5) != 5) return 1;
        close(fd);
    }
    for (int i = 0; i < 1000000; i++) f();
    puts("done");
    return 0;
}
C
build_traced "$T/gone" "$T/gone.c"
for how in remove replace; do
    mkdir "$T/$how"
    set +e
    CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT="$T/$how/t.raw" LD_PRELOAD=$LIB \
        "$T/gone" "$T/$how/t.raw" $how > "$T/$how.out" 2> "$T/$how.err"; rc=$?
    set -e
    expect_eq "$how: status" 0 "$rc"
    expect_eq "$how: output" done "$(cat "$T/$how.out")"
    expect_eq "$how: one line" 1 "$(wc -l < "$T/$how.err")"
    grep -q "^calltrace: cannot write trace to $T/$how/t.raw: the file was removed or replaced; tracing stopped$" "$T/$how.err" ||
        fail "$how: message: $(cat "$T/$how.err")"
    if [ $how = replace ]; then
        expect_eq "replace: the program's file" mine "$(cat "$T/$how/t.raw")"
        expect_eq "replace: files" t.raw "$(ls "$T/$how")"
    else
        expect_eq "remove: files" "" "$(ls "$T/$how")"
    fi
done

# A program that closes its standard error and opens a file of its own in
# its place (a daemon's log): the tracer's line about the removed trace
# must not land in the program's file; it is not said at all.
mkdir "$T/log2-run"
set +e
CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT="$T/log2-run/t.raw" LD_PRELOAD=$LIB \
    "$T/gone" "$T/log2-run/t.raw" ownerr "$T/log2-run/mine.log" > "$T/log2.out" \
    2> "$T/log2.err"; rc=$?
set -e
expect_eq "own stderr: status" 0 "$rc"
expect_eq "own stderr: output" done "$(cat "$T/log2.out")"
expect_eq "own stderr: the program's file" mine "$(cat "$T/log2-run/mine.log")"
[ ! -s "$T/log2.err" ] || fail "own stderr: tracer spoke on the old one: $(cat "$T/log2.err")"

# A standard error whose reader is gone: the tracer's line must not raise
# SIGPIPE in a program that never writes there itself (it ended it with
# status 141).
mkdir "$T/epipe-run"
set +e
CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT="$T/epipe-run/t.raw" LD_PRELOAD=$LIB \
    "$T/gone" "$T/epipe-run/t.raw" epipe 2>&1 > "$T/epipe.out" | true
rc=${PIPESTATUS[0]}
set -e
expect_eq "stderr's reader gone: status" 0 "$rc"
expect_eq "stderr's reader gone: output" done "$(cat "$T/epipe.out")"

# With the control channel, whose socket is the one descriptor the tracer
# keeps: the program closing or reusing its number is not hurt, and the
# tracer binds a new one (docs/tracer.md).
for mode in closeall range dup2 reuse; do
    mkdir -p "$T/ctl-$mode" "$T/ctl-trace-$mode"
    set +e
    CALLTRACE_CONTROL=1 CALLTRACE_OUTPUT="$T/ctl-trace-$mode/t-%p.raw" \
        LD_PRELOAD=$LIB "$T/fds" $mode "$T/ctl-$mode" \
        > "$T/ctl-$mode.out" 2> "$T/ctl-$mode.err"; traced=$?
    set -e
    expect_eq "control, $mode: status" 0 "$traced"
    diff -r "$T/plain-$mode" "$T/ctl-$mode" > /dev/null ||
        fail "control, $mode: the program's files differ under the tracer"
    cmp -s "$T/plain-$mode.out" "$T/ctl-$mode.out" || fail "control, $mode: stdout differs"
    [ ! -s "$T/ctl-$mode.err" ] || fail "control, $mode: tracer spoke: $(head -n 2 "$T/ctl-$mode.err")"
done
echo ok
