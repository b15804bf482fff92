#!/usr/bin/env bash
# Tracer overhead per instrumented call, against empty hooks, with
# uftrace recording the same binary in the same run.
#   bench/overhead.sh [RUNS]        (BUILD=build-x to pick the library,
#                                    FIB_N=32 for the call count,
#                                    BASE=old/libcalltrace.so to time a
#                                    previous build in the same runs)
# Prints a Markdown table; the figures in RESULTS-tracer.md come from it.
#
# Besides the shipped library, a copy built with -DCT_BENCH_FAKE_CLOCK
# (a counter instead of rdtsc, records of the same size) shows what the
# hooks cost besides reading the clock.  Runs of the variants alternate,
# so a busy machine slows them alike; each figure is the median of RUNS.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
. bench/lib.sh
bench_setup

gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
gcc -std=gnu11 -O2 -finstrument-functions -pthread -o "$W/threads" bench/overhead_threads.c
# The Makefile's flags for preload/ (each of its folders an include
# folder), plus the fake clock.
shopt -s nullglob
preload_src=(preload/*.c preload/*/*.c preload/*.S preload/*/*.S)
preload_inc=(-I.)
shopt -u nullglob
gcc -Iinclude "${preload_inc[@]}" -D_GNU_SOURCE -DCALLTRACE_VERSION='"bench"' \
    -DCT_BENCH_FAKE_CLOCK -std=gnu11 -O2 -fPIC -fvisibility=hidden \
    -fno-instrument-functions -shared \
    -o "$W/fakeclock.so" "${preload_src[@]}" -ldl -lpthread -lunwind

N=${FIB_N:-30}
C=$(fib_calls "$N")   # fib calls + main
declare -A wall cpu
uft_bytes=0
for ((r = 0; r < RUNS; r++)); do
    timed_run noop env LD_PRELOAD="$W/noop.so" "$W/fib" "$N"
    rm -f "$W"/t.raw*
    timed_run ours env CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$W/fib" "$N"
    read -r rec_bytes file_bytes < <(trace_bytes "$W/t.raw")
    if [ -n "${BASE:-}" ]; then
        rm -f "$W"/b.raw*
        timed_run base env CALLTRACE_OUTPUT="$W/b.raw" LD_PRELOAD="$BASE" "$W/fib" "$N"
    fi
    rm -f "$W"/f.raw*
    timed_run fake env CALLTRACE_OUTPUT="$W/f.raw" LD_PRELOAD="$W/fakeclock.so" "$W/fib" "$N"
    rm -rf "$W/uftrace.data"
    timed_run uft uftrace record -d "$W/uftrace.data" "$W/fib" "$N"
    uft_bytes=$(du -sb "$W/uftrace.data" | cut -f1)
done
med() { printf '%s\n' ${1} | median; }

# What a thread costs to start and end: 200 short threads in turn.
THREADS=200
for ((r = 0; r < RUNS; r++)); do
    timed_run thr_noop env LD_PRELOAD="$W/noop.so" "$W/threads" $THREADS
    rm -f "$W"/h.raw*
    timed_run thr_ours env CALLTRACE_OUTPUT="$W/h.raw" LD_PRELOAD="$LIB" "$W/threads" $THREADS
    thr_bytes=$(stat -c %s "$W/h.raw")
    if [ -n "${BASE:-}" ]; then
        rm -f "$W"/h.raw*
        timed_run thr_base env CALLTRACE_OUTPUT="$W/h.raw" LD_PRELOAD="$BASE" "$W/threads" $THREADS
        thr_base_bytes=$(stat -c %s "$W/h.raw")
    fi
done

# Peak RSS for a short and a 9x longer run: constant when blocks are unmapped.
rss() { rm -f "$W"/r.raw*; /usr/bin/time -f %M env CALLTRACE_OUTPUT="$W/r.raw" \
        LD_PRELOAD="$LIB" "$W/fib" "$1" 2>&1 >/dev/null | tail -n 1; }
rss_short=$(rss 28); rss_long=$(rss 32)
rss_noop=$(/usr/bin/time -f %M env LD_PRELOAD="$W/noop.so" "$W/fib" 32 2>&1 >/dev/null | tail -n 1)

# The clock alone: the hooks read the TSC twice per call.
cat > "$W/rdtsc.c" <<'C'
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
int main(void)
{
    struct timespec a, b;
    unsigned long long s = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 10000000; i++)
        s += __rdtsc();
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e7 + (s & 0));
    return 0;
}
C
gcc -O2 -o "$W/rdtsc" "$W/rdtsc.c"
rdtsc_ns=$("$W/rdtsc")

awk -v c="$C" -v n="$N" -v runs="$RUNS" \
    -v nw="$(med "${wall[noop]}")" -v nc="$(med "${cpu[noop]}")" \
    -v ow="$(med "${wall[ours]}")" -v oc="$(med "${cpu[ours]}")" \
    -v fw="$(med "${wall[fake]}")" -v fc="$(med "${cpu[fake]}")" \
    -v uw="$(med "${wall[uft]}")" -v uc="$(med "${cpu[uft]}")" \
    -v bw="$(med "${wall[base]:-0}")" -v bc="$(med "${cpu[base]:-0}")" -v base="${BASE:-}" \
    -v rb="$rec_bytes" -v fb="$file_bytes" -v ub="$uft_bytes" \
    -v rs="$rss_short" -v rl="$rss_long" -v rn="$rss_noop" -v rdtsc_ns="$rdtsc_ns" \
    -v cs="$(calls 28)" -v cl="$(calls 32)" -v nt="$THREADS" -v tb="$thr_bytes" \
    -v tn="$(med "${wall[thr_noop]}")" -v to="$(med "${wall[thr_ours]}")" \
    -v tbase="$(med "${wall[thr_base]:-0}")" -v tbb="${thr_base_bytes:-0}" 'BEGIN {
    printf "fib(%d): %d instrumented calls, median of %d alternating runs\n\n", n, c, runs
    printf "| run | time (ms) | ns/call over empty hooks | CPU ns/call over empty hooks | trace bytes/call | time vs empty hooks |\n"
    printf "|---|---|---|---|---|---|\n"
    printf "| empty hooks (baseline) | %.1f | 0 | 0 | 0 | 1.00 |\n", nw/1e6
    printf "| calltrace | %.1f | %.1f | %.1f | %.2f records, %.2f file | %.2f |\n", ow/1e6, (ow-nw)/c, (oc-nc)/c, rb/c, fb/c, ow/nw
    if (base != "")
        printf "| BASE %s | %.1f | %.1f | %.1f | | %.2f |\n", base, bw/1e6, (bw-nw)/c, (bc-nc)/c, bw/nw
    printf "| calltrace, counter for a clock (bench build) | %.1f | %.1f | %.1f | | %.2f |\n", fw/1e6, (fw-nw)/c, (fc-nc)/c, fw/nw
    printf "| uftrace record | %.1f | %.1f | %.1f | %.2f | %.2f |\n", uw/1e6, (uw-nw)/c, (uc-nc)/c, ub/c, uw/nw
    printf "\none rdtsc on this machine: %s ns, so 2 x rdtsc = %.1f ns of every traced call;\n", rdtsc_ns, 2 * rdtsc_ns
    printf "the clock accounts for %.1f ns/call (calltrace minus its counter build)\n", (ow-fw)/c
    printf "\n%d threads of 100 calls each, one after another: %.1f ms traced, %.1f ms with empty hooks: %.0f us per thread; trace file %.1f MB\n", nt, to/1e6, tn/1e6, (to-tn)/nt/1e3, tb/1e6
    if (base != "")
        printf "BASE: %.1f ms traced: %.0f us per thread; trace file %.1f MB\n", tbase/1e6, (tbase-tn)/nt/1e3, tbb/1e6
    printf "\npeak RSS (KB): calltrace fib(28) %d calls: %d, fib(32) %d calls: %d; empty hooks fib(32): %d\n", cs, rs, cl, rl, rn
}'
