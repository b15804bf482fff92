#!/bin/bash
# Parse speed of the text readers: a large OpenLaszlo log and a large lms
# log are read by calltrace-report (report printed to /dev/null), against
# `cat FILE > /dev/null` on the same file in the same invocation.
# usage: bench/parse.sh [MEGABYTES]   (BUILD=build by default)
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
MB=${1:-200}
R=$BUILD/calltrace-report
D=$(mktemp -d "${TMPDIR:-/tmp}/ct-parse.XXXXXX")
trap 'rm -rf "$D"' EXIT
now() { date +%s.%N; }
for fmt in openlaszlo lms; do
    f=$D/big.$fmt
    python3 bench/parse_gen.py $fmt "$f" "$MB"
    bytes=$(stat -c %s "$f")
    cat "$f" > /dev/null   # warm the page cache
    t0=$(now); cat "$f" > /dev/null; t1=$(now)
    "$R" -b --format $fmt "$f" > /dev/null
    t2=$(now); "$R" -b --format $fmt "$f" > /dev/null; t3=$(now)
    awk -v fmt=$fmt -v b="$bytes" -v c="$t0 $t1" -v r="$t2 $t3" 'BEGIN {
        split(c, x, " "); split(r, y, " ");
        ct = x[2] - x[1]; rt = y[2] - y[1];
        printf "%-10s %6.0f MB  cat %7.0f MB/s  calltrace-report %6.0f MB/s (%.1f%% of cat, %.2f s)\n",
            fmt, b / 1e6, b / 1e6 / ct, b / 1e6 / rt, 100 * ct / rt, rt }'
done
