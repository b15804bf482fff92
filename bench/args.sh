#!/usr/bin/env bash
# Cost of CALLTRACE_ARGS on library calls, CPU time, against the same
# program traced without it in the same run (and uftrace's -A, where
# installed, against uftrace without it).
#   bench/args.sh [RUNS]        (BUILD=build-x to pick the library,
#                                LIBCALLS_N=2000000 library calls,
#                                BASE_LIB=path: also a tracer built before
#                                CALLTRACE_ARGS, for the no-rule row;
#                                PREV_LIB=path: another build's kept
#                                integer beside, in the second table)
# Prints Markdown; the figures in BENCHMARKS.md come from it.  A second
# table times the calls in the process (the program's fastest of 20
# rounds of 200,000 calls, by the thread's CPU clock, the trace's block
# big enough for all): the tracer's path alone, which a loaded machine
# blurs less than the whole process's CPU time.
#
# bench/libcalls_prog.c makes N calls of lib_step(int) through the PLT.
# Rows: no CALLTRACE_ARGS (the baseline); a spec with no rule for
# lib_step (what every call without a rule pays: one branch at the call
# and one at the return); lib_step's int argument kept; argument and
# return value kept.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
. bench/lib.sh
bench_setup
N=${LIBCALLS_N:-2000000}

gcc -std=gnu11 -O2 -shared -fPIC -o "$W/liblibcalls.so" bench/libcalls_lib.c
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/prog" bench/libcalls_prog.c \
    -L"$W" -llibcalls -Wl,-rpath,"$W"
have_uftrace=0
command -v uftrace >/dev/null 2>&1 && have_uftrace=1

declare -A cpu

for ((r = 0; r < RUNS; r++)); do
    ct=(env CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB")
    cpu_run base "${ct[@]}" "$W/prog" "$N"
    cpu_run norule "${ct[@]}" CALLTRACE_ARGS='no_such_function@arg1' "$W/prog" "$N"
    cpu_run int "${ct[@]}" CALLTRACE_ARGS='lib_step@arg1/i32' "$W/prog" "$N"
    cpu_run intret "${ct[@]}" CALLTRACE_ARGS='lib_step@arg1/i32,retval/i32' "$W/prog" "$N"
    if [ -n "${BASE_LIB:-}" ]; then
        cpu_run before env CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$BASE_LIB" "$W/prog" "$N"
    fi
    if [ $have_uftrace = 1 ]; then
        cpu_run ubase uftrace record -d "$W/u.data" "$W/prog" "$N"
        cpu_run uint uftrace record -d "$W/u.data" -A 'lib_step@arg1/i32' "$W/prog" "$N"
        cpu_run uintret uftrace record -d "$W/u.data" -A 'lib_step@arg1/i32' -R 'lib_step@retval/i32' "$W/prog" "$N"
    fi
done
# In the process: the fastest round of each, over RUNS runs in turn.
declare -A best
in_process() {  # NAME LIB [CALLTRACE_ARGS]
    best_run "$1" env CALLTRACE_BUFSIZE=256M CALLTRACE_CPUTIME=off \
        CALLTRACE_OUTPUT="$W/r.raw" LD_PRELOAD="$2" CALLTRACE_ARGS="${3:-}" \
        "$W/prog" 200000 20
}
for ((r = 0; r < RUNS; r++)); do
    in_process base "$LIB"
    in_process int "$LIB" 'lib_step@arg1/i32'
    in_process intret "$LIB" 'lib_step@arg1/i32,retval/i32'
    if [ -n "${PREV_LIB:-}" ]; then
        in_process pbase "$PREV_LIB"
        in_process pint "$PREV_LIB" 'lib_step@arg1/i32'
    fi
done

echo "$N calls of lib_step(int) through the PLT, CPU time, median of $RUNS alternating runs"
echo
echo "| run | CPU (ms) | CPU ns per call vs its baseline | ratio to its baseline |"
echo "|---|---|---|---|"
cpu_row "calltrace, no CALLTRACE_ARGS (baseline)" base base
[ -n "${BASE_LIB:-}" ] && cpu_row "calltrace before CALLTRACE_ARGS existed" before base
cpu_row "calltrace, a spec with no rule for the function" norule base
cpu_row "calltrace, \`lib_step@arg1/i32\`" int base
cpu_row "calltrace, \`lib_step@arg1/i32,retval/i32\`" intret base
if [ $have_uftrace = 1 ]; then
    cpu_row "uftrace record (its baseline)" ubase ubase
    cpu_row "uftrace record -A lib_step@arg1/i32" uint ubase
    cpu_row "uftrace record -A lib_step@arg1/i32 -R lib_step@retval/i32" uintret ubase
fi
{
    echo "calltrace, no CALLTRACE_ARGS (baseline)|base|base"
    echo "calltrace, \`lib_step@arg1/i32\`|int|base"
    echo "calltrace, \`lib_step@arg1/i32,retval/i32\`|intret|base"
    if [ -n "${PREV_LIB:-}" ]; then
        echo "PREV_LIB, no CALLTRACE_ARGS (its baseline)|pbase|pbase"
        echo "PREV_LIB, \`lib_step@arg1/i32\`|pint|pbase"
    fi
} | best_table "In the process: the fastest of 20 rounds of 200,000 calls, thread CPU time, over $RUNS runs"
