#!/usr/bin/env bash
# The tracer against the floor any timestamping tracer pays: per call, what
# calltrace costs over empty hooks (bench/overhead_noop.c), divided by what
# bench/overhead_floor.c (rdtsc and an 8-byte store into a ring that stays
# in cache, per event) costs over the same empty hooks; uftrace record
# beside them.  On fib (bench/overhead_fib.c) and on Lua and SQLite built
# from Debian's sources (bench/realprog.sh).  A third preload,
# bench/overhead_floor_file.c, keeps the floor's stores in a file as
# calltrace does (its bytes per event, 1 MiB blocks mapped MAP_SHARED):
# what any tracer whose trace survives SIGKILL in a file pays at least.  A
# fourth, bench/overhead_floor_recorder.c, keeps them through a shared ring
# that a recorder process copies into a file with write(), the design
# uftrace and LTTng use; its CPU time is counted with the program's.
#   bench/floor.sh [ROUNDS]     (BUILD=build-x, BASE=old/libcalltrace.so,
#                                PROGS="fib lua sqlite", FIB_N=32,
#                                LUA_SCALE=25, SQLITE_ROWS=100000,
#                                UFTRACE=0 to leave uftrace out)
# Each round runs every variant once, in turn, after a sync; times are the
# child's CPU time (user + system, wait4), which other processes on a
# shared machine disturb less than elapsed time.  Ratios are taken within
# a round and given as min / median / max over the rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${1:-5}
bench_setup
have_uftrace=0
[ "${UFTRACE:-1}" != 0 ] && command -v uftrace >/dev/null 2>&1 && have_uftrace=1

gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/floor.so" bench/overhead_floor.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/floorfile.so" bench/overhead_floor_file.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/floorrec.so" bench/overhead_floor_recorder.c

echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: BUILD=$BUILD${BASE:+ BASE=$BASE} PROGS=\"${PROGS:-fib lua sqlite}\" FIB_N=${FIB_N:-32} LUA_SCALE=${LUA_SCALE:-25} SQLITE_ROWS=${SQLITE_ROWS:-100000} bench/floor.sh $ROUNDS"

# NAME CMD...: "cpu_ns" of one run
cpu_ns() { local w c; sync; read -r w c < <(wall_cpu_ns "$@"); echo "$c"; }

# min / median / max of the numbers on stdin, with FORMAT
mmm() { sort -g | awk -v f="$1" '{v[NR]=$1} END{printf f " / " f " / " f, v[1], v[int((NR+1)/2)], v[NR]}'; }

bench_prog() {  # NAME CMD...
    local name=$1 r noop floor ours base uft calls rec file ffile frec milli
    shift
    local -a over_floor=() ours_floor=() base_floor=() uft_floor=() ns_ours=() ns_floor=() ns_uft=() ns_base=()
    local -a ns_ffile=() ffile_floor=() ns_frec=() frec_floor=()
    for ((r = 0; r < ROUNDS; r++)); do
        noop=$(cpu_ns env LD_PRELOAD="$W/noop.so" "$@")
        floor=$(cpu_ns env LD_PRELOAD="$W/floor.so" "$@")
        rm -f "$W"/t.raw*
        ours=$(cpu_ns env CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$@")
        if [ -n "${BASE:-}" ]; then
            rm -f "$W"/b.raw*
            base=$(cpu_ns env CALLTRACE_OUTPUT="$W/b.raw" LD_PRELOAD="$BASE" "$@")
        fi
        if [ $have_uftrace = 1 ]; then
            rm -rf "$W/uftrace.data"
            uft=$(cpu_ns uftrace record -d "$W/uftrace.data" "$@")
        fi
        if [ "$r" = 0 ]; then
            calls=$(( $("$REPORT" -p "$W/t.raw" | awk '/^ Events:/ && !n {print $2; n = 1}') / 2 ))
            read -r rec file < <(trace_bytes "$W/t.raw")
            ufb=0
            [ $have_uftrace = 1 ] && ufb=$(du -sb "$W/uftrace.data" | cut -f1)
            # calltrace's record bytes per event, for the file floor
            milli=$(awk -v r="$rec" -v c="$calls" 'BEGIN{printf "%d", r * 1000 / (2 * c) + 0.5}')
        fi
        ffile=$(cpu_ns env FLOOR_BYTES_MILLI="$milli" FLOOR_FILE="$W/floor" \
            LD_PRELOAD="$W/floorfile.so" "$@")
        frec=$(cpu_ns env FLOOR_BYTES_MILLI="$milli" FLOOR_FILE="$W/floor-rec" \
            LD_PRELOAD="$W/floorrec.so" "$@")
        ns_floor+=("$(awk -v a="$floor" -v b="$noop" -v c="$calls" 'BEGIN{print (a-b)/c}')")
        ns_ours+=("$(awk -v a="$ours" -v b="$noop" -v c="$calls" 'BEGIN{print (a-b)/c}')")
        ours_floor+=("$(awk -v a="$ours" -v f="$floor" -v b="$noop" 'BEGIN{print (a-b)/(f-b)}')")
        ns_ffile+=("$(awk -v a="$ffile" -v b="$noop" -v c="$calls" 'BEGIN{print (a-b)/c}')")
        ffile_floor+=("$(awk -v a="$ffile" -v f="$floor" -v b="$noop" 'BEGIN{print (a-b)/(f-b)}')")
        ns_frec+=("$(awk -v a="$frec" -v b="$noop" -v c="$calls" 'BEGIN{print (a-b)/c}')")
        frec_floor+=("$(awk -v a="$frec" -v f="$floor" -v b="$noop" 'BEGIN{print (a-b)/(f-b)}')")
        over_floor+=("$(awk -v a="$ours" -v f="$floor" 'BEGIN{print a/f}')")
        if [ -n "${BASE:-}" ]; then
            ns_base+=("$(awk -v a="$base" -v b="$noop" -v c="$calls" 'BEGIN{print (a-b)/c}')")
            base_floor+=("$(awk -v a="$base" -v f="$floor" -v b="$noop" 'BEGIN{print (a-b)/(f-b)}')")
        fi
        if [ $have_uftrace = 1 ]; then
            ns_uft+=("$(awk -v a="$uft" -v b="$noop" -v c="$calls" 'BEGIN{print (a-b)/c}')")
            uft_floor+=("$(awk -v a="$uft" -v f="$floor" -v b="$noop" 'BEGIN{print (a-b)/(f-b)}')")
        fi
    done
    echo
    local shown="$*"
    shown=${shown//$W\//}
    shown=${shown//$PWD\//}
    echo "$name: $shown — $calls calls, $ROUNDS rounds, min / median / max"
    echo
    echo "| preload | CPU ns per call over empty hooks | that over the floor's | trace bytes per call |"
    echo "|---|---|---|---|"
    echo "| floor (rdtsc + 8-byte store) | $(printf '%s\n' "${ns_floor[@]}" | mmm %.1f) | 1 | 8 (not kept) |"
    echo "| floor, bytes kept in a file (calltrace's bytes, its page-cache work) | $(printf '%s\n' "${ns_ffile[@]}" | mmm %.1f) | $(printf '%s\n' "${ffile_floor[@]}" | mmm %.2f) | $(awk -v m="$milli" 'BEGIN{printf "%.2f", 2 * m / 1000}') |"
    echo "| floor, bytes copied to a file by a recorder process (shared ring, \`write\`) | $(printf '%s\n' "${ns_frec[@]}" | mmm %.1f) | $(printf '%s\n' "${frec_floor[@]}" | mmm %.2f) | $(awk -v m="$milli" 'BEGIN{printf "%.2f", 2 * m / 1000}') |"
    echo "| calltrace | $(printf '%s\n' "${ns_ours[@]}" | mmm %.1f) | $(printf '%s\n' "${ours_floor[@]}" | mmm %.2f) | $(awk -v r="$rec" -v f="$file" -v c="$calls" 'BEGIN{printf "%.2f records, %.2f file", r/c, f/c}') |"
    [ -n "${BASE:-}" ] && echo "| BASE | $(printf '%s\n' "${ns_base[@]}" | mmm %.1f) | $(printf '%s\n' "${base_floor[@]}" | mmm %.2f) | |"
    [ $have_uftrace = 1 ] && echo "| uftrace record | $(printf '%s\n' "${ns_uft[@]}" | mmm %.1f) | $(printf '%s\n' "${uft_floor[@]}" | mmm %.2f) | $(awk -v b="$ufb" -v c="$calls" 'BEGIN{printf "%.2f", b/c}') |"
    echo
    echo "whole run, calltrace over floor: $(printf '%s\n' "${over_floor[@]}" | mmm %.2f)"
}

bench_programs "$W/fib" floor.sh
