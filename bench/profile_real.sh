#!/usr/bin/env bash
# The profile mode (CALLTRACE_MODE=profile) against the trace mode on the
# real programs (PROGS, default "lua sqlite zstd"): the whole run's CPU time
# in each mode (median of RUNS, the modes alternating), the calls both
# count (they must agree), and what each leaves on disk.  fib is
# bench/profile_overhead.sh's.
#   bench/profile_real.sh [RUNS]   (LUA_SCALE, SQLITE_ROWS, ZSTD_ROWS)
# Prints a Markdown table (BENCHMARKS.md, "Profile mode").
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
. bench/lib.sh
bench_setup
export CALLTRACE_LIBCALLS=none

echo "| program | calls (trace / profile) | trace CPU (s) | profile CPU (s) | profile / trace | trace file | profile file |"
echo "|---|---|---|---|---|---|---|"
bench_prog() {  # NAME CMD...
    local name=$1; shift
    local r tc=() pc=()
    for ((r = 0; r < RUNS; r++)); do
        rm -f "$W"/t.raw* "$W"/p.raw*
        tc+=("$(cpu_ns env CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$@")")
        pc+=("$(cpu_ns env CALLTRACE_MODE=profile CALLTRACE_OUTPUT="$W/p.raw" \
                    LD_PRELOAD="$LIB" "$@")")
    done
    local calls pcalls
    calls=$("$REPORT" "$W/t.raw" | sed -n 's/ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
    pcalls=$("$REPORT" "$W/p.raw" | sed -n 's/ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
    # Equal but for a program's own variation between runs: Lua seeds its
    # string hashes with the time and an address, so its call count moves
    # by about 1e-5 from run to run, traced or not.
    awk -v a="$calls" -v b="$pcalls" 'BEGIN { d = a - b; if (d < 0) d = -d;
        exit !(d <= a * 1e-5) }' ||
        { echo "$name: calls differ: trace $calls, profile $pcalls" >&2; exit 1; }
    awk -v n="$name" -v c="$calls" -v pc="$pcalls" \
        -v t="$(printf '%s\n' "${tc[@]}" | median)" \
        -v p="$(printf '%s\n' "${pc[@]}" | median)" \
        -v ts="$(stat -c %s "$W/t.raw")" -v ps="$(stat -c %s "$W/p.raw")" 'BEGIN {
        printf "| %s | %d / %d | %.2f | %.2f | %.2f | %.1f MB | %.2f MB |\n",
            n, c, pc, t/1e9, p/1e9, p/t, ts/1e6, ps/1e6
    }'
}
PROGS=${PROGS:-lua sqlite zstd} bench_programs "" profile_real.sh
