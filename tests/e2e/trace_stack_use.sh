#!/usr/bin/env bash
# The most the tracer takes of the program's stack on every path: the
# first event of a thread, block switches, library-call stubs, an
# instrumented handler on a signal stack, the sampling handler
# (tests/programs/stack_use.c measures each, untraced and traced), and the
# hooks' trampoline of arguments (ARGS=f@...%loc, preload/args/site.c).  Each
# may take at most 1 KiB more than the program itself; the sampling
# handler its signal frame (the kernel's, as large as any handler's) and
# 1 KiB.  Then an instrumented handler on a signal stack just 1 KiB larger
# than it needs untraced runs traced, with block switches inside it.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
# Bound at load (-z now): the loader's lazy binding would count as the
# program's own use, several KiB at a first call.
build_traced "$T/use" "$PROGRAMS/stack_use.c" -Wl,-z,now
BUDGET=1024
"$T/use" probe > "$T/plain" || fail "untraced run"
val() { awk -v k="$1" '$1==k {print $2}' "$2"; }
sigframe=$(val sigframe "$T/plain")
[ -n "$sigframe" ] && [ "$sigframe" -gt 0 ] || fail "no signal frame measured: $(cat "$T/plain")"
export CALLTRACE_LIBCALLS=plt
for mode in default BUFSIZE=4K LIBCALLS=nested FILTER=f,calls_lib CPUTIME=clock \
            CLOCK=monotonic FLIGHT=1M SUPPLIER=1 MODE=both ARGS=getpid@retval/i32 \
            ARGS=getpid@retval/s ARGS=f@arg1%rbx,arg2/u16%rsp+8 ARGS=f@arg1/s%rsp+0; do
    vars=(CALLTRACE_BUFSIZE=64K)
    [ "$mode" = default ] || vars+=("CALLTRACE_$mode")
    [ "$mode" = MODE=both ] && vars+=(CALLTRACE_SAMPLE_INTERVAL=100us)
    rm -f "$T"/t.raw*
    env "${vars[@]}" CALLTRACE_OUTPUT="$T/t.raw" LD_PRELOAD="$LIB" "$T/use" probe \
        > "$T/traced" 2> "$T/err" || fail "$mode: traced run ($?): $(head -n 2 "$T/err")"
    for path in first switch libcall handler sample; do
        plain=$(val $path "$T/plain"); traced=$(val $path "$T/traced")
        [ -n "$traced" ] || fail "$mode: no $path line: $(cat "$T/traced")"
        allowed=$BUDGET
        # A SIGPROF frame may land on any path while sampling.
        [ "$mode" = MODE=both ] && allowed=$((BUDGET + sigframe))
        extra=$((traced - plain))
        [ "$extra" -le "$allowed" ] ||
            fail "$mode: $path took $extra bytes more of the program's stack (at most $allowed)"
        echo "$mode $path $extra"
        [ -z "${SHOW:-}" ] || echo "$mode $path $extra" >&2
    done
done > "$T/extra"

# The patchable-entry mode: the same program built with NOP entries, its
# calls through the trampolines (which save the argument registers on
# the program's stack) and the hooks under them.
if [ "$(uname -m)" = x86_64 ]; then
    read -r -a pflags <<< "$("$FRONT" cflags --patchable)"
    gcc -std=gnu11 -O1 -g "${pflags[@]}" -I"$CT_ROOT/include" -o "$T/puse" \
        "$PROGRAMS/stack_use.c" -lpthread -ldl -Wl,-z,now
    "$T/puse" probe > "$T/pplain" || fail "patchable: untraced run"
    for mode in default BUFSIZE=4K LIBCALLS=nested ARGS=getpid@retval/s; do
        vars=(CALLTRACE_BUFSIZE=64K)
        [ "$mode" = default ] || vars+=("CALLTRACE_$mode")
        rm -f "$T"/t.raw*
        env "${vars[@]}" CALLTRACE_OUTPUT="$T/t.raw" LD_PRELOAD="$LIB" "$T/puse" probe \
            > "$T/ptraced" 2> "$T/err" ||
            fail "patchable $mode: traced run ($?): $(head -n 2 "$T/err")"
        for path in first switch libcall handler sample; do
            plain=$(val $path "$T/pplain"); traced=$(val $path "$T/ptraced")
            [ -n "$traced" ] || fail "patchable $mode: no $path line: $(cat "$T/ptraced")"
            extra=$((traced - plain))
            [ "$extra" -le "$BUDGET" ] ||
                fail "patchable $mode: $path took $extra bytes more of the program's stack (at most $BUDGET)"
            echo "patchable-$mode $path $extra"
            [ -z "${SHOW:-}" ] || echo "patchable-$mode $path $extra" >&2
        done
    done >> "$T/extra"
fi

# A signal stack 1 KiB larger than the handler needs untraced.
size=$(( $(val handler "$T/plain") + BUDGET ))
for bs in 4K 64K; do
    rm -f "$T"/t.raw*
    ( ulimit -c 0; CALLTRACE_BUFSIZE=$bs CALLTRACE_OUTPUT="$T/t.raw" LD_PRELOAD="$LIB" \
        "$T/use" alt "$size" > "$T/alt.out" 2> "$T/alt.err" ) 2>/dev/null ||
        fail "bufsize $bs: handler on a $size-byte signal stack died ($?)"
done
sort -k2,2 -k3n "$T/extra" | awk '{m[$2]=$3>m[$2]?$3:m[$2]} END {for (p in m) print "most extra on", p":", m[p]}'
echo "ok"
