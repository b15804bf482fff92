#!/usr/bin/env bash
# The calltrace reader's speed on a synthetic trace of $RECORDS records
# (default 100 M, about 0.4 GB in $TMPDIR): the decoder alone into a
# counting sink, the full report, and --dump, each against the time to
# read the file's bytes once (the baseline, same invocation).  Times are
# CPU seconds, best of three.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
RECORDS=${RECORDS:-100000000}
make -s BUILD="$B" all >/dev/null
T=$(mktemp -d "${TMPDIR:-/tmp}/ct-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
gcc -std=gnu11 -O2 -D_GNU_SOURCE -I. -Iinclude -Itests/unit \
    -o "$T/reader_bench" bench/reader_bench.c "$B/libcalltrace-analyzer.a" \
    -lbfd -lm -lz
"$T/reader_bench" gen "$T/big.raw" "$RECORDS"
"$T/reader_bench" touch "$T/big.raw" >/dev/null # warm the page cache
# CPU seconds (user + system) of one run, the best of three: the machine
# may be shared, and wall-clock time would count other processes' turns.
secs() {
    local best= t
    for _ in 1 2 3; do
        t=$( { TIMEFORMAT='%3U + %3S'; time "$@" >/dev/null 2>&1; } 2>&1 | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    echo "$best"
}
touch_s=$(secs "$T/reader_bench" touch "$T/big.raw")
"$T/reader_bench" read "$T/big.raw"
read_s=$(secs "$T/reader_bench" read "$T/big.raw")
report_s=$(secs "$B/calltrace-report" "$T/big.raw")
dump_s=$(secs "$B/calltrace-report" --dump "$T/big.raw")
printf 'records: %d\n' "$RECORDS"
printf '%-34s %8.3f s  %6.1f M records/s  %6.1fx baseline\n' \
    "baseline: touch every byte" "$touch_s" \
    "$(echo "$RECORDS / $touch_s / 1000000" | bc -l)" 1 \
    "decode (counting sink)" "$read_s" \
    "$(echo "$RECORDS / $read_s / 1000000" | bc -l)" \
    "$(echo "$read_s / $touch_s" | bc -l)" \
    "calltrace-report (full report)" "$report_s" \
    "$(echo "$RECORDS / $report_s / 1000000" | bc -l)" \
    "$(echo "$report_s / $touch_s" | bc -l)" \
    "calltrace-report --dump" "$dump_s" \
    "$(echo "$RECORDS / $dump_s / 1000000" | bc -l)" \
    "$(echo "$dump_s / $touch_s" | bc -l)"
