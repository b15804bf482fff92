#!/usr/bin/env bash
# Cost of CALLTRACE_ARGS on the program's own functions in a build with
# the hooks (preload/args/site.c), CPU time, against the same program
# traced without it in the same run; uftrace's -A on a -pg build of the
# same source beside it, where installed (uftrace keeps no arguments of
# -finstrument-functions builds).
#   bench/args_site.sh [RUNS]    (BUILD=build-x to pick the library,
#                                 ARGS_N=2000000 calls, BASE_LIB=path:
#                                 another build's rows beside, in the
#                                 same rounds)
# Prints Markdown; the figures in BENCHMARKS.md come from it.  A second
# table times the calls in the process (the program's fastest of 20
# rounds of 200,000 calls, by the thread's CPU clock, the trace's block
# big enough for all): the tracer's path alone, which a loaded machine
# blurs less than the whole process's CPU time.
#
# bench/args_site_prog.c makes N calls of leaf(int), built gcc -O0 -g
# -finstrument-functions; leaf's parameter is in the frame slot its code
# stores %edi into (read from the code, as tests/e2e/args_dwarf.sh does).
# Rows: no CALLTRACE_ARGS (the baseline); a rule for a function never
# called (every call goes through the trampoline and the table look-up,
# and keeps nothing); leaf's int kept; and its return value too, caught
# where leaf returns to (its return address is at %rbp+8 at the hook's
# call, after gcc -O0's push %rbp; mov %rsp,%rbp: checked below).  In the
# process also a recursion of mid() 9 levels, each calling leaf: the
# returns above a leaf whose return was taken, which a trampoline that
# left by a ret made the CPU mispredict.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
. bench/lib.sh
bench_setup
N=${ARGS_N:-2000000}

gcc -std=gnu11 -O0 -g -finstrument-functions -o "$W/prog" bench/args_site_prog.c
gcc -std=gnu11 -O0 -g -pg -o "$W/prog_pg" bench/args_site_prog.c
slot=$(objdump -d --no-show-raw-insn "$W/prog" |
       awk '/<leaf>:/ { on = 1 } on && !done && /mov +%edi,-0x[0-9a-f]+\(%rbp\)/ {
                sub(/.*,-0x/, ""); sub(/\(.*/, ""); print; done = 1 }')
[ -n "$slot" ] || { echo "leaf: no store of %edi found" >&2; exit 1; }
loc="%rbp-$((16#$slot))"
CALLTRACE_OUTPUT="$W/t.raw" CALLTRACE_LIBCALLS=none LD_PRELOAD="$LIB" \
    CALLTRACE_ARGS="leaf@arg1/i32$loc,retval/i32%rbp+8" "$W/prog" 3
"$BUILD/calltrace-report" --tree "$W/t.raw" | grep 'leaf(2) = 3;' > /dev/null ||
    { echo "leaf's return value not kept: the place is wrong" >&2; exit 1; }
have_uftrace=0
command -v uftrace >/dev/null 2>&1 && have_uftrace=1

declare -A cpu

for ((r = 0; r < RUNS; r++)); do
    ct=(env CALLTRACE_OUTPUT="$W/t.raw" CALLTRACE_LIBCALLS=none LD_PRELOAD="$LIB")
    cpu_run base "${ct[@]}" "$W/prog" "$N"
    cpu_run other "${ct[@]}" CALLTRACE_ARGS="unused@arg1/i32$loc" "$W/prog" "$N"
    cpu_run int "${ct[@]}" CALLTRACE_ARGS="leaf@arg1/i32$loc" "$W/prog" "$N"
    cpu_run intret "${ct[@]}" CALLTRACE_ARGS="leaf@arg1/i32$loc,retval/i32%rbp+8" "$W/prog" "$N"
    if [ -n "${BASE_LIB:-}" ]; then
        bl=(env CALLTRACE_OUTPUT="$W/t.raw" CALLTRACE_LIBCALLS=none LD_PRELOAD="$BASE_LIB")
        cpu_run bbase "${bl[@]}" "$W/prog" "$N"
        cpu_run bint "${bl[@]}" CALLTRACE_ARGS="leaf@arg1/i32$loc" "$W/prog" "$N"
        cpu_run bintret "${bl[@]}" CALLTRACE_ARGS="leaf@arg1/i32$loc,retval/i32%rbp+8" "$W/prog" "$N"
    fi
    if [ $have_uftrace = 1 ]; then
        cpu_run ubase uftrace record --no-libcall -d "$W/u.data" "$W/prog_pg" "$N"
        cpu_run uint uftrace record --no-libcall -d "$W/u.data" -A 'leaf@arg1/i32' "$W/prog_pg" "$N"
        cpu_run uintret uftrace record --no-libcall -d "$W/u.data" -A 'leaf@arg1/i32' -R 'leaf@retval/i32' "$W/prog_pg" "$N"
    fi
done
# In the process: the fastest round of each, over RUNS runs in turn.
declare -A best
in_process() {  # NAME LIB [CALLTRACE_ARGS [deep]]
    best_run "$1" env CALLTRACE_BUFSIZE=256M CALLTRACE_CPUTIME=off \
        CALLTRACE_LIBCALLS=none CALLTRACE_OUTPUT="$W/r.raw" LD_PRELOAD="$2" \
        CALLTRACE_ARGS="${3:-}" "$W/prog" 200000 20 ${4:-}
}
for ((r = 0; r < RUNS; r++)); do
    in_process base "$LIB"
    in_process other "$LIB" "unused@arg1/i32$loc"
    in_process int "$LIB" "leaf@arg1/i32$loc"
    in_process intret "$LIB" "leaf@arg1/i32$loc,retval/i32%rbp+8"
    in_process dbase "$LIB" "" deep
    in_process dintret "$LIB" "leaf@arg1/i32$loc,retval/i32%rbp+8" deep
    if [ -n "${BASE_LIB:-}" ]; then
        in_process bbase "$BASE_LIB"
        in_process bint "$BASE_LIB" "leaf@arg1/i32$loc"
        in_process bintret "$BASE_LIB" "leaf@arg1/i32$loc,retval/i32%rbp+8"
        in_process bdbase "$BASE_LIB" "" deep
        in_process bdintret "$BASE_LIB" "leaf@arg1/i32$loc,retval/i32%rbp+8" deep
    fi
done

echo "$N calls of leaf(int), gcc -O0 -g, CPU time, median of $RUNS alternating runs"
echo
echo "| run | CPU (ms) | CPU ns per call vs its baseline | ratio to its baseline |"
echo "|---|---|---|---|"
cpu_row "calltrace, hooks, no CALLTRACE_ARGS (baseline)" base base
cpu_row "calltrace, hooks, a rule for a function never called (\`unused@arg1/i32$loc\`)" other base
cpu_row "calltrace, hooks, \`leaf@arg1/i32$loc\`" int base
cpu_row "calltrace, hooks, \`leaf@arg1/i32$loc,retval/i32%rbp+8\`" intret base
if [ -n "${BASE_LIB:-}" ]; then
    cpu_row "BASE_LIB, hooks, no CALLTRACE_ARGS (its baseline)" bbase bbase
    cpu_row "BASE_LIB, hooks, \`leaf@arg1/i32$loc\`" bint bbase
    cpu_row "BASE_LIB, hooks, \`leaf@arg1/i32$loc,retval/i32%rbp+8\`" bintret bbase
fi
if [ $have_uftrace = 1 ]; then
    cpu_row "uftrace record, -pg (its baseline)" ubase ubase
    cpu_row "uftrace record -A leaf@arg1/i32, -pg" uint ubase
    cpu_row "uftrace record -A leaf@arg1/i32 -R leaf@retval/i32, -pg" uintret ubase
fi
{
    echo "calltrace, hooks, no CALLTRACE_ARGS (baseline)|base|base"
    echo "calltrace, hooks, a rule for a function never called|other|base"
    echo "calltrace, hooks, \`leaf@arg1/i32$loc\`|int|base"
    echo "calltrace, hooks, \`leaf@arg1/i32$loc,retval/i32%rbp+8\`|intret|base"
    if [ -n "${BASE_LIB:-}" ]; then
        echo "BASE_LIB, hooks, no CALLTRACE_ARGS (its baseline)|bbase|bbase"
        echo "BASE_LIB, hooks, \`leaf@arg1/i32$loc\`|bint|bbase"
        echo "BASE_LIB, hooks, \`leaf@arg1/i32$loc,retval/i32%rbp+8\`|bintret|bbase"
    fi
    echo "calltrace, a recursion of mid() 9 levels, each calling leaf; ns per level, no CALLTRACE_ARGS|dbase|dbase"
    echo "calltrace, the same, \`leaf@arg1/i32$loc,retval/i32%rbp+8\`|dintret|dbase"
    if [ -n "${BASE_LIB:-}" ]; then
        echo "BASE_LIB, the recursion, no CALLTRACE_ARGS|bdbase|bdbase"
        echo "BASE_LIB, the recursion, \`leaf@arg1/i32$loc,retval/i32%rbp+8\`|bdintret|bdbase"
    fi
} | best_table "In the process: the fastest of 20 rounds of 200,000 calls, thread CPU time, over $RUNS runs"
