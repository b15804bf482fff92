#!/usr/bin/env bash
# The --export writers' speed, output size and memory on bench/analyze_prog's
# trace, beside the gprof report on the same trace in the same run, and
# --export chrome beside `uftrace dump --chrome` on the same program.
# Writes figures to stdout; BENCHMARKS.md records a run.
#   BUILD=build bench/export.sh [ITERATIONS]
#   WRITERS="callgrind dot" bench/export.sh   (only those, beside the report)
# ITERATIONS of the program's loop make about 11 events each (default
# 2.3 M: about 25 M events).  Speeds are CPU seconds (user + system), the
# median of three runs writing to /dev/null; sizes come from one more run
# into a pipe.  "heap" is the peak anonymous RSS (the reader maps the trace
# itself), at a quarter and at the whole of the iterations: a streaming
# writer's stays the same.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${1:-2300000}
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
REPORT=$BUILD/calltrace-report
LIB=$BUILD/libcalltrace.so
[ -x "$REPORT" ] && [ -f "$LIB" ] || { echo "build first: make BUILD=$BUILD"; exit 1; }
gcc -O2 -finstrument-functions -o "$W/prog" bench/analyze_prog.c
gcc -O2 -pg -o "$W/prog_pg" bench/analyze_prog.c

. bench/lib.sh
cpu() { # CMD...: CPU seconds, median of 3
    local secs _
    read -r secs _ < <(cpu_rss_median3 /dev/null "$@")
    echo "$secs"
}
heap() { heap_peak_kib "$@"; }

args() { # FORMAT TRACE: calltrace-report's arguments
    if [ "$1" = report ]; then echo "$2"; else echo "--export $1 $2"; fi
}

for n in $((N / 4)) "$N"; do
    CALLTRACE_OUTPUT=$W/t$n.raw LD_PRELOAD=$LIB "$W/prog" "$n" >/dev/null
done
small=$W/t$((N / 4)).raw big=$W/t$N.raw
events=$("$REPORT" -p "$big" | awk '/^ Events:/ && !done { print $2; done = 1 }')
echo "trace: iterations=$N events=$events bytes=$(stat -c %s "$big")"
printf '%-11s %8s %12s %12s %10s %12s %12s\n' writer cpu_s events/s \
    out_bytes bytes/ev heap_1/4 heap_all
base=""
for f in report ${WRITERS:-folded flamegraph perfetto chrome callgrind dot pprof}; do
    # shellcheck disable=SC2046
    secs=$(cpu "$REPORT" $(args $f "$big"))
    # shellcheck disable=SC2046
    bytes=$("$REPORT" $(args $f "$big") | wc -c)
    # shellcheck disable=SC2046
    h1=$(heap "$REPORT" $(args $f "$small"))
    # shellcheck disable=SC2046
    h2=$(heap "$REPORT" $(args $f "$big"))
    [ -z "$base" ] && base=$secs
    printf '%-11s %8s %12s %12s %10s %12s %12s  (%sx the report'"'"'s time)\n' \
        $f "$secs" "$(awk -v e="$events" -v s="$secs" 'BEGIN{printf "%.0f", e/s}')" \
        "$bytes" "$(awk -v b="$bytes" -v e="$events" 'BEGIN{printf "%.1f", b/e}')" \
        "$h1" "$h2" "$(awk -v a="$secs" -v b="$base" 'BEGIN{printf "%.1f", a/b}')"
done

if command -v uftrace >/dev/null; then
    n=$((N / 4))
    uftrace record -d "$W/uftrace.data" "$W/prog_pg" "$n" >/dev/null 2>&1
    us=$(cpu uftrace dump --chrome -d "$W/uftrace.data")
    ub=$(uftrace dump --chrome -d "$W/uftrace.data" 2>/dev/null | wc -c)
    cs=$(cpu "$REPORT" --export chrome "$small")
    cb=$("$REPORT" --export chrome "$small" | wc -c)
    echo "same program, iterations=$n: calltrace-report --export chrome ${cs}s ${cb} bytes; uftrace dump --chrome ${us}s ${ub} bytes; uftrace/calltrace: time $(awk -v a="$us" -v b="$cs" 'BEGIN{printf "%.1f", a/b}'), size $(awk -v a="$ub" -v b="$cb" 'BEGIN{printf "%.2f", a/b}')"
fi
