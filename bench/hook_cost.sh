#!/usr/bin/env bash
# The hooks' cost in user space alone, against the floor: bench/hook_cost.c
# (a loop of calls timed in the process, fastest of 20 rounds) under the
# empty hooks, the floor (bench/overhead_floor.c), the floor streaming its
# bytes to memory (bench/overhead_floor_stream.c), calltrace and BASE, in
# turn, REPS times; the fastest run of each.  The trace's one block is
# faulted in before the first timed call, so no kernel work falls in the
# timing: what is left over the floor is the hooks' own instructions.
#   bench/hook_cost.sh [REPS]     (BUILD=build-x, BASE=old/libcalltrace.so)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
REPS=${1:-5}
bench_setup
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/hc" bench/hook_cost.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/floor.so" bench/overhead_floor.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/stream.so" bench/overhead_floor_stream.c
echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: BUILD=$BUILD${BASE:+ BASE=$BASE} bench/hook_cost.sh $REPS"
names=(noop floor floor-stream calltrace)
libs=("$W/noop.so" "$W/floor.so" "$W/stream.so" "$LIB")
if [ -n "${BASE:-}" ]; then names+=(BASE); libs+=("$BASE"); fi
declare -A best
for ((r = 0; r < REPS; r++)); do
    for i in "${!names[@]}"; do
        rm -f "$W"/t.raw*
        v=$(CALLTRACE_BUFSIZE=256M CALLTRACE_CPUTIME=off CALLTRACE_OUTPUT="$W/t.raw" \
            LD_PRELOAD="${libs[$i]}" "$W/hc" 100000 20)
        best[${names[$i]}]=$(awk -v a="$v" -v b="${best[${names[$i]}]:-1e9}" 'BEGIN{print (a < b) ? a : b}')
    done
done
echo
echo "| preload | ns per call (fastest) | over empty hooks | that over the floor's |"
echo "|---|---|---|---|"
for n in "${names[@]}"; do
    awk -v a="${best[$n]}" -v e="${best[noop]}" -v f="${best[floor]}" -v n="$n" \
        'BEGIN{printf "| %s | %.2f | %.2f | %.2f |\n", n, a, a - e, (f > e) ? (a - e) / (f - e) : 0}'
done
