#!/usr/bin/env bash
# The profile mode (CALLTRACE_MODE=profile) against the trace mode per
# instrumented call, on fib, in the same runs (bench/overhead.sh's way:
# runs alternate, each figure the median of RUNS), and what each leaves
# on disk.
#   bench/profile_overhead.sh [RUNS]   (FIB_N=30 for the call count)
# Prints a Markdown table (BENCHMARKS.md, "Profile mode").
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
. bench/lib.sh
bench_setup

gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
N=${FIB_N:-30}
C=$(fib_calls "$N")   # fib's calls + main
declare -A wall cpu
export CALLTRACE_LIBCALLS=none
for ((r = 0; r < RUNS; r++)); do
    timed_run noop env LD_PRELOAD="$W/noop.so" "$W/fib" "$N"
    rm -f "$W"/t.raw*
    timed_run trace env CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$W/fib" "$N"
    t_size=$(stat -c %s "$W/t.raw"); t_disk=$(du -B1 "$W/t.raw" | cut -f1)
    rm -f "$W"/p.raw*
    timed_run prof env CALLTRACE_MODE=profile CALLTRACE_OUTPUT="$W/p.raw" \
        LD_PRELOAD="$LIB" "$W/fib" "$N"
    p_size=$(stat -c %s "$W/p.raw"); p_disk=$(du -B1 "$W/p.raw" | cut -f1)
done
# The reports' call counts must agree, or the figures mean nothing.
tc=$("$REPORT" "$W/t.raw" | sed -n 's/ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
pc=$("$REPORT" "$W/p.raw" | sed -n 's/ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
[ "$tc" = "$pc" ] || { echo "calls differ: trace $tc, profile $pc" >&2; exit 1; }
# shellcheck disable=SC2086  # the runs' figures, one a word
med() { printf '%s\n' ${1} | median; }
awk -v c="$C" -v n="$N" -v runs="$RUNS" \
    -v nw="$(med "${wall[noop]}")" -v nc="$(med "${cpu[noop]}")" \
    -v tw="$(med "${wall[trace]}")" -v tcpu="$(med "${cpu[trace]}")" \
    -v pw="$(med "${wall[prof]}")" -v pcpu="$(med "${cpu[prof]}")" \
    -v ts="$t_size" -v td="$t_disk" -v ps="$p_size" -v pd="$p_disk" 'BEGIN {
    printf "fib(%d): %d instrumented calls, median of %d alternating runs\n\n", n, c, runs
    printf "| run | time (ms) | ns/call over empty hooks | CPU ns/call over empty hooks | file size | on disk |\n"
    printf "|---|---|---|---|---|---|\n"
    printf "| empty hooks (baseline) | %.1f | 0 | 0 | | |\n", nw/1e6
    printf "| trace mode | %.1f | %.1f | %.1f | %.1f MB | %.1f MB |\n", tw/1e6, (tw-nw)/c, (tcpu-nc)/c, ts/1e6, td/1e6
    printf "| profile mode | %.1f | %.1f | %.1f | %.2f MB | %.2f MB |\n", pw/1e6, (pw-nw)/c, (pcpu-nc)/c, ps/1e6, pd/1e6
}'
