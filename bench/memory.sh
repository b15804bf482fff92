#!/usr/bin/env bash
# The tracer's own memory: what a traced process has more than the same
# process untraced, at start (after its first call: main's thread state
# and first block included) and per thread (each with its state and first
# block), in VmSize (the address space, what `ulimit -v` limits) and
# VmRSS, read from /proc/self/status by bench/memory_prog.c:
#   bench/memory.sh [THREADS]      (BUILD=build-x to pick the library)
# Rows: library calls off and recorded (the default), the switch ring on
# (the default) and off, 4 KiB blocks.  Prints a Markdown table, in KiB.
# A thread's first block (64 KiB, or the block size when smaller) is all
# resident; the last column takes it off the resident memory per thread:
# what the thread's state, its tracer stack and the rest cost, untouched
# pages (the kernel maps anonymous memory on first touch) costing nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-16}
LIB=$(cd "${BUILD:-build}" && pwd)/libcalltrace.so
[ -f "$LIB" ] || { echo "no $LIB: run make first" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-mem.XXXXXX")
trap 'rm -rf "$W"' EXIT
gcc -std=gnu11 -O1 -finstrument-functions -pthread -o "$W/prog" bench/memory_prog.c
measure() {  # env settings...: "start_size start_rss threads_size threads_rss"
    env "$@" "$W/prog" "$N" | awk '{printf "%s %s ", $2, $3}'
}
read -r us ur uts utr <<< "$(measure)"
echo "| settings | VmSize at start | VmRSS at start | VmSize per thread | VmRSS per thread | VmRSS per thread besides its first block |"
echo "|---|---|---|---|---|---|"
for settings in "CALLTRACE_LIBCALLS=none" "CALLTRACE_LIBCALLS=plt" \
                "CALLTRACE_LIBCALLS=none CALLTRACE_CPUTIME=clock" \
                "CALLTRACE_LIBCALLS=plt CALLTRACE_BUFSIZE=4K"; do
    first=64
    case $settings in *BUFSIZE=4K*) first=4 ;; esac
    # shellcheck disable=SC2086
    read -r ts tr tts ttr <<< "$(measure $settings CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB")"
    rm -f "$W"/t.raw*
    rss=$(( ((ttr - tr) - (utr - ur)) / N ))
    echo "| $settings | $((ts - us)) | $((tr - ur)) |" \
         "$(( ((tts - ts) - (uts - us)) / N )) | $rss | $((rss - first)) |"
done
echo
echo "untraced: VmSize $us KiB at start, $(( (uts - us) / N )) KiB per thread (its 256 KiB stack and guard page)"
