#!/usr/bin/env bash
# What -finstrument-functions costs by itself, and what calltrace adds on
# top: CPU time (user + system) of (a) the plain build, (b) the
# -finstrument-functions build with hooks that return at once
# (bench/overhead_noop.c preloaded) and (c) that build traced by calltrace.
# (b)/(a) is the instrumentation's own price (a call to each hook per
# call, lost inlining, registers kept across the hook calls), which no
# tracer built on these hooks can take back; (c)/(b) is calltrace's share.
#   bench/instrument_cost.sh [ROUNDS]   (BUILD=build, PROGS="fib lua",
#                                        FIB_N=32, LUA_SCALE=25)
# Lua comes from bench/realprog.sh, instrumented and plain (IFLAGS=).
# Each round runs the three variants in turn after a sync; medians of the
# rounds, ratios taken within each round (median, min-max).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${1:-5}
bench_setup

gcc -std=gnu11 -O2 -o "$W/fib-plain" bench/overhead_fib.c
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c

echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: BUILD=$BUILD PROGS=\"${PROGS:-fib lua}\" FIB_N=${FIB_N:-32} LUA_SCALE=${LUA_SCALE:-25} bench/instrument_cost.sh $ROUNDS"
echo
echo "| program | plain (a) ms | empty hooks (b) ms | calltrace (c) ms | (b)/(a) instrumentation | (c)/(b) calltrace | (c)/(a) |"
echo "|---|---|---|---|---|---|---|"

# CPU ns of one run, the tracer's helper processes (block supplier) included
one() { local c; sync; read -r _ c < <(wall_cpu_ns "$@"); echo "$c"; }

# min-max and median of the numbers on stdin
mm() { sort -g | awk '{v[NR]=$1} END{printf "%.2f (%.2f-%.2f)", v[int((NR+1)/2)], v[1], v[NR]}'; }
med_ms() { median | awk '{printf "%.1f", $1 / 1e6}'; }

run3() {  # NAME PLAIN-CMD -- INSTRUMENTED-CMD...
    local name=$1 r a b c
    shift
    local -a plain=() inst=() as=() bs=() cs=() ba=() cb=() ca=()
    while [ "$1" != -- ]; do plain+=("$1"); shift; done
    shift
    inst=("$@")
    for ((r = 0; r < ROUNDS; r++)); do
        a=$(one "${plain[@]}")
        b=$(one env LD_PRELOAD="$W/noop.so" "${inst[@]}")
        rm -f "$W"/t.raw*
        c=$(one env CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "${inst[@]}")
        as+=("$a"); bs+=("$b"); cs+=("$c")
        ba+=("$(echo "$b $a" | awk '{print $1 / $2}')")
        cb+=("$(echo "$c $b" | awk '{print $1 / $2}')")
        ca+=("$(echo "$c $a" | awk '{print $1 / $2}')")
    done
    echo "| $name | $(printf '%s\n' "${as[@]}" | med_ms) | $(printf '%s\n' "${bs[@]}" | med_ms) | $(printf '%s\n' "${cs[@]}" | med_ms) | $(printf '%s\n' "${ba[@]}" | mm) | $(printf '%s\n' "${cb[@]}" | mm) | $(printf '%s\n' "${ca[@]}" | mm) |"
}

for p in ${PROGS:-fib lua}; do
    case $p in
    fib) run3 "fib(${FIB_N:-32})" "$W/fib-plain" "${FIB_N:-32}" -- "$W/fib" "${FIB_N:-32}" ;;
    lua)
        mapfile -t inst < <(bench/realprog.sh lua "${LUA_SCALE:-25}")
        mapfile -t plain < <(IFLAGS='' bench/realprog.sh lua "${LUA_SCALE:-25}")
        run3 "Lua work.lua ${LUA_SCALE:-25}" "${plain[@]}" -- "${inst[@]}" ;;
    *) echo "instrument_cost: unknown program $p" >&2; exit 2 ;;
    esac
done
