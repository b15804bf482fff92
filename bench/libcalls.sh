#!/usr/bin/env bash
# Cost of recording calls into shared libraries (CALLTRACE_LIBCALLS),
# against uftrace and a do-nothing LD_AUDIT module in the same run.
#   bench/libcalls.sh [RUNS]        (BUILD=build-x to pick the library,
#                                    LIBCALLS_N=2000000 library calls,
#                                    FIB_N=27 for the program without any,
#                                    BASE=old/libcalltrace.so for a row of
#                                    another build's library calls, in the
#                                    same rounds)
# Prints Markdown; the figures in RESULTS-tracer.md come from it.
#
# 1. bench/libcalls_prog.c makes N calls to lib_step (a three-instruction
#    function in a shared library) through the PLT.  Baseline: the same
#    binary under empty hooks.  Rows: calltrace with library calls
#    (CALLTRACE_LIBCALLS=plt, the default) and without (none), uftrace
#    record (its default records PLT calls), and bench/audit_noop.c under
#    LD_AUDIT: la_pltenter and la_pltexit that do nothing, the floor of a
#    tracer built on the audit interface.
# 2. bench/overhead_fib.c makes no library call (one printf): what
#    patching the GOT costs a program that does not use it, plt vs none;
#    and the hooks' cost per instrumented call in the same run, which a
#    library call pays too: the library-call row minus it is what the
#    stub and the trampoline cost.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
. bench/lib.sh
bench_setup
N=${LIBCALLS_N:-2000000}
FIB=${FIB_N:-27}

gcc -std=gnu11 -O2 -shared -fPIC -o "$W/liblibcalls.so" bench/libcalls_lib.c
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/prog" bench/libcalls_prog.c \
    -L"$W" -llibcalls -Wl,-rpath,"$W"
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/audit.so" bench/audit_noop.c
gcc -std=gnu11 -O2 -shared -fPIC -DRECORD -o "$W/auditrec.so" bench/audit_noop.c
have_uftrace=0
command -v uftrace >/dev/null 2>&1 && have_uftrace=1

declare -A wall cpu
med() { printf '%s\n' ${1:-0} | median; }
# Instrumented calls of fib(n) and main: 2 fib(n+1) - 1 + 1.
fibcalls() { local a=0 b=1 i t; for ((i = 0; i <= $1; i++)); do t=$((a + b)); a=$b; b=$t; done; echo $((2 * a)); }

for ((r = 0; r < RUNS; r++)); do
    timed_run noop env LD_PRELOAD="$W/noop.so" "$W/prog" "$N"
    rm -f "$W"/p.raw*
    timed_run plt env CALLTRACE_OUTPUT="$W/p.raw" LD_PRELOAD="$LIB" "$W/prog" "$N"
    if [ -n "${BASE:-}" ]; then
        rm -f "$W"/b.raw*
        timed_run base env CALLTRACE_OUTPUT="$W/b.raw" LD_PRELOAD="$BASE" "$W/prog" "$N"
    fi
    rm -f "$W"/n.raw*
    timed_run none env CALLTRACE_LIBCALLS=none CALLTRACE_OUTPUT="$W/n.raw" LD_PRELOAD="$LIB" "$W/prog" "$N"
    timed_run audit env LD_AUDIT="$W/audit.so" LD_PRELOAD="$W/noop.so" "$W/prog" "$N"
    timed_run auditrec env LD_AUDIT="$W/auditrec.so" LD_PRELOAD="$W/noop.so" "$W/prog" "$N"
    if [ $have_uftrace = 1 ]; then
        rm -rf "$W/u.data"
        timed_run uft uftrace record -d "$W/u.data" "$W/prog" "$N"
    fi
    timed_run fnoop env LD_PRELOAD="$W/noop.so" "$W/fib" "$FIB"
    rm -f "$W"/fp.raw*
    timed_run fplt env CALLTRACE_OUTPUT="$W/fp.raw" LD_PRELOAD="$LIB" "$W/fib" "$FIB"
    rm -f "$W"/fn.raw*
    timed_run fnone env CALLTRACE_LIBCALLS=none CALLTRACE_OUTPUT="$W/fn.raw" LD_PRELOAD="$LIB" "$W/fib" "$FIB"
    if [ $have_uftrace = 1 ]; then
        rm -rf "$W/uf.data"
        timed_run fuft uftrace record -d "$W/uf.data" "$W/fib" "$FIB"
    fi
done
recorded=$("$BUILD/calltrace-report" -b -p "$W/p.raw" | awk '/ lib_step@plt \[/ {print $4}')

awk -v n="$N" -v runs="$RUNS" -v rec="${recorded:-0}" -v fib="$FIB" -v uft=$have_uftrace \
    -v nw="$(med "${wall[noop]}")" -v nc="$(med "${cpu[noop]}")" \
    -v pw="$(med "${wall[plt]}")" -v pc="$(med "${cpu[plt]}")" \
    -v ow="$(med "${wall[none]}")" -v oc="$(med "${cpu[none]}")" \
    -v bw="$(med "${wall[base]:-0}")" -v bc="$(med "${cpu[base]:-0}")" -v base="${BASE:-}" \
    -v aw="$(med "${wall[audit]}")" -v ac="$(med "${cpu[audit]}")" \
    -v rw="$(med "${wall[auditrec]}")" -v rc="$(med "${cpu[auditrec]}")" \
    -v uw="$(med "${wall[uft]:-0}")" -v uc="$(med "${cpu[uft]:-0}")" \
    -v fnw="$(med "${wall[fnoop]}")" -v fpw="$(med "${wall[fplt]}")" \
    -v fow="$(med "${wall[fnone]}")" -v fuw="$(med "${wall[fuft]:-0}")" \
    -v fnc="$(med "${cpu[fnoop]}")" -v fpc="$(med "${cpu[fplt]}")" \
    -v foc="$(med "${cpu[fnone]}")" -v fuc="$(med "${cpu[fuft]:-0}")" \
    -v fcalls="$(fibcalls "$FIB")" 'BEGIN {
    printf "%d calls of lib_step through the PLT (calltrace recorded %d), median of %d alternating runs\n\n", n, rec, runs
    printf "| run | time (ms) | ns per library call over empty hooks | CPU ns per library call | time vs empty hooks |\n"
    printf "|---|---|---|---|---|\n"
    printf "| empty hooks (baseline) | %.1f | 0 | 0 | 1.00 |\n", nw/1e6
    printf "| calltrace, CALLTRACE_LIBCALLS=plt (default) | %.1f | %.1f | %.1f | %.2f |\n", pw/1e6, (pw-nw)/n, (pc-nc)/n, pw/nw
    if (base != "")
        printf "| BASE, CALLTRACE_LIBCALLS=plt | %.1f | %.1f | %.1f | %.2f |\n", bw/1e6, (bw-nw)/n, (bc-nc)/n, bw/nw
    printf "| calltrace, CALLTRACE_LIBCALLS=none | %.1f | %.1f | %.1f | %.2f |\n", ow/1e6, (ow-nw)/n, (oc-nc)/n, ow/nw
    printf "| LD_AUDIT, empty la_pltenter + la_pltexit | %.1f | %.1f | %.1f | %.2f |\n", aw/1e6, (aw-nw)/n, (ac-nc)/n, aw/nw
    printf "| LD_AUDIT, each callback stores the TSC | %.1f | %.1f | %.1f | %.2f |\n", rw/1e6, (rw-nw)/n, (rc-nc)/n, rw/nw
    if (uft)
        printf "| uftrace record | %.1f | %.1f | %.1f | %.2f |\n", uw/1e6, (uw-nw)/n, (uc-nc)/n, uw/nw
    printf "\nfib(%d): %d instrumented calls, no library call but one printf:\n\n", fib, fcalls
    printf "| run | time (ms) | CPU (ms) | CPU ns per instrumented call over empty hooks | time vs empty hooks |\n|---|---|---|---|---|\n"
    printf "| empty hooks | %.1f | %.1f | 0 | 1.00 |\n", fnw/1e6, fnc/1e6
    printf "| calltrace, plt | %.1f | %.1f | %.1f | %.2f |\n", fpw/1e6, fpc/1e6, (fpc-fnc)/fcalls, fpw/fnw
    printf "| calltrace, none | %.1f | %.1f | %.1f | %.2f |\n", fow/1e6, foc/1e6, (foc-fnc)/fcalls, fow/fnw
    if (uft)
        printf "| uftrace record | %.1f | %.1f | %.1f | %.2f |\n", fuw/1e6, fuc/1e6, (fuc-fnc)/fcalls, fuw/fnw
    printf "\nplt minus none, no library call made: %.2f ms elapsed, %.2f ms CPU per process\n", (fpw-fow)/1e6, (fpc-foc)/1e6
    printf "stub + trampoline per library call (CPU, library-call row minus the hooks per instrumented call): %.1f ns\n", (pc-nc)/n - (foc-fnc)/fcalls
    if (base != "")
        printf "the same of BASE (its library-call row minus this build'"'"'s hooks): %.1f ns\n", (bc-nc)/n - (foc-fnc)/fcalls
}'
