#!/usr/bin/env bash
# --hide=NAME leaves NAME out of every view and keeps its callees, as
# called by its caller: step_a (worker_a -> step_a -> leaf) hidden, the
# report's arc worker_a -> leaf carries step_a's three calls (3/10: leaf is called 10 times), the tree
# nests leaf under worker_a, the dump has no step_a line; a glob hides
# both steps.
. "$(dirname "$0")/lib.sh"
CHECK="python3 $CT_ROOT/tests/e2e/views_check.py"
build_traced "$T/threads" "$PROGRAMS/views_threads.c"
run_traced "$T/t.raw" "$T/threads" || fail "views_threads failed"
"$REPORT_SAN" --hide=step_a -b -q "$T/t.raw" > "$T/report" || fail "report"
"$REPORT_SAN" --hide=step_a --tree "$T/t.raw" > "$T/tree" || fail "--tree"
"$REPORT_SAN" --hide=step_a --dump "$T/t.raw" > "$T/dump" || fail "--dump"
! grep -q step_a "$T/report" "$T/tree" "$T/dump" || fail "step_a still shown"
# the call graph's entry of leaf lists worker_a as a caller, 3 calls of 7
grep -Eq '^ +[0-9.]+ +[0-9.]+ +3/10 +worker_a \[' "$T/report" ||
    fail "no arc worker_a -> leaf with 3/10 calls: $(grep -n 'worker_a' "$T/report" | head)"
per_thread() { grep "^$1 " "$2" | cut -d' ' -f2- | tr '\n' ';'; }
KEEP=main,worker_a,worker_b,step_b,leaf
$CHECK tree-calls "$T/tree" $KEEP > "$T/tree.calls"
$CHECK dump-calls "$T/dump" $KEEP > "$T/dump.calls"
cmp -s "$T/tree.calls" "$T/dump.calls" || fail "tree and dump differ"
# Threads are labelled in the order their first call appears, and the two
# workers may start in either order: find worker_a's by its first call.
ta=$(grep -m1 '^T[0-9]* 0 worker_a call$' "$T/tree.calls" | cut -d' ' -f1)
expect_eq "worker_a's tree" "0 worker_a call;1 leaf call;1 leaf call;1 leaf call;" \
    "$(per_thread "$ta" "$T/tree.calls")"
"$REPORT_SAN" --hide='step_*' --tree "$T/t.raw" > "$T/tree2" || fail "--tree glob"
! has step_ "$T/tree2" || fail "--hide='step_*' left a step"
expect_eq "leaves one level down (3 + 6 under the workers, 1 under main)" 10 "$(grep -c '\] |   leaf();' "$T/tree2")"
echo "--hide: the same calls left out of report, tree and dump"
