#!/usr/bin/env bash
# Cost of a paused call and of the flight recorder, per instrumented call,
# against empty hooks (bench/overhead_noop.c), on fib(N):
#   bench/flight.sh [RUNS]     (BUILD=build-x to pick the library, FIB_N=32,
#                               BASE=old/libcalltrace.so to time a previous
#                               build's paused call in the same runs)
# Runs of the variants alternate, so a busy machine slows them alike; each
# figure is the median of RUNS, less the median of the same runs of fib(1)
# (start-up and exit, which are not per call).  The flight recorder's ring
# (4M) is far smaller than the trace, so it wraps all along.  Prints a
# Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}
. bench/lib.sh
bench_setup
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
N=${FIB_N:-32}
C=$(fib_calls "$N")   # fib calls + main
declare -A cpu
run() {  # name, command... (its last argument is N, replaced by 1 once)
    local name=$1; shift
    sync
    cpu[$name]+="$(cpu_ns "$@") "
    cpu[$name.1]+="$(cpu_ns "${@:1:$(($# - 1))}" 1) "
}
median() { printf '%s\n' $1 | sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
for ((r = 0; r < RUNS; r++)); do
    run noop env LD_PRELOAD="$W/noop.so" "$W/fib" "$N"
    run paused env CALLTRACE_START_PAUSED=1 CALLTRACE_OUTPUT="$W/p.raw" LD_PRELOAD="$LIB" "$W/fib" "$N"
    rm -f "$W"/p.raw*
    if [ -n "${BASE:-}" ]; then
        run base env CALLTRACE_START_PAUSED=1 CALLTRACE_OUTPUT="$W/b.raw" LD_PRELOAD="$BASE" "$W/fib" "$N"
        rm -f "$W"/b.raw*
    fi
    run file env CALLTRACE_OUTPUT="$W/f.raw" LD_PRELOAD="$LIB" "$W/fib" "$N"
    file_bytes=$(stat -c %s "$W/f.raw"); rm -f "$W"/f.raw*
    run flight env CALLTRACE_FLIGHT=4M CALLTRACE_OUTPUT="$W/r.raw" LD_PRELOAD="$LIB" "$W/fib" "$N"
    ring_bytes=$(stat -c %s "$W/r.raw"); rm -f "$W"/r.raw*
done
per_call() { echo $(( $(median "${cpu[$1]}") - $(median "${cpu[$1.1]}") )); }
n=$(per_call noop)
row() { awk -v name="$1" -v t="$(per_call "$2")" -v n="$n" -v c="$C" -v extra="${3:-}" \
    'BEGIN { printf "| %s | %.1f | %.2f | %.2f | %s |\n", name, t/1e6, (t-n)/c, t/n, extra }'; }
echo "fib($N): $C instrumented calls, CPU time less fib(1)'s, median of $RUNS alternating runs"
echo
echo "| run | CPU ms | ns/call over empty hooks | vs empty hooks | file |"
echo "|---|---|---|---|---|"
row "empty hooks (baseline)" noop
row "CALLTRACE_START_PAUSED=1" paused
[ -z "${BASE:-}" ] || row "START_PAUSED, BASE $BASE" base
row "calltrace, whole run to a file" file "$((file_bytes >> 20)) MiB"
row "CALLTRACE_FLIGHT=4M (ring wraps)" flight "$((ring_bytes >> 20)) MiB"

# The paused call alone: one instrumented call in a loop, the fastest of
# 100 rounds of 10^6 calls in each of RUNS processes (bench/paused_call.c).
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/pc" bench/paused_call.c
declare -A best
for ((r = 0; r < RUNS; r++)); do
    for v in noop paused ${BASE:+base}; do
        case $v in
            noop) x=$(LD_PRELOAD="$W/noop.so" "$W/pc");;
            paused) x=$(CALLTRACE_START_PAUSED=1 CALLTRACE_OUTPUT="$W/q.raw" LD_PRELOAD="$LIB" "$W/pc");;
            base) x=$(CALLTRACE_START_PAUSED=1 CALLTRACE_OUTPUT="$W/q.raw" LD_PRELOAD="$BASE" "$W/pc");;
        esac
        rm -f "$W"/q.raw*
        best[$v]=$(awk -v a="${best[$v]:-1e300}" -v b="$x" 'BEGIN { print (b < a) ? b : a }')
    done
done
echo
echo "one call (enter + exit) in a loop, fastest round: empty hooks ${best[noop]} ns," \
     "paused ${best[paused]} ns: $(awk -v a="${best[paused]}" -v b="${best[noop]}" 'BEGIN { printf "%.2f", a - b }') ns over empty hooks"
[ -z "${BASE:-}" ] || echo "BASE paused: ${best[base]} ns: $(awk -v a="${best[base]}" -v b="${best[noop]}" 'BEGIN { printf "%.2f", a - b }') ns over empty hooks"
