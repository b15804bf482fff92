#!/usr/bin/env bash
# The patchable-entry mode on fib (bench/overhead_fib.c), CPU time per
# call, in the same alternating rounds:
#   plain            built without any instrumentation flag, no tracer
#   nops             built with `calltrace cflags --patchable`, no tracer
#   patched          the same under the tracer (every entry patched)
#   hooks-empty      -finstrument-functions under empty hooks
#   hooks            -finstrument-functions under the tracer
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
    run hooks-empty env LD_PRELOAD="$W/noop.so" "$W/hooks" "$FIB_N"
    run hooks env CALLTRACE_CPUTIME=off CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$W/hooks" "$FIB_N"
done
# The calls each traced build recorded.
for b in nops hooks; do
    rm -f "$W"/t.raw*
    CALLTRACE_CPUTIME=off CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$W/$b" "$FIB_N" > /dev/null
    calls[$b]=$("$REPORT" -b -p "$W/t.raw" | sed -n 's/^ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
done
echo "calls recorded: patched ${calls[nops]}, hooks ${calls[hooks]}"
med() { printf '%s\n' $1 | median; }
p=$(med "${cpu[plain]}")
echo
echo "| run | CPU ms (median) | ns per call over the plain build |"
echo "|---|---|---|"
for n in plain nops patched hooks-empty hooks; do
    c=${calls[nops]}
    case $n in hooks*) c=${calls[hooks]} ;; esac
    awk -v n="$n" -v m="$(med "${cpu[$n]}")" -v p="$p" -v c="$c" \
        'BEGIN { printf "| %s | %.1f | %.2f |\n", n, m/1e6, (m-p)/c }'
done
