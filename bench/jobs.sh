#!/usr/bin/env bash
# calltrace-report's full report, serial (--jobs 1) against parallel
# (--jobs 2), on a trace of 4 threads and on one long thread (Lua 5.4 from
# Debian's source running a call-heavy script), against `uftrace report`
# and `uftrace replay` on uftrace's recording of the same run, and the
# model's memory at two trace lengths.  bench/RESULTS-analyzer.md records
# a run.
#   BUILD=build [RUNS=5] [SCALE=40] bench/jobs.sh
# The runs of the tools compared alternate in one loop, so that the load
# of a shared machine falls on all alike; each figure is min/median/max of
# RUNS runs, wall-clock and CPU (user + system) seconds, and ratios are of
# the medians.  The critical path of --jobs 2 is its CPU time less the
# workers' plus the busiest worker's (CT_JOBS_TIMES): the wall time it
# takes on two idle cores; on a loaded machine the wall ratio only says
# how the load fell.  LUA_CMD="lua script args" replaces
# bench/realprog.sh's Lua.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
SCALE=${SCALE:-40}
REPORT=$BUILD/calltrace-report
LIB=$BUILD/libcalltrace.so
[ -x "$REPORT" ] && [ -f "$LIB" ] || { echo "build first: make BUILD=$BUILD"; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-jobs.XXXXXX")
trap 'rm -rf "$W"' EXIT
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | sed -n 1p), $(nproc) online; load: $(cut -d' ' -f1-3 /proc/loadavg)"

stats() { # values... -> "min/median/max"
    printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{printf "%.2f/%.2f/%.2f", v[1], v[int((NR+1)/2)], v[NR]}'
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
run() { # OUT CMD...: runs CMD; prints "wall cpu" seconds (cpu: user + sys)
    local out=$1; shift
    /usr/bin/time -f "%e %U %S" -o "$W/time" "$@" > "$out" 2>"$W/$(basename "$out").err"
    awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$W/time"
}

# compare NAME TRACE [UFTRACE_DIR]: the timing loop on one trace.
compare() {
    local name=$1 trace=$2 udir=${3:-}
    local events w c w1=() c1=() w2=() cr=() uw=() uc=() pw=() pc=() crit
    events=$(sed -n 's/^ Events: \([0-9]*\).*/\1/p' < <("$REPORT" -p --jobs 1 "$trace"))
    for _ in $(seq "$RUNS"); do
        read -r w c < <(run "$W/r1" "$REPORT" --jobs 1 "$trace"); w1+=("$w"); c1+=("$c")
        read -r w c < <(run "$W/r2" env CT_JOBS_TIMES=1 "$REPORT" --jobs 2 "$trace"); w2+=("$w")
        # critical path: all CPU less the workers' plus the busiest worker's
        crit=$(grep 'pieces on' "$W/r2.err" | tail -n 1 | awk -v tot="$c" '{s=0; m=0; for (i=7; i<NF; i++) {s+=$i; if ($i>m) m=$i} printf "%.3f", tot - s + m}')
        cr+=("${crit:-$c}")
        if [ -n "$udir" ]; then
            read -r w c < <(run "$W/u1" uftrace report -d "$udir"); uw+=("$w"); uc+=("$c")
            read -r w c < <(run /dev/null uftrace replay -d "$udir"); pw+=("$w"); pc+=("$c")
        fi
    done
    cmp -s "$W/r1" "$W/r2" || { echo "$name: --jobs 2 report DIFFERS from --jobs 1"; exit 1; }
    local mw1 mc1
    mw1=$(median "${w1[@]}"); mc1=$(median "${c1[@]}")
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
    echo "$name: $events events, $(stat -c %s "$trace") bytes, $(grep -o '[0-9]* pieces on [0-9]* threads' "$W/r2.err" | tail -n 1)"
    echo "  calltrace-report --jobs 1 TRACE: wall s $(stats "${w1[@]}"), CPU s $(stats "${c1[@]}") = $(awk -v e="$events" -v s="$mc1" 'BEGIN{printf "%.0f", e/s/1e6}') M events per CPU second"
    echo "  calltrace-report --jobs 2 TRACE: wall s $(stats "${w2[@]}") (wall speedup $(ratio "$mw1" "$(median "${w2[@]}")")x), critical path CPU s $(stats "${cr[@]}") (speedup on 2 idle cores $(ratio "$mc1" "$(median "${cr[@]}")")x); reports identical"
    if [ -n "$udir" ]; then
        echo "  uftrace report -d DIR: wall s $(stats "${uw[@]}"), CPU s $(stats "${uc[@]}") = $(ratio "$(median "${uc[@]}")" "$mc1")x calltrace's CPU, $(ratio "$(median "${uw[@]}")" "$(median "${w2[@]}")")x the wall time of --jobs 2"
        echo "  uftrace replay -d DIR > /dev/null: wall s $(stats "${pw[@]}"), CPU s $(stats "${pc[@]}") = $(ratio "$(median "${pc[@]}")" "$mc1")x calltrace's CPU"
    fi
}

anon_peak() { # CMD...: peak anonymous (heap) RSS in KiB, polled every 20 ms
    "$@" >/dev/null 2>&1 &
    local pid=$! peak=0 v
    while kill -0 "$pid" 2>/dev/null; do
        v=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
        [ "${v:-0}" -gt "$peak" ] && peak=$v
        sleep 0.02
    done
    wait "$pid" || true
    echo "$peak"
}

gcc -O2 -finstrument-functions -pthread -o "$W/prog" bench/analyze_prog.c

# 1. Four threads of bench/analyze_prog.c.
N=$((SCALE * 50000))
CALLTRACE_OUTPUT=$W/threads.raw LD_PRELOAD=$LIB "$W/prog" "$N" 4 > /dev/null
compare "analyze_prog, 4 threads x $N iterations" "$W/threads.raw"
rm -f "$W/threads.raw"

# 2. One long thread: Lua.
LUA=()
if [ -n "${LUA_CMD:-}" ]; then
    read -r -a LUA <<< "$LUA_CMD"
elif [ -x bench/realprog.sh ]; then
    mapfile -t LUA < <(bench/realprog.sh lua) || LUA=()
fi
if [ ${#LUA[@]} -gt 0 ]; then
    CALLTRACE_OUTPUT=$W/lua.raw LD_PRELOAD=$LIB "${LUA[@]}" > /dev/null
    udir=
    if command -v uftrace > /dev/null; then
        uftrace record -d "$W/uftrace.data" "${LUA[@]}" > /dev/null && udir=$W/uftrace.data
    fi
    compare "Lua: ${LUA[*]}" "$W/lua.raw" "$udir"
    rm -rf "$W/lua.raw" "$W/uftrace.data"
else
    echo "Lua: skipped (no bench/realprog.sh and no LUA_CMD)"
fi

# 3. Memory at two lengths of one thread: the model's heap does not grow.
for n in $((SCALE * 50000)) $((SCALE * 200000)); do
    CALLTRACE_OUTPUT=$W/m$n.raw LD_PRELOAD=$LIB "$W/prog" "$n" > /dev/null
    echo "memory: $n iterations, $(stat -c %s "$W/m$n.raw") bytes: peak anonymous RSS --jobs 1 $(anon_peak "$REPORT" --jobs 1 "$W/m$n.raw") KiB, --jobs 2 $(anon_peak "$REPORT" --jobs 2 "$W/m$n.raw") KiB"
    rm -f "$W/m$n.raw"
done
