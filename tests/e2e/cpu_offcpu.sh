#!/usr/bin/env bash
# On-CPU and off-CPU time, against programs whose off-CPU time is known by
# construction (tests/programs/cpu_offcpu.c).  The bounds are generous:
# they check what is counted where, not how fast the machine is.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/off" "$PROGRAMS/cpu_offcpu.c" -O0

# ms of a figure and its unit (ns, us, ms, s).
ms() { awk -v v="$1" -v u="$2" 'BEGIN {
    f = u == "ns" ? 1e-6 : u == "us" ? 1e-3 : u == "ms" ? 1 : 1000
    printf "%.3f\n", v * f }'; }
# "wall on" (ms) of function F's call in a --tree with an ON-CPU column.
tree_call() { # TREE F
    local line
    line=$(grep -E "\| *($2\(\)( \{|;)|\} /\* $2 \*/)( \[tracer [^]]*\])?\$" "$1" |
           grep -E '^ *[0-9.]+ [num ]*s +[0-9.]+ [num ]*s' | sed -n 1p) ||
        fail "no timed call of $2 in $1"
    set -- $line
    echo "$(ms "$1" "$2") $(ms "$3" "$4")"
}
# true when awk says so of "a b": le/ge checks on ms figures.
check() { # WHAT EXPR a b
    awk -v a="$3" -v b="$4" "BEGIN { exit !($2) }" ||
        fail "$1: $2 does not hold for a=$3 b=$4"
}

for mode in sleep join busy; do
    run_traced "$T/$mode.raw" "$T/off" "$mode"
    "$REPORT_SAN" -b -p "$T/$mode.raw" > "$T/$mode.rep" || fail "$mode: report"
    "$REPORT_SAN" --tree --min-duration=1ms "$T/$mode.raw" > "$T/$mode.tree" ||
        fail "$mode: --tree"
done

if grep -q '^On-CPU: from context switches' "$T/sleep.rep"; then
    # a thread asleep 60 ms inside sleeper(): wall >= 55, off-CPU >= 40
    read -r wall on < <(tree_call "$T/sleep.tree" sleeper)
    check "sleeper wall" "a >= 55" "$wall" 0
    check "sleeper off-CPU" "a - b >= 40" "$wall" "$on"
    # main waits in pthread_join while spin() turns 50 ms of CPU time
    read -r wall on < <(tree_call "$T/join.tree" waiter)
    check "waiter off-CPU" "a - b >= 40" "$wall" "$on"
    read -r wall on < <(tree_call "$T/join.tree" spin)
    check "spin on-CPU" "b >= 40 && b <= 60 && b <= a" "$wall" "$on"
    # a busy loop: on-CPU is its 50 ms, whatever else the machine does
    read -r wall on < <(tree_call "$T/busy.tree" busy)
    check "busy on-CPU" "b >= 40 && b <= 60 && b <= a" "$wall" "$on"
    grep -q '^#   DURATION     ON-CPU     TID' "$T/busy.tree" ||
        fail "--tree: no ON-CPU heading"
    # --cpu: the flat profile of on-CPU time names what it shows
    "$REPORT_SAN" -b -p --cpu "$T/sleep.raw" > "$T/cpu.rep" || fail "--cpu"
    grep -q '^Every call timed; on-CPU times (off-CPU time left out)' \
        "$T/cpu.rep" || fail "--cpu: heading"
    # per thread: the sleeping thread is off the CPU >= 40 ms
    grep -qE '^  tid [0-9]+: .*\(elapsed\) .*\(on-CPU\) ([0-9.]+)ms\(off-CPU' \
        "$T/sleep.rep" || fail "no per-thread on-CPU line"
else
    grep -q '^On-CPU: per-thread CPU-time clock only' "$T/sleep.rep" ||
        fail "summary does not say how on-CPU time was kept"
    echo "note: context-switch records unavailable here; clock fallback tested only"
fi

# The fallback, forced: per-thread totals from the CPU-time clock.
CALLTRACE_CPUTIME=clock run_traced "$T/clock.raw" "$T/off" sleep
"$REPORT_SAN" -b -p "$T/clock.raw" > "$T/clock.rep" || fail "clock: report"
grep -q '^On-CPU: per-thread CPU-time clock only, not per function (CALLTRACE_CPUTIME=clock' \
    "$T/clock.rep" || fail "clock: summary does not say so: $(grep On-CPU "$T/clock.rep")"
# the sleeping thread: >= 40 ms off the CPU between its readings
offs=$(sed -nE 's/^  tid [0-9]+: .*\(on-CPU\) ([0-9.]+)(ns|us|ms|s)\(off-CPU\)$/\1 \2/p' \
       "$T/clock.rep")
[ -n "$offs" ] || fail "clock: no per-thread lines"
best=0
while read -r v u; do
    m=$(ms "$v" "$u")
    best=$(awk -v a="$m" -v b="$best" 'BEGIN { print (a > b ? a : b) }')
done <<< "$offs"
check "clock: sleeping thread off-CPU" "a >= 40" "$best" 0
! grep -q '^#   DURATION     ON-CPU' < <("$REPORT_SAN" --tree "$T/clock.raw") ||
    fail "clock: --tree claims per-call on-CPU figures"

# Nothing recorded: said so.
CALLTRACE_CPUTIME=off run_traced "$T/none.raw" "$T/off" busy
"$REPORT_SAN" -b -p "$T/none.raw" > "$T/none.rep" || fail "off: report"
grep -q '^On-CPU: not recorded' "$T/none.rep" || fail "off: summary silent"
# A trace from before on-CPU records reads as before, and says so; a
# stored trace with SWITCH records (a thread asleep 60 ms) reads the same
# on any machine.
"$REPORT_SAN" -b -p "$CT_ROOT/tests/formats/calltrace_small.raw" \
    > "$T/old.rep" 2>/dev/null || fail "old trace: report"
grep -q '^On-CPU: not recorded' "$T/old.rep" || fail "old trace: On-CPU line"
"$REPORT_SAN" -b -p "$CT_ROOT/tests/formats/calltrace_switch.raw" \
    > "$T/stored.rep" 2>/dev/null || fail "stored trace: report"
expect_eq "stored trace: threads asleep >= 40 ms" 2 \
    "$(sed -nE 's/^  tid [0-9]+: .*\(on-CPU\) ([0-9.]+)ms\(off-CPU.*/\1/p' \
       "$T/stored.rep" | awk '$1 >= 40' | wc -l)"
echo ok
