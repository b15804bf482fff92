#!/usr/bin/env bash
# Record-time filters on fib (bench/overhead_fib.c) and on Lua 5.4
# (bench/realprog.sh's workload), against empty hooks, the unfiltered
# tracer and uftrace with the matching options, all in the same run:
#   bench/filter.sh [RUNS]          (BUILD=build-x to pick the library;
#                                    PROGS="fib lua", FIB_N=32, LUA_SCALE=23)
# Prints a Markdown table per workload; BENCHMARKS.md's figures come from
# it.
#
# fib(N) has one function, so "a filter keeping about 10 % of the calls"
# is fib@L, its top L levels: fib@17 keeps 12.6 % of fib(28)'s calls,
# fib@21 26.7 % of fib(32)'s, fib@19 fewer (FIB_LEVELS, default N-13).
# The workloads are sized so that the tracer's cost is well above the
# noise of a process's CPU time here (several ms).
# On Lua it is str_format and luaB_setmetatable with what they call
# (string.format and setmetatable of the workload: about 11 %).
# "-fib" leaves every fib call out (the cost of a call filtered out) and
# "-no_such_function" matches nothing (the cost of a kept call once a
# filter forces the slow path).  "paused" is CALLTRACE_START_PAUSED=1,
# against uftrace's nearest: -T main@trace_off, recording switched off as
# main is entered and never on again.  (uftrace 0.13's --disable, "start
# with tracing disabled", records every call of a -finstrument-functions
# program all the same: as many bytes as with no option.)  Runs of the variants alternate, so a
# busy machine slows them alike; each figure is the median of RUNS, with
# the calltrace column's min and max.  uftrace's bytes are its *.dat
# files (its symbol and map files left out, as calltrace's MAPS blocks
# are).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
. bench/lib.sh
bench_setup
command -v uftrace >/dev/null || { echo "no uftrace (scripts/install-deps.sh)" >&2; exit 1; }

gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c

# Bytes of records written (sum of the EVENTS blocks' `used`).
trace_bytes() {
    python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
off, used = 4096, 0
while off + 64 <= len(data):
    magic, kind, hsz, size, u = struct.unpack_from('<IHHII', data, off)
    if magic != 0x4b4c4243 or size == 0:
        break
    if kind == 1:
        used += u
    off += size
print(used)
PY
}

med() { printf '%s\n' ${1} | median; }
lo() { printf '%s\n' ${1} | sort -n | sed -n 1p; }
hi() { printf '%s\n' ${1} | sort -n | tail -n 1; }

# bench_workload TITLE VARIANTS-ARRAY-NAME CMD...: the table of one
# workload.  Its call count is the everything run's (the first variant).
bench_workload() {
    local title=$1 vname=$2[@]
    shift 2
    local variants=("${!vname}")
    declare -A cpu bytes kept ucpu ubytes
    local r i name settings uopts
    for ((r = 0; r < RUNS; r++)); do
        sync
        cpu[noop]+="$(cpu_ns env LD_PRELOAD="$W/noop.so" "$@") "
        for i in "${!variants[@]}"; do
            IFS='|' read -r name settings uopts <<< "${variants[$i]}"
            rm -f "$W"/t.raw*
            sync
            cpu[$i]+="$(cpu_ns env $settings CALLTRACE_OUTPUT="$W/t.raw" \
                        LD_PRELOAD="$LIB" "$@") "
            bytes[$i]=$(trace_bytes "$W/t.raw")
            kept[$i]=$("$REPORT" -b -p "$W/t.raw" |
                       sed -n 's/^ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
            rm -rf "$W/u.data"
            sync
            ucpu[$i]+="$(cpu_ns uftrace record -d "$W/u.data" $uopts "$@") "
            ubytes[$i]=$(cat "$W"/u.data/*.dat 2>/dev/null | wc -c)
        done
    done
    local nc calls=${kept[0]}
    nc=$(med "${cpu[noop]}")
    echo "$title: $calls calls, CPU time (user + system), median of $RUNS alternating runs;"
    echo "empty hooks: $(awk -v c="$nc" 'BEGIN{printf "%.1f", c/1e6}') ms (min $(awk -v c="$(lo "${cpu[noop]}")" 'BEGIN{printf "%.1f", c/1e6}'), max $(awk -v c="$(hi "${cpu[noop]}")" 'BEGIN{printf "%.1f", c/1e6}'))"
    echo
    echo "| run | calls kept | calltrace ns/call over empty hooks (min-max) | calltrace trace MB/s | calltrace bytes/kept call | uftrace ns/call over empty hooks | uftrace trace MB/s | uftrace vs calltrace |"
    echo "|---|---|---|---|---|---|---|---|"
    for i in "${!variants[@]}"; do
        IFS='|' read -r name settings uopts <<< "${variants[$i]}"
        awk -v name="$name" -v c="$calls" -v nc="$nc" -v oc="$(med "${cpu[$i]}")" \
            -v olo="$(lo "${cpu[$i]}")" -v ohi="$(hi "${cpu[$i]}")" \
            -v uc="$(med "${ucpu[$i]}")" -v b="${bytes[$i]}" -v ub="${ubytes[$i]}" \
            -v k="${kept[$i]}" 'BEGIN {
            printf "| %s | %d | %.1f (%.1f-%.1f) | %.1f | %.2f | %.1f | %.1f | %.2f |\n",
                name, k, (oc-nc)/c, (olo-nc)/c, (ohi-nc)/c, b/(oc/1e9)/1e6,
                k ? b/k : 0, (uc-nc)/c, ub/(uc/1e9)/1e6,
                (oc > nc ? (uc-nc)/(oc-nc) : 0)
        }'
    done
    echo
}

FIB_N=${FIB_N:-32}
FIB_LEVELS=${FIB_LEVELS:-$((FIB_N - 13))}
# name | calltrace settings | uftrace options
FIB_VARIANTS=(
    "everything||"
    "filter matching nothing (-no_such_function)|CALLTRACE_FILTER=-no_such_function|-N no_such_function"
    "filter keeping the top $FIB_LEVELS levels (fib@$FIB_LEVELS)|CALLTRACE_FILTER=fib@$FIB_LEVELS|-F fib -D $FIB_LEVELS"
    "every fib call filtered out (-fib)|CALLTRACE_FILTER=-fib|-N fib"
    "main and all it calls left out (main:notrace)|CALLTRACE_FILTER=main:notrace|-N main"
    "3 levels from each fib (fib,fib:depth=3: all kept)|CALLTRACE_FILTER=fib,fib:depth=3|-F fib -D 3"
    "the paths to fib (fib:caller: all kept)|CALLTRACE_FILTER=fib:caller|-C fib"
    "depth 5|CALLTRACE_DEPTH=5|-D 5"
    "min duration 10us|CALLTRACE_MIN_DURATION=10us|-t 10us"
    "paused (uftrace -T main@trace_off)|CALLTRACE_START_PAUSED=1|-T main@trace_off"
)
LUA_VARIANTS=(
    "everything||"
    "filter matching nothing (-no_such_function)|CALLTRACE_FILTER=-no_such_function|-N ^no_such_function$"
    "filter keeping ~11 % (str_format,luaB_setmetatable)|CALLTRACE_FILTER=str_format,luaB_setmetatable|-F ^str_format$ -F ^luaB_setmetatable$"
    "depth 5|CALLTRACE_DEPTH=5|-D 5"
    "min duration 10us|CALLTRACE_MIN_DURATION=10us|-t 10us"
    "paused (uftrace -T main@trace_off)|CALLTRACE_START_PAUSED=1|-T main@trace_off"
)

echo "command: nice -n 19 env PROGS=\"${PROGS:-fib lua}\" FIB_N=$FIB_N FIB_LEVELS=$FIB_LEVELS LUA_SCALE=${LUA_SCALE:-23} bench/filter.sh $RUNS"
grep -m1 'model name' /proc/cpuinfo | sed 's/^.*: /CPU: /'
echo
for p in ${PROGS:-fib lua}; do
    case $p in
    fib) bench_workload "fib($FIB_N)" FIB_VARIANTS "$W/fib" "$FIB_N" ;;
    lua) mapfile -t cmd < <(bench/realprog.sh lua "${LUA_SCALE:-23}")
         bench_workload "Lua 5.4, bench/realprog.sh lua ${LUA_SCALE:-23}" LUA_VARIANTS "${cmd[@]}" ;;
    *) echo "unknown program $p" >&2; exit 1 ;;
    esac
done
