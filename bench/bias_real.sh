#!/usr/bin/env bash
# The tracer's bias on real programs (issue 22): the truth is the CPU time
# of the same -finstrument-functions build with hooks that return at once
# (bench/overhead_noop.c), which no tracer on these hooks can go under.
# Each round runs that build and the traced one in turn; the traced run's
# report gives its on-CPU function time raw, with the bias measured in the
# run (--subtract-bias, the default) and with the calibration at start
# (--subtract-bias=start).  "Per call" is what the tracer added to the
# functions' on-CPU time per call, (raw - empty hooks) / calls, beside the
# two figures that would take it off.
#   bench/bias_real.sh [ROUNDS]   (PROGS="lua zstd", LUA_SCALE, ZSTD_ROWS)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${1:-3}
bench_setup
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: BUILD=$BUILD PROGS=\"${PROGS:-lua zstd}\" bench/bias_real.sh $ROUNDS"
echo
echo "| program | calls | empty hooks, CPU ms | functions on-CPU raw, ms | tracer per call, ns | run's figure (inside + caller) | start's figure | bias off (run), ms | bias off (start), ms |"
echo "|---|---|---|---|---|---|---|---|---|"
# on-CPU functions' time of a report, in ms
oncpu_ms() {
    awk '/^On-CPU:/ { v = $9; sub(/\(on-CPU\)/, "", v)
        u = v; sub(/[0-9.]+/, "", u); n = v + 0
        print n * (u == "s" ? 1000 : u == "us" ? 0.001 : u == "ns" ? 1e-6 : 1); exit }' "$1"
}
bias_fig() {  # REPORT: "total (inside + caller)"
    awk '/^ Bias: subtracted/ { t = $3; a = $7; sub(/\(/, "", a); b = $11
        printf "%s (%s + %s)", t, a, b; exit }' "$1"
}
bench_prog() {
    local name=$1; shift
    for r in $(seq "$ROUNDS"); do
        local e
        e=$(cpu_ns env LD_PRELOAD="$W/noop.so" "$@")
        rm -f "$W"/t.raw*
        CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$@" >/dev/null 2>&1
        "$REPORT" -p -b --cpu "$W/t.raw" >"$W/raw"
        "$REPORT" -p -b --cpu --subtract-bias "$W/t.raw" >"$W/run"
        "$REPORT" -p -b --cpu --subtract-bias=start "$W/t.raw" >"$W/start"
        local calls raw
        calls=$(awk '/^ Events:/ { c = $3; sub(/\(/, "", c); print c; exit }' "$W/raw")
        raw=$(oncpu_ms "$W/raw")
        awk -v n="$name" -v c="$calls" -v e="$e" -v raw="$raw" -v run="$(oncpu_ms "$W/run")" \
            -v st="$(oncpu_ms "$W/start")" -v fr="$(bias_fig "$W/run")" -v fs="$(bias_fig "$W/start")" 'BEGIN {
            em = e / 1e6
            printf "| %s | %d | %.0f | %.0f | %.1f | %s | %s | %.0f (%+.0f %%) | %.0f (%+.0f %%) |\n",
                n, c, em, raw, (raw - em) * 1e6 / c, fr, fs, run, (run / em - 1) * 100, st, (st / em - 1) * 100 }'
    done
}
PROGS=${PROGS:-lua zstd} bench_programs bench/overhead_fib.c bias_real
