#!/usr/bin/env bash
# The block supplier (CALLTRACE_SUPPLIER, preload/stream/supply.c) against the
# same library without it and against the floor (bench/overhead_floor.c),
# on fib and on Lua and SQLite (bench/realprog.sh).  Each round runs every
# variant once, in turn, after a sync.  Per variant: elapsed time, the
# program's own CPU time, and the CPU time of the program and every
# process it left behind (the supplier is cloned with no exit signal, so
# only a subreaper reaping with __WALL counts it: bench/lib.sh).
#   bench/supply.sh [ROUNDS]    (BUILD=build-x, BASE=old/libcalltrace.so,
#                                PROGS="fib lua sqlite", FIB_N=32,
#                                LUA_SCALE=25, SQLITE_ROWS=100000)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${1:-5}
bench_setup
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/floor.so" bench/overhead_floor.c
echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: BUILD=$BUILD${BASE:+ BASE=$BASE} PROGS=\"${PROGS:-fib lua sqlite}\" FIB_N=${FIB_N:-32} LUA_SCALE=${LUA_SCALE:-25} SQLITE_ROWS=${SQLITE_ROWS:-100000} bench/supply.sh $ROUNDS"

mmm() { sort -g | awk -v f="$1" '{v[NR]=$1} END{printf f " / " f " / " f, v[1], v[int((NR+1)/2)], v[NR]}'; }

bench_prog() {  # NAME CMD...
    local name=$1 r v calls w c o
    shift
    local -a variants=(noop floor on off)
    [ -n "${BASE:-}" ] && variants+=(base)
    declare -A wall cpu own
    for ((r = 0; r < ROUNDS; r++)); do
        for v in "${variants[@]}"; do
            rm -f "$W"/t.raw*
            sync
            case $v in
            noop) read -r w c o < <(wall_cpu_split_ns env LD_PRELOAD="$W/noop.so" "$@") ;;
            floor) read -r w c o < <(wall_cpu_split_ns env LD_PRELOAD="$W/floor.so" "$@") ;;
            on) read -r w c o < <(wall_cpu_split_ns env CALLTRACE_SUPPLIER=1 CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$@") ;;
            off) read -r w c o < <(wall_cpu_split_ns env CALLTRACE_SUPPLIER=0 CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$@") ;;
            base) read -r w c o < <(wall_cpu_split_ns env CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$BASE" "$@") ;;
            esac
            if [ "$v" = on ] && [ "$r" = 0 ]; then
                calls=$(( $("$REPORT" -p "$W/t.raw" | awk '/^ Events:/ && !n {print $2; n = 1}') / 2 ))
                read -r rec file < <(trace_bytes "$W/t.raw")
            fi
            wall[$v,$r]=$w; cpu[$v,$r]=$c; own[$v,$r]=$o
        done
    done
    local shown="$*"
    shown=${shown//$W\//}
    shown=${shown//$PWD\//}
    echo
    echo "$name: $shown — $calls calls, $ROUNDS rounds, min / median / max; ns per call over empty hooks (same round)"
    echo
    echo "| preload | program CPU | all processes' CPU | elapsed | all CPU over the floor's | elapsed vs supplier off |"
    echo "|---|---|---|---|---|---|"
    for v in floor on off base; do
        [ "$v" = base ] && [ -z "${BASE:-}" ] && continue
        local label=$v
        case $v in
        floor) label="floor (rdtsc + 8-byte store)" ;;
        on) label="calltrace, CALLTRACE_SUPPLIER=1" ;;
        off) label="calltrace, CALLTRACE_SUPPLIER=0" ;;
        base) label="BASE" ;;
        esac
        local po=() pa=() pw=() pf=() pr=()
        for ((r = 0; r < ROUNDS; r++)); do
            po+=("$(awk -v a="${own[$v,$r]}" -v b="${own[noop,$r]}" -v c="$calls" 'BEGIN{print (a-b)/c}')")
            pa+=("$(awk -v a="${cpu[$v,$r]}" -v b="${cpu[noop,$r]}" -v c="$calls" 'BEGIN{print (a-b)/c}')")
            pw+=("$(awk -v a="${wall[$v,$r]}" -v b="${wall[noop,$r]}" -v c="$calls" 'BEGIN{print (a-b)/c}')")
            pf+=("$(awk -v a="${cpu[$v,$r]}" -v f="${cpu[floor,$r]}" -v b="${cpu[noop,$r]}" 'BEGIN{print (a-b)/(f-b)}')")
            pr+=("$(awk -v a="${wall[$v,$r]}" -v o="${wall[off,$r]}" 'BEGIN{print a/o}')")
        done
        echo "| $label | $(printf '%s\n' "${po[@]}" | mmm %.1f) | $(printf '%s\n' "${pa[@]}" | mmm %.1f) | $(printf '%s\n' "${pw[@]}" | mmm %.1f) | $(printf '%s\n' "${pf[@]}" | mmm %.2f) | $(printf '%s\n' "${pr[@]}" | mmm %.2f) |"
    done
    echo
    echo "trace: $(awk -v r="$rec" -v f="$file" -v c="$calls" 'BEGIN{printf "%.2f bytes of records, %.2f of file per call", r/c, f/c}') (supplier on)"
}

bench_programs "$W/fib" supply.sh
