#!/usr/bin/env bash
# Tracer overhead per instrumented call, against empty hooks, with
# uftrace recording the same binary in the same run.
#   bench/overhead.sh [RUNS]        (BUILD=build-x to pick the library)
# Prints a Markdown table; the figures in RESULTS-tracer.md come from it.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BUILD=${BUILD:-build}
LIB=$(cd "$BUILD" && pwd)/libcalltrace.so
[ -f "$LIB" ] || { echo "no $LIB: make BUILD=$BUILD first" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c

calls() { echo $(( 2 * $(fibn $(( $1 + 1 ))) - 1 + 1 )); }   # fib calls + main
fibn() { local a=0 b=1 i; for ((i = 0; i < $1; i++)); do local t=$((a + b)); a=$b; b=$t; done; echo $a; }
median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
# elapsed nanoseconds of one run of "$@"
timed() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $((e - s)); }

N=${FIB_N:-30}
C=$(calls "$N")
noop=() ours=() uft=() ours_bytes=0 uft_bytes=0
for ((r = 0; r < RUNS; r++)); do
    noop+=("$(timed env LD_PRELOAD="$W/noop.so" "$W/fib" "$N")")
    rm -f "$W"/t.raw*
    ours+=("$(timed env CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$W/fib" "$N")")
    ours_bytes=$(stat -c %s "$W/t.raw")
    rm -rf "$W/uftrace.data"
    uft+=("$(timed uftrace record -d "$W/uftrace.data" "$W/fib" "$N")")
    uft_bytes=$(du -sb "$W/uftrace.data" | cut -f1)
done
m_noop=$(printf '%s\n' "${noop[@]}" | median)
m_ours=$(printf '%s\n' "${ours[@]}" | median)
m_uft=$(printf '%s\n' "${uft[@]}" | median)

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

awk -v c="$C" -v n="$N" -v runs="$RUNS" -v noop="$m_noop" -v ours="$m_ours" \
    -v uft="$m_uft" -v ob="$ours_bytes" -v ub="$uft_bytes" \
    -v rs="$rss_short" -v rl="$rss_long" -v rn="$rss_noop" -v rdtsc_ns="$rdtsc_ns" -v cs="$(calls 28)" -v cl="$(calls 32)" 'BEGIN {
    printf "fib(%d): %d instrumented calls, median of %d runs\n\n", n, c, runs
    printf "| run | time (ms) | ns/call over empty hooks | trace bytes/call | time vs empty hooks |\n"
    printf "|---|---|---|---|---|\n"
    printf "| empty hooks (baseline) | %.1f | 0 | 0 | 1.00 |\n", noop/1e6
    printf "| calltrace | %.1f | %.1f | %.2f | %.2f |\n", ours/1e6, (ours-noop)/c, ob/c, ours/noop
    printf "| uftrace record | %.1f | %.1f | %.2f | %.2f |\n", uft/1e6, (uft-noop)/c, ub/c, uft/noop
    printf "\none rdtsc on this machine: %s ns, so 2 x rdtsc = %.1f ns of every traced call\n", rdtsc_ns, 2 * rdtsc_ns
    printf "\npeak RSS (KB): calltrace fib(28) %d calls: %d, fib(32) %d calls: %d; empty hooks fib(32): %d\n", cs, rs, cl, rl, rn
}'
