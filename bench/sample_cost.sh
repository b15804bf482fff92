#!/usr/bin/env bash
# Sampling's cost at 1 kHz, as the sampled program sees it
# (bench/sample_cost_prog.c: a thread 40 calls deep spinning on the TSC,
# timing every step it did not run), beside the samplers' own threads and
# processes.  Each round runs every sampler once, a plain run first; a
# sampler's cost in the thread is its run's time off the thread less the
# plain run's of the same round, and its own CPU (the sampler's thread,
# perf's process) is added.  Medians of RUNS rounds, as % of the spin.
#   bench/sample_cost.sh [RUNS]   (BUILD=build-x; SECONDS_=2; SAMPLERS="kernel
#                                   kernel-libunwind timer gperftools perf";
#                                   PREV_LIB=other/libcalltrace.so adds
#                                   "kernel-prev", that library's kernel sampler)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}
. bench/lib.sh
bench_setup
secs=${SECONDS_:-2}
gcc -std=gnu11 -O2 -g -o "$W/prog" bench/sample_cost_prog.c
profiler=/usr/lib/x86_64-linux-gnu/libprofiler.so
samplers=${SAMPLERS:-kernel kernel-libunwind timer gperftools perf}
[ -f "$profiler" ] || samplers=${samplers//gperftools/}
command -v perf >/dev/null || samplers=${samplers//perf/}
[ -z "${PREV_LIB:-}" ] || samplers="kernel-prev $samplers"

one() {  # SAMPLER -> "spin gap gaps others process [external_cpu_ns]"
    local ct=(env CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms
              CALLTRACE_OUTPUT="$W/c.raw" LD_PRELOAD="$LIB")
    rm -f "$W"/c.raw* "$W/p.data" "$W/g.prof"
    case $1 in
    plain) "$W/prog" "$secs" ;;
    kernel) "${ct[@]}" "$W/prog" "$secs" ;;
    kernel-libunwind) "${ct[@]}" CALLTRACE_SAMPLE_UNWIND=libunwind "$W/prog" "$secs" ;;
    kernel-prev) "${ct[@]}" LD_PRELOAD="$PREV_LIB" "$W/prog" "$secs" ;;
    timer) "${ct[@]}" CALLTRACE_SAMPLE_TIMER=1 "$W/prog" "$secs" ;;
    gperftools) CPUPROFILE="$W/g.prof" CPUPROFILE_FREQUENCY=1000 LD_PRELOAD="$profiler" \
                    "$W/prog" "$secs" 2>/dev/null ;;
    perf)
        # perf's own CPU: its process and the program's, less the program's
        /usr/bin/time -f "%U %S" -o "$W/t" perf record -q -o "$W/p.data" \
            -e task-clock -c 1000000 --call-graph dwarf "$W/prog" "$secs" >"$W/out" 2>/dev/null
        read -r u s < "$W/t"
        awk -v u="$u" -v s="$s" '{ printf "%s %s %s %s %s %.0f\n", $1, $2, $3, $4, $5, (u + s) * 1e9 - $5 }' "$W/out" ;;
    esac
}

declare -A thread helper
for _ in $(seq "$RUNS"); do
    read -r _ plain_gap _ _ _ < <(one plain)
    for s in $samplers; do
        read -r spin gap _ others _ ext < <(one "$s")
        thread[$s]+="$(awk -v g="$gap" -v p="$plain_gap" -v t="$spin" 'BEGIN { printf "%.4f", 100 * (g - p) / t }') "
        helper[$s]+="$(awk -v o="$others" -v e="${ext:-0}" -v t="$spin" 'BEGIN { printf "%.4f", 100 * (o + e) / t }') "
    done
done
med() { tr ' ' '\n' | grep . | median; }
echo "| sampler, 1 kHz, stacks 40 deep | in the thread (%) | its own thread or process (%) | total (%) |"
echo "| --- | --- | --- | --- |"
for s in $samplers; do
    t=$(med <<<"${thread[$s]}") h=$(med <<<"${helper[$s]}")
    awk -v s="$s" -v t="$t" -v h="$h" 'BEGIN { printf "| %s | %+.2f | %.2f | %+.2f |\n", s, t, h, t + h }'
done
echo
echo "rounds: $RUNS, $secs s of spin each; in-thread figures per round: "
for s in $samplers; do echo "  $s: ${thread[$s]}"; done
