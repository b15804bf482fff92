#!/usr/bin/env bash
# dlopen of a bare name searches the caller's own DT_RUNPATH (Debian's
# default for -rpath) or DT_RPATH.  With the tracer's dlopen wrapper the
# caller was the tracer, and a program that finds its plugins through its
# RUNPATH failed ("cannot open shared object file").  Each case must give
# the untraced output, and the plugins' calls must be in the trace:
#   runpath  the program's RUNPATH $ORIGIN/plug
#   nested   that plugin opens a sub-plugin through its own RUNPATH
#   rpath    the program's DT_RPATH (old tags)
#   llp      LD_LIBRARY_PATH holds another file of that name: it wins
#   loaded   the name is already loaded (a soname): the same object
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
mkdir -p "$T/bin/plug/sub" "$T/llp" "$T/old/plug"
plugin() {  # plugin OUT VALUE [ld flags]
    local out=$1 value=$2; shift 2
    gcc -O1 -g -fPIC -shared -finstrument-functions -DVALUE="$value" \
        -o "$out" "$PROGRAMS/runpath_plugin.c" -ldl "$@"
}
plugin "$T/bin/plug/libct_rp.so" 40 -Wl,-rpath,'$ORIGIN/sub'
plugin "$T/bin/plug/sub/libct_rp_sub.so" 2
plugin "$T/llp/libct_rp.so" 7
build_traced "$T/bin/main" "$PROGRAMS/runpath_main.c" -Wl,-rpath,'$ORIGIN/plug'
readelf -d "$T/bin/main" | has RUNPATH || skip "the linker wrote no RUNPATH"
plugin "$T/old/plug/libct_rp.so" 30
build_traced "$T/old/main" "$PROGRAMS/runpath_main.c" \
    -Wl,--disable-new-dtags,-rpath,'$ORIGIN/plug'
readelf -d "$T/old/main" | has '(RPATH)' || fail "no RPATH in old/main"
gcc -O1 -g -finstrument-functions -o "$T/bin/linked" \
    "$PROGRAMS/runpath_main.c" -ldl -L"$T/bin/plug" -l:libct_rp.so \
    -Wl,-rpath,'$ORIGIN/plug' -Wl,--no-as-needed

check() {  # check NAME WANT [env...] -- CMD...
    local name=$1 want=$2; shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local plain traced
    plain=$(env "${envs[@]}" "$@") || fail "$name: untraced run: $plain"
    expect_eq "$name: untraced output" "$want" "$plain"
    rm -f "$T/$name.raw"
    traced=$(env "${envs[@]}" CALLTRACE_OUTPUT="$T/$name.raw" LD_PRELOAD="$LIB" \
        "$@" 2> "$T/$name.err") || fail "$name: traced run: $traced $(cat "$T/$name.err")"
    expect_eq "$name: traced output" "$plain" "$traced"
    [ ! -s "$T/$name.err" ] || fail "$name: tracer spoke: $(cat "$T/$name.err")"
    "$REPORT" -b -p "$T/$name.raw" > "$T/$name.txt" || fail "$name: report"
    has -E ' own \[[0-9]+\]$' "$T/$name.txt" || fail "$name: the plugin's calls are not in the trace"
}
check runpath "plugin=40" X=1 -- "$T/bin/main" libct_rp.so
check nested "plugin=42" X=1 -- "$T/bin/main" libct_rp.so libct_rp_sub.so
check rpath "plugin=30" X=1 -- "$T/old/main" libct_rp.so
check llp "plugin=7" LD_LIBRARY_PATH="$T/llp" -- "$T/bin/main" libct_rp.so
check loaded "plugin=40" X=1 -- "$T/bin/linked" libct_rp.so
echo "ok: dlopen searches the caller's own RUNPATH under the tracer"
