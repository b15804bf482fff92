#!/usr/bin/env bash
# The full report's speed on real traces, one core: Lua 5.4 and SQLite's
# shell from Debian's sources (bench/realprog.sh), each traced once, then
# `calltrace-report --jobs 1 TRACE` RUNS times; with BASE=, an earlier
# calltrace-report on the same trace in the same loop (its report must be
# byte-identical), and `uftrace report` / `uftrace replay` on uftrace's
# recording of the same program at UF_LUA_SCALE / UF_SQLITE_ROWS (smaller
# by default: uftrace records slowly), beside calltrace-report on a trace
# of that same run size.  bench/RESULTS-analyzer.md records a run.
#   BUILD=build [BASE=old/calltrace-report] [RUNS=5] [LUA_SCALE=25]
#   [SQLITE_ROWS=50000] [UF_LUA_SCALE=22] [UF_SQLITE_ROWS=10000]
#   bench/analyze_real.sh
# Each figure is min/median/max of RUNS runs of CPU seconds (user +
# system), the tools alternating in one loop so that a shared machine's
# load falls on all alike; events/s is events over the median CPU time.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
REPORT=$BUILD/calltrace-report
LIB=$BUILD/libcalltrace.so
[ -x "$REPORT" ] && [ -f "$LIB" ] || { echo "build first: make BUILD=$BUILD"; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-real.XXXXXX")
trap 'rm -rf "$W"' EXIT
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | sed -n 1p), $(nproc) online; load: $(cut -d' ' -f1-3 /proc/loadavg)"

stats() { # values... -> "min/median/max"
    printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{printf "%.3f/%.3f/%.3f", v[1], v[int((NR+1)/2)], v[NR]}'
}
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
cpu() { # OUT CMD...: CPU seconds (user + system) of one run
    local out=$1; shift
    /usr/bin/time -f "%U %S" -o "$W/time" "$@" > "$out" 2> /dev/null
    awk '{printf "%.3f\n", $1 + $2}' "$W/time"
}
events_of() { sed -n 's/^ Events: \([0-9]*\).*/\1/p' < <("$REPORT" "$1") | sed -n 1p; }

# bench NAME TRACE [UFTRACE_DIR]
bench() {
    local name=$1 trace=$2 udir=${3:-} ev c=() b=() u=() r=() same=identical
    ev=$(events_of "$trace")
    for _ in $(seq "$RUNS"); do
        c+=("$(cpu "$W/new" "$REPORT" --jobs 1 "$trace")")
        if [ -n "${BASE:-}" ]; then
            b+=("$(cpu "$W/base" "$BASE" --jobs 1 "$trace")")
            cmp -s "$W/new" "$W/base" || same=DIFFERENT
        fi
        if [ -n "$udir" ]; then
            u+=("$(cpu /dev/null uftrace report -d "$udir")")
            r+=("$(cpu /dev/null uftrace replay -d "$udir")")
        fi
    done
    local m
    m=$(med "${c[@]}")
    echo "$name: $ev events, $(stat -c %s "$trace") bytes"
    echo "  calltrace-report --jobs 1: CPU s $(stats "${c[@]}"), $(awk -v e="$ev" -v s="$m" 'BEGIN{printf "%.1f", e / s / 1e6}') M events/s"
    [ -n "${BASE:-}" ] && echo "  BASE $BASE: CPU s $(stats "${b[@]}"), $(awk -v e="$ev" -v s="$(med "${b[@]}")" 'BEGIN{printf "%.1f", e / s / 1e6}') M events/s, speedup $(awk -v a="$(med "${b[@]}")" -v s="$m" 'BEGIN{printf "%.2f", a / s}')x, reports $same"
    if [ -n "$udir" ]; then
        echo "  uftrace report -d DIR: CPU s $(stats "${u[@]}") = $(awk -v a="$(med "${u[@]}")" -v s="$m" 'BEGIN{printf "%.1f", a / s}')x calltrace-report's"
        echo "  uftrace replay -d DIR > /dev/null: CPU s $(stats "${r[@]}") = $(awk -v a="$(med "${r[@]}")" -v s="$m" 'BEGIN{printf "%.1f", a / s}')x calltrace-report's"
    fi
}

# prog NAME SCALE UF: traces bench/realprog.sh's NAME at SCALE and reports
# on it; with UF=1 uftrace records the same run and is compared too.
prog() {
    local name=$1 scale=$2 uf=$3 cmd udir=
    mapfile -t cmd < <(bench/realprog.sh "$name" "$scale") || return 1
    CALLTRACE_OUTPUT=$W/$name.raw LD_PRELOAD=$LIB "${cmd[@]}" > /dev/null
    if [ "$uf" = 1 ] && command -v uftrace > /dev/null; then
        uftrace record -d "$W/uftrace.data" "${cmd[@]}" > /dev/null 2>&1 && udir=$W/uftrace.data
    fi
    bench "$name $scale" "$W/$name.raw" "$udir"
    rm -rf "$W/$name.raw" "$W/uftrace.data"
}

prog lua "${LUA_SCALE:-25}" 0
prog sqlite "${SQLITE_ROWS:-50000}" 0
prog lua "${UF_LUA_SCALE:-22}" 1
prog sqlite "${UF_SQLITE_ROWS:-10000}" 1
