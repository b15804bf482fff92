#!/usr/bin/env bash
# calltrace pack on fib, Lua and SQLite (PROGS): bytes per call of the trace
# and of the packed trace at zstd levels 1 and 3 (and on disk), the packing's
# CPU time, and the report's CPU time on each (median of RUNS, raw and
# packed alternating) as a ratio to the raw trace's.
#   bench/pack.sh [RUNS]     (FIB_N, LUA_SCALE, SQLITE_ROWS as bench/lib.sh)
# Prints a Markdown table (BENCHMARKS.md, "Packed traces").
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
. bench/lib.sh
bench_setup
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
export CALLTRACE_LIBCALLS=none

echo "| program | calls | trace B/call | level 1 B/call | level 3 B/call | ratio (3) | pack CPU, level 1 / 3 (MB/s of trace) | report CPU, packed / raw |"
echo "|---|---|---|---|---|---|---|---|"
bench_prog() {  # NAME CMD...
    local name=$1; shift
    rm -f "$W"/t.raw*
    CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$@" > /dev/null
    local calls size p1 p3 c1 c3
    calls=$("$REPORT" "$W/t.raw" | sed -n 's/ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
    size=$(stat -c %s "$W/t.raw")
    c1=$(cpu_ns "$FRONT" pack -q -l 1 -o "$W/p1.raw" "$W/t.raw")
    c3=$(cpu_ns "$FRONT" pack -q -l 3 -o "$W/p3.raw" "$W/t.raw")
    p1=$(stat -c %s "$W/p1.raw"); p3=$(stat -c %s "$W/p3.raw")
    # The packed trace must read as the raw one, or the figures mean nothing.
    cmp -s <("$REPORT" --dump "$W/t.raw" 2>&1 | sed "s|$W/t.raw|T|") \
           <("$REPORT" --dump "$W/p3.raw" 2>&1 | sed "s|$W/p3.raw|T|") ||
        { echo "$name: packed trace reads differently" >&2; exit 1; }
    local r rr=() rp=()
    for ((r = 0; r < RUNS; r++)); do
        rr+=("$(cpu_ns "$REPORT" "$W/t.raw")")
        rp+=("$(cpu_ns "$REPORT" "$W/p3.raw")")
    done
    awk -v n="$name" -v c="$calls" -v s="$size" -v p1="$p1" -v p3="$p3" \
        -v c1="$c1" -v c3="$c3" \
        -v rr="$(printf '%s\n' "${rr[@]}" | median)" \
        -v rp="$(printf '%s\n' "${rp[@]}" | median)" 'BEGIN {
        printf "| %s | %d | %.2f | %.2f | %.2f | %.1fx | %.0f / %.0f | %.2f |\n",
            n, c, s/c, p1/c, p3/c, s/p3, s/(c1/1e9)/1e6, s/(c3/1e9)/1e6, rp/rr
    }'
}
bench_programs "$W/fib" pack.sh
