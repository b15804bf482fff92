#!/usr/bin/env bash
# Record-time filters on fib (bench/overhead_fib.c), against empty hooks,
# the unfiltered tracer and uftrace with the matching options, all in the
# same run:
#   bench/filter.sh [RUNS]          (BUILD=build-x to pick the library)
# Prints a Markdown table; BENCHMARKS.md's figures come from it.
#
# fib(28) makes 1028457 calls of one function, so "a filter keeping about
# 10 % of the calls" is fib@17: the top 17 levels, 12.6 % of the calls.
# "-fib" leaves every fib call out (the cost of a call filtered out) and
# "-no_such_function" matches nothing (the cost of a kept call once a
# filter forces the slow path).  Runs of the variants alternate, so a busy
# machine slows them alike; each figure is the median of RUNS.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BUILD=${BUILD:-build}
LIB=$(cd "$BUILD" && pwd)/libcalltrace.so
REPORT=$(cd "$BUILD" && pwd)/calltrace-report
[ -f "$LIB" ] || { echo "no $LIB: make BUILD=$BUILD first" >&2; exit 1; }
command -v uftrace >/dev/null || { echo "no uftrace (scripts/install-deps.sh)" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

N=28
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
CALLS=1028458  # fib(28)'s calls + main

. bench/lib.sh
# Bytes of records written (sum of the EVENTS blocks' `used`).
trace_bytes() {
    python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
off, used = 4096, 0
while off + 64 <= len(data):
    magic, kind, hsz, size, u = struct.unpack_from('<IHHII', data, off)
    if magic != 0x4b4c4243 or size == 0:
        break
    if kind == 1:
        used += u
    off += size
print(used)
PY
}

# name | calltrace settings | uftrace options
VARIANTS=(
    "everything||"
    "filter matching nothing (-no_such_function)|CALLTRACE_FILTER=-no_such_function|-N no_such_function"
    "filter keeping 12.6 % (fib@17)|CALLTRACE_FILTER=fib@17|-F fib -D 17"
    "every fib call filtered out (-fib)|CALLTRACE_FILTER=-fib|-N fib"
    "depth 5|CALLTRACE_DEPTH=5|-D 5"
    "min duration 10us|CALLTRACE_MIN_DURATION=10us|-t 10us"
)

declare -A cpu bytes kept ucpu ubytes
for ((r = 0; r < RUNS; r++)); do
    sync
    cpu[noop]+="$(cpu_ns env LD_PRELOAD="$W/noop.so" "$W/fib" $N) "
    for i in "${!VARIANTS[@]}"; do
        IFS='|' read -r name settings uopts <<< "${VARIANTS[$i]}"
        rm -f "$W"/t.raw*
        sync
        cpu[$i]+="$(cpu_ns env $settings CALLTRACE_OUTPUT="$W/t.raw" \
                    LD_PRELOAD="$LIB" "$W/fib" $N) "
        bytes[$i]=$(trace_bytes "$W/t.raw")
        kept[$i]=$("$REPORT" -b -p "$W/t.raw" |
                   sed -n 's/^ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
        rm -rf "$W/u.data"
        sync
        ucpu[$i]+="$(cpu_ns uftrace record -d "$W/u.data" $uopts "$W/fib" $N) "
        ubytes[$i]=$(du -sb "$W/u.data" | cut -f1)
    done
done
med() { printf '%s\n' ${1} | median; }

nc=$(med "${cpu[noop]}")
echo "fib($N): $CALLS calls, CPU time (user + system), median of $RUNS alternating runs;"
echo "empty hooks: $(awk -v c="$nc" 'BEGIN{printf "%.1f", c/1e6}') ms"
echo
echo "| run | calls kept | calltrace ns/call over empty hooks | calltrace trace MB/s | calltrace bytes/kept call | uftrace ns/call over empty hooks | uftrace trace MB/s | uftrace vs calltrace |"
echo "|---|---|---|---|---|---|---|---|"
for i in "${!VARIANTS[@]}"; do
    IFS='|' read -r name settings uopts <<< "${VARIANTS[$i]}"
    awk -v name="$name" -v c="$CALLS" -v nc="$nc" -v oc="$(med "${cpu[$i]}")" \
        -v uc="$(med "${ucpu[$i]}")" -v b="${bytes[$i]}" -v ub="${ubytes[$i]}" \
        -v k="${kept[$i]}" 'BEGIN {
        printf "| %s | %d | %.1f | %.0f | %.2f | %.1f | %.0f | %.2f |\n", name, k,
            (oc-nc)/c, b/(oc/1e9)/1e6, k ? b/k : 0, (uc-nc)/c, ub/(uc/1e9)/1e6,
            (uc-nc)/(oc-nc)
    }'
done
