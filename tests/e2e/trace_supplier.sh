#!/usr/bin/env bash
# The block supplier (CALLTRACE_SUPPLIER, preload/stream/supply.c): it starts
# in a process that switches blocks, holds none of the program's descriptors,
# is never seen by wait(), starts anew in a forked child, and changes
# nothing in what the trace tells: the same calls with it and without,
# after SIGKILL, with threads and under CALLTRACE_LIMIT.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/work" "$PROGRAMS/supply_work.c"
# 4 KiB blocks: a block switch every few hundred calls.
export CALLTRACE_BUFSIZE=4K CALLTRACE_SUPPLIER=1
# name and calls of every function of the flat profile
flat_calls() { "$REPORT" -b -p "$1" | awk '$NF ~ /^\[[0-9]+\]$/ {print $(NF-1), $4}' | sort; }
leaf_calls() { flat_calls "$1" | awk '$1=="leaf" {print $2}'; }
lost() { "$REPORT" -b "$1" | sed -n 's/.*Lost events: \([0-9]*\).*/\1/p' | sed -n 1p; }

# Threads: the same calls with the supplier and without.
for s in 1 0; do
    CALLTRACE_SUPPLIER=$s run_traced "$T/t$s.raw" "$T/work" 4 20000 return \
        > "$T/out$s" || fail "supplier=$s: exit status $?"
    expect_eq "supplier=$s: leaf calls" 80000 "$(leaf_calls "$T/t$s.raw")"
done
has '^parent: suppliers 1 fds 0$' < "$T/out1" ||
    fail "one supplier holding no descriptor: $(cat "$T/out1")"
has '^parent: suppliers 0 ' < "$T/out0" || fail "CALLTRACE_SUPPLIER=0: $(cat "$T/out0")"
expect_eq "the same calls of every function" "$(flat_calls "$T/t0.raw")" \
    "$(flat_calls "$T/t1.raw")"

# A short process never starts one.
run_traced "$T/short.raw" "$T/work" 1 10 return > "$T/out" || fail "short run"
has '^parent: suppliers 0 ' < "$T/out" || fail "short run started a supplier: $(cat "$T/out")"

# fork: the child starts its own, and each trace has its own calls.
run_traced "$T/f.raw" "$T/work" 1 20000 fork > "$T/out" || fail "fork run"
has '^parent: suppliers 1 ' < "$T/out" || fail "parent: $(cat "$T/out")"
has '^child: suppliers 1 ' < "$T/out" || fail "child: $(cat "$T/out")"
expect_eq "parent's leaf calls" 20000 "$(leaf_calls "$T/f.raw")"
child=$(ls "$T"/f.raw.* | sed -n 1p)
expect_eq "child's leaf calls" 20000 "$(leaf_calls "$child")"

# SIGKILL of the program and its supplier (the process group): every
# call made before it is in the trace.
mkfifo "$T/said"
setsid bash -c 'CALLTRACE_OUTPUT='"$T"'/k.raw LD_PRELOAD='"$LIB"' exec '"$T"'/work 2 20000 hang' \
    > "$T/said" 2>/dev/null &
read -r _ < "$T/said"
pgid=$(ps -o pgid= -p $! | tr -d ' ')
kill -KILL -- "-$pgid"
{ wait $! || true; } 2>/dev/null
"$REPORT" -b "$T/k.raw" > "$T/rk" 2> "$T/rk.err" || fail "report after SIGKILL: $(cat "$T/rk.err")"
expect_eq "leaf calls after SIGKILL" 40000 "$(leaf_calls "$T/k.raw")"

# CALLTRACE_LIMIT: the file stays within it, and every call is either in
# the trace or counted lost.
CALLTRACE_LIMIT=256K run_traced "$T/l.raw" "$T/work" 2 40000 return > /dev/null 2>&1 ||
    fail "limited run"
size=$(stat -c %s "$T/l.raw")
[ "$size" -le 262144 ] || fail "file of $size bytes passes the 256K limit"
kept=$(leaf_calls "$T/l.raw")
[ -n "$kept" ] && [ "$kept" -gt 0 ] && [ "$kept" -lt 80000 ] || fail "leaf calls kept under the limit: '$kept'"
[ "$(lost "$T/l.raw")" -gt 0 ] || fail "no lost events counted under the limit"
echo "trace_supplier: ok"
