#!/usr/bin/env bash
# What a record-time filter costs a call on fib (bench/overhead_fib.c),
# in CPU time, against empty hooks in the same run:
#   bench/filter_skip.sh [RUNS]     (BUILD=build-x, BASE=old/libcalltrace.so,
#                                    FIB_N=32, FIB_LEVELS=FIB_N-13)
# Three figures, each over empty hooks per call of the unfiltered run:
#   unfiltered      no rule (the hot path)
#   kept            CALLTRACE_FILTER=-no_such_function: every call kept
#                   under a rule (rules that only exclude: the skip table)
#   kept under an include  CALLTRACE_FILTER=main@4096: every call kept,
#                   the class table's way
#   left out       CALLTRACE_FILTER=-fib: every fib call left out
# and fib@LEVELS (the top levels kept, the rest left out) as a mix.  The
# ratio kept/unfiltered is the cost of a kept call under a filter against
# an unfiltered one.  Runs alternate, so a busy machine slows them alike;
# each figure is the median of RUNS (min-max beside it).  With BASE the
# same runs are made with that library too, in the same rounds.
# A second table times the same four in the process (bench/hook_cost.c:
# a loop of calls, the fastest of 20 rounds, the best of RUNS runs),
# which a loaded machine disturbs far less than CPU time.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}
. bench/lib.sh
bench_setup
FIB_N=${FIB_N:-32}
FIB_LEVELS=${FIB_LEVELS:-$((FIB_N - 13))}
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/hc" bench/hook_cost.c
echo "command: BUILD=$BUILD${BASE:+ BASE=$BASE} FIB_N=$FIB_N FIB_LEVELS=$FIB_LEVELS bench/filter_skip.sh $RUNS"
echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# fib(N) makes 2 fib(N+1) - 1 calls of fib, and main.
calls=$(python3 -c "
a, b = 0, 1
for _ in range($FIB_N + 1): a, b = b, a + b
print(2 * a - 1 + 1)")
names=("unfiltered|" "kept (-no_such_function)|CALLTRACE_FILTER=-no_such_function"
       "kept under an include (main@4096)|CALLTRACE_FILTER=main@4096"
       "left out (-fib)|CALLTRACE_FILTER=-fib"
       "fib@$FIB_LEVELS|CALLTRACE_FILTER=fib@$FIB_LEVELS")
libs=("$LIB")
[ -n "${BASE:-}" ] && libs+=("$BASE")
declare -A cpu
for ((r = 0; r < RUNS; r++)); do
    cpu[noop]+="$(cpu_ns env LD_PRELOAD="$W/noop.so" "$W/fib" "$FIB_N") "
    for l in "${!libs[@]}"; do
        for i in "${!names[@]}"; do
            IFS='|' read -r name settings <<< "${names[$i]}"
            rm -f "$W"/t.raw*
            cpu[$l.$i]+="$(cpu_ns env $settings CALLTRACE_CPUTIME=off \
                CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="${libs[$l]}" \
                "$W/fib" "$FIB_N") "
        done
    done
done
med() { printf '%s\n' $1 | median; }
lo() { printf '%s\n' $1 | sort -n | sed -n 1p; }
hi() { printf '%s\n' $1 | sort -n | tail -n 1; }
nc=$(med "${cpu[noop]}")
echo "fib($FIB_N): $calls calls; empty hooks $(awk -v c="$nc" 'BEGIN{printf "%.1f", c/1e6}') ms CPU (median of $RUNS)"
echo
echo "| library | run | ns/call over empty hooks (min-max) | x unfiltered |"
echo "|---|---|---|---|"
for l in "${!libs[@]}"; do
    lname=$([ "$l" = 0 ] && echo "this" || echo "BASE")
    unf=$(med "${cpu[$l.0]}")
    for i in "${!names[@]}"; do
        IFS='|' read -r name settings <<< "${names[$i]}"
        awk -v lib="$lname" -v name="$name" -v c="$calls" -v nc="$nc" \
            -v m="$(med "${cpu[$l.$i]}")" -v a="$(lo "${cpu[$l.$i]}")" \
            -v b="$(hi "${cpu[$l.$i]}")" -v u="$unf" 'BEGIN {
            printf "| %s | %s | %.1f (%.1f-%.1f) | %.2f |\n", lib, name,
                (m-nc)/c, (a-nc)/c, (b-nc)/c, (u > nc ? (m-nc)/(u-nc) : 0)
        }'
    done
done

# In the process: ns per call, the best of RUNS runs of 20 rounds each.
hc_names=("unfiltered|" "kept (-no_such_function)|CALLTRACE_FILTER=-no_such_function"
          "kept under an include (main@4096)|CALLTRACE_FILTER=main@4096"
          "left out (-mid,-leaf)|CALLTRACE_FILTER=-mid,-leaf")
declare -A best
for ((r = 0; r < RUNS; r++)); do
    v=$(LD_PRELOAD="$W/noop.so" "$W/hc" 100000 20)
    best[noop]=$(awk -v a="$v" -v b="${best[noop]:-1e9}" 'BEGIN{print (a < b) ? a : b}')
    for l in "${!libs[@]}"; do
        for i in "${!hc_names[@]}"; do
            IFS='|' read -r name settings <<< "${hc_names[$i]}"
            rm -f "$W"/t.raw*
            v=$(env $settings CALLTRACE_BUFSIZE=256M CALLTRACE_CPUTIME=off \
                CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="${libs[$l]}" \
                "$W/hc" 100000 20 2>/dev/null)
            best[$l.$i]=$(awk -v a="$v" -v b="${best[$l.$i]:-1e9}" 'BEGIN{print (a < b) ? a : b}')
        done
    done
done
echo
echo "bench/hook_cost.c in the process: empty hooks ${best[noop]} ns per call (fastest round)"
echo
echo "| library | run | ns/call over empty hooks | x unfiltered |"
echo "|---|---|---|---|"
for l in "${!libs[@]}"; do
    lname=$([ "$l" = 0 ] && echo "this" || echo "BASE")
    for i in "${!hc_names[@]}"; do
        IFS='|' read -r name settings <<< "${hc_names[$i]}"
        awk -v lib="$lname" -v name="$name" -v n="${best[noop]}" \
            -v m="${best[$l.$i]}" -v u="${best[$l.0]}" 'BEGIN {
            printf "| %s | %s | %.2f | %.2f |\n", lib, name, m-n, (u > n ? (m-n)/(u-n) : 0)
        }'
    done
done
