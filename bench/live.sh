#!/usr/bin/env bash
# calltrace top on a live trace of $CALLS iterations (3 calls each;
# default 4 M, about 70 MB): its first refresh decodes the whole file, the
# next ones only what is new (here nothing).  Baseline: calltrace-report -p
# of the same file, same invocation.  CPU seconds (user + system), best of
# three.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
CALLS=${CALLS:-4000000}
make -s BUILD="$B" all >/dev/null
T=$(mktemp -d "${TMPDIR:-/tmp}/ct-bench.XXXXXX")
gcc -std=gnu11 -O1 -finstrument-functions -o "$T/prog" bench/live_prog.c
mkfifo "$T/in"
CALLTRACE_OUTPUT=$T/live.raw LD_PRELOAD=$B/libcalltrace.so \
    "$T/prog" "$CALLS" < "$T/in" > "$T/out" &
pid=$!
exec 3> "$T/in"
trap 'exec 3>&-; wait "$pid" 2>/dev/null || true; rm -rf "$T"' EXIT
until grep -q ready "$T/out" 2>/dev/null; do sleep 0.1; done
secs() {
    local best= t
    for _ in 1 2 3; do
        t=$( { TIMEFORMAT='%3U + %3S'; time "$@" >/dev/null 2>&1; } 2>&1 | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    echo "$best"
}
report_s=$(secs "$B/calltrace-report" -p "$T/live.raw")
first_s=$(secs "$B/calltrace" top -n 1 "$T/live.raw")
more_s=$(secs "$B/calltrace" top -n 101 -i 0.05 "$T/live.raw")
printf 'trace: %s bytes, %d calls\n' "$(stat -c %s "$T/live.raw")" $((3 * CALLS))
printf '%-40s %8.3f s  %5.2fx baseline\n' \
    "baseline: calltrace-report -p" "$report_s" 1 \
    "calltrace top, first refresh" "$first_s" \
    "$(echo "$first_s / $report_s" | bc -l)"
printf '%-40s %8.4f s  %5.3fx baseline\n' \
    "calltrace top, each later refresh" \
    "$(echo "($more_s - $first_s) / 100" | bc -l)" \
    "$(echo "($more_s - $first_s) / 100 / $report_s" | bc -l)"
