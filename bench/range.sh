#!/usr/bin/env bash
# Time to the first answer on a large trace: the report of a --time-range
# window in the middle of a trace of several GB against the full report of
# the same trace, by window size.  The reader finds the window's blocks
# through the block index (their headers carry times) and decodes only
# those, plus the STACK record that opens the first of them.
#   BUILD=build [ITERATIONS=200000000] [RUNS=3] bench/range.sh
# ITERATIONS of bench/analyze_prog.c (11 events each: 200 M make about
# 8 GB; mind the free disk space, the trace is deleted at the end).  Each
# figure: min/median/max over RUNS wall-clock and CPU seconds with the
# trace in the page cache, and one run after the trace's pages were
# dropped from the cache (dd iflag=nocache: that file only), i.e. read
# from disk.  "blocks" are the trace's blocks the run decoded, of all
# (CT_READ_STATS).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${ITERATIONS:-200000000}
RUNS=${RUNS:-3}
REPORT=$BUILD/calltrace-report
LIB=$BUILD/libcalltrace.so
[ -x "$REPORT" ] && [ -f "$LIB" ] || { echo "build first: make BUILD=$BUILD"; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-range.XXXXXX")
trap 'rm -rf "$W"' EXIT
need=$((N * 44 / 1024)) # KiB, about 44 bytes per iteration
avail=$(df -Pk "$W" | awk 'NR==2{print $4}')
if [ "$avail" -lt $((need + 4 * 1024 * 1024)) ]; then
    echo "range: skipped, $((avail / 1024)) MiB free for a trace of about $((need / 1024)) MiB (set ITERATIONS lower)"
    exit 0
fi
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | sed -n 1p), $(nproc) online; load: $(cut -d' ' -f1-3 /proc/loadavg)"
gcc -O2 -finstrument-functions -pthread -o "$W/prog" bench/analyze_prog.c
t0=$(date +%s.%N)
CALLTRACE_OUTPUT=$W/big.raw LD_PRELOAD=$LIB "$W/prog" "$N" > /dev/null
t1=$(date +%s.%N)
span_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%d", (b - a) * 1000}')
echo "trace: $N iterations, $(stat -c %s "$W/big.raw") bytes, about $span_ms ms of run time"

stats() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{printf "%.3f/%.3f/%.3f", v[1], v[int((NR+1)/2)], v[NR]}'; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
run() { # CMD...: "wall cpu blocks-decoded/blocks"
    CT_READ_STATS=1 /usr/bin/time -f "%e %U %S" -o "$W/time" "$@" > "$W/out" 2> "$W/err" || true
    tail -n 1 "$W/time" | awk '{printf "%.3f %.3f ", $1, $2 + $3}'
    sed -n 's/^calltrace-report: \([0-9]*\) blocks, \([0-9]*\) decoded.*/\2\/\1/p' "$W/err"
}
cold() { dd if="$W/big.raw" iflag=nocache count=0 status=none; }

# measure LABEL ARGS...: warm runs, then one cold run.
measure() {
    local label=$1; shift
    local w c p ws=() cs=()
    for _ in $(seq "$RUNS"); do
        read -r w c p < <(run "$REPORT" "$@" "$W/big.raw"); ws+=("$w"); cs+=("$c")
    done
    cold
    read -r w c p < <(run "$REPORT" "$@" "$W/big.raw")
    echo "$label|$(stats "${ws[@]}")|$(stats "${cs[@]}")|$p|$w|$(grep -m1 '^ Events:' "$W/out" | awk '{print $2}')"
}

echo "what|wall s warm (min/med/max)|CPU s warm|blocks decoded|wall s cold|events in the report"
measure "full report, --jobs 1" --jobs 1
# The trace's span, from the summary's "Wall span: 2.34s" (or ms, us).
span_ms=$(sed -n 's/^Wall span: \([0-9.]*\)\([a-z]*\).*/\1 \2/p' "$W/out" |
    awk '{f = $2 == "s" ? 1000 : $2 == "ms" ? 1 : $2 == "min" ? 60000 : 0.001; printf "%d", $1 * f}')
measure "full report, --jobs 2" --jobs 2
mid=$((span_ms / 2))
echo "window start: ${mid} ms, half the trace's span of ${span_ms} ms"
for win in 1 10 100 1000 10000; do
    [ "$win" -lt "$span_ms" ] || continue
    measure "--time-range=${mid}ms..$((mid + win))ms ($win ms)" "--time-range=${mid}ms..$((mid + win))ms"
done
