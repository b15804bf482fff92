#!/usr/bin/env bash
# The cost of --stats: calltrace-report's events per second on one core
# (--jobs 1) with and without --stats, and with --jobs 2, on a trace of
# bench/analyze_prog.c (11 events an iteration, most calls short).
#   BUILD=build [RUNS=5] bench/stats.sh [ITERATIONS]
# CPU seconds (user + system), min/median/max of RUNS runs, the two
# alternating in one loop so that a shared machine's load falls on both
# alike; events/s is events over the median.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
N=${1:-2000000}
REPORT=$BUILD/calltrace-report
LIB=$BUILD/libcalltrace.so
[ -x "$REPORT" ] && [ -f "$LIB" ] || { echo "build first: make BUILD=$BUILD"; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-stats.XXXXXX")
trap 'rm -rf "$W"' EXIT
gcc -O2 -finstrument-functions -o "$W/prog" bench/analyze_prog.c -lpthread
CALLTRACE_LIBCALLS=none CALLTRACE_OUTPUT=$W/t.raw LD_PRELOAD=$LIB \
    "$W/prog" "$N" > /dev/null
events=$("$REPORT" -p -b "$W/t.raw" | sed -n 's/^ *Events: *\([0-9]*\).*/\1/p' | sed -n 1p)
echo "trace: $events events, $(stat -c %s "$W/t.raw") bytes; load: $(cut -d' ' -f1-3 /proc/loadavg)"

cpu() { # seconds of user + system CPU of the command
    /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -n 1 | awk '{print $1 + $2}'
}
stats() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{printf "%.3f/%.3f/%.3f", v[1], v[int((NR+1)/2)], v[NR]}'; }
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
plain=() with=() with2=()
for ((i = 0; i < RUNS; i++)); do
    plain+=("$(cpu "$REPORT" --jobs 1 "$W/t.raw")")
    with+=("$(cpu "$REPORT" --jobs 1 --stats "$W/t.raw")")
    with2+=("$(cpu "$REPORT" --jobs 2 --stats "$W/t.raw")")
done
mp=$(med "${plain[@]}") mw=$(med "${with[@]}")
printf 'report --jobs 1:          %s s  %.1f M events/s\n' "$(stats "${plain[@]}")" \
    "$(awk -v e="$events" -v s="$mp" 'BEGIN{print e / s / 1e6}')"
printf 'report --jobs 1 --stats:  %s s  %.1f M events/s\n' "$(stats "${with[@]}")" \
    "$(awk -v e="$events" -v s="$mw" 'BEGIN{print e / s / 1e6}')"
printf 'report --jobs 2 --stats:  %s s CPU (both threads)\n' "$(stats "${with2[@]}")"
printf 'with --stats / without: %.2fx the events/s\n' \
    "$(awk -v a="$mp" -v b="$mw" 'BEGIN{print a / b}')"
