#!/usr/bin/env bash
# The patchable-entry mode on fib (bench/overhead_fib.c), CPU time per
# call, in the same alternating rounds:
#   plain            built without any instrumentation flag, no tracer
#   nops             built with `calltrace cflags --patchable`, no tracer
#   patched          the same under the tracer (every entry patched)
#   unpatched        the same under the tracer, fib left unpatched
#                    (CALLTRACE_PATCH=-fib: a five-byte NOP, as it would be
#                    after `calltrace control PID patch -fib`); its excess
#                    over nops is the tracer's start-up, not the calls
#   hooks-empty      -finstrument-functions under empty hooks
#   hooks            -finstrument-functions under the tracer
# and the peers, where installed (clang 14's XRay, uftrace):
#   clang-plain      clang -O2, no flag (XRay's baseline: clang makes
#                    fewer calls of fib than gcc)
#   xray-sleds       clang -fxray-instrument -fxray-instruction-threshold=1,
#                    nothing patched
#   xray-basic       the same, every sled patched, XRay's basic mode
#   xray-fdr         the same, XRay's flight-data-recorder mode
#   uftrace-P        uftrace record -P . on the nops build (its patchable
#                    entries, as calltrace's patched mode uses them)
#   bench/patch_cost.sh [RUNS]      (BUILD=build-x, FIB_N=30)
# Each figure is the median of RUNS, and ns per call recorded over the
# plain build: the calls of the build run (gcc compiles fib into fewer
# calls without -finstrument-functions, which stops some optimisations;
# the plain build makes the calls the patchable one does).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
. bench/lib.sh
bench_setup
FIB_N=${FIB_N:-30}
gcc -std=gnu11 -O2 -o "$W/plain" bench/overhead_fib.c
gcc -std=gnu11 -O2 -fpatchable-function-entry=5,0 -o "$W/nops" bench/overhead_fib.c
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/hooks" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
peers=()
if command -v clang >/dev/null &&
   clang -O2 -fxray-instrument -fxray-instruction-threshold=1 \
       -o "$W/xray" bench/overhead_fib.c 2>/dev/null; then
    clang -O2 -o "$W/cplain" bench/overhead_fib.c
    peers+=(clang-plain xray-sleds xray-basic xray-fdr)
fi
command -v uftrace >/dev/null && peers+=(uftrace-P)
echo "command: BUILD=$BUILD FIB_N=$FIB_N bench/patch_cost.sh $RUNS"
echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
run() {  # NAME CMD...
    local name=$1
    shift
    rm -f "$W"/t.raw*
    cpu[$name]+="$(cpu_ns "$@") "
}
declare -A cpu calls
for ((r = 0; r < RUNS; r++)); do
    run plain "$W/plain" "$FIB_N"
    run nops "$W/nops" "$FIB_N"
    run patched env CALLTRACE_CPUTIME=off CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$W/nops" "$FIB_N"
    run unpatched env CALLTRACE_PATCH=-fib CALLTRACE_CPUTIME=off CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$W/nops" "$FIB_N"
    run hooks-empty env LD_PRELOAD="$W/noop.so" "$W/hooks" "$FIB_N"
    run hooks env CALLTRACE_CPUTIME=off CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$W/hooks" "$FIB_N"
    for n in "${peers[@]}"; do
        rm -rf "$W"/xlog-* "$W/uft"
        case $n in
        clang-plain) run "$n" "$W/cplain" "$FIB_N" ;;
        xray-sleds) run "$n" "$W/xray" "$FIB_N" ;;
        # basic mode keeps only calls of 5 us or more unless told
        xray-basic) run "$n" env XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
            XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=$W/xlog-" "$W/xray" "$FIB_N" ;;
        xray-fdr) run "$n" env XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_logfile_base=$W/xlog-" "$W/xray" "$FIB_N" ;;
        uftrace-P) run "$n" uftrace record -P . --no-libcall -d "$W/uft" "$W/nops" "$FIB_N" ;;
        esac
    done
done 2>/dev/null
# The calls each traced build recorded.
for b in nops hooks; do
    rm -f "$W"/t.raw*
    CALLTRACE_CPUTIME=off CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$W/$b" "$FIB_N" > /dev/null
    calls[$b]=$("$REPORT" -b -p "$W/t.raw" | sed -n 's/^ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
done
# The calls of clang's build, from XRay's own account of a basic-mode run.
if [ ${#peers[@]} -gt 0 ] && [ "${peers[0]}" = clang-plain ]; then
    rm -rf "$W"/xlog-*
    XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
    XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=$W/xlog-" \
        "$W/xray" "$FIB_N" > /dev/null 2>&1
    calls[xray]=$(llvm-xray account -instr_map="$W/xray" "$(ls "$W"/xlog-* | sed -n 1p)" 2>/dev/null |
        awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {s += $2} END {print s + 0}')
fi
echo "calls recorded: patched ${calls[nops]}, hooks ${calls[hooks]}${calls[xray]:+, XRay build ${calls[xray]}}"
med() { printf '%s\n' $1 | median; }
p=$(med "${cpu[plain]}")
echo
echo "| run | CPU ms (median) | ns per call over the plain build |"
echo "|---|---|---|"
for n in plain nops patched unpatched hooks-empty hooks "${peers[@]}"; do
    c=${calls[nops]} base=$p
    case $n in
    hooks*) c=${calls[hooks]} ;;
    # XRay's rows over clang's own plain build, per call of clang's build
    clang-plain|xray-*) c=${calls[xray]}; base=$(med "${cpu[clang-plain]}") ;;
    esac
    awk -v n="$n" -v m="$(med "${cpu[$n]}")" -v p="$base" -v c="$c" \
        'BEGIN { printf "| %s | %.1f | %.2f |\n", n, m/1e6, c ? (m-p)/c : 0 }'
done
