#!/usr/bin/env bash
# A C program that loads a C++ plugin with dlopen(RTLD_LOCAL): the plugin's
# calls into the unwinder and to __cxa_begin_catch bind to the tracer's
# wrappers, whose real definitions (libgcc_s, libstdc++) are in the
# plugin's own scope, out of dlsym(RTLD_NEXT)'s reach.  The program must
# run as it does untraced (it was aborted), and the trace must hold every
# call: 10 guarded(int), 5 throwing, 10 destructors, each call ended.
# The same plugin in a C++ program, whose libstdc++ is global: in nested
# mode the unwinder's look-ups, patched again at the dlopen, called
# themselves for ever.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
command -v g++ > /dev/null || skip "no g++"
g++ -O1 -g -shared -fPIC -finstrument-functions -o "$T/plugin.so" \
    "$PROGRAMS/unwind_local_plugin.cpp"
build_traced "$T/main" "$PROGRAMS/unwind_local_main.c"
g++ -O1 -g -finstrument-functions -x c++ -o "$T/mainxx" \
    "$PROGRAMS/unwind_local_main.c" -ldl
want=$("$T/main" "$T/plugin.so") || fail "untraced run"
expect_eq "untraced output" "plugin=5010" "$want"
for run in main/plt main/nested main/none mainxx/plt mainxx/nested; do
    prog=${run%/*} libcalls=${run#*/}
    rm -f "$T/t.raw"
    got=$(timeout 60 env CALLTRACE_LIBCALLS=$libcalls CALLTRACE_LIMIT=64M \
        CALLTRACE_OUTPUT="$T/t.raw" LD_PRELOAD="$LIB" \
        "$T/$prog" "$T/plugin.so" 2> "$T/err") ||
        fail "$run: traced run failed ($?): $(head -n 2 "$T/err")"
    expect_eq "$run: traced output" "$want" "$got"
    [ ! -s "$T/err" ] || fail "$run: tracer spoke: $(head -n 2 "$T/err")"
    "$REPORT" --tree "$T/t.raw" > "$T/tree" || fail "$run: --tree"
    for f in 'guarded(int) 10' 'Guard::~Guard() 10' 'thrower(int) 10' \
             '__cxa_begin_catch@plt() 5'; do
        name=${f% *} n=${f##* }
        [ "$libcalls" != none ] || [ "${name%@plt()}" = "$name" ] || n=0
        # An opening line: "name() {" or "name();", not a closing comment.
        expect_eq "$run: calls of $name" "$n" \
            "$(grep -cF -e " $name {" -e " $name;" "$T/tree")"
    done
    if grep -q 'never returned' "$T/tree"; then
        fail "$run: frames left open: $(grep -m 2 'never returned' "$T/tree")"
    fi
done
echo "ok: a C++ plugin loaded RTLD_LOCAL runs and is traced whole"
