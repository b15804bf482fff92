#!/usr/bin/env bash
# Frames that never returned (pthread_exit, _exit) and frames a forked
# child inherited: the report, --tree and --dump tell the same story.
#  - never returned: the report's "frames open at the end", the tree's
#    "never returned" closing lines and the dump's "never returned:" notes
#    name the same frames;
#  - inherited: the child's tree and dump show main and spawn as already
#    open, and the report counts only the child's own calls.
. "$(dirname "$0")/lib.sh"
CHECK="python3 $CT_ROOT/tests/e2e/views_check.py"
views() {   # RAW: writes RAW.tree, RAW.dump, RAW.report, RAW.*calls
    "$REPORT_SAN" --tree "$1" > "$1.tree" || fail "--tree $1"
    "$REPORT_SAN" --dump "$1" > "$1.dump" || fail "--dump $1"
    "$REPORT_SAN" -b "$1" > "$1.report" || fail "report $1"
    $CHECK tree-calls "$1.tree" "$2" > "$1.tree.calls"
    $CHECK dump-calls "$1.dump" "$2" > "$1.dump.calls"
    cmp -s "$1.tree.calls" "$1.dump.calls" ||
        fail "$1: tree and dump differ: $(diff "$1.dump.calls" "$1.tree.calls" | sed -n 1,10p)"
}
never_report() { sed -n 's/.* \([0-9]*\) frames open at the end$/\1/p' "$1.report"; }
never_tree() { sed -n 's/.*} \/\* \(.*\): never returned \*\/.*/\1/p; s/.* \(.*\)(); \/\* never returned \*\/.*/\1/p' "$1.tree" | tr '\n' ' '; }
never_dump() { sed -n 's/^[0-9.]* V[0-9]* never returned: //p' "$1.dump" | tr '\n' ' '; }
per_thread() { grep "^$1 " "$2" | cut -d' ' -f2- | tr '\n' ';'; }

build_traced "$T/exit" "$PROGRAMS/views_exit.c"
KEEP=main,worker,inner,leaf,run,stop

# pthread_exit inside worker -> inner: two frames never return.
run_traced "$T/thr.raw" "$T/exit" || fail "views_exit failed"
views "$T/thr.raw" $KEEP
expect_eq "thread: report" 2 "$(never_report "$T/thr.raw")"
expect_eq "thread: tree" "inner worker " "$(never_tree "$T/thr.raw")"
expect_eq "thread: dump" "inner worker " "$(never_dump "$T/thr.raw")"
expect_eq "thread: main's tree" "0 main call;1 leaf call;" \
    "$(per_thread T1 "$T/thr.raw.tree.calls")"
expect_eq "thread: worker's tree" "0 worker call;1 leaf call;1 inner call;2 leaf call;" \
    "$(per_thread T2 "$T/thr.raw.tree.calls")"
grep -q '\] | } /\* main \*/' "$T/thr.raw.tree" ||
    fail "thread: main did return"

# _exit inside main -> run -> stop: three frames never return.
set +e
run_traced "$T/ex.raw" "$T/exit" exit; rc=$?
set -e
expect_eq "_exit status" 3 "$rc"
views "$T/ex.raw" $KEEP
expect_eq "_exit: report" 3 "$(never_report "$T/ex.raw")"
expect_eq "_exit: tree" "stop run main " "$(never_tree "$T/ex.raw")"
expect_eq "_exit: dump" "stop run main " "$(never_dump "$T/ex.raw")"
expect_eq "_exit: tree" "0 main call;1 run call;2 leaf call;2 stop call;3 leaf call;" \
    "$(per_thread T1 "$T/ex.raw.tree.calls")"

# fork: the child inherits main and spawn open.
build_traced "$T/fork" "$PROGRAMS/views_fork.c"
run_traced "$T/f.raw" "$T/fork" || fail "views_fork failed"
child=$(ls "$T"/f.raw.* | sed -n 1p)
[ -f "$child" ] || fail "no child trace"
KEEP=main,spawn,child_work,leaf
views "$child" $KEEP
expect_eq "child's tree" \
    "0 main open;1 spawn open;2 child_work call;3 leaf call;2 child_work call;3 leaf call;" \
    "$(per_thread T1 "$child.tree.calls")"
grep -q '| } /\* main \*/' "$child.tree" || fail "child: main's return not shown"
expect_eq "child: nothing never returned" 0 "$(never_report "$child")"
expect_eq "child: calls counted" 4 \
    "$(sed -n 's/^ Events: [0-9]* (\([0-9]*\) calls.*/\1/p' "$child.report")"
# main and spawn: no calls in the flat profile (the calls column is empty)
for f in main spawn; do
    n=$(awk -v f="$f" '/^Flat profile/ { on = 1 } on && NF > 1 && $(NF-1) == f { print NF; exit }' "$child.report")
    expect_eq "child: fields of $f's flat line (no calls)" 5 "$n"
done
views "$T/f.raw" $KEEP
expect_eq "parent's tree" "0 main call;1 spawn call;2 leaf call;" \
    "$(per_thread T1 "$T/f.raw.tree.calls")"
echo "never returned and inherited frames agree in report, tree and dump"
