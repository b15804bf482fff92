#!/usr/bin/env bash
# calltrace-report's speed and memory on large traces, against uftrace
# report on the same program, in the same run.  Writes figures to stdout;
# bench/RESULTS-analyzer.md records a run.
#   BUILD=build [BASE=old/calltrace-report] bench/analyze.sh [ITERATIONS]
# ITERATIONS of the program's loop; each makes 5.5 calls on average
# (11 events), so the default 9.2 M gives about 101 M events.  Peak RSS
# includes the trace's pages, which the reader maps whole.  Speeds are CPU
# seconds (user + system), the median of three runs, beside `cat FILE >
# /dev/null` on the same file in the same invocation: the machine may be
# shared, and wall-clock time would count other processes' turns.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${1:-9200000}
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
REPORT=$BUILD/calltrace-report
LIB=$BUILD/libcalltrace.so
[ -x "$REPORT" ] && [ -f "$LIB" ] || { echo "build first: make BUILD=$BUILD"; exit 1; }

gcc -O2 -finstrument-functions -o "$W/prog" bench/analyze_prog.c
gcc -O2 -pg -o "$W/prog_pg" bench/analyze_prog.c

. bench/lib.sh
timed() { # LABEL CMD...: CPU seconds (median of 3) and peak RSS (KiB)
    local label=$1; shift
    echo "$label $(cpu_rss_median3 "$W/out.$label" "$@")"
}

for n in $((N / 4)) "$N"; do
    CALLTRACE_OUTPUT=$W/t$n.raw LD_PRELOAD=$LIB "$W/prog" "$n" >/dev/null
    events=$(( $(grep -m1 '^ Events:' <("$REPORT" -p "$W/t$n.raw") | awk '{print $2}') ))
    size=$(stat -c %s "$W/t$n.raw")
    read -r _ cat_secs _ < <(timed cat$n cat "$W/t$n.raw")
    read -r _ secs rss < <(timed report$n "$REPORT" "$W/t$n.raw")
    echo "calltrace-report: iterations=$n events=$events trace_bytes=$size cpu_seconds=$secs (cat: $cat_secs) peak_rss_kib=$rss events_per_sec=$(awk -v e="$events" -v s="$secs" 'BEGIN{printf "%.0f", e/s}')"
    if [ -n "${BASE:-}" ]; then # an earlier calltrace-report, same trace
        read -r _ bsecs _ < <(timed base$n "$BASE" "$W/t$n.raw")
        cmp -s "$W/out.base$n" "$W/out.report$n" && same=identical || same=DIFFERENT
        echo "  BASE=$BASE: cpu_seconds=$bsecs events_per_sec=$(awk -v e="$events" -v s="$bsecs" 'BEGIN{printf "%.0f", e/s}') speedup=$(awk -v a="$bsecs" -v b="$secs" 'BEGIN{printf "%.2f", a/b}') report $same"
    fi
    echo "  peak anonymous RSS (the model's memory; the rest is the mapped trace): $(heap_peak_kib "$REPORT" "$W/t$n.raw") KiB"
    rm -f "$W/t$n.raw"
done

if command -v uftrace >/dev/null; then
    n=$((N / 4))
    CALLTRACE_OUTPUT=$W/u.raw LD_PRELOAD=$LIB "$W/prog" "$n" >/dev/null
    uftrace record -d "$W/uftrace.data" "$W/prog_pg" "$n" >/dev/null 2>&1
    read -r _ cs crss < <(timed ct "$REPORT" "$W/u.raw")
    read -r _ us urss < <(timed uf uftrace report -d "$W/uftrace.data")
    echo "same program, iterations=$n: calltrace-report ${cs}s (${crss} KiB), uftrace report ${us}s (${urss} KiB), ratio uftrace/calltrace $(awk -v a="$us" -v b="$cs" 'BEGIN{printf "%.1f", a/b}')"
fi
