#!/bin/sh
# The main job on an example: build examples/wordfreq.c with
# -finstrument-functions, trace it under libcalltrace.so, print the report.
set -eu
BUILD=${BUILD:-build}
mkdir -p "$BUILD/demo"
gcc -std=gnu11 -g -O1 -finstrument-functions -Iinclude \
    -o "$BUILD/demo/wordfreq" examples/wordfreq.c
rm -f "$BUILD/demo/wordfreq.raw"
echo "== LD_PRELOAD=$BUILD/libcalltrace.so $BUILD/demo/wordfreq"
CALLTRACE_OUTPUT="$BUILD/demo/wordfreq.raw" LD_PRELOAD="$BUILD/libcalltrace.so" \
    "$BUILD/demo/wordfreq"
echo "== $BUILD/calltrace-report $BUILD/demo/wordfreq.raw"
"$BUILD/calltrace-report" "$BUILD/demo/wordfreq.raw"
