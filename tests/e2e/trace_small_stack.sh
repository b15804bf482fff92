#!/usr/bin/env bash
# A thread with the smallest stack glibc allows (16 KiB) through the
# tracer's deepest paths (tests/programs/small_stack.c): it must run
# traced as it runs untraced, in every mode.  The dlopen wrapper's search
# of the caller's RUNPATH once kept three PATH_MAX buffers on the stack
# and overflowed it.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
cat > "$T/plugin.c" <<'C'
#include <string.h>
static int twice(int x) { return 2 * x; }
int plugin(int x) { return twice(x) + (int)strlen("plugin"); }
C
gcc -O1 -fPIC -shared -finstrument-functions -o "$T/plugin.so" "$T/plugin.c"
build_traced "$T/small" "$PROGRAMS/small_stack.c" -Wl,-rpath,"$T/nowhere"
want=$("$T/small" "$T/plugin.so") || fail "untraced run"
expect_eq "untraced" "done 1" "$want"
for mode in default LIBCALLS=nested FILTER=f,twice,work DEPTH=3 \
            MIN_DURATION=1us CPUTIME=clock CLOCK=monotonic FLIGHT=1M \
            SAMPLE=997 SUPPLIER=1; do
    vars=()
    [ "$mode" = default ] || vars=("CALLTRACE_$mode")
    rm -rf "$T/out"; mkdir "$T/out"
    got=$(env "${vars[@]}" CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT="$T/out/t.raw" \
        LD_PRELOAD=$LIB "$T/small" "$T/plugin.so" "$T/out/t.raw" 2> "$T/err") ||
        fail "$mode: traced run failed ($?): $(head -n 2 "$T/err")"
    expect_eq "$mode: output" "$want" "$got"
done

# The patchable-entry mode: the program and the plugin built with NOP
# entries; the dlopen on the small stack patches the plugin, with
# CALLTRACE_PATCH to apply and rules of CALLTRACE_ARGS to find (the
# tables of that path once took 36 and 16 KiB of the caller's stack).
if [ "$(uname -m)" = x86_64 ]; then
    read -r -a pflags <<< "$("$FRONT" cflags --patchable)"
    gcc -O1 -fPIC -shared "${pflags[@]}" -o "$T/pplugin.so" "$T/plugin.c"
    gcc -std=gnu11 -O1 "${pflags[@]}" -o "$T/psmall" "$PROGRAMS/small_stack.c" \
        -Wl,-rpath,"$T/nowhere" -lpthread -ldl
    pwant=$("$T/psmall" "$T/pplugin.so") || fail "patchable: untraced run"
    for mode in default PATCH=-twice ARGS=twice@arg1,retval; do
        vars=()
        [ "$mode" = default ] || vars=("CALLTRACE_$mode")
        rm -rf "$T/out"; mkdir "$T/out"
        got=$(env "${vars[@]}" CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT="$T/out/t.raw" \
            LD_PRELOAD=$LIB "$T/psmall" "$T/pplugin.so" "$T/out/t.raw" 2> "$T/err") ||
            fail "patchable $mode: traced run failed ($?): $(head -n 2 "$T/err")"
        expect_eq "patchable $mode: output" "$pwant" "$got"
    done
fi
echo "ok: a 16 KiB thread stack is enough for the tracer"
