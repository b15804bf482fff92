#!/usr/bin/env bash
# The tracer takes nothing from the program's malloc heap: at main and after
# a dlopen the heap's figures (mallinfo2) are the same with and without it,
# in C and in C++, in each mode that does its set-up work at start or at a
# dlopen (library-call patching, filters, triggers, sampling, streaming,
# the flight recorder, the block supplier).  The documented exceptions are
# not run here: regular expressions (regcomp), the control thread
# (pthread_create), and name rules in a C++ program (its __cxa_demangle).
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
cat > "$T/plugin.c" <<'C'
#include <stdlib.h>
#include <string.h>
static int twice(int x) { return 2 * x; }
int plugin(int x) { return twice(x) + (int)strlen("plugin") + abs(-x); }
C
gcc -O1 -fPIC -shared -finstrument-functions -o "$T/plugin.so" "$T/plugin.c"
build_traced "$T/heap" "$PROGRAMS/trace_heap.c"
g++ -O1 -g -finstrument-functions -x c++ -o "$T/heapxx" \
    "$PROGRAMS/trace_heap.c" -ldl
for prog in heap heapxx; do
    "$T/$prog" "$T/plugin.so" > "$T/$prog.plain" || fail "$prog: untraced run"
    has '^main: ' "$T/$prog.plain" || fail "$prog: no figures"
    for mode in default LIBCALLS=none LIBCALLS=nested FILTER=leaf,twice \
                FILTER=-twice DEPTH=2 MIN_DURATION=1us TRIGGER=leaf:on \
                SAMPLE=997 STREAM=127.0.0.1:9 FLIGHT=1M SUPPLIER=1 \
                CPUTIME=clock CLOCK=monotonic; do
        case $prog/$mode in heapxx/FILTER=* | heapxx/TRIGGER=*) continue ;; esac
        vars=()
        [ "$mode" = default ] || vars=("CALLTRACE_$mode")
        rm -rf "$T/out"; mkdir "$T/out"
        env "${vars[@]}" CALLTRACE_OUTPUT="$T/out/t-%p.raw" LD_PRELOAD=$LIB \
            "$T/$prog" "$T/plugin.so" > "$T/$prog.traced" 2> "$T/err" ||
            fail "$prog $mode: traced run failed: $(head -n 2 "$T/err")"
        diff "$T/$prog.plain" "$T/$prog.traced" > "$T/diff" ||
            fail "$prog $mode: the heap differs under the tracer: $(cat "$T/diff")"
    done
done
echo "ok: the program's heap is the same with and without the tracer"
