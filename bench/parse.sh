#!/bin/bash
# Parse speed of the text readers: a large OpenLaszlo log and a large lms
# log are read by calltrace-report (report printed to /dev/null), against
# `cat FILE > /dev/null` on the same file in the same invocation.  Times
# are CPU seconds (user + system), the median of three runs: the machine
# may be shared.  BASE=old/calltrace-report times an earlier build too.
# usage: bench/parse.sh [MEGABYTES]   (BUILD=build by default)
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
MB=${1:-200}
R=$BUILD/calltrace-report
D=$(mktemp -d "${TMPDIR:-/tmp}/ct-parse.XXXXXX")
trap 'rm -rf "$D"' EXIT
cpu() { # CMD...: CPU seconds, median of three runs
    local runs=() u s
    for _ in 1 2 3; do
        /usr/bin/time -f "%U %S" -o "$D/time" "$@" > /dev/null 2>&1
        read -r u s < "$D/time"
        runs+=("$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.3f", u + s}')")
    done
    printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p
}
for fmt in openlaszlo lms; do
    f=$D/big.$fmt
    python3 bench/parse_gen.py $fmt "$f" "$MB"
    bytes=$(stat -c %s "$f")
    cat "$f" > /dev/null   # warm the page cache
    ct=$(cpu cat "$f")
    rt=$(cpu "$R" -b --format $fmt "$f")
    awk -v fmt=$fmt -v b="$bytes" -v ct="$ct" -v rt="$rt" 'BEGIN {
        printf "%-10s %6.0f MB  cat %7.0f MB/s (%.3f s)  calltrace-report %6.0f MB/s (%.3f s)\n",
            fmt, b / 1e6, b / 1e6 / (ct > 0 ? ct : 0.001), ct, b / 1e6 / rt, rt }'
    if [ -n "${BASE:-}" ]; then
        bt=$(cpu "$BASE" -b --format $fmt "$f")
        awk -v b="$bytes" -v bt="$bt" -v rt="$rt" 'BEGIN {
            printf "           BASE %6.0f MB/s (%.3f s), speedup %.2f\n",
                b / 1e6 / bt, bt, bt / rt }'
    fi
done
