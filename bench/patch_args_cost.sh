#!/usr/bin/env bash
# What a CALLTRACE_ARGS rule adds to a patched call, in the process:
# bench/hook_cost.c (mid calls leaf(int) twice; a loop of calls timed by
# the program itself, the fastest of 20 rounds) built with
# `calltrace cflags --patchable` and run under the tracer with no rule,
# with leaf's argument kept, its return value kept, and both, each in
# turn, REPS times, the fastest run of each kept; with BASE=old/
# libcalltrace.so the same rows under that library, in the same rounds.
#   bench/patch_args_cost.sh [REPS]    (BUILD=build-x to pick the library)
# Prints Markdown: ns per leaf call over the same library's run without
# a rule (the program's figure is per call of mid and leaf alike, so the
# difference is counted over the two leaf calls of every three).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
REPS=${1:-7}
bench_setup
read -r -a flags <<< "$("$BUILD/calltrace" cflags --patchable)"
gcc -std=gnu11 -O2 "${flags[@]}" -o "$W/nops" bench/hook_cost.c
echo "CPU: $(awk -F': ' '/^model name/ && !done { print $2; done = 1 }' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: BUILD=$BUILD${BASE:+ BASE=$BASE} bench/patch_args_cost.sh $REPS"
rules=("none|" "arg|leaf@arg1/i32" "retval|leaf@retval/i32" "both|leaf@arg1/i32,retval/i32")
libs=(this)
[ -n "${BASE:-}" ] && libs+=(BASE)
declare -A best
for ((r = 0; r < REPS; r++)); do
    for lib in "${libs[@]}"; do
        so=$LIB
        [ "$lib" = BASE ] && so=$BASE
        for row in "${rules[@]}"; do
            name=${row%%|*} rule=${row#*|}
            rm -f "$W"/t.raw*
            v=$(CALLTRACE_LIBCALLS=none CALLTRACE_BUFSIZE=256M CALLTRACE_CPUTIME=off \
                CALLTRACE_OUTPUT="$W/t.raw" CALLTRACE_ARGS="$rule" LD_PRELOAD="$so" \
                "$W/nops" 100000 20)
            k=$lib/$name
            best[$k]=$(awk -v a="$v" -v b="${best[$k]:-1e9}" 'BEGIN { print (a < b) ? a : b }')
        done
    done
done
echo
head="| rule on leaf | this build: ns per call, over no rule per leaf call |"
line="|---|---|"
[ -n "${BASE:-}" ] && head+=" BASE: the same |" line+="---|"
echo "$head"
echo "$line"
for row in "${rules[@]}"; do
    name=${row%%|*} rule=${row#*|}
    out="| ${rule:-(none)} |"
    for lib in "${libs[@]}"; do
        out+=$(awk -v a="${best[$lib/$name]}" -v n="${best[$lib/none]}" \
            'BEGIN { printf " %.2f, +%.2f |", a, (a - n) * 3 / 2 }')
    done
    echo "$out"
done
