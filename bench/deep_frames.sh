#!/usr/bin/env bash
# What a call past the shadow stack's first 960 levels costs (they live in
# the thread's state, the hooks index them directly; deeper levels take
# the slow path): a recursion 500 deep (no call past 960) against one 3000
# deep (two thirds of its calls past 960), the same 6 M calls each, CPU
# time, the two in turn RUNS times (default 7), median (min-max):
#   bench/deep_frames.sh [RUNS]       (BUILD=build-x)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}
. bench/lib.sh
bench_setup
gcc -std=gnu11 -O1 -finstrument-functions -o "$W/deep" bench/deep_frames.c
echo "command: BUILD=$BUILD bench/deep_frames.sh $RUNS"
echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
CALLS=6000000
declare -A cpu
for ((r = 0; r < RUNS; r++)); do
    for d in 500 3000; do
        rm -f "$W"/t.raw*
        cpu[$d]+="$(cpu_ns env CALLTRACE_LIBCALLS=none CALLTRACE_OUTPUT="$W/t.raw" \
            LD_PRELOAD="$LIB" "$W/deep" "$d" $((CALLS / (d + 1)))) "
    done
done
stat() { tr ' ' '\n' <<< "${cpu[$1]}" | awk 'NF' | sort -n |
    awk -v c=$CALLS '{v[NR] = $1 / c} END { printf "%.1f (%.1f-%.1f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
echo
echo "| recursion depth | ns per call, median (min-max) |"
echo "|---|---|"
echo "| 500 | $(stat 500) |"
echo "| 3000 | $(stat 3000) |"
m500=$(stat 500 | cut -d' ' -f1); m3000=$(stat 3000 | cut -d' ' -f1)
# main is level 0 and down(3000) level 1: down's calls at levels 960 and
# deeper are 2042 of its 3001.
awk -v a="$m500" -v b="$m3000" 'BEGIN { printf "\na call past 960 levels: %.1f ns more (3000 deep: 2042 of 3001 calls past 960)\n", (b - a) * 3001 / 2042 }'
