#!/usr/bin/env bash
# Two threads taking turns: --tree prints their calls in time order, each
# line with its thread's id; --threads --tree gives one section per thread
# in the order the report lists them; the call trees (names and nesting per
# thread) equal the program's and the dump's.
. "$(dirname "$0")/lib.sh"
CHECK="python3 $CT_ROOT/tests/e2e/views_check.py"
KEEP=main,worker_a,worker_b,step_a,step_b,leaf
build_traced "$T/threads" "$PROGRAMS/views_threads.c"
run_traced "$T/t.raw" "$T/threads" || fail "views_threads failed"
"$REPORT_SAN" --tree "$T/t.raw" > "$T/tree" || fail "--tree failed"
"$REPORT_SAN" --threads --tree "$T/t.raw" > "$T/tree.threads" ||
    fail "--threads --tree failed"
"$REPORT_SAN" --dump "$T/t.raw" > "$T/dump" || fail "--dump failed"

# Time order: the tree's calls, threads interleaved, are the dump's.
$CHECK tree-calls "$T/tree" $KEEP > "$T/tree.calls"
$CHECK dump-calls "$T/dump" $KEEP > "$T/dump.calls"
cmp -s "$T/dump.calls" "$T/tree.calls" ||
    fail "tree and dump differ: $(diff "$T/dump.calls" "$T/tree.calls" | head)"
# The turns are known by construction.
expect_eq "steps in time order" "step_a step_b step_a step_b step_a step_b" \
    "$(awk '$3 ~ /^step_/ {print $3}' "$T/tree.calls" | tr '\n' ' ' | sed 's/ $//')"

# Per thread, the whole tree.  A thread is known by its outermost
# function: the two workers start at about the same time, so which one's
# first call comes first (and takes T2) is the scheduler's choice.
per_thread() { grep "^$1 " "$2" | cut -d' ' -f2- | tr '\n' ';'; }
thread_of() { awk -v f="$1" '$2 == 0 && $3 == f { print $1; exit }' "$T/tree.calls"; }
for f in main worker_a worker_b; do
    [ -n "$(thread_of $f)" ] || fail "no thread starts in $f"
done
expect_eq "main's tree" "0 main call;1 leaf call;" "$(per_thread "$(thread_of main)" "$T/tree.calls")"
expect_eq "worker_a's tree" \
    "0 worker_a call;1 step_a call;2 leaf call;1 step_a call;2 leaf call;1 step_a call;2 leaf call;" \
    "$(per_thread "$(thread_of worker_a)" "$T/tree.calls")"
expect_eq "worker_b's tree" \
    "0 worker_b call;1 step_b call;2 leaf call;2 leaf call;1 step_b call;2 leaf call;2 leaf call;1 step_b call;2 leaf call;2 leaf call;" \
    "$(per_thread "$(thread_of worker_b)" "$T/tree.calls")"

# --threads: one section per thread, in the report's order, each holding
# exactly that thread's lines of the merged tree.
"$REPORT_SAN" --threads -b -p "$T/t.raw" | grep '^==== Thread' |
    sed 's/, .*//; s/) ====//' > "$T/report.sections"
grep '^==== Thread' "$T/tree.threads" | sed 's/, .*//; s/) ====//' > "$T/tree.sections"
expect_eq "sections" "$(cat "$T/report.sections")" "$(cat "$T/tree.sections")"
expect_eq "three sections" 3 "$(wc -l < "$T/tree.sections")"
for tid in $(sed 's/.*tid \([0-9]*\).*/\1/' "$T/tree.sections"); do
    awk -v s="tid $tid" '/^==== Thread/ { on = index($0, s " ") || index($0, s ")") } on' \
        "$T/tree.threads" | grep ' | ' > "$T/section.$tid"
    grep "\[ *$tid\] | " "$T/tree" > "$T/merged.$tid"
    n=$(wc -l < "$T/section.$tid")
    [ "$n" -gt 0 ] || fail "empty section for tid $tid"
    other=$(grep -vc "\[ *$tid\] | " "$T/section.$tid" || true)
    expect_eq "lines of other threads in tid $tid's section" 0 "$other"
    cmp -s "$T/section.$tid" "$T/merged.$tid" ||
        fail "tid $tid: section differs from its merged lines"
done
echo "two threads: time order and sections agree with the dump"
